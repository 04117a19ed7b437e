//! `aesx bench` in a build without the `peers` feature: the subcommand
//! stays in the help, and running it says which feature it needs.

use std::ffi::OsString;
use std::process::ExitCode;

use aesx_file::CommandError;

/// Whatever follows `aesx bench`: nothing is parsed, the build cannot run
/// it.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
    _rest: Vec<OsString>,
}

/// Refuses, in one line.
pub fn run(_args: Args) -> Result<ExitCode, CommandError> {
    Err(CommandError::usage(
        "bench needs the `peers` feature, which this build left out \
         (cargo install --path crates/aesx-cli --features peers)",
    ))
}
