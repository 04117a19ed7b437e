//! The backend a user names, read one way by every front end: the `aesx`
//! command's `--backend` and `AESX_BACKEND`, and the Python package's
//! `backend=`, `use_backend` and `AESX_BACKEND`.
//!
//! The CPU names are the library's list ([`Backend::ALL`], [`Backend::name`]),
//! never written out here, so a new backend is a name users can type with no
//! edit in this file; the GPU names (`cuda`, and `cpu+cuda` for the file
//! commands' CPU workers beside the GPU) are the command line's, which
//! says per subcommand which of them it takes ([`Accepts`]); the Python
//! package takes CPU names only ([`parse_cpu`]).
//!
//! An unknown name is a usage error that lists every name the caller
//! takes; a known CPU backend this machine cannot run is a failure that
//! lists the ones it can: never a silent fallback.

use aesx::Backend;

use crate::command_error::CommandError;

/// The environment variable that forces a backend for a whole process.
pub const ENV_VAR: &str = "AESX_BACKEND";

/// What a name stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// A CPU backend of the library, available on this machine.
    Cpu(Backend),
    /// The GPU (aesx-cuda): `cuda` or `aesx-cuda`.
    Cuda,
    /// The GPU with CPU workers beside it: `cpu+cuda` or `cuda+cpu`.
    CpuCuda,
}

/// The names a caller takes besides the CPU backends ([`parse_cpu`] takes
/// none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accepts {
    /// CPU backends and `cuda`.
    Gpu,
    /// CPU backends, `cuda` and `cpu+cuda` (`aesx encrypt`/`decrypt`).
    File,
}

impl Accepts {
    /// The names taken besides the CPU backends, as listed in messages.
    pub fn extra_names(self) -> &'static [&'static str] {
        match self {
            Accepts::Gpu => &["cuda"],
            Accepts::File => &["cuda", "cpu+cuda"],
        }
    }

    fn cpu_cuda(self) -> bool {
        match self {
            Accepts::Gpu => false,
            Accepts::File => true,
        }
    }
}

/// Whether `name` means the GPU alone (`cuda`, `aesx-cuda`; any case).
pub fn is_cuda_name(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    n == "cuda" || n == "aesx-cuda"
}

/// Whether `name` means the GPU with CPU workers (`cpu+cuda`, `cuda+cpu`).
pub fn is_cpu_cuda_name(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    n == "cpu+cuda" || n == "cuda+cpu"
}

/// Parses a backend name (surrounding spaces and case ignored) and checks
/// that this machine can run a CPU one. `source` says where the name came
/// from (`--backend`, `AESX_BACKEND`) and starts the message.
pub fn parse(name: &str, source: &str, accepts: Accepts) -> Result<Named, CommandError> {
    if is_cuda_name(name) {
        return Ok(Named::Cuda);
    }
    if accepts.cpu_cuda() && is_cpu_cuda_name(name) {
        return Ok(Named::CpuCuda);
    }
    expect_cpu(name, source, accepts.extra_names()).map(Named::Cpu)
}

/// Parses the name of a CPU backend and checks that this machine can run
/// it, as [`parse`] does for a caller without a GPU (the Python package's
/// keys).
pub fn parse_cpu(name: &str, source: &str) -> Result<Backend, CommandError> {
    expect_cpu(name, source, &[])
}

/// A CPU backend this machine runs; `extra` are the other names the caller
/// takes, for the message.
fn expect_cpu(name: &str, source: &str, extra: &[&str]) -> Result<Backend, CommandError> {
    // Every backend of the library's list parses, also one of another
    // architecture (armv8 on x86): that is unavailable, not unknown.
    let b: Backend = name.trim().parse().map_err(|_| {
        let expected: Vec<&str> = Backend::ALL
            .iter()
            .map(|b| b.name())
            .chain(extra.iter().copied())
            .collect();
        CommandError::usage(format!(
            "{source}: unknown backend {name:?} (expected one of {})",
            expected.join(", ")
        ))
    })?;
    b.require().map_err(|_| {
        CommandError::failure(format!(
            "{source}: backend {b} is not available on this machine (available: {})",
            available_names()
        ))
    })
}

/// The name `AESX_BACKEND` holds, if it is set and not blank; a value that
/// is not UTF-8 is a usage error.
pub fn env_value() -> Result<Option<String>, CommandError> {
    match std::env::var(ENV_VAR) {
        Ok(v) if !v.trim().is_empty() => Ok(Some(v)),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(CommandError::usage(format!("{ENV_VAR}: not valid UTF-8")))
        }
    }
}

/// Every backend name the library knows, for messages.
pub fn all_names() -> String {
    Backend::ALL.map(|b| b.name()).join(", ")
}

/// The backends this machine can run, slowest first, for messages.
pub fn available_names() -> String {
    Backend::available()
        .iter()
        .map(|b| b.name())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_listed_backend_parses() {
        for b in Backend::ALL {
            let name = format!(" {} ", b.name().to_uppercase());
            assert_eq!(
                parse(&name, "x", Accepts::Gpu).map_err(|_| ()),
                parse_cpu(&name, "x").map(Named::Cpu).map_err(|_| ())
            );
            let got = parse_cpu(&name, "x");
            if b.is_available() {
                assert_eq!(got, Ok(b));
            } else {
                let e = got.unwrap_err();
                assert_eq!(e.exit_code(), 1);
                assert!(
                    e.to_string().contains("not available on this machine"),
                    "{e}"
                );
            }
        }
    }

    #[test]
    fn gpu_names_only_where_taken() {
        assert_eq!(parse("CUDA", "x", Accepts::Gpu), Ok(Named::Cuda));
        assert_eq!(parse("aesx-cuda", "x", Accepts::File), Ok(Named::Cuda));
        assert_eq!(parse("cuda+cpu", "x", Accepts::File), Ok(Named::CpuCuda));
        assert_eq!(parse_cpu("cuda", "x").unwrap_err().exit_code(), 2);
        assert_eq!(
            parse("cpu+cuda", "x", Accepts::Gpu)
                .unwrap_err()
                .exit_code(),
            2
        );
    }

    #[test]
    fn unknown_names_every_choice_in_one_line() {
        let e = parse("turbo", "--backend", Accepts::File).unwrap_err();
        let want = format!(
            "--backend: unknown backend \"turbo\" (expected one of {}, cuda, cpu+cuda)",
            all_names()
        );
        assert_eq!(e.to_string(), want);
        assert_eq!(e.exit_code(), 2);
    }
}
