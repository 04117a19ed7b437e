//! The options of `aesx bench`: the clap arguments, taken as text, and
//! their checked form.

use std::path::PathBuf;
use std::time::Duration;

use super::cases::{Mode, DEFAULT_KEY_BITS, DEFAULT_SIZES, MODES};
use super::impls::Impl;
use super::isa;
use aesx_file::CommandError;

/// Arguments of `aesx bench` (boxed: they are many, and the subcommand enum
/// should not grow to their size).
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub(super) inner: Box<BenchArgs>,
}

/// The options themselves.
///
/// Values are taken as text and checked here, so that every mistake is
/// reported as one line with exit status 2.
#[derive(clap::Args, Debug)]
pub(super) struct BenchArgs {
    /// Modes to run (repeatable or comma-separated): block, ecb, cbc-enc,
    /// cbc-dec, ctr, xts-enc, xts-dec, gcm-enc, gcm-dec (the default
    /// suite), and gcm-siv-enc, gcm-siv-dec, xaes-enc, xaes-dec, ccm-enc,
    /// ccm-dec, cmac, kw (only when named).
    #[arg(long = "mode", value_name = "MODE", value_delimiter = ',')]
    pub(super) modes: Vec<String>,
    /// Key sizes in bits: 128, 192, 256. Default: 128 and 256.
    #[arg(long = "key-bits", value_name = "BITS", value_delimiter = ',')]
    pub(super) key_bits: Vec<String>,
    /// Message sizes in bytes (suffixes K, M, KiB, MiB). Default: 16, 64,
    /// 256, 1024, 1500, 4096, 16384 and 1 MiB.
    #[arg(long = "size", value_name = "BYTES", value_delimiter = ',')]
    pub(super) sizes: Vec<String>,
    // The help names the library's list of backends (`backends_help`).
    #[arg(long = "backend", value_name = "NAME", value_delimiter = ',', help = backends_help())]
    pub(super) backends: Vec<String>,
    /// Leave out OpenSSL, AWS-LC, ring and RustCrypto.
    #[arg(long)]
    pub(super) no_peers: bool,
    // The help names the x86 tiers of the library's list (`isa_help`).
    #[arg(long, value_name = "TIER", help = isa_help())]
    pub(super) isa: Option<String>,
    /// Exactly N timed iterations per implementation and case (Apple's
    /// tstaes: `--iters 1000 --blocks 2560`).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub(super) iters: Option<String>,
    /// Message size in 16-byte blocks (instead of --size).
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub(super) blocks: Option<String>,
    /// Time budget in seconds per implementation and case, warm-up
    /// included (default: the suite's one-minute budget shared out; with
    /// --compare, per implementation in total, default 2).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS")]
    pub(super) time: Option<String>,
    /// Split each message over N threads, for the modes that split (block,
    /// ecb, cbc-dec, ctr, xts-enc, xts-dec), and for gcm-enc, gcm-dec,
    /// gcm-siv-enc and gcm-siv-dec through aesx's own parallel call (peers
    /// on one); the others run on one. aesx's CPU backends also run each
    /// such case on one thread, and a "scaling" block gives the ratio.
    #[arg(long, allow_negative_numbers = true, value_name = "N")]
    pub(super) threads: Option<String>,
    /// Run the vector of an AArch64cryptolib speed-test file: check the
    /// output against it, then time it.
    #[arg(long, value_name = "FILE")]
    pub(super) rsp: Option<PathBuf>,
    /// Write one JSON object per row to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) json: Option<PathBuf>,
    /// Write the rows as CSV to FILE.
    #[arg(long, value_name = "FILE")]
    pub(super) csv: Option<PathBuf>,
    /// Draw throughput against size (SVG), one panel per mode and key size.
    #[arg(long, value_name = "FILE.svg")]
    pub(super) plot: Option<PathBuf>,
    /// Alternate two implementations on one case and test the difference
    /// (Welch's t), ministat style.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub(super) compare: Vec<String>,
    /// Confidence level for --compare, in percent.
    #[arg(long, value_name = "PERCENT", default_value = "95")]
    pub(super) confidence: String,
    /// The CPU-versus-GPU file table: AES-256-ECB and the file format,
    /// encrypt and decrypt, end to end (read, crypt, write) and in memory,
    /// best CPU backend against the GPU, beside a plain copy, for 1028 B to
    /// 1 GiB (or --size); with --json/--csv/--plot.
    #[arg(long)]
    pub(super) gpu_table: bool,
}

