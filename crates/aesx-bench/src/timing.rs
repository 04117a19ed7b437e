//! Clocks: the monotonic clock times everything; a cycle counter, calibrated
//! against it once, turns seconds into cycles per byte.
//!
//! On x86-64 the counter is the TSC. With an invariant TSC (CPUID
//! 0x8000_0007 EDX bit 8) it ticks at a fixed nominal rate whatever the core
//! clock does, so "cycles" here are TSC cycles: the same as core cycles only
//! when the core runs at the nominal frequency (boost makes real core cycles
//! per byte higher, power saving lower). On AArch64 the counter is the
//! generic timer (CNTVCT_EL0, ticking at CNTFRQ, typically 24 MHz to 1 GHz),
//! which is not the core clock at all, so its "cycles" are labelled as timer
//! ticks. The counter is read through the `quanta` crate, which keeps the
//! `unsafe` needed for RDTSC / MRS out of this crate.

use std::time::{Duration, Instant};

/// What the counter is and how fast it ticks.
#[derive(Clone, Debug)]
pub struct ClockInfo {
    /// Human name of the counter.
    pub source: &'static str,
    /// Counter frequency in Hz, calibrated against the monotonic clock;
    /// `None` when there is no usable counter.
    pub hz: Option<f64>,
    /// How to label a cycles-per-byte column derived from it.
    pub label: &'static str,
}

impl ClockInfo {
    /// Calibrates the counter against the monotonic clock over about
    /// `3 × window`; the median of three windows is kept.
    pub fn calibrate(window: Duration) -> ClockInfo {
        let (source, label, usable) = counter_kind();
        if !usable {
            return ClockInfo {
                source,
                hz: None,
                label,
            };
        }
        let clock = quanta::Clock::new();
        let mut rates = Vec::with_capacity(3);
        for _ in 0..3 {
            let t0 = Instant::now();
            let c0 = clock.raw();
            // Spin rather than sleep: this also wakes the core up before the
            // first measurement.
            while t0.elapsed() < window {
                std::hint::spin_loop();
            }
            let c1 = clock.raw();
            let dt = t0.elapsed().as_secs_f64();
            rates.push(c1.wrapping_sub(c0) as f64 / dt);
        }
        rates.sort_by(f64::total_cmp);
        let hz = rates[1];
        ClockInfo {
            source,
            hz: (hz.is_finite() && hz > 1e6).then_some(hz),
            label,
        }
    }

    /// One line for the top of a report, in the spirit of Apple's tstaes
    /// printing its clock.
    pub fn describe(&self) -> String {
        match self.hz {
            Some(hz) => format!(
                "{} at {:.4} GHz (calibrated against the monotonic clock); c/B = {}",
                self.source,
                hz / 1e9,
                self.label
            ),
            None => format!("{}: c/B not available", self.source),
        }
    }

    /// Cycles (or ticks) per byte at a throughput of `bytes_per_s`.
    pub fn per_byte(&self, bytes_per_s: f64) -> Option<f64> {
        self.hz
            .filter(|_| bytes_per_s > 0.0)
            .map(|hz| hz / bytes_per_s)
    }
}

#[cfg(target_arch = "x86_64")]
fn counter_kind() -> (&'static str, &'static str, bool) {
    // The same test quanta applies before it trusts the TSC: invariant TSC
    // and RDTSCP. Without them `quanta` falls back to the monotonic clock and
    // a "frequency" of 1 GHz would be meaningless.
    let max_ext = std::arch::x86_64::__cpuid(0x8000_0000).eax;
    let invariant =
        max_ext >= 0x8000_0007 && std::arch::x86_64::__cpuid(0x8000_0007).edx & (1 << 8) != 0;
    let rdtscp =
        max_ext >= 0x8000_0001 && std::arch::x86_64::__cpuid(0x8000_0001).edx & (1 << 27) != 0;
    if invariant && rdtscp {
        ("invariant TSC", "TSC cycles per byte (nominal clock)", true)
    } else {
        ("TSC not invariant", "", false)
    }
}

#[cfg(target_arch = "aarch64")]
fn counter_kind() -> (&'static str, &'static str, bool) {
    (
        "generic timer CNTVCT_EL0",
        "generic-timer ticks per byte (CNTFRQ, not core cycles)",
        true,
    )
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn counter_kind() -> (&'static str, &'static str, bool) {
    ("no cycle counter", "", false)
}

/// The CPU's model name (Linux `/proc/cpuinfo`), with the x86 family and
/// model numbers when the name alone is vague (virtual machines often say
/// just "AMD EPYC"; family 26 is Zen 5).
pub fn cpu_name() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let get = |key: &str| {
        info.lines()
            .find(|l| l.split(':').next().map(str::trim) == Some(key))
            .and_then(|l| l.split_once(':'))
            .map(|(_, v)| v.trim().to_string())
    };
    let name = get("model name")
        .or_else(|| get("Model"))
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    match (get("cpu family"), get("model")) {
        (Some(f), Some(m)) => format!("{name}, family {f} model {m}"),
        _ => name,
    }
}

/// Number of CPUs this process may use.
pub fn cpu_count() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The current UTC time as `YYYY-MM-DD HH:MM UTC`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// published algorithm).
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_414), (2025, 11, 22));
    }

    #[test]
    fn calibration_is_plausible() {
        let c = ClockInfo::calibrate(Duration::from_millis(5));
        if let Some(hz) = c.hz {
            assert!(hz > 1e6 && hz < 1e11, "{hz}");
            let cpb = c.per_byte(1e9).unwrap();
            assert!((cpb - hz / 1e9).abs() < 1e-9);
        }
    }
}
