//! Running the grid: every case in turn, every implementation on it checked
//! then measured together, then the table and the report files.

use std::io::Write;
use std::process::ExitCode;

use super::args::Options;
use super::bound::Bounds;
use super::cases::{Case, Setup};
use super::check::honesty_check;
#[cfg(feature = "cuda")]
use super::cuda_impl;
use super::impls::Impl;

use super::measure::{self, Plan, Subject};
#[cfg(feature = "plot")]
use super::plot;
use super::progress::Progress;
use super::report::{self, Row};
use super::timing::{self, ClockInfo};
use super::{csv, header, json, plan};
use aesx_file::CommandError;

/// Runs the suite (or the `--rsp` case) and writes every report.
pub(super) fn run(mut opts: Options, clock: &ClockInfo) -> Result<ExitCode, CommandError> {
    let grid = plan::cases(&mut opts)?;
    let measurements = plan::measurements(&opts, &grid.cases);
    let budget = plan::budget(&opts, measurements);

    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| CommandError::failure(format!("writing the report: {e}"));
    header::print(
        &mut out,
        &opts,
        clock,
        grid.note.as_ref(),
        grid.cases.len(),
        measurements,
        budget,
    )
    .map_err(w)?;

    let plan = plan::measure_plan(&opts, budget);
    let mut progress = Progress::new(grid.cases.len());
    let mut rows = Vec::new();
    for (case, (setup, vector)) in grid.cases.iter().zip(&grid.setups) {
        progress.step(case);
        let expect = vector.as_ref().map(|v| v.expected.as_slice());
        let mut case_rows = run_case(&opts, case, setup, expect, &plan, clock)?;
        rows.append(&mut case_rows);
    }
    progress.finish();
    report::add_ratios(&mut rows);
    let bounds = Bounds::measure(&rows, opts.isa, &plan, clock).map_err(CommandError::failure)?;
    bounds.apply(&mut rows, opts.isa);
    report::print(&mut out, &rows, opts.mb).map_err(w)?;
    report::print_summary(&mut out, &rows).map_err(w)?;
    report::print_scaling(&mut out, &rows).map_err(w)?;
    #[cfg(feature = "cuda")]
    if opts.impls.contains(&Impl::Cuda) {
        cuda_impl::print_device_figures(&mut out, 256 << 20).map_err(CommandError::failure)?;
    }
    writeln!(
        out,
        "x peer: median over the best peer's median for the same case; x soft: over aesx-soft's; \
         x bound: over the AES port bound of the row's x86 tier, measured in this run as:"
    )
    .map_err(w)?;
    for line in bounds.describe() {
        writeln!(out, "  {line}").map_err(w)?;
    }
    writeln!(out, "Shared machine: compare within one run.").map_err(w)?;
    let meta = report::Meta {
        cpu: timing::cpu_name(),
        date: timing::utc_now(),
        clock: clock.describe(),
        bounds: bounds.describe(),
    };
    if let Some(p) = &opts.json {
        json::write(p, &meta, &rows)?;
    }
    if let Some(p) = &opts.csv {
        csv::write(p, &rows)?;
    }
    #[cfg(feature = "plot")]
    if let Some(p) = &opts.plot {
        plot::write(p, &meta, &rows)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Checks every implementation against aesx-soft (and the file's
/// expectation), then measures them together.
fn run_case(
    opts: &Options,
    case: &Case,
    setup: &Setup,
    expect: Option<&[u8]>,
    plan: &Plan,
    clock: &ClockInfo,
) -> Result<Vec<Row>, CommandError> {
    let impls = plan::impls_for(opts, case);
    let twins = plan::one_thread_twins(opts, case);
    let threaded;
    let one_thread = setup;
    let setup = match plan::library_threads(opts, case.mode) {
        1 => setup,
        n => {
            threaded = Setup {
                threads: n,
                ..setup.clone()
            };
            &threaded
        }
    };
    honesty_check(&impls, case, setup, expect)?;
    honesty_check(&twins, case, one_thread, expect)?;
    // The aesx rows, their one-thread twins, then the peers: the table
    // prints them in this order, and all are measured in turn.
    let (peers, aesx): (Vec<Impl>, Vec<Impl>) = impls.iter().partition(|i| i.is_peer());
    let threads = plan::threads_for(opts, case.mode);
    let mut subjects = aesx
        .iter()
        .map(|&i| Subject::new(i, case, setup, threads))
        .chain(twins.iter().map(|&i| Subject::new(i, case, one_thread, 1)))
        .chain(peers.iter().map(|&i| Subject::new(i, case, setup, threads)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CommandError::failure)?;
    measure::measure(&mut subjects, plan).map_err(CommandError::failure)?;
    Ok(subjects
        .iter()
        .filter_map(|s| Row::from_subject(s, case, clock))
        .collect())
}
