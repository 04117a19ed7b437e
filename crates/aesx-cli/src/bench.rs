//! `aesx bench`: the benchmark laboratory is the `aesx-bench` crate (its
//! options, its runs, its reports); the command line only hands it the
//! parsed options. Its error is the CLI's own type.

use std::process::ExitCode;

pub use aesx_bench::Args;

use crate::CommandError;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, CommandError> {
    aesx_bench::run(args)
}
