//! Rows of results and the text table.

use std::io::{self, Write};

use super::cases::{Case, Mode};
use super::measure::Subject;
use super::stats::Summary;
use super::timing::ClockInfo;

/// Facts about the run, for the file outputs.
pub struct Meta {
    /// CPU model name.
    pub cpu: String,
    /// When the run was made (UTC).
    pub date: String,
    /// The clock line.
    pub clock: String,
    /// The AES port bounds measured for the "x bound" column.
    pub bounds: Vec<String>,
}

/// One implementation on one case.
#[derive(Clone, Debug)]
pub struct Row {
    /// Row name (`aesx-vaes512`, `openssl`, ...).
    pub imp: String,
    /// Whether the row is a peer library.
    pub peer: bool,
    /// Mode.
    pub mode: Mode,
    /// Key size in bits.
    pub key_bits: u32,
    /// Message size in bytes.
    pub size: usize,
    /// Threads the message was split over.
    pub threads: usize,
    /// Timed iterations.
    pub iterations: usize,
    /// Calls per timed iteration.
    pub calls_per_iter: u64,
    /// Median time per call, in nanoseconds.
    pub ns_per_call: f64,
    /// Median throughput.
    pub gb_per_s: f64,
    /// Fastest iteration.
    pub best_gb_per_s: f64,
    /// Slowest iteration.
    pub worst_gb_per_s: f64,
    /// Counter cycles (or ticks) per byte at the median.
    pub cycles_per_byte: Option<f64>,
    /// Median over the best peer's median for the case.
    pub vs_best_peer: Option<f64>,
    /// Median over aesx-soft's median for the case.
    pub vs_soft: Option<f64>,
    /// Median over the AES port bound of the row's x86 tier (`bound.rs`).
    pub vs_bound: Option<f64>,
}

impl Row {
    /// The row for a measured subject; `None` if it has no samples.
    pub fn from_subject(s: &Subject, case: &Case, clock: &ClockInfo) -> Option<Row> {
        let sum = Summary::of(&s.samples)?;
        let bytes = case.size as f64;
        let gbs = |secs: f64| if secs > 0.0 { bytes / secs / 1e9 } else { 0.0 };
        Some(Row {
            imp: s.imp.to_string(),
            peer: s.imp.is_peer(),
            mode: case.mode,
            key_bits: case.key_bits,
            size: case.size,
            threads: s.threads(),
            iterations: sum.n,
            calls_per_iter: s.batch,
            ns_per_call: sum.median * 1e9,
            gb_per_s: gbs(sum.median),
            best_gb_per_s: gbs(sum.min),
            worst_gb_per_s: gbs(sum.max),
            cycles_per_byte: clock.per_byte(gbs(sum.median) * 1e9),
            vs_best_peer: None,
            vs_soft: None,
            vs_bound: None,
        })
    }

    fn same_case(&self, o: &Row) -> bool {
        (self.mode, self.key_bits, self.size, self.threads)
            == (o.mode, o.key_bits, o.size, o.threads)
    }
}

/// Fills in the two ratio columns.
pub fn add_ratios(rows: &mut [Row]) {
    let snapshot = rows.to_vec();
    for r in rows.iter_mut() {
        let peers = snapshot.iter().filter(|o| o.peer && o.same_case(r));
        let best_peer = peers
            .map(|o| o.gb_per_s)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        let soft = snapshot
            .iter()
            .find(|o| o.imp == "aesx-soft" && o.same_case(r))
            .map(|o| o.gb_per_s);
        let ratio = |d: Option<f64>| d.filter(|&d| d > 0.0).map(|d| r.gb_per_s / d);
        r.vs_best_peer = ratio(best_peer);
        r.vs_soft = ratio(soft);
    }
}

/// Three significant digits, in a fixed width.
fn sig(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), sig)
}

