//! `aesx info` (being built).

use std::process::ExitCode;

use crate::CliError;

/// Arguments of `aesx info`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aesx info`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::failure("aesx info is not built yet"))
}
