//! `aesx bench`: every aesx backend and every peer library, side by side, in
//! one process and one run.
//!
//! - `cases`: modes × key sizes × message sizes, and the bytes they run on.
//! - `impls`, `aesx_impl`, `peers`, `awslc`: the implementations behind one
//!   trait.
//! - `isa`: `--isa TIER`, one x86 tier with the peers held to it.
//! - `measure`: honesty check, warm-up, interleaved timed iterations.
//! - `timing`: the cycle counter and its calibration; `stats`: order
//!   statistics and Welch's t.
//! - `report`, `json`, `csv`, `plot`: output; `compare`: `--compare A B`;
//!   `rsp`: AArch64cryptolib speed-test files.
//!
//! The method is explained in `docs/BENCHMARKS.md`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::CliError;

mod aesx_impl;
mod awslc;
mod cases;
mod compare;
mod csv;
mod cuda_impl;
mod gpu_table;
mod impls;
mod isa;
mod json;
mod measure;
mod peers;
mod plot;
mod report;
mod rsp;
mod stats;
mod timing;

use cases::{Case, Mode, Setup, DEFAULT_KEY_BITS, DEFAULT_SIZES, MODES};
use impls::Impl;
use measure::{first_outputs, mismatch, Plan, Subject};
use report::Row;
use timing::ClockInfo;

/// Arguments of `aesx bench` (boxed: they are many, and the subcommand enum
/// should not grow to their size).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    inner: Box<BenchArgs>,
}

/// The options themselves.
///
/// Values are taken as text and checked here, so that every mistake is
/// reported as one line with exit status 2.
#[derive(clap::Args, Debug)]
struct BenchArgs {
    /// Modes to run (repeatable or comma-separated): block, ecb, cbc-enc,
    /// cbc-dec, ctr, xts-enc, xts-dec, gcm-enc, gcm-dec. Default: all.
    #[arg(long = "mode", value_name = "MODE", value_delimiter = ',')]
    modes: Vec<String>,
    /// Key sizes in bits: 128, 192, 256. Default: 128 and 256.
    #[arg(long = "key-bits", value_name = "BITS", value_delimiter = ',')]
    key_bits: Vec<String>,
    /// Message sizes in bytes (suffixes K, M, KiB, MiB). Default: 16, 64,
    /// 256, 1024, 1500, 4096, 16384 and 1 MiB.
    #[arg(long = "size", value_name = "BYTES", value_delimiter = ',')]
    sizes: Vec<String>,
    /// aesx backends to run (soft, aesni, vaes256, vaes512, armv8, cuda;
    /// with or without the aesx- prefix). Default: every available one.
    #[arg(long = "backend", value_name = "NAME", value_delimiter = ',')]
    backends: Vec<String>,
    /// Leave out OpenSSL, AWS-LC, ring and RustCrypto.
    #[arg(long)]
    no_peers: bool,
    /// Run one x86 tier (aesni, vaes256, vaes512): aesx on that backend,
    /// OpenSSL and AWS-LC restricted to its instructions (OPENSSL_ia32cap),
    /// ring and RustCrypto only where their own code is the tier's.
    #[arg(long, value_name = "TIER")]
    isa: Option<String>,
    /// Exactly N timed iterations per implementation and case (Apple's
    /// tstaes: `--iters 1000 --blocks 2560`).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    iters: Option<String>,
    /// Message size in 16-byte blocks (instead of --size).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    blocks: Option<String>,
    /// Time budget in seconds per implementation and case, warm-up
    /// included (default: the suite's one-minute budget shared out; with
    /// --compare, per implementation in total, default 2).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS")]
    time: Option<String>,
    /// Split each message over N threads, for the modes that split (block,
    /// ecb, cbc-dec, ctr, xts-enc, xts-dec); the others run on one.
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    threads: Option<String>,
    /// Run the vector of an AArch64cryptolib speed-test file: check the
    /// output against it, then time it.
    #[arg(long, value_name = "FILE")]
    rsp: Option<PathBuf>,
    /// Write one JSON object per row to FILE.
    #[arg(long, value_name = "FILE")]
    json: Option<PathBuf>,
    /// Write the rows as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Draw throughput against size (SVG), one panel per mode and key size.
    #[arg(long, value_name = "FILE.svg")]
    plot: Option<PathBuf>,
    /// Alternate two implementations on one case and test the difference
    /// (Welch's t), ministat style.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    compare: Vec<String>,
    /// Confidence level for --compare, in percent.
    #[arg(long, value_name = "PERCENT", default_value = "95")]
    confidence: String,
    /// The CPU-versus-GPU file table: AES-256-ECB and the file format, end
    /// to end (read, encrypt, write), best CPU backend against the GPU, for
    /// 1028 B to 1 GiB (or --size); with --json/--csv/--plot.
    #[arg(long)]
    gpu_table: bool,
}

