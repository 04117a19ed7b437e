//! Which core the x86 kernels schedule for, where the best instruction
//! order depends on the microarchitecture and not only on the instruction
//! set: read from CPUID (vendor, family, model) once per process, never
//! timed, and forceable so that one machine runs every schedule.
//!
//! What differs today: whether PCLMULQDQ issues on a port of its own beside
//! the AES ports (Intel since Skylake: port 5, AESENC on ports 0 and 1 from
//! Ice Lake on) or on the AES pipes themselves (AMD Zen 1-5: on Zen 3 one
//! carry-less multiply per two cycles, each also taking an AES pipe's slot).
//! Where the multiplier is free, fewer other instructions win; where it
//! shares the AES pipes, fewer multiplies do:
//! - AES-NI XTS makes its next tweaks with one carry-less multiply per eight
//!   blocks on Intel, with a chain of doublings on the vector ALUs on Zen;
//! - AES-NI GCM-128 on Zen pairs its eight-block steps under one reduction,
//!   each product held between two AES rounds;
//! - VAES GCM on ymm multiplies Karatsuba-style on Zen (26 carry-less
//!   multiplies per 16 blocks instead of 34), schoolbook on Intel.
//!
//! The library reads no environment variable: a program that lets its user
//! force a schedule (the `aesx` CLI reads `AESX_SCHEDULE`, as it reads
//! `AESX_BACKEND`) parses the name and calls [`Schedule::force`]. Every
//! schedule runs on every CPU of the tier (they differ in order and in
//! counts, not in instruction set), so forcing one never needs a check.

use core::fmt;
use core::str::FromStr;
use core::sync::atomic::{AtomicU8, Ordering};

/// The core class the x86 kernels schedule for (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Schedule {
    /// AMD Zen (families 17h-1Ah) and Hygon Dhyana: PCLMULQDQ shares the
    /// AES pipes.
    Zen,
    /// Intel family 6 from Skylake on, and later families: PCLMULQDQ on a
    /// port of its own.
    Intel,
    /// Any other CPU (Intel Haswell and Broadwell, where PCLMULQDQ shares
    /// port 0 with AESENC; other vendors; other architectures): the orders
    /// that assume nothing, as on Zen.
    Generic,
}

/// No schedule forced; also the detection cache's "not yet".
const NONE: u8 = 0;

static FORCED: AtomicU8 = AtomicU8::new(NONE);
static DETECTED: AtomicU8 = AtomicU8::new(NONE);

impl Schedule {
    /// Every schedule, in the order `aesx info` lists them.
    pub const ALL: [Schedule; 3] = [Schedule::Zen, Schedule::Intel, Schedule::Generic];

    /// The lower-case name (`zen`, `intel`, `generic`), which
    /// [`str::parse`] takes back.
    pub fn name(self) -> &'static str {
        match self {
            Schedule::Zen => "zen",
            Schedule::Intel => "intel",
            Schedule::Generic => "generic",
        }
    }

    /// The schedule CPUID names for this CPU (cached after the first call).
    pub fn detected() -> Schedule {
        let mut code = DETECTED.load(Ordering::Relaxed);
        if code == NONE {
            code = Self::from_cpu(cpu_id()).code();
            DETECTED.store(code, Ordering::Relaxed);
        }
        Self::from_code(code).unwrap_or(Schedule::Generic)
    }

    /// The schedule the kernels run: the forced one, else the detected one.
    pub fn current() -> Schedule {
        Self::forced().unwrap_or_else(Self::detected)
    }

    /// The schedule forced by [`Schedule::force`], if any.
    pub fn forced() -> Option<Schedule> {
        Self::from_code(FORCED.load(Ordering::Relaxed))
    }

    /// Makes every later call of every key in this process run `schedule`
    /// (`None`: the detected one again). For tests and benchmarks; the
    /// output is the same under every schedule.
    pub fn force(schedule: Option<Schedule>) {
        FORCED.store(schedule.map_or(NONE, Schedule::code), Ordering::Relaxed);
    }

    /// The CPU's vendor string, family and model (the display values:
    /// extended family and model folded in) as CPUID reports them; `None`
    /// off x86-64.
    pub fn cpu_id() -> Option<([u8; 12], u32, u32)> {
        cpu_id()
    }

    /// The schedule for a CPU's vendor, family and model.
    fn from_cpu(id: Option<([u8; 12], u32, u32)>) -> Schedule {
        let Some((vendor, family, model)) = id else {
            return Schedule::Generic;
        };
        match &vendor {
            b"AuthenticAMD" | b"HygonGenuine" if (0x17..=0x1a).contains(&family) => Schedule::Zen,
            b"GenuineIntel" if family > 6 => Schedule::Intel,
            // Haswell and Broadwell (client and server models).
            b"GenuineIntel" if family == 6 => match model {
                0x3c | 0x3f | 0x45 | 0x46 | 0x3d | 0x47 | 0x4f | 0x56 => Schedule::Generic,
                m if m >= 0x4e => Schedule::Intel,
                _ => Schedule::Generic,
            },
            _ => Schedule::Generic,
        }
    }

    /// Whether PCLMULQDQ issues beside the AES rounds rather than on their
    /// pipes.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn clmul_beside_aes(self) -> bool {
        self == Schedule::Intel
    }

    fn code(self) -> u8 {
        self as u8 + 1
    }

    fn from_code(code: u8) -> Option<Schedule> {
        Self::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }
}

