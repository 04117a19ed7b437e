//! Which backend(s) a subcommand runs on: `--backend NAME`, else the
//! environment variable `AESX_BACKEND` (read once per process), else the
//! default. Names are parsed by `aesx_file::backend_name`, the parser the
//! Python package uses too.
//!
//! An unknown name is a usage error (exit 2); a known backend that this
//! machine cannot run is a failure (exit 1), never a silent fallback.

use std::sync::OnceLock;

use aesx::{Backend, Schedule};
pub use aesx_file::backend_name::Accepts;
use aesx_file::backend_name::{self, Named, ENV_VAR};

use crate::CommandError;

/// `AESX_BACKEND`, read the first time any part of the process asks.
pub fn env_name() -> Result<Option<&'static str>, CommandError> {
    static ENV: OnceLock<Result<Option<String>, CommandError>> = OnceLock::new();
    match ENV.get_or_init(backend_name::env_value) {
        Ok(v) => Ok(v.as_deref()),
        Err(e) => Err(e.clone()),
    }
}

/// The CPU backend `AESX_BACKEND` forces, if set (for `aesx info`, which
/// takes no `--backend`).
pub fn env_cpu() -> Result<Option<Backend>, CommandError> {
    env_name()?
        .map(|v| backend_name::parse_cpu(v, ENV_VAR))
        .transpose()
}

/// What `--backend`, else `AESX_BACKEND`, forces, if either is set, and
/// whether CPU workers run beside the GPU (`cpu+cuda`, taken where
/// `accepts` is [`Accepts::File`]).
pub fn forced_with_workers(
    arg: Option<&str>,
    accepts: Accepts,
) -> Result<Option<(Choice, bool)>, CommandError> {
    let (name, source) = match arg {
        Some(a) => (a, "--backend"),
        None => match env_name()? {
            Some(v) => (v, ENV_VAR),
            None => return Ok(None),
        },
    };
    match backend_name::parse(name, source, accepts)? {
        Named::Cpu(b) => Ok(Some((Choice::Cpu(b), false))),
        #[cfg(feature = "cuda")]
        Named::Cuda => Ok(Some((Choice::Cuda, false))),
        #[cfg(feature = "cuda")]
        Named::CpuCuda => Ok(Some((Choice::Cuda, true))),
        #[cfg(not(feature = "cuda"))]
        Named::Cuda => Err(no_cuda(source)),
        #[cfg(not(feature = "cuda"))]
        Named::CpuCuda => Err(no_cuda(&format!("{source} cpu+"))),
    }
}

/// What `--backend`, else `AESX_BACKEND`, forces, if either is set.
pub fn forced(arg: Option<&str>, accepts: Accepts) -> Result<Option<Choice>, CommandError> {
    Ok(forced_with_workers(arg, accepts)?.map(|(c, _)| c))
}

/// The one backend to run on: the forced one, or the fastest CPU backend.
pub fn choose(arg: Option<&str>, accepts: Accepts) -> Result<Choice, CommandError> {
    Ok(forced(arg, accepts)?.unwrap_or(Choice::Cpu(Backend::fastest())))
}

/// The backends this machine can run, for messages.
pub fn available_names() -> String {
    backend_name::available_names()
}

/// The answer to `--backend cuda` for work without a GPU path (`what`: the
/// mode or suite), naming the CPU backends this machine has.
pub fn cpu_only(what: &str) -> CommandError {
    CommandError::usage(format!(
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
#[cfg(not(feature = "cuda"))]
pub fn no_cuda(source: &str) -> CommandError {
    CommandError::usage(format!(
        "{source} cuda: this aesx was built without the `cuda` feature"
    ))
}

#[cfg(feature = "cuda")]
/// GPU 0 with the aesx kernels loaded (opened once per process). Without a
/// driver, a device or NVRTC this is a usage error (exit 2) of one line
/// that says which is missing, raised before any output is created.
pub fn open_gpu() -> Result<aesx_cuda::Gpu, CommandError> {
    use std::sync::OnceLock;
    static GPU: OnceLock<Result<aesx_cuda::Gpu, String>> = OnceLock::new();
    GPU.get_or_init(|| aesx_cuda::Gpu::new(0).map_err(|e| gpu_unavailable(&e)))
        .clone()
        .map_err(CommandError::usage)
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
pub fn gpu_error(e: aesx_cuda::CudaError) -> CommandError {
    match e {
        aesx_cuda::CudaError::Aes(e) => e.into(),
        other => {
            CommandError::failure(gpu_unavailable(&other).replacen("--backend cuda: ", "GPU: ", 1))
        }
    }
}

/// Forces the x86 kernels' schedule named by `AESX_SCHEDULE` (`zen`,
/// `intel`, `generic`) for the whole process, as `AESX_BACKEND` forces a
/// backend; unset or empty leaves CPUID's choice. Returns the forced one.
/// An unknown name is a usage error.
pub fn force_schedule_from_env() -> Result<Option<Schedule>, CommandError> {
    let forced = match std::env::var("AESX_SCHEDULE") {
        Ok(v) if !v.trim().is_empty() => Some(
            v.parse::<Schedule>()
                .map_err(|e| CommandError::usage(format!("AESX_SCHEDULE: {e}, got {v:?}")))?,
        ),
        Ok(_) | Err(std::env::VarError::NotPresent) => None,
        Err(std::env::VarError::NotUnicode(_)) => {
            return Err(CommandError::usage("AESX_SCHEDULE: not valid UTF-8"))
        }
    };
    Schedule::force(forced);
    Ok(forced)
}
