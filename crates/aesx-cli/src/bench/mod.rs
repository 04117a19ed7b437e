//! `aesx bench` (being built).

use std::process::ExitCode;

use crate::CliError;

/// Arguments of `aesx bench`.
#[derive(clap::Args, Debug)]
pub struct Args {}

/// Runs `aesx bench`.
pub fn run(_args: Args) -> Result<ExitCode, CliError> {
    Err(CliError::failure("aesx bench is not built yet"))
}