impl fmt::Display for Schedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A schedule name that aesx does not know; its message lists the names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownSchedule;

impl fmt::Display for UnknownSchedule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown schedule (expected one of ")?;
        for (i, s) in Schedule::ALL.iter().enumerate() {
            f.write_str(if i == 0 { "" } else { ", " })?;
            f.write_str(s.name())?;
        }
        f.write_str(")")
    }
}

#[cfg(feature = "std")]
impl std::error::Error for UnknownSchedule {}

impl FromStr for Schedule {
    type Err = UnknownSchedule;

    fn from_str(s: &str) -> Result<Schedule, UnknownSchedule> {
        Schedule::ALL
            .iter()
            .copied()
            .find(|x| x.name().eq_ignore_ascii_case(s.trim()))
            .ok_or(UnknownSchedule)
    }
}

/// CPUID leaf 0's vendor and leaf 1's display family and model.
#[cfg(target_arch = "x86_64")]
fn cpu_id() -> Option<([u8; 12], u32, u32)> {
    use core::arch::x86_64::{__cpuid, CpuidResult};
    // `__cpuid` is a safe function in current Rust and an unsafe one in
    // older releases that the MSRV still admits; the block serves those.
    #[allow(unused_unsafe)]
    let leaf = |n: u32| -> CpuidResult {
        // SAFETY: CPUID is part of x86-64, and leaves 0 and 1 exist on
        // every x86-64 CPU.
        unsafe { __cpuid(n) }
    };
    let l0 = leaf(0);
    let mut vendor = [0u8; 12];
    vendor[..4].copy_from_slice(&l0.ebx.to_le_bytes());
    vendor[4..8].copy_from_slice(&l0.edx.to_le_bytes());
    vendor[8..].copy_from_slice(&l0.ecx.to_le_bytes());
    let eax = leaf(1).eax;
    let base_family = (eax >> 8) & 0xf;
    let base_model = (eax >> 4) & 0xf;
    let family = if base_family == 0xf {
        base_family + ((eax >> 20) & 0xff)
    } else {
        base_family
    };
    let model = if base_family == 0x6 || base_family == 0xf {
        base_model | (((eax >> 16) & 0xf) << 4)
    } else {
        base_model
    };
    Some((vendor, family, model))
}

#[cfg(not(target_arch = "x86_64"))]
fn cpu_id() -> Option<([u8; 12], u32, u32)> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(v: &[u8; 12], f: u32, m: u32) -> Option<([u8; 12], u32, u32)> {
        Some((*v, f, m))
    }

    #[test]
    fn cpus_map_to_their_schedules() {
        let amd = b"AuthenticAMD";
        let intel = b"GenuineIntel";
        // Zen 2, Zen 3 (this project's EPYC), Zen 4, Zen 5.
        for (f, m) in [(0x17, 0x31), (25, 1), (25, 0x11), (0x1a, 0x02)] {
            assert_eq!(Schedule::from_cpu(id(amd, f, m)), Schedule::Zen);
        }
        assert_eq!(Schedule::from_cpu(id(amd, 0x15, 2)), Schedule::Generic);
        assert_eq!(
            Schedule::from_cpu(id(b"HygonGenuine", 0x18, 0)),
            Schedule::Zen
        );
        // Skylake-SP, Ice Lake-SP, Sapphire Rapids (Golden Cove), Rocket
        // Lake, Emerald Rapids.
        for m in [0x55, 0x6a, 0x8f, 0xa7, 0xcf] {
            assert_eq!(Schedule::from_cpu(id(intel, 6, m)), Schedule::Intel);
        }
        for m in [0x3c, 0x3f, 0x4f, 0x56, 0x2a] {
            assert_eq!(Schedule::from_cpu(id(intel, 6, m)), Schedule::Generic);
        }
        assert_eq!(Schedule::from_cpu(id(intel, 19, 1)), Schedule::Intel);
        assert_eq!(
            Schedule::from_cpu(id(b"CentaurHauls", 6, 0x0f)),
            Schedule::Generic
        );
        assert_eq!(Schedule::from_cpu(None), Schedule::Generic);
    }

    #[test]
    fn names_round_trip_and_codes_are_distinct() {
        for s in Schedule::ALL {
            assert_eq!(s.name().parse::<Schedule>(), Ok(s));
            assert_eq!(s.name().to_ascii_uppercase().parse::<Schedule>(), Ok(s));
            assert_eq!(Schedule::from_code(s.code()), Some(s));
        }
        assert_eq!(Schedule::from_code(NONE), None);
        assert_eq!("skylake".parse::<Schedule>(), Err(UnknownSchedule));
        assert_eq!(
            UnknownSchedule.to_string(),
            "unknown schedule (expected one of zen, intel, generic)"
        );
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn detection_reads_a_vendor() {
        let (vendor, family, _) = Schedule::cpu_id().unwrap();
        assert!(vendor.iter().all(u8::is_ascii_graphic), "{vendor:?}");
        assert!(family >= 6, "family {family}");
        assert_eq!(Schedule::detected(), Schedule::from_cpu(Schedule::cpu_id()));
    }
}
