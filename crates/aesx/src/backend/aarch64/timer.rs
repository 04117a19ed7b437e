//! The Arm generic timer, for benchmarks: AArch64 has no architectural cycle
//! counter readable from user space (PMCCNTR_EL0 is normally kernel-only), but
//! the virtual count CNTVCT_EL0 and its frequency CNTFRQ_EL0 are readable
//! on Linux and macOS. The timer ticks at a fixed rate (often 24 MHz to
//! 1 GHz), not at the core clock, so "cycles" derived from it are timer
//! ticks scaled by an assumed core frequency and must be labelled so.

/// The virtual timer count (CNTVCT_EL0), after an ISB so that the read is
/// not hoisted above earlier instructions.
#[doc(hidden)]
#[inline]
pub fn ticks() -> u64 {
    let v: u64;
    // SAFETY: CNTVCT_EL0 is readable at EL0 on Linux and macOS (the kernels
    // set CNTKCTL_EL1.EL0VCTEN); ISB and MRS touch no memory.
    unsafe {
        core::arch::asm!(
            "isb",
            "mrs {v}, cntvct_el0",
            v = out(reg) v,
            options(nomem, nostack, preserves_flags)
        )
    };
    v
}

/// The timer frequency in Hz (CNTFRQ_EL0), as firmware programmed it.
#[doc(hidden)]
#[inline]
pub fn frequency() -> u64 {
    let v: u64;
    // SAFETY: CNTFRQ_EL0 is readable at EL0 on Linux and macOS; MRS touches
    // no memory.
    unsafe {
        core::arch::asm!(
            "mrs {v}, cntfrq_el0",
            v = out(reg) v,
            options(nomem, nostack, preserves_flags)
        )
    };
    v
}