/// The checked options.
struct Options {
    modes: Vec<Mode>,
    key_bits: Vec<u32>,
    sizes: Vec<usize>,
    impls: Vec<Impl>,
    iters: Option<u64>,
    time: Option<Duration>,
    threads: usize,
    rsp: Option<PathBuf>,
    json: Option<PathBuf>,
    csv: Option<PathBuf>,
    plot: Option<PathBuf>,
    compare: Option<(Impl, Impl)>,
    confidence: f64,
    /// What --mode, --key-bits, --size (or --blocks) named, before defaults.
    chosen_modes: Vec<Mode>,
    chosen_key_bits: Vec<u32>,
    chosen_sizes: Vec<usize>,
    /// No grid option was given: the default suite.
    default_grid: bool,
    /// Apple-style MB/s columns (with --blocks).
    mb: bool,
    /// `--isa`: the tier, its peers restricted.
    isa: Option<isa::Tier>,
}

/// The whole suite should take about this long by default.
const SUITE_BUDGET: Duration = Duration::from_secs(50);
/// Largest message: every implementation keeps its own buffer.
const MAX_SIZE: usize = 256 << 20;

/// Runs `aesx bench`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    if args.inner.gpu_table {
        let a = &args.inner;
        let outputs = gpu_table::Outputs {
            json: a.json.as_ref(),
            csv: a.csv.as_ref(),
            plot: a.plot.as_ref(),
        };
        return gpu_table::run(&a.sizes, outputs);
    }
    let mut opts = Options::parse(*args.inner)?;
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
    let mut grid_note = None;
    let clock = ClockInfo::calibrate(Duration::from_millis(40));
    if let Some((a, b)) = opts.compare {
        return compare::run(&opts, a, b, &clock);
    }
    let (cases, setups, rsp_note) = match &opts.rsp {
        Some(path) => {
            let v = rsp::load(path)?;
            let note = v.describe(path);
            let (case, setup) = (v.case, v.setup.clone());
            (vec![case], vec![(setup, Some(v))], Some(note))
        }
        None => {
            if opts.default_grid {
                if let Some(note) = trim_default_sizes(&mut opts) {
                    grid_note = Some(note);
                }
            }
            let cases = grid(&opts)?;
            let setups = cases
                .iter()
                .map(|c| setup_for(c).map(|s| (s, None)))
                .collect::<Result<Vec<_>, _>>()?;
            (cases, setups, None)
        }
    };
    let measurements: usize = cases
        .iter()
        .map(|c| impls_for(&opts, c).len())
        .sum::<usize>()
        .max(1);
    let budget = opts.time.unwrap_or_else(|| {
        SUITE_BUDGET
            .div_f64(measurements as f64)
            .clamp(Duration::from_millis(10), Duration::from_millis(500))
    });

    let mut out = std::io::stdout().lock();
    let w = |e: std::io::Error| CliError::failure(format!("writing the report: {e}"));
    writeln!(
        out,
        "aesx bench {}: {} ({} CPUs available), {}",
        env!("CARGO_PKG_VERSION"),
        timing::cpu_name(),
        timing::cpu_count(),
        timing::utc_now()
    )
    .map_err(w)?;
    writeln!(out, "clock: {}", clock.describe()).map_err(w)?;
    if let Some(note) = grid_note.as_ref().or(rsp_note.as_ref()) {
        writeln!(out, "{note}").map_err(w)?;
    }
    writeln!(
        out,
        "{} cases, {} measurements, {} per measurement{}; every output checked against aesx-soft first",
        cases.len(),
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
    )
    .map_err(w)?;
    if let Some(tier) = opts.isa {
        for line in tier.describe() {
            writeln!(out, "{line}").map_err(w)?;
        }
    }
    if opts.threads > 1 {
        let (split, single): (Vec<&cases::ModeSpec>, Vec<&cases::ModeSpec>) =
            MODES.iter().partition(|m| m.splits);
        writeln!(
            out,
            "threads: {} splits each message over {} threads; {} run on one thread",
            split.iter().map(|m| m.name).collect::<Vec<_>>().join(", "),
            opts.threads,
            single.iter().map(|m| m.name).collect::<Vec<_>>().join(", ")
        )
        .map_err(w)?;
    }
    let skipped: Vec<String> = skipped_sizes(&opts);
    if !skipped.is_empty() && opts.rsp.is_none() {
        writeln!(
            out,
            "not run: {} (not defined for the mode)",
            skipped.join(", ")
        )
        .map_err(w)?;
    }
    out.flush().map_err(w)?;

    let plan = Plan {
        budget,
        iters: opts.iters,
        min_iter: if opts.threads > 1 {
            // Thread start-up is inside each timed iteration; keep it small
            // against the work.
            Duration::from_micros(500)
        } else if opts.iters.is_some() {
            // Apple's tstaes times single calls; batch only calls too short
            // for the clock.
            Duration::from_micros(1)
        } else {
            Duration::from_micros(20)
        },
    };
    let mut progress = Progress::new(cases.len());
    let mut rows = Vec::new();
    for (case, (setup, vector)) in cases.iter().zip(&setups) {
        progress.step(case);
        let expect = vector.as_ref().map(|v| v.expected.as_slice());
        let mut case_rows = run_case(&opts, case, setup, expect, &plan, &clock)?;
        rows.append(&mut case_rows);
    }
    progress.finish();
    report::add_ratios(&mut rows);
    report::print(&mut out, &rows, opts.mb).map_err(w)?;
    report::print_summary(&mut out, &rows).map_err(w)?;
    if opts.impls.contains(&Impl::Cuda) {
        cuda_impl::print_device_figures(&mut out, 256 << 20).map_err(CliError::failure)?;
    }
    writeln!(
        out,
        "x peer: median over the best peer's median for the same case; x soft: over aesx-soft's. \
         Shared machine: compare within one run."
    )
    .map_err(w)?;
    let meta = report::Meta {
        cpu: timing::cpu_name(),
        date: timing::utc_now(),
        clock: clock.describe(),
    };
    if let Some(p) = &opts.json {
        json::write(p, &meta, &rows)?;
    }
    if let Some(p) = &opts.csv {
        csv::write(p, &rows)?;
    }
    if let Some(p) = &opts.plot {
        plot::write(p, &meta, &rows)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The default suite must fit its minute whatever the portable backend's
/// speed: every output is checked against aesx-soft, so a slow soft backend
/// makes the large sizes expensive even for the others. Measures soft once
/// and leaves out the sizes it would take too long on; returns the note
/// that says so.
fn trim_default_sizes(opts: &mut Options) -> Option<String> {
    const LARGE: usize = 256 << 10;
    const ALLOWED: f64 = 8.0;
    let probe = Case {
        mode: Mode::Ctr,
        key_bits: 128,
        size: 16384,
    };
    let setup = Setup::generate(&probe);
    let soft = Impl::Aesx(aesx::Backend::Soft);
    let mut s = Subject::new(soft, &probe, &setup, 1).ok()?;
    s.run(1).ok()?;
    let per_byte = s.run(2).ok()?.as_secs_f64() / (2.0 * probe.size as f64);
    // Two reference calls per case, and as many again when soft is timed.
    let calls = if opts.impls.contains(&soft) { 5.0 } else { 2.0 };
    let large: Vec<usize> = opts.sizes.iter().copied().filter(|&z| z >= LARGE).collect();
    let cost: f64 = large.iter().map(|&z| z as f64).sum::<f64>()
        * per_byte
        * calls
        * (opts.modes.len() * opts.key_bits.len()) as f64;
    if large.is_empty() || cost <= ALLOWED {
        return None;
    }
    opts.sizes.retain(|&z| z < LARGE);
    Some(format!(
        "default suite without {} B: aesx-soft, the reference every output is checked against, \
         runs at {:.1} MB/s here and would take about {:.0} s there (--size 1M runs it)",
        large
            .iter()
            .map(|z| z.to_string())
            .collect::<Vec<_>>()
            .join("/"),
        1e-6 / per_byte,
        cost
    ))
}

/// The bytes for a generated case; for gcm-dec, with the message sealed by
/// aesx-soft (if that seal were wrong, every other library would refuse to
/// open it and the run would stop).
pub(crate) fn setup_for(case: &Case) -> Result<Setup, CliError> {
    let mut setup = Setup::generate(case);
    if case.mode == Mode::GcmDec {
        let gcm = aesx::Gcm::with_backend(&setup.key, aesx::Backend::Soft)?;
        let mut ct = setup.input.clone();
        let tag = gcm.seal_in_place_detached(&setup.iv, &setup.aad, &mut ct)?;
        let tag: [u8; 16] = tag
            .as_bytes()
            .try_into()
            .map_err(|_| CliError::failure("GCM tag is not 16 bytes"))?;
        setup.sealed = Some((ct, tag));
    }
    Ok(setup)
}

/// The implementations that run `case`.
fn impls_for(opts: &Options, case: &Case) -> Vec<Impl> {
    opts.impls
        .iter()
        .copied()
        .filter(|i| i.supports(case.mode, case.key_bits))
        .collect()
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
) -> Result<Vec<Row>, CliError> {
    let impls = impls_for(opts, case);
    honesty_check(&impls, case, setup, expect)?;
    let mut subjects = impls
        .iter()
        .map(|&i| Subject::new(i, case, setup, threads_for(opts, case.mode)))
        .collect::<Result<Vec<_>, _>>()
        .map_err(CliError::failure)?;
    measure::measure(&mut subjects, plan).map_err(CliError::failure)?;
    Ok(subjects
        .iter()
        .filter_map(|s| Row::from_subject(s, case, clock))
        .collect())
}

/// Every implementation's first two outputs must equal aesx-soft's (and the
/// first one the file's expectation, when there is one); returns the
/// reference outputs.
fn honesty_check(
    impls: &[Impl],
    case: &Case,
    setup: &Setup,
    expect: Option<&[u8]>,
) -> Result<[Vec<u8>; 2], CliError> {
    let soft = Impl::Aesx(aesx::Backend::Soft);
    let reference = first_outputs(soft, case, setup).map_err(CliError::failure)?;
    let where_ = format!("{} AES-{} {} B", case.mode, case.key_bits, case.size);
    if let Some(want) = expect {
        if let Some(m) = mismatch(
            &format!("aesx-soft, {where_}, against the file"),
            &reference[0],
            want,
        ) {
            return Err(CliError::failure(format!("output check failed: {m}")));
        }
    }
    for &imp in impls.iter().filter(|&&i| i != soft) {
        let got = first_outputs(imp, case, setup).map_err(CliError::failure)?;
        for (k, (g, r)) in got.iter().zip(&reference).enumerate() {
            let what = format!("{imp}, {where_}, call {}", k + 1);
            if let Some(m) = mismatch(&what, g, r) {
                return Err(CliError::failure(format!(
                    "output check failed against aesx-soft: {m}"
                )));
            }
        }
    }
    Ok(reference)
}

/// Threads a mode gets: the requested number where it splits, else one.
fn threads_for(opts: &Options, mode: Mode) -> usize {
    if mode.spec().splits {
        opts.threads
    } else {
        1
    }
}

/// The cases of the grid, in report order; an error if none is valid.
fn grid(opts: &Options) -> Result<Vec<Case>, CliError> {
    let mut cases = Vec::new();
    for &mode in &opts.modes {
        for &key_bits in &opts.key_bits {
            for &size in &opts.sizes {
                if mode.accepts(size) && mode.has_key_bits(key_bits) {
                    cases.push(Case {
                        mode,
                        key_bits,
                        size,
                    });
                }
            }
        }
    }
    if cases.is_empty() {
        return Err(CliError::usage(
            "no case to run: the chosen modes need whole 16-byte blocks (XTS: at least 16 bytes, \
             128- or 256-bit keys)",
        ));
    }
    Ok(cases)
}

fn skipped_sizes(opts: &Options) -> Vec<String> {
    let mut v = Vec::new();
    for &mode in &opts.modes {
        let bad: Vec<String> = opts
            .sizes
            .iter()
            .filter(|&&s| !mode.accepts(s))
            .map(|s| s.to_string())
            .collect();
        if !bad.is_empty() {
            v.push(format!("{mode} at {} B", bad.join("/")));
        }
        for k in opts.key_bits.iter().filter(|&&k| !mode.has_key_bits(k)) {
            v.push(format!("{mode} with {k}-bit keys"));
        }
    }
    v
}

impl Options {
    fn parse(a: BenchArgs) -> Result<Options, CliError> {
        let usage = |m: String| CliError::usage(m);
        let default_grid = a.modes.is_empty()
            && a.sizes.is_empty()
            && a.key_bits.is_empty()
            && a.blocks.is_none()
            && a.rsp.is_none();
        let mut chosen_modes = Vec::new();
        for s in &a.modes {
            let m = Mode::parse(s).ok_or_else(|| {
                usage(format!(
                    "unknown mode '{s}' (expected one of {})",
                    Mode::all_names()
                ))
            })?;
            if !chosen_modes.contains(&m) {
                chosen_modes.push(m);
            }
        }
        let modes = if chosen_modes.is_empty() {
            MODES.iter().map(|m| m.mode).collect()
        } else {
            chosen_modes.clone()
        };
        let mut key_bits = Vec::new();
        for s in &a.key_bits {
            match s.trim().parse::<u32>() {
                Ok(b @ (128 | 192 | 256)) if !key_bits.contains(&b) => key_bits.push(b),
                Ok(128 | 192 | 256) => {}
                _ => {
                    return Err(usage(format!(
                        "bad --key-bits '{s}' (expected 128, 192 or 256)"
                    )))
                }
            }
        }
        let chosen_key_bits = key_bits.clone();
        if key_bits.is_empty() {
            key_bits = DEFAULT_KEY_BITS.to_vec();
        }
        let mut sizes = Vec::new();
        for s in &a.sizes {
            let n = parse_size(s).ok_or_else(|| {
                usage(format!(
                    "bad --size '{s}' (expected 1 to 256M bytes, e.g. 1500, 16K, 1M)"
                ))
            })?;
            if !sizes.contains(&n) {
                sizes.push(n);
            }
        }
        let mb = a.blocks.is_some();
        if let Some(b) = &a.blocks {
            if !sizes.is_empty() {
                return Err(CliError::usage(
                    "--blocks and --size are two ways to say the same thing: pick one",
                ));
            }
            let n = parse_count(b, "--blocks", (MAX_SIZE / 16) as u64)?;
            sizes.push(n as usize * 16);
        }
        let chosen_sizes = sizes.clone();
        if sizes.is_empty() {
            sizes = DEFAULT_SIZES.to_vec();
        }
        let iters = a
            .iters
            .as_deref()
            .map(|s| parse_count(s, "--iters", 1_000_000_000))
            .transpose()?;
        let threads = a
            .threads
            .as_deref()
            .map(|s| parse_count(s, "--threads", 1024))
            .transpose()?
            .unwrap_or(1) as usize;
        let time = match a.time.as_deref() {
            None => None,
            Some(s) => match s.trim().parse::<f64>() {
                Ok(t) if t > 0.0 && t <= 3600.0 => Some(Duration::from_secs_f64(t)),
                _ => {
                    return Err(usage(format!(
                        "bad --time '{s}' (expected seconds, 0 < t <= 3600)"
                    )))
                }
            },
        };
        let confidence = match a.confidence.trim().trim_end_matches('%').parse::<f64>() {
            Ok(c) if (50.0..100.0).contains(&c) => c / 100.0,
            _ => {
                return Err(usage(format!(
                    "bad --confidence '{}' (expected a percentage from 50 to 99.99)",
                    a.confidence
                )))
            }
        };
        let isa = a.isa.as_deref().map(isa::Tier::parse).transpose()?;
        if isa.is_some() && !a.backends.is_empty() {
            return Err(CliError::usage(
                "--isa runs the tier's own aesx backend: drop --backend",
            ));
        }
        let mut impls = Vec::new();
        if let Some(t) = isa {
            impls.push(Impl::Aesx(t.backend()));
        } else if a.backends.is_empty() {
            impls.extend(Impl::all_available().into_iter().filter(|i| !i.is_peer()));
        } else {
            for s in &a.backends {
                let i = Impl::parse(s).map_err(usage)?;
                if i.is_peer() {
                    return Err(usage(format!(
                        "--backend takes aesx backends; {i} is a peer (see --no-peers)"
                    )));
                }
                if !impls.contains(&i) {
                    impls.push(i);
                }
            }
        }
        if !a.no_peers {
            impls.extend(
                Impl::all_available()
                    .into_iter()
                    .filter(|i| i.is_peer() && isa.is_none_or(|t| t.counts(*i))),
            );
        }
        let compare = match a.compare.as_slice() {
            [] => None,
            [x, y] => Some((
                Impl::parse(x).map_err(usage)?,
                Impl::parse(y).map_err(usage)?,
            )),
            _ => return Err(CliError::usage("--compare takes two implementations")),
        };
        if compare.is_some() && a.rsp.is_some() {
            return Err(CliError::usage("--compare and --rsp do not go together"));
        }
        if a.rsp.is_some()
            && !(a.modes.is_empty()
                && a.sizes.is_empty()
                && a.key_bits.is_empty()
                && a.blocks.is_none())
        {
            return Err(CliError::usage(
                "--rsp takes mode, key and size from the file: drop --mode, --key-bits, --size, --blocks",
            ));
        }
        // Checked last, so that a malformed command line is exit 2 on any
        // CPU.
        if let Some(t) = isa {
            t.require(|b| b.is_available())?;
        }
        Ok(Options {
            modes,
            key_bits,
            sizes,
            impls,
            iters,
            time,
            threads,
            rsp: a.rsp,
            json: a.json,
            csv: a.csv,
            plot: a.plot,
            compare,
            confidence,
            chosen_modes,
            chosen_key_bits,
            chosen_sizes,
            default_grid,
            mb,
            isa,
        })
    }
}

/// A byte count with an optional K/M/G suffix (powers of 1024), 1..=256 MiB.
fn parse_size(s: &str) -> Option<usize> {
    let t = s.trim().to_ascii_lowercase();
    let t = t
        .strip_suffix("ib")
        .or_else(|| t.strip_suffix('b'))
        .unwrap_or(&t);
    let (num, mult) = match t.chars().last()? {
        'k' => (&t[..t.len() - 1], 1usize << 10),
        'm' => (&t[..t.len() - 1], 1 << 20),
        'g' => (&t[..t.len() - 1], 1 << 30),
        _ => (t, 1),
    };
    let n: usize = num.trim().parse().ok()?;
    let n = n.checked_mul(mult)?;
    (1..=MAX_SIZE).contains(&n).then_some(n)
}

/// A positive integer up to `max`.
fn parse_count(s: &str, what: &str, max: u64) -> Result<u64, CliError> {
    match s.trim().parse::<u64>() {
        Ok(n) if n >= 1 && n <= max => Ok(n),
        _ => Err(CliError::usage(format!(
            "bad {what} '{s}' (expected an integer from 1 to {max})"
        ))),
    }
}

/// A progress line on stderr: rewritten in place on a terminal, one short
/// line per mode and key size otherwise.
struct Progress {
    total: usize,
    done: usize,
    tty: bool,
    group: Option<(Mode, u32)>,
}

impl Progress {
    fn new(total: usize) -> Progress {
        Progress {
            total,
            done: 0,
            tty: std::io::stderr().is_terminal(),
            group: None,
        }
    }

    fn step(&mut self, case: &Case) {
        self.done += 1;
        let mut err = std::io::stderr().lock();
        if self.tty {
            let _ = write!(
                err,
                "\r\x1b[K[{}/{}] {} AES-{} {} B",
                self.done, self.total, case.mode, case.key_bits, case.size
            );
        } else if self.group != Some((case.mode, case.key_bits)) {
            self.group = Some((case.mode, case.key_bits));
            let _ = writeln!(
                err,
                "aesx bench: {} AES-{} (case {} of {})",
                case.mode, case.key_bits, self.done, self.total
            );
        }
        let _ = err.flush();
    }

    fn finish(&self) {
        if self.tty {
            let _ = write!(std::io::stderr(), "\r\x1b[K");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honesty_check_catches_a_wrong_expectation() {
        let case = Case {
            mode: Mode::CbcEnc,
            key_bits: 128,
            size: 64,
        };
        let setup = setup_for(&case).unwrap();
        let all: Vec<Impl> = Impl::all_available()
            .into_iter()
            .filter(|i| i.supports(case.mode, case.key_bits))
            .collect();
        let good = honesty_check(&all, &case, &setup, None).unwrap();
        assert!(honesty_check(&all, &case, &setup, Some(&good[0])).is_ok());
        let mut bad = good[0].clone();
        bad[63] ^= 1;
        let err = honesty_check(&all, &case, &setup, Some(&bad)).unwrap_err();
        assert!(err.to_string().contains("byte 63"), "{err}");
        assert!(mismatch("x", &[1, 2], &[1, 2]).is_none());
        assert!(mismatch("x", &[1, 2], &[1, 3]).unwrap().contains("byte 1"));
        assert!(mismatch("x", &[1], &[1, 2]).is_some());
    }

    /// aws-lc-rs keeps the modes' state itself (CBC chain, CTR counter and
    /// the rest of a partial keystream block): its first two calls must
    /// equal aesx-soft's in every mode, key size and kind of size.
    #[test]
    fn aws_lc_rows_match_aesx_soft() {
        let mut checked = 0;
        for spec in MODES {
            for key_bits in [128, 192, 256] {
                for size in [16, 64, 1500, 4096] {
                    let case = Case {
                        mode: spec.mode,
                        key_bits,
                        size,
                    };
                    if !(spec.mode.accepts(size) && Impl::AwsLc.supports(spec.mode, key_bits)) {
                        continue;
                    }
                    let setup = setup_for(&case).unwrap();
                    honesty_check(&[Impl::AwsLc], &case, &setup, None)
                        .unwrap_or_else(|e| panic!("{}: {e}", case.mode));
                    checked += 1;
                }
            }
        }
        // block, ecb, cbc-enc, cbc-dec: 3 keys x 3 sizes; ctr, gcm-enc,
        // gcm-dec: 3 keys x 4 sizes; no XTS.
        assert_eq!(checked, 4 * 9 + 3 * 12);
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("16"), Some(16));
        assert_eq!(parse_size("16K"), Some(16384));
        assert_eq!(parse_size("1MiB"), Some(1 << 20));
        assert_eq!(parse_size("1m"), Some(1 << 20));
        assert_eq!(parse_size("4kb"), Some(4096));
        assert_eq!(parse_size("0"), None);
        assert_eq!(parse_size("1G"), None);
        assert_eq!(parse_size("x"), None);
        assert_eq!(parse_size(""), None);
        assert_eq!(parse_size("99999999999999999999999K"), None);
    }
}