/// The checked options.
pub(super) struct Options {
    pub(super) modes: Vec<Mode>,
    pub(super) key_bits: Vec<u32>,
    pub(super) sizes: Vec<usize>,
    pub(super) impls: Vec<Impl>,
    pub(super) iters: Option<u64>,
    pub(super) time: Option<Duration>,
    pub(super) threads: usize,
    pub(super) rsp: Option<PathBuf>,
    pub(super) json: Option<PathBuf>,
    pub(super) csv: Option<PathBuf>,
    pub(super) plot: Option<PathBuf>,
    pub(super) compare: Option<(Impl, Impl)>,
    pub(super) confidence: f64,
    /// What --mode, --key-bits, --size (or --blocks) named, before defaults.
    pub(super) chosen_modes: Vec<Mode>,
    pub(super) chosen_key_bits: Vec<u32>,
    pub(super) chosen_sizes: Vec<usize>,
    /// No grid option was given: the default suite.
    pub(super) default_grid: bool,
    /// Apple-style MB/s columns (with --blocks).
    pub(super) mb: bool,
    /// `--isa`: the tier, its peers restricted.
    pub(super) isa: Option<isa::Tier>,
}

/// Largest message: every implementation keeps its own buffer.
const MAX_SIZE: usize = 256 << 20;

