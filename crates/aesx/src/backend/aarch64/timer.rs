//! The Arm generic timer, for benchmarks: AArch64 has no architectural cycle
//! counter readable from user space (PMCCNTR_EL0 is normally kernel-only), but
//! the virtual count CNTVCT_EL0 and its frequency CNTFRQ_EL0 are readable
//! on Linux and macOS. The timer ticks at a fixed rate (often 24 MHz to
//! 1 GHz), not at the core clock, so "cycles" derived from it are timer
//! ticks scaled by an assumed core frequency and must be labelled so.

/// Defines a reader of a generic-timer system register: `$asm`, ending
/// with an MRS into `{v}`.
macro_rules! timer_register {
    ($(#[$doc:meta])* $name:ident, $($asm:literal),+) => {
        $(#[$doc])*
        #[doc(hidden)]
        #[inline]
        pub fn $name() -> u64 {
            let v: u64;
            // SAFETY: CNTVCT_EL0 and CNTFRQ_EL0 are readable at EL0 on Linux
            // and macOS (the kernels set CNTKCTL_EL1.EL0VCTEN); ISB and MRS
            // touch no memory.
            unsafe {
                core::arch::asm!(
                    $($asm),+,
                    v = out(reg) v,
                    options(nomem, nostack, preserves_flags)
                )
            };
            v
        }
    };
}

timer_register!(
    /// The virtual timer count (CNTVCT_EL0), after an ISB so that the read
    /// is not hoisted above earlier instructions.
    ticks,
    "isb",
    "mrs {v}, cntvct_el0"
);

timer_register!(
    /// The timer frequency in Hz (CNTFRQ_EL0), as firmware programmed it.
    frequency,
    "mrs {v}, cntfrq_el0"
);
