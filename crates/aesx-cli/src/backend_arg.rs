//! Which backend(s) a subcommand runs on: `--backend NAME`, else the
//! environment variable `AESX_BACKEND`, else the default.
//!
//! An unknown name is a usage error (exit 2); a known backend that this
//! machine cannot run is a failure (exit 1), never a silent fallback.

use aesx::{Backend, Schedule};

use crate::CliError;

/// The names besides the CPU backends that every subcommand choosing a
/// backend recognises (a subcommand without a GPU path refuses it with its
/// own message).
pub const GPU_NAMES: &[&str] = &["cuda"];

/// [`GPU_NAMES`] and the CPU workers beside the GPU: what `encrypt` and
/// `decrypt` take.
pub const FILE_NAMES: &[&str] = &["cuda", "cpu+cuda"];

/// Parses a backend name and checks that this machine can run it. `source`
/// names where it came from (`--backend`, `AESX_BACKEND`) for the message;
/// `also` are the other names the subcommand takes, listed in it too.
pub fn parse_backend(name: &str, source: &str, also: &[&str]) -> Result<Backend, CliError> {
    if cfg!(not(feature = "cuda")) && is_cuda_name(name) {
        return Err(no_cuda(source));
    }
    let b: Backend = name.trim().parse().map_err(|_| {
        CliError::usage(format!(
            "{source}: unknown backend {name:?} (expected one of {})",
            [all_names()]
                .into_iter()
                .chain(also.iter().map(|s| s.to_string()))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    })?;
    b.require().map_err(|_| {
        CliError::failure(format!(
            "{source}: backend {b} is not available on this machine (available: {})",
            available_names()
        ))
    })
}

/// The backend forced by `--backend` or `AESX_BACKEND`, if either is set
/// (`also` as in [`parse_backend`]).
pub fn forced(arg: Option<&str>, also: &[&str]) -> Result<Option<Backend>, CliError> {
    if let Some(name) = arg {
        return parse_backend(name, "--backend", also).map(Some);
    }
    match std::env::var("AESX_BACKEND") {
        Ok(v) if !v.trim().is_empty() => parse_backend(&v, "AESX_BACKEND", also).map(Some),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(CliError::usage("AESX_BACKEND: not valid UTF-8"))
        }
    }
}

/// The backends to validate on: the forced one, or every available one.
pub fn selected_all(arg: Option<&str>) -> Result<Vec<Backend>, CliError> {
    Ok(match forced(arg, GPU_NAMES)? {
        Some(b) => vec![b],
        None => Backend::available().iter().collect(),
    })
}

/// The one backend to run on: the forced one, or the fastest.
pub fn selected_one(arg: Option<&str>, also: &[&str]) -> Result<Backend, CliError> {
    Ok(forced(arg, also)?.unwrap_or_else(Backend::fastest))
}

/// Every backend name aesx knows, for messages.
pub fn all_names() -> String {
    Backend::ALL.map(|b| b.name()).join(", ")
}

/// The backends this machine can run, for messages.
pub fn available_names() -> String {
    Backend::available()
        .iter()
        .map(|b| b.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The answer to `--backend cuda` for work without a GPU path (`what`: the
/// mode or suite), naming the CPU backends this machine has.
pub fn cpu_only(what: &str) -> CliError {
    CliError::usage(format!(
        "--backend cuda: {what} runs on the CPU only (choose one of {}, or leave --backend out)",
        available_names()
    ))
}

/// Where a command that can reach the GPU runs: an aesx CPU backend, or
/// `cuda` (aesx-cuda). `cuda` is a choice of the command line only; the
/// library's [`Backend`] has no GPU variant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// A CPU backend of the library.
    Cpu(Backend),
    /// The GPU through aesx-cuda.
    #[cfg(feature = "cuda")]
    Cuda,
}

impl Choice {
    /// The CPU backend for the parts that stay on the CPU (CBC encryption,
    /// key setup, tails): the forced one, or the fastest next to a GPU.
    pub fn cpu(self) -> Backend {
        match self {
            Choice::Cpu(b) => b,
            #[cfg(feature = "cuda")]
            Choice::Cuda => Backend::fastest(),
        }
    }
}

/// The answer to `cuda` in a build without the `cuda` feature.
pub fn no_cuda(source: &str) -> CliError {
    CliError::usage(format!(
        "{source} cuda: this aesx was built without the `cuda` feature"
    ))
}

/// Whether a backend name means the GPU (`cuda` or `aesx-cuda`).
pub fn is_cuda_name(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    n == "cuda" || n == "aesx-cuda"
}

/// `--backend`, else `AESX_BACKEND`, else the fastest CPU backend, where
/// `cuda` is accepted too (`also`: the names an unknown one is told of
/// besides the CPU backends, [`GPU_NAMES`] or [`FILE_NAMES`]).
pub fn choose(arg: Option<&str>, also: &[&str]) -> Result<Choice, CliError> {
    #[cfg(feature = "cuda")]
    {
        let env = std::env::var("AESX_BACKEND").ok();
        let named = arg.or(env.as_deref().filter(|v| !v.trim().is_empty()));
        if named.is_some_and(is_cuda_name) {
            return Ok(Choice::Cuda);
        }
    }
    selected_one(arg, also).map(Choice::Cpu)
}

#[cfg(feature = "cuda")]
/// GPU 0 with the aesx kernels loaded (opened once per process). Without a
/// driver, a device or NVRTC this is a usage error (exit 2) of one line
/// that says which is missing, raised before any output is created.
pub fn open_gpu() -> Result<aesx_cuda::Gpu, CliError> {
    use std::sync::OnceLock;
    static GPU: OnceLock<Result<aesx_cuda::Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| aesx_cuda::Gpu::new(0).map_err(|e| gpu_unavailable(&e)))
        .clone()
        .map_err(CliError::usage)
}

#[cfg(feature = "cuda")]
/// One line for "the GPU cannot be used", whatever aesx-cuda said (an
/// NVRTC log can span many lines: only its first is kept).
pub fn gpu_unavailable(e: &aesx_cuda::CudaError) -> String {
    format!("--backend cuda: {}", e.first_line())
}

#[cfg(feature = "cuda")]
/// An aesx-cuda error while working (after the GPU was opened): invalid
/// requests read as the CPU library's errors do; the rest as GPU failures.
pub fn gpu_error(e: aesx_cuda::CudaError) -> CliError {
    match e {
        aesx_cuda::CudaError::Aes(e) => e.into(),
        other => {
            CliError::failure(gpu_unavailable(&other).replacen("--backend cuda: ", "GPU: ", 1))
        }
    }
}

/// Forces the x86 kernels' schedule named by `AESX_SCHEDULE` (`zen`,
/// `intel`, `generic`) for the whole process, as `AESX_BACKEND` forces a
/// backend; unset or empty leaves CPUID's choice. Returns the forced one.
/// An unknown name is a usage error.
pub fn force_schedule_from_env() -> Result<Option<Schedule>, CliError> {
    let forced = match std::env::var("AESX_SCHEDULE") {
        Ok(v) if !v.trim().is_empty() => Some(
            v.parse::<Schedule>()
                .map_err(|e| CliError::usage(format!("AESX_SCHEDULE: {e}, got {v:?}")))?,
        ),
        Ok(_) | Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(CliError::usage("AESX_SCHEDULE: not valid UTF-8"))
        }
    };
    Schedule::force(forced);
    Ok(forced)
}
