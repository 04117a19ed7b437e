//! `--compare A B`: the two implementations alternate on one case for many
//! iterations, then Welch's t-test says whether their means differ, in the
//! manner of FreeBSD's ministat.

use std::io::Write;
use std::process::ExitCode;
use std::time::Duration;

use super::args::Options;
use super::cases::{Case, Mode};
use super::check::honesty_check;
use super::impls::Impl;
use super::measure::{self, Plan, Subject};
use super::plan::{setup_for, threads_for};
use super::stats::{welch, Summary};
use super::timing::ClockInfo;
use aesx_file::CommandError;

/// Length of one iteration aimed for unless `--iters` fixes the count:
/// short enough that most iterations fit inside one scheduler slice on a
/// shared machine (preempted ones are outliers that widen the interval),
/// long enough to hide the clock's cost.
const ITER_TARGET: f64 = 5e-4;
/// Most iterations per implementation by default.
const MAX_ROUNDS: f64 = 2000.0;
/// Time per implementation unless `--time` says otherwise.
const DEFAULT_TIME: Duration = Duration::from_secs(2);

fn one<T: Copy>(v: &[T], default: T, what: &str) -> Result<T, CommandError> {
    match v {
        [] => Ok(default),
        [x] => Ok(*x),
        _ => Err(CommandError::usage(format!(
            "--compare runs one case: give one {what}"
        ))),
    }
}

/// Runs the comparison and prints the verdict.
pub fn run(opts: &Options, a: Impl, b: Impl, clock: &ClockInfo) -> Result<ExitCode, CommandError> {
    let case = Case {
        mode: one(&opts.chosen_modes, Mode::Ctr, "--mode")?,
        key_bits: one(&opts.chosen_key_bits, 128, "--key-bits")?,
        size: one(&opts.chosen_sizes, 16384, "--size")?,
    };
    if !case.mode.accepts(case.size) {
        return Err(CommandError::usage(format!(
            "{} needs whole 16-byte blocks; {} bytes is not",
            case.mode, case.size
        )));
    }
    for i in [a, b] {
        if !i.supports(case.mode, case.key_bits) {
            return Err(CommandError::usage(format!(
                "{i} has no {} with {}-bit keys",
                case.mode, case.key_bits
            )));
        }
    }
    let setup = setup_for(&case)?;
    honesty_check(&[a, b], &case, &setup, None)?;
    let budget = opts.time.unwrap_or(DEFAULT_TIME);
    let rounds = opts
        .iters
        .unwrap_or_else(|| {
            (budget.as_secs_f64() * 0.85 / ITER_TARGET).clamp(10.0, MAX_ROUNDS) as u64
        })
        .max(2);
    let threads = threads_for(opts, case.mode);
    let mut subjects = vec![
        Subject::new(a, &case, &setup, threads).map_err(CommandError::failure)?,
        Subject::new(b, &case, &setup, threads).map_err(CommandError::failure)?,
    ];
    let plan = Plan {
        budget,
        iters: Some(rounds),
        min_iter: budget.mul_f64(0.85).div_f64(rounds as f64),
    };
    measure::measure(&mut subjects, &plan).map_err(CommandError::failure)?;

    let gbs: Vec<Vec<f64>> = subjects
        .iter()
        .map(|s| {
            s.samples
                .iter()
                .map(|t| case.size as f64 / t / 1e9)
                .collect()
        })
        .collect();
    let (Some(sa), Some(sb)) = (Summary::of(&gbs[0]), Summary::of(&gbs[1])) else {
        return Err(CommandError::failure("no samples"));
    };
    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| CommandError::failure(format!("writing the report: {e}"));
    writeln!(
        out,
        "aesx bench --compare: {} AES-{}, {} bytes, {} thread(s); {} alternating iterations each \
         (A: {} calls, B: {} calls per iteration)",
        case.mode, case.key_bits, case.size, threads, rounds, subjects[0].batch, subjects[1].batch
    )
    .map_err(w)?;
    writeln!(out, "clock: {}", clock.describe()).map_err(w)?;
    if let Some(tier) = opts.isa {
        for line in tier.describe() {
            writeln!(out, "{line}").map_err(w)?;
        }
    }
    writeln!(
        out,
        "    {:>4} {:>10} {:>10} {:>10} {:>10} {:>10}   GB/s",
        "N", "Min", "Max", "Median", "Avg", "Stddev"
    )
    .map_err(w)?;
    for (tag, imp, s) in [("A", a, &sa), ("B", b, &sb)] {
        writeln!(
            out,
            "{tag}   {:>4} {:>10.4} {:>10.4} {:>10.4} {:>10.4} {:>10.4}   {imp}",
            s.n, s.min, s.max, s.median, s.mean, s.stddev
        )
        .map_err(w)?;
    }
    let pct = opts.confidence * 100.0;
    match welch(&sa, &sb, opts.confidence) {
        Some(t) if t.significant => {
            writeln!(out, "Difference at {pct:.1}% confidence").map_err(w)?;
            writeln!(
                out,
                "    {:+.4} +/- {:.4} GB/s (B - A)",
                t.diff, t.half_width
            )
            .map_err(w)?;
            writeln!(
                out,
                "    {:+.2}% +/- {:.2}% of A's mean",
                t.diff / sa.mean * 100.0,
                t.half_width / sa.mean * 100.0
            )
            .map_err(w)?;
            writeln!(out, "    (Welch's t: df = {:.1}, t = {:.3})", t.df, t.t).map_err(w)?;
            writeln!(
                out,
                "verdict: {} is {} than {}",
                b,
                if t.diff > 0.0 { "faster" } else { "slower" },
                a
            )
            .map_err(w)?;
        }
        Some(t) => {
            writeln!(out, "No difference proven at {pct:.1}% confidence").map_err(w)?;
            writeln!(
                out,
                "    ({:+.2}% +/- {:.2}%; Welch's t: df = {:.1}, t = {:.3})",
                t.diff / sa.mean * 100.0,
                t.half_width / sa.mean * 100.0,
                t.df,
                t.t
            )
            .map_err(w)?;
            writeln!(out, "verdict: no difference").map_err(w)?;
        }
        None => {
            writeln!(out, "verdict: too few samples for a test").map_err(w)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
