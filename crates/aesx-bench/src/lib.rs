//! The benchmark laboratory behind `aesx bench`: every aesx backend and
//! every peer library (OpenSSL, AWS-LC, ring, RustCrypto), side by side, in
//! one process and one run. The `aesx` command's `bench` subcommand is this
//! crate's [`Args`] and [`run`]; the method is in `docs/BENCHMARKS.md`.
//!
//! It serves people holding aesx to its peers; the other benchmark homes
//! are `crates/aesx/benches` (aesx against itself, for kernel work),
//! aesx-cuda's `cuda_bench` example (the GPU kernels alone) and
//! `python/benchmarks` (the Python package against pyca).
//!
//! # Why a crate of its own, and how it stands on the others
//!
//! The laboratory is most of what the CLI would otherwise compile and all
//! of its peer libraries; here its dependencies, features and tests are its
//! own, and `aesx bench` is a few lines in the CLI. It stands on `aesx`,
//! `aesx-file` and `aesx-cuda` only, never on the CLI (arrows point down):
//! its error is aesx-file's `CommandError`, the CLI's own type; it measures
//! the library's mode types directly, through one generic row
//! (`aesx_impl`); it opens the GPU once per process (`cuda_impl::gpu`);
//! and `--gpu-table` builds the file format's two sides from the calls the
//! CLI's file pipeline is made of (aesx-file's `Sealer`/`Opener` on the
//! CPU, aesx-cuda's chunk pipe on the GPU), so both are measured alike.
//!
//! # Modules, from the command line down
//!
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
//! - `header`, `report`, `json`, `csv`, `plot`: output; `writable`: their
//!   paths, checked before the run and written after it.

#![forbid(unsafe_code)]

use std::process::ExitCode;
use std::time::Duration;

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
mod writable;

pub use aesx_file::CommandError;
pub use args::Args;
use args::Options;
use timing::ClockInfo;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, CommandError> {
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
        return Err(CommandError::usage(
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
            writable::check_writable(flag, p)?;
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
