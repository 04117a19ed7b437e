//! `aesx cavp` (being built).

use std::process::ExitCode;

use crate::CliError;

/// Arguments of `aesx cavp`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aesx cavp`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::failure("aesx cavp is not built yet"))
}
