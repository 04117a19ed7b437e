//! The lines above the table: machine, clock, what runs and how long.

use std::io::{self, Write};
use std::time::Duration;

use super::args::Options;
use super::cases::{self, MODES};
use super::plan;
use super::timing::{self, ClockInfo};

/// Writes the header of a grid run.
pub(super) fn print(
    out: &mut impl Write,
    opts: &Options,
    clock: &ClockInfo,
    note: Option<&String>,
    cases: usize,
    measurements: usize,
    budget: Duration,
) -> io::Result<()> {
    writeln!(
        out,
        "aesx bench {}: {} ({} CPUs available), {}",
        env!("CARGO_PKG_VERSION"),
        timing::cpu_name(),
        timing::cpu_count(),
        timing::utc_now()
    )?;
    writeln!(out, "clock: {}", clock.describe())?;
    if let Some(note) = note {
        writeln!(out, "{note}")?;
    }
    writeln!(
        out,
        "{} cases, {} measurements, {} per measurement{}; every output checked against aesx-soft first",
        cases,
        measurements,
        match opts.iters {
            Some(n) => format!("{n} iterations"),
            None => format!("{:.0} ms", budget.as_secs_f64() * 1e3),
        },
        if opts.default_grid {
            " (default suite: --mode, --key-bits, --size, --time choose others)"
        } else {
            ""
        }
    )?;
    if let Some(tier) = opts.isa {
        for line in tier.describe() {
            writeln!(out, "{line}")?;
        }
    }
    if opts.threads > 1 {
        let (split, single): (Vec<&cases::ModeSpec>, Vec<&cases::ModeSpec>) = MODES
            .iter()
            .filter(|m| {
                !matches!(
                    m.name,
                    "gcm-enc" | "gcm-dec" | "gcm-siv-enc" | "gcm-siv-dec"
                )
            })
            .partition(|m| m.splits);
        writeln!(
            out,
            "threads: {} splits each message over {} threads; {} run on one thread",
            split.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
            opts.threads,
            single.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
        )?;
        writeln!(
            out,
            "threads: gcm-enc, gcm-dec, gcm-siv-enc, gcm-siv-dec split each message in aesx's own \
             call (Gcm::with_threads, GcmSiv::with_threads: counter ranges, GHASH or POLYVAL \
             combined with powers of H) over up to {} threads, messages under {} KiB per thread \
             on one; the peers run them on one thread",
            opts.threads,
            aesx::parallel::MIN_SEGMENT / 1024
        )?;
    }
    let skipped: Vec<String> = plan::skipped_sizes(opts);
    if !skipped.is_empty() && opts.rsp.is_none() {
        writeln!(
            out,
            "not run: {} (not defined for the mode)",
            skipped.join(", ")
        )?;
    }
    out.flush()
}
