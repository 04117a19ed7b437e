//! `aesx cipher` (being built).

use std::process::ExitCode;

use crate::CliError;

/// Arguments of `aesx cipher`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aesx cipher`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::failure("aesx cipher is not built yet"))
}