impl Options {
    /// Checks the options; every mistake is a usage error (exit 2).
    pub(super) fn parse(a: BenchArgs) -> Result<Options, CommandError> {
        let default_grid = a.modes.is_empty()
            && a.sizes.is_empty()
            && a.key_bits.is_empty()
            && a.blocks.is_none()
            && a.rsp.is_none();
        let chosen_modes = parse_modes(&a.modes)?;
        let modes = if chosen_modes.is_empty() {
            MODES.iter().filter(|m| m.default).map(|m| m.mode).collect()
        } else {
            chosen_modes.clone()
        };
        let chosen_key_bits = parse_key_bits(&a.key_bits)?;
        let key_bits = if chosen_key_bits.is_empty() {
            DEFAULT_KEY_BITS.to_vec()
        } else {
            chosen_key_bits.clone()
        };
        let chosen_sizes = parse_sizes(&a.sizes, a.blocks.as_deref())?;
        let sizes = if chosen_sizes.is_empty() {
            DEFAULT_SIZES.to_vec()
        } else {
            chosen_sizes.clone()
        };
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
        let time = a.time.as_deref().map(parse_time).transpose()?;
        let confidence = parse_confidence(&a.confidence)?;
        let isa = a.isa.as_deref().map(isa::Tier::parse).transpose()?;
        let impls = parse_impls(&a.backends, a.no_peers, isa)?;
        let compare = match a.compare.as_slice() {
            [] => None,
            [x, y] => Some((
                Impl::parse(x).map_err(CommandError::usage)?,
                Impl::parse(y).map_err(CommandError::usage)?,
            )),
            _ => return Err(CommandError::usage("--compare takes two implementations")),
        };
        if a.plot.is_some() && cfg!(not(feature = "plot")) {
            return Err(CommandError::usage(
                "--plot needs the `plot` feature, which this build left out",
            ));
        }
        if compare.is_some() && a.rsp.is_some() {
            return Err(CommandError::usage(
                "--compare and --rsp do not go together",
            ));
        }
        if a.rsp.is_some()
            && !(a.modes.is_empty()
                && a.sizes.is_empty()
                && a.key_bits.is_empty()
                && a.blocks.is_none())
        {
            return Err(CommandError::usage(
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
            mb: a.blocks.is_some(),
            isa,
        })
    }
}

/// `--mode`, each mode once, in the order given.
fn parse_modes(names: &[String]) -> Result<Vec<Mode>, CommandError> {
    let mut modes = Vec::new();
    for s in names {
        let m = Mode::parse(s).ok_or_else(|| {
            CommandError::usage(format!(
                "unknown mode '{s}' (expected one of {})",
                Mode::all_names()
            ))
        })?;
        if !modes.contains(&m) {
            modes.push(m);
        }
    }
    Ok(modes)
}

/// `--key-bits`, each size once.
fn parse_key_bits(values: &[String]) -> Result<Vec<u32>, CommandError> {
    let mut key_bits = Vec::new();
    for s in values {
        match s.trim().parse::<u32>() {
            Ok(b @ (128 | 192 | 256)) if !key_bits.contains(&b) => key_bits.push(b),
            Ok(128 | 192 | 256) => {}
            _ => {
                return Err(CommandError::usage(format!(
                    "bad --key-bits '{s}' (expected 128, 192 or 256)"
                )))
            }
        }
    }
    Ok(key_bits)
}

/// `--size` (each once) or `--blocks`, in bytes.
fn parse_sizes(values: &[String], blocks: Option<&str>) -> Result<Vec<usize>, CommandError> {
    let mut sizes = Vec::new();
    for s in values {
        let n = parse_size(s).ok_or_else(|| {
            CommandError::usage(format!(
                "bad --size '{s}' (expected 1 to 256M bytes, e.g. 1500, 16K, 1M)"
            ))
        })?;
        if !sizes.contains(&n) {
            sizes.push(n);
        }
    }
    if let Some(b) = blocks {
        if !sizes.is_empty() {
            return Err(CommandError::usage(
                "--blocks and --size are two ways to say the same thing: pick one",
            ));
        }
        let n = parse_count(b, "--blocks", (MAX_SIZE / 16) as u64)?;
        sizes.push(n as usize * 16);
    }
    Ok(sizes)
}

/// `--time`, in seconds.
fn parse_time(s: &str) -> Result<Duration, CommandError> {
    match s.trim().parse::<f64>() {
        Ok(t) if t > 0.0 && t <= 3600.0 => Ok(Duration::from_secs_f64(t)),
        _ => Err(CommandError::usage(format!(
            "bad --time '{s}' (expected seconds, 0 < t <= 3600)"
        ))),
    }
}

/// `--confidence`, a percentage, as a fraction.
fn parse_confidence(s: &str) -> Result<f64, CommandError> {
    match s.trim().trim_end_matches('%').parse::<f64>() {
        Ok(c) if (50.0..100.0).contains(&c) => Ok(c / 100.0),
        _ => Err(CommandError::usage(format!(
            "bad --confidence '{s}' (expected a percentage from 50 to 99.99)"
        ))),
    }
}

/// `--backend`'s help: every backend of the library's list, and the GPU.
fn backends_help() -> String {
    let names: Vec<&str> = aesx::Backend::ALL.iter().map(|b| b.name()).collect();
    format!(
        "aesx backends to run ({}, cuda; with or without the aesx- prefix). \
         Default: every available one.",
        names.join(", ")
    )
}

/// `--isa`'s help: the tiers of the list's x86 family.
fn isa_help() -> String {
    let tiers: Vec<&str> = isa::Tier::all().map(isa::Tier::name).collect();
    format!(
        "Run one x86 tier ({}): aesx on that backend, OpenSSL and AWS-LC restricted to its \
         instructions (OPENSSL_ia32cap), ring and RustCrypto only where their own code is \
         the tier's.",
        tiers.join(", ")
    )
}

/// The implementations to run: `--isa`'s backend, the `--backend`s or every
/// available aesx backend, then the peers (those the tier counts, with
/// `--isa`) unless `--no-peers`.
fn parse_impls(
    backends: &[String],
    no_peers: bool,
    isa: Option<isa::Tier>,
) -> Result<Vec<Impl>, CommandError> {
    if isa.is_some() && !backends.is_empty() {
        return Err(CommandError::usage(
            "--isa runs the tier's own aesx backend: drop --backend",
        ));
    }
    let mut impls = Vec::new();
    if let Some(t) = isa {
        impls.push(Impl::Aesx(t.backend()));
    } else if backends.is_empty() {
        impls.extend(Impl::all_available().into_iter().filter(|i| !i.is_peer()));
    } else {
        for s in backends {
            let i = Impl::parse(s).map_err(CommandError::usage)?;
            if i.is_peer() {
                return Err(CommandError::usage(format!(
                    "--backend takes aesx backends; {i} is a peer (see --no-peers)"
                )));
            }
            if !impls.contains(&i) {
                impls.push(i);
            }
        }
    }
    if !no_peers {
        impls.extend(
            Impl::all_available()
                .into_iter()
                .filter(|i| i.is_peer() && isa.is_none_or(|t| t.counts(*i))),
        );
    }
    Ok(impls)
}

/// A byte count with an optional K/M/G suffix (powers of 1024), 1..=256 MiB.
fn parse_size(s: &str) -> Option<usize> {
    parse_size_up_to(s, MAX_SIZE)
}

/// A byte count with an optional K/M/G suffix (powers of 1024; `_` may
/// group digits), from 1 to `max` (also `--gpu-table`'s sizes).
pub(crate) fn parse_size_up_to(s: &str, max: usize) -> Option<usize> {
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
    let n: usize = num.trim().replace('_', "").parse().ok()?;
    let n = n.checked_mul(mult)?;
    (1..=max).contains(&n).then_some(n)
}

/// A positive integer up to `max`.
fn parse_count(s: &str, what: &str, max: u64) -> Result<u64, CommandError> {
    match s.trim().parse::<u64>() {
        Ok(n) if n >= 1 && n <= max => Ok(n),
        _ => Err(CommandError::usage(format!(
            "bad {what} '{s}' (expected an integer from 1 to {max})"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