/// Prints the table; `mb` switches throughput to MB/s (Apple's unit).
pub fn print(out: &mut impl Write, rows: &[Row], mb: bool) -> io::Result<()> {
    let (unit, scale) = if mb { ("MB/s", 1e3) } else { ("GB/s", 1.0) };
    writeln!(
        out,
        "\n{:<8} {:>4} {:>8} {:>3}  {:<13} {:>10} {:>8} {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5}",
        "mode",
        "key",
        "bytes",
        "thr",
        "impl",
        "us/call",
        unit,
        "c/B",
        "best",
        "worst",
        "x peer",
        "x soft",
        "x bound",
        "iters"
    )?;
    let mut last: Option<&Row> = None;
    for r in rows {
        if last.is_some_and(|l| !l.same_case(r)) {
            writeln!(out)?;
        }
        last = Some(r);
        writeln!(
            out,
            "{:<8} {:>4} {:>8} {:>3}  {:<13} {:>10} {:>8} {:>7} {:>8} {:>8} {:>7} {:>7} {:>7} {:>5}",
            r.mode.name(),
            r.key_bits,
            r.size,
            r.threads,
            r.imp,
            sig(r.ns_per_call / 1e3),
            sig(r.gb_per_s * scale),
            opt(r.cycles_per_byte),
            sig(r.best_gb_per_s * scale),
            sig(r.worst_gb_per_s * scale),
            opt(r.vs_best_peer),
            opt(r.vs_soft),
            opt(r.vs_bound),
            r.iterations,
        )?;
    }
    writeln!(out)
}

/// One line per mode and key size at the largest message measured: the
/// fastest aesx backend against the fastest peer.
pub fn print_summary(out: &mut impl Write, rows: &[Row]) -> io::Result<()> {
    let mut groups: Vec<(Mode, u32, usize)> = Vec::new();
    for r in rows {
        match groups
            .iter_mut()
            .find(|g| g.0 == r.mode && g.1 == r.key_bits)
        {
            Some(g) => g.2 = g.2.max(r.size),
            None => groups.push((r.mode, r.key_bits, r.size)),
        }
    }
    if groups.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "summary at the largest size of each mode (median GB/s):"
    )?;
    for (mode, key, size) in groups {
        let at: Vec<&Row> = rows
            .iter()
            .filter(|r| r.mode == mode && r.key_bits == key && r.size == size)
            .collect();
        let best = |peer: bool| {
            at.iter()
                .filter(|r| r.peer == peer)
                .max_by(|a, b| a.gb_per_s.total_cmp(&b.gb_per_s))
        };
        let fmt = |r: Option<&&Row>| {
            r.map_or_else(
                || "-".to_string(),
                |r| format!("{} {}", r.imp, sig(r.gb_per_s)),
            )
        };
        let ratio = match (best(false), best(true)) {
            (Some(a), Some(p)) if p.gb_per_s > 0.0 => format!("x{}", sig(a.gb_per_s / p.gb_per_s)),
            _ => "-".into(),
        };
        writeln!(
            out,
            "  {:<8} AES-{key} {:>8} B: aesx best {:<22} peer best {:<18} {ratio}",
            mode.name(),
            size,
            fmt(best(false)),
            fmt(best(true)),
        )?;
    }
    Ok(())
}

/// With `--threads`: one line per aesx row on more than one thread that
/// has a one-thread twin in the same case (`plan::one_thread_twins`), with
/// the ratio of the two medians.
pub fn print_scaling(out: &mut impl Write, rows: &[Row]) -> io::Result<()> {
    let pairs: Vec<(&Row, &Row)> = rows
        .iter()
        .filter(|r| !r.peer && r.threads > 1)
        .filter_map(|r| {
            rows.iter()
                .find(|o| {
                    o.imp == r.imp
                        && o.threads == 1
                        && (o.mode, o.key_bits, o.size) == (r.mode, r.key_bits, r.size)
                })
                .map(|one| (r, one))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(());
    }
    writeln!(out, "scaling: each aesx row on more than one thread against itself on one, same run (median GB/s):")?;
    for (r, one) in pairs {
        let ratio = if one.gb_per_s > 0.0 {
            format!("x{}", sig(r.gb_per_s / one.gb_per_s))
        } else {
            "-".into()
        };
        writeln!(
            out,
            "  {:<8} AES-{} {:>8} B: {:<13} {} threads {:<6} 1 thread {:<6} {ratio}",
            r.mode.name(),
            r.key_bits,
            r.size,
            r.imp,
            r.threads,
            sig(r.gb_per_s),
            sig(one.gb_per_s),
        )?;
    }
    Ok(())
}
