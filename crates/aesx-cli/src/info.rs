//! `aesx info`: the CPU, the features aesx cares about, the backends this
//! machine can run, the x86 kernels' schedule and the backend used by
//! default.

use std::process::ExitCode;

use aesx::{Backend, Schedule};

use crate::{outln, CommandError};

/// Arguments of `aesx info`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aesx info`.
pub fn run(_args: Args) -> Result<ExitCode, CommandError> {
    outln!("cpu:       {}", cpu_model());
    outln!("arch:      {}", std::env::consts::ARCH);
    let feats: Vec<String> = features()
        .iter()
        .map(|(name, has)| format!("{name}{}", if *has { "" } else { " (no)" }))
        .collect();
    outln!(
        "features:  {}",
        if feats.is_empty() {
            "(none detected on this architecture)".to_string()
        } else {
            feats.join(" ")
        }
    );
    let all: Vec<String> = Backend::ALL
        .iter()
        .map(|b| {
            if b.is_available() {
                b.name().to_string()
            } else {
                format!("{} (unavailable)", b.name())
            }
        })
        .collect();
    outln!("backends:  {}", all.join(" "));
    #[cfg(feature = "cuda")]
    outln!("gpu:       cuda built in (--backend cuda; the driver is loaded only then)");
    #[cfg(not(feature = "cuda"))]
    outln!("gpu:       not in this build (built without the cuda feature: no --backend cuda)");
    outln!("schedule:  {}", schedule_line());
    let fastest = Backend::fastest();
    // The library reads no environment variable: the CLI's own parser does,
    // as every other subcommand uses it.
    match crate::backend_arg::env_cpu() {
        Ok(Some(b)) => {
            outln!("default:   {b} (forced by AESX_BACKEND; fastest here is {fastest})");
            Ok(ExitCode::SUCCESS)
        }
        Ok(None) => {
            outln!("default:   {fastest} (fastest available; set AESX_BACKEND to force one)");
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            let raw = crate::backend_arg::env_name().ok().flatten();
            outln!(
                "default:   none: AESX_BACKEND={} is refused",
                raw.unwrap_or("(not UTF-8)")
            );
            // `info` reports a refused value as a failure (exit 1), whether
            // the name is unknown or names a backend this machine lacks.
            let (CommandError::Usage(msg) | CommandError::Failure(msg)) = e;
            Err(CommandError::failure(msg))
        }
    }
}

/// The x86 kernels' schedule, where it came from, and the CPUID values
/// that chose it.
fn schedule_line() -> String {
    let detected = Schedule::detected();
    let cpuid = match Schedule::cpu_id() {
        Some((vendor, family, model)) => format!(
            "CPUID {} family {family} model {model}",
            String::from_utf8_lossy(&vendor)
        ),
        None => "no CPUID on this architecture".to_string(),
    };
    match Schedule::forced() {
        Some(s) => format!("{s} (forced by AESX_SCHEDULE; {cpuid} gives {detected})"),
        None => {
            format!("{detected} (from {cpuid}; set AESX_SCHEDULE to force zen, intel or generic)")
        }
    }
}

/// The CPU's model name from /proc/cpuinfo (x86 `model name`; on ARM,
/// `Hardware`/`Processor` or the implementer and part numbers).
fn cpu_model() -> String {
    let Ok(text) = std::fs::read_to_string("/proc/cpuinfo") else {
        return "unknown (no /proc/cpuinfo)".to_string();
    };
    let field = |name: &str| {
        text.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim() == name && !v.trim().is_empty()).then(|| v.trim().to_string())
        })
    };
    if let Some(m) = field("model name") {
        // Virtual machines often shorten the brand string; family and model
        // still say which microarchitecture it is.
        return match (field("cpu family"), field("model")) {
            (Some(f), Some(n)) => format!("{m} (family {f}, model {n})"),
            _ => m,
        };
    }
    if let Some(m) = field("Hardware") {
        return m;
    }
    match (field("CPU implementer"), field("CPU part")) {
        (Some(i), Some(p)) => format!("implementer {i}, part {p}"),
        _ => "unknown".to_string(),
    }
}

/// `(name, detected)` for each feature name, through the architecture's
/// detection macro `$has` (which takes the name as a literal).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
macro_rules! detected {
    ($has:ident, $($name:tt),*) => {
        vec![$(($name, $has!($name))),*]
    };
}

/// The CPU features that decide which backends can run.
#[cfg(target_arch = "x86_64")]
fn features() -> Vec<(&'static str, bool)> {
    use std::arch::is_x86_feature_detected as has;
    detected!(
        has,
        "aes",
        "pclmulqdq",
        "avx2",
        "vaes",
        "vpclmulqdq",
        "avx512f",
        "avx512bw",
        "avx512vl"
    )
}

/// The CPU features that decide which backends can run.
#[cfg(target_arch = "aarch64")]
fn features() -> Vec<(&'static str, bool)> {
    use std::arch::is_aarch64_feature_detected as has;
    detected!(has, "aes", "pmull", "sha3")
}

/// The CPU features that decide which backends can run.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn features() -> Vec<(&'static str, bool)> {
    Vec::new()
}
