//! The benchmark laboratory behind `aesx bench`: every aesx backend and
//! every peer library (OpenSSL, AWS-LC, ring, RustCrypto), side by side, in
//! one process and one run. The `aesx` command's `bench` subcommand is this
//! crate's [`Args`] and [`run`]; the method is in `docs/BENCHMARKS.md`.
//!
//! Who it serves: people choosing an AES library, and anyone holding aesx
//! to its peers on a machine: the same bytes, the outputs checked against
//! aesx-soft, interleaved timing, tiers (`--isa`), reports (JSON, CSV,
//! SVG) and the CPU-versus-GPU file table (`--gpu-table`). The other
//! benchmark homes serve other people: `crates/aesx/benches` (criterion:
//! aesx against itself on every backend, for work on the kernels),
//! aesx-cuda's `cuda_bench` example (the GPU kernels alone, for the device
//! checks) and `python/benchmarks` (the Python package against pyca).
//!
//! # Why a crate of its own, and how it stands on the others
//!
//! The laboratory is most of what the CLI would otherwise compile and all
//! of its peer libraries; here its dependencies, features and tests are its
//! own, and `aesx bench` is a few lines in the CLI. It stands on `aesx`,
//! `aesx-file` and `aesx-cuda` only, never on the CLI (arrows point down).
//! What it used to borrow from the CLI went as follows:
//!
//! - The CLI's error: [`BenchError`] has the same two kinds (usage, exit 2;
//!   failure, exit 1); the CLI converts it kind for kind and prints it as
//!   before, one line.
//! - The CLI's `Aead` (one wrapper over `GcmSiv`, `Xaes256Gcm` and `Ccm`
//!   for `cipher` and `cavp`): the laboratory measures the library's own
//!   types instead, through one generic row (`aesx_impl`), so no wrapper
//!   stands between the mode objects and the clock.
//! - Opening the GPU: done here once per process (`cuda_impl::gpu`), for
//!   `--backend cuda`, the GPU rows and `--gpu-table` alike; the one-line
//!   message is aesx-cuda's `CudaError::first_line`, which the CLI's
//!   `--backend cuda` uses too.
//! - The probe that a report path can be written before a long run
//!   (`writable`): only the laboratory used it, so it moved here whole.
//! - `--gpu-table` times the file format end to end, but never ran the
//!   CLI's file pipeline: it is built from the calls that pipeline is made
//!   of (aesx-file's `Sealer`/`Opener` in batches on the CPU, aesx-cuda's
//!   chunk pipe on the GPU, the chunk key from `payload::derive`), so that
//!   both sides are written alike and measured alike. Passing the CLI's
//!   pipeline in through a trait would make the laboratory lean on its
//!   host for what the crates below already give it.
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
//!   paths checked before the run.

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
mod error;
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

pub use args::Args;
use args::Options;
pub use error::BenchError;
use timing::ClockInfo;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, BenchError> {
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
        return Err(BenchError::usage(
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
