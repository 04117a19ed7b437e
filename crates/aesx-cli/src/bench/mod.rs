//! `aesx bench`: every aesx backend and every peer library, side by side, in
//! one process and one run.
//!
//! From the command line down:
//! - `args`: the options, parsed and checked.
//! - `plan`: the grid of cases, the implementations on each, the time per
//!   measurement; `cases`: modes × key sizes × message sizes, and the bytes
//!   they run on.
//! - `suite`: runs the grid; `check`: every output against aesx-soft first;
//!   `measure`: warm-up and interleaved timed iterations; `progress`: the
//!   line on stderr.
//! - `compare`: `--compare A B`; `isa`: `--isa TIER`, one x86 tier with the
//!   peers held to it; `gpu_table`: `--gpu-table`; `rsp`: AArch64cryptolib
//!   speed-test files.
//! - `impls`: the implementations, by name; `aesx_impl`, `cuda_impl`,
//!   `peers`, `awslc`: their runners, behind the `runner::Runner` trait.
//! - `timing`: the cycle counter and its calibration; `stats`: order
//!   statistics and Welch's t.
//! - `bound`: the AES port bound of each x86 tier, for the "x bound" column.
//! - `header`, `report`, `json`, `csv`, `plot`: output.
//!
//! The method is explained in `docs/BENCHMARKS.md`.

use std::process::ExitCode;
use std::time::Duration;

use crate::CliError;

mod aesx_impl;
mod args;
mod awslc;
mod bound;
mod cases;
mod check;
mod compare;
mod csv;
#[cfg(feature = "cuda")]
mod cuda_impl;
#[cfg(all(feature = "cuda", feature = "plot"))]
mod gpu_table;
mod header;
mod impls;
mod isa;
mod json;
mod measure;
mod peers;
mod peers_siv_ccm_kw;
mod plan;
#[cfg(feature = "plot")]
mod plot;
mod progress;
mod report;
mod rsp;
mod runner;
mod stats;
mod suite;
mod timing;

pub use args::Args;
use args::Options;
use timing::ClockInfo;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.inner.gpu_table {
        #[cfg(all(feature = "cuda", feature = "plot"))]
        {
            let a = &args.inner;
            let outputs = gpu_table::Outputs {
                json: a.json.as_ref(),
                csv: a.csv.as_ref(),
                plot: a.plot.as_ref(),
            };
            return gpu_table::run(&a.sizes, outputs);
        }
        #[cfg(not(all(feature = "cuda", feature = "plot")))]
        return Err(CliError::usage(
            "--gpu-table needs the `cuda` and `plot` features, which this build left out",
        ));
    }
    let opts = Options::parse(*args.inner)?;
    // A report that cannot be written fails now, not after the whole run.
    for (flag, p) in [
        ("--json", &opts.json),
        ("--csv", &opts.csv),
        ("--plot", &opts.plot),
    ] {
        if let Some(p) = p {
            crate::file::output::check_writable(flag, p)?;
        }
    }
    if let Some(tier) = opts.isa {
        if let Some(status) = isa::ensure_environment(tier)? {
            return Ok(status);
        }
    }
    let clock = ClockInfo::calibrate(Duration::from_millis(40));
    if let Some((a, b)) = opts.compare {
        return compare::run(&opts, a, b, &clock);
    }
    suite::run(opts, &clock)
}
