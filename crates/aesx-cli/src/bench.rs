//! `aesx bench`: the benchmark laboratory is the `aesx-bench` crate (its
//! options, its runs, its reports); the command line only hands it the
//! parsed options and turns its error into the CLI's, kind for kind.

use std::process::ExitCode;

pub use aesx_bench::Args;

use crate::error::CliError;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    aesx_bench::run(args).map_err(|e| match e {
        aesx_bench::BenchError::Usage(m) => CliError::Usage(m),
        aesx_bench::BenchError::Failure(m) => CliError::Failure(m),
    })
}
