//! Planning a run: which cases, which implementations on each, how many
//! threads, how long each measurement gets, and the bytes each case runs on.

use std::time::Duration;

use aesx::{Backend, Ccm, Gcm, GcmSiv, Xaes256Gcm};

use super::args::Options;
use super::cases::{Case, Mode, Setup};
use super::impls::Impl;
use super::measure::{Plan, Subject};
use super::rsp::{self, RspVector};
use aesx_file::CommandError;

/// The whole suite should take about this long by default.
const SUITE_BUDGET: Duration = Duration::from_secs(50);

/// The default suite must fit its minute whatever the portable backend's
/// speed: every output is checked against aesx-soft, so a slow soft backend
/// makes the large sizes expensive even for the others. Measures soft once
/// and leaves out the sizes it would take too long on; returns the note
/// that says so.
pub(super) fn trim_default_sizes(opts: &mut Options) -> Option<String> {
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
pub(super) fn setup_for(case: &Case) -> Result<Setup, CommandError> {
    let mut setup = Setup::generate(case);
    if case.mode.opens() {
        let mut ct = setup.input.clone();
        let (key, soft, nonce, aad) = (&setup.key, Backend::Soft, &setup.iv, &setup.aad);
        let tag = match case.mode {
            Mode::GcmSivDec => {
                GcmSiv::with_backend(key, soft)?.seal_in_place_detached(nonce, aad, &mut ct)?
            }
            Mode::XaesDec => {
                Xaes256Gcm::with_backend(key, soft)?.seal_in_place_detached(nonce, aad, &mut ct)?
            }
            Mode::CcmDec => {
                Ccm::with_backend(key, 16, soft)?.seal_in_place_detached(nonce, aad, &mut ct)?
            }
            _ => Gcm::with_backend(key, soft)?.seal_in_place_detached(nonce, aad, &mut ct)?,
        };
        let tag: [u8; 16] = tag
            .as_bytes()
            .try_into()
            .map_err(|_| CommandError::failure("GCM tag is not 16 bytes"))?;
        setup.sealed = Some((ct, tag));
    }
    Ok(setup)
}

/// The implementations that run `case`.
pub(super) fn impls_for(opts: &Options, case: &Case) -> Vec<Impl> {
    opts.impls
        .iter()
        .copied()
        .filter(|i| i.supports(case.mode, case.key_bits))
        .collect()
}

/// Threads aesx's own parallel call may use for one message of `mode`:
/// `--threads` for GCM and GCM-SIV (the library splits them: counter
/// ranges, GHASH or POLYVAL sums combined with powers of H), 1 for the
/// rest. The peers have no such call and run these modes on one thread.
pub(super) fn library_threads(opts: &Options, mode: Mode) -> usize {
    if matches!(
        mode,
        Mode::GcmEnc | Mode::GcmDec | Mode::GcmSivEnc | Mode::GcmSivDec
    ) {
        opts.threads
    } else {
        1
    }
}

/// Threads a mode gets: the requested number where it splits, else one.
pub(super) fn threads_for(opts: &Options, mode: Mode) -> usize {
    if mode.spec().splits {
        opts.threads
    } else {
        1
    }
}

/// The aesx backends that also run a case on one thread, beside their
/// rows on `--threads`: every CPU backend but the bitsliced one, when the
/// case runs on more than one thread. Their rows give each backend's own
/// scaling in the same run (and its ratio to the peers, which run GCM and
/// GCM-SIV on one thread).
pub(super) fn one_thread_twins(opts: &Options, case: &Case) -> Vec<Impl> {
    if threads_for(opts, case.mode).max(library_threads(opts, case.mode)) < 2 {
        return Vec::new();
    }
    impls_for(opts, case)
        .into_iter()
        .filter(|i| matches!(i, Impl::Aesx(b) if *b != Backend::Soft))
        .collect()
}

/// The cases of the grid, in report order; an error if none is valid.
pub(super) fn grid(opts: &Options) -> Result<Vec<Case>, CommandError> {
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
        return Err(CommandError::usage(
            "no case to run: the chosen modes need whole 16-byte blocks (XTS: at least 16 bytes, \
             128- or 256-bit keys)",
        ));
    }
    Ok(cases)
}

/// The sizes and key sizes a chosen mode cannot run, for the header.
pub(super) fn skipped_sizes(opts: &Options) -> Vec<String> {
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

/// The cases to run, each with its bytes (and, with `--rsp`, the file's
/// vector to check against), and the note that says what was chosen for
/// the user, if anything.
pub(super) struct Grid {
    pub(super) cases: Vec<Case>,
    pub(super) setups: Vec<(Setup, Option<RspVector>)>,
    pub(super) note: Option<String>,
}

/// The grid from the options (the default suite trimmed to its minute),
/// or the one case of an `--rsp` file.
pub(super) fn cases(opts: &mut Options) -> Result<Grid, CommandError> {
    if let Some(path) = &opts.rsp {
        let v = rsp::load(path)?;
        let note = v.describe(path);
        let (case, setup) = (v.case, v.setup.clone());
        return Ok(Grid {
            cases: vec![case],
            setups: vec![(setup, Some(v))],
            note: Some(note),
        });
    }
    let note = if opts.default_grid {
        trim_default_sizes(opts)
    } else {
        None
    };
    let cases = grid(opts)?;
    let setups = cases
        .iter()
        .map(|c| setup_for(c).map(|s| (s, None)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Grid {
        cases,
        setups,
        note,
    })
}

/// Number of measurements (implementation × case) in the grid.
pub(super) fn measurements(opts: &Options, cases: &[Case]) -> usize {
    cases
        .iter()
        .map(|c| impls_for(opts, c).len() + one_thread_twins(opts, c).len())
        .sum::<usize>()
        .max(1)
}

/// Time per measurement: `--time`, or the suite's budget shared out.
pub(super) fn budget(opts: &Options, measurements: usize) -> Duration {
    opts.time.unwrap_or_else(|| {
        SUITE_BUDGET
            .div_f64(measurements as f64)
            .clamp(Duration::from_millis(10), Duration::from_millis(500))
    })
}

/// How the measuring loop batches calls for this run.
pub(super) fn measure_plan(opts: &Options, budget: Duration) -> Plan {
    Plan {
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
    }
}
