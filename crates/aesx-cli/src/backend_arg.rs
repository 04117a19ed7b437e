//! Which backend(s) a subcommand runs on: `--backend NAME`, else the
//! environment variable `AESX_BACKEND`, else the default.
//!
//! An unknown name is a usage error (exit 2); a known backend that this
//! machine cannot run is a failure (exit 1), never a silent fallback.

use aesx::Backend;

use crate::CliError;

/// Parses a backend name and checks that this machine can run it. `source`
/// names where it came from (`--backend`, `AESX_BACKEND`) for the message.
pub fn parse_backend(name: &str, source: &str) -> Result<Backend, CliError> {
    let b: Backend = name.trim().parse().map_err(|_| {
        CliError::usage(format!(
            "{source}: unknown backend {name:?} (expected one of {})",
            all_names()
        ))
    })?;
    b.require().map_err(|_| {
        CliError::failure(format!(
            "{source}: backend {b} is not available on this machine (available: {})",
            available_names()
        ))
    })
}

/// The backend forced by `--backend` or `AESX_BACKEND`, if either is set.
pub fn forced(arg: Option<&str>) -> Result<Option<Backend>, CliError> {
    if let Some(name) = arg {
        return parse_backend(name, "--backend").map(Some);
    }
    match std::env::var("AESX_BACKEND") {
        Ok(v) if !v.trim().is_empty() => parse_backend(&v, "AESX_BACKEND").map(Some),
        Ok(_) | Err(std::env::VarError::NotPresent) => Ok(None),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err(CliError::usage("AESX_BACKEND: not valid UTF-8"))
        }
    }
}

/// The backends to validate on: the forced one, or every available one.
pub fn selected_all(arg: Option<&str>) -> Result<Vec<Backend>, CliError> {
    Ok(match forced(arg)? {
        Some(b) => vec![b],
        None => Backend::available().iter().collect(),
    })
}

/// The one backend to run on: the forced one, or the fastest.
pub fn selected_one(arg: Option<&str>) -> Result<Backend, CliError> {
    Ok(forced(arg)?.unwrap_or_else(Backend::fastest))
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
