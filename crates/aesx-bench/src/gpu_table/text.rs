//! The table as text: its header and columns, and the lines that say
//! from which size the GPU wins and where the disk bounds both sides.

use std::io::Write;

use super::row::{TableRow, COLUMNS, DISK_SLACK};
use super::side::{Dir, Workload};

pub(super) fn dir_name(d: Dir) -> &'static str {
    match d {
        Dir::Enc => "encrypt",
        Dir::Dec => "decrypt",
    }
}

/// "GPU faster from N" for a workload and column: the smallest size from
/// which the GPU wins at every larger size measured.
pub fn crossover(rows: &[TableRow], w: Workload, (dir, mem): (Dir, bool)) -> String {
    let what = format!(
        "{} {} {}",
        w.name(),
        dir_name(dir),
        if mem { "in memory" } else { "end to end" }
    );
    let mut mine: Vec<(usize, f64, f64)> = rows
        .iter()
        .filter(|r| r.workload == w)
        .filter_map(|r| Some((r.size, r.cpu.get(dir, mem), r.gpu?.get(dir, mem))))
        .collect();
    mine.sort_by_key(|r| r.0);
    let Some(last) = mine.last() else {
        return format!("{what}: no GPU figures");
    };
    if last.2 >= last.1 {
        return format!(
            "{what}: the GPU is not faster at any size up to {}",
            human(last.0)
        );
    }
    let mut from = mine.len() - 1;
    while from > 0 && mine[from - 1].2 < mine[from - 1].1 {
        from -= 1;
    }
    if from == 0 {
        format!(
            "{what}: the GPU is faster at every size measured (from {})",
            human(mine[0].0)
        )
    } else {
        format!(
            "{what}: the GPU is faster from {} on (CPU faster at {})",
            human(mine[from].0),
            human(mine[from - 1].0)
        )
    }
}

/// The line that says where the disk bounds both end-to-end columns.
pub fn disk_line(rows: &[TableRow], w: Workload, dir: Dir) -> String {
    let sides = if rows.iter().any(|r| r.gpu.is_some()) {
        "both end-to-end times (CPU and GPU)"
    } else {
        "the CPU's end-to-end time (no GPU)"
    };
    let at: Vec<String> = rows
        .iter()
        .filter(|r| r.workload == w && r.disk_bound(dir))
        .map(|r| human(r.size))
        .collect();
    let pct = ((DISK_SLACK - 1.0) * 100.0).round();
    if at.is_empty() {
        format!(
            "{} {}: the disk bounds no size: {sides} more than {pct}% above the plain copy",
            w.name(),
            dir_name(dir)
        )
    } else {
        format!(
            "{} {}: the disk bounds {sides} at {}: within {pct}% of the plain copy",
            w.name(),
            dir_name(dir),
            at.join(", ")
        )
    }
}

pub(super) fn human(n: usize) -> String {
    if n >= 1 << 30 && n.is_multiple_of(1 << 30) {
        format!("{} GiB", n >> 30)
    } else if n >= 1 << 20 && n.is_multiple_of(1 << 20) {
        format!("{} MiB", n >> 20)
    } else if n >= 1 << 10 && n.is_multiple_of(1 << 10) {
        format!("{} KiB", n >> 10)
    } else {
        format!("{n} B")
    }
}

pub(super) fn secs(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

pub(super) fn cell(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".into(), secs)
}

pub(super) fn ratio(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".into(), |x| format!("{x:.2}x"))
}

/// The table, its header, the crossover and the disk lines.
pub fn print(out: &mut impl Write, cpu: &str, gpu: &str, rows: &[TableRow]) -> std::io::Result<()> {
    writeln!(out, "CPU: {cpu}\nGPU: {gpu}")?;
    writeln!(
        out,
        "e2e: end to end, read the input file, crypt, write the output file (key setup included)\n\
         mem: in memory, the crypt step alone on bytes already in memory (key setup included)\n\
         plain copy: the same file read and written, no cipher; best of several runs, all columns interleaved\n\
         threads: host threads of the crypt step, CPU/GPU; speed-up: CPU time / GPU time"
    )?;
    writeln!(
        out,
        "{:>12}  {:<4} {:>21} {:>21} {:>21} {:>21} {:>7} {:>10}  speed-up (GPU vs CPU)",
        "", "", "encrypt e2e", "decrypt e2e", "encrypt mem", "decrypt mem", "threads", "plain",
    )?;
    writeln!(
        out,
        "{:>12}  {:<4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>10}  {:>7} {:>7} {:>7} {:>7}",
        "size", "", "CPU", "GPU", "CPU", "GPU", "CPU", "GPU", "CPU", "GPU", "CPU/GPU", "copy",
        "enc e2e", "dec e2e", "enc mem", "dec mem"
    )?;
    for r in rows {
        let g = |d, m| r.gpu.map(|g| g.get(d, m));
        let c = |d, m| Some(r.cpu.get(d, m));
        writeln!(
            out,
            "{:>12}  {:<4} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>7} {:>10}  {:>7} {:>7} {:>7} {:>7}",
            r.size,
            r.workload.short(),
            cell(c(Dir::Enc, false)),
            cell(g(Dir::Enc, false)),
            cell(c(Dir::Dec, false)),
            cell(g(Dir::Dec, false)),
            cell(c(Dir::Enc, true)),
            cell(g(Dir::Enc, true)),
            cell(c(Dir::Dec, true)),
            cell(g(Dir::Dec, true)),
            format!(
                "{}/{}",
                r.cpu.threads,
                r.gpu.map_or_else(|| "-".into(), |g| g.threads.to_string())
            ),
            secs(r.copy_s),
            ratio(r.speedup(Dir::Enc, false)),
            ratio(r.speedup(Dir::Dec, false)),
            ratio(r.speedup(Dir::Enc, true)),
            ratio(r.speedup(Dir::Dec, true)),
        )?;
    }
    writeln!(
        out,
        "workloads: ECB = {}, PKCS#7 padded; file = the aesx {}, 16 KiB chunks",
        Workload::Ecb.name(),
        Workload::File.name()
    )?;
    if rows.iter().all(|r| r.gpu.is_none()) {
        // Eight lines that all say the same would bury the disk lines.
        writeln!(out, "crossover: no GPU figures (the GPU columns are n/a)")?;
    } else {
        for w in [Workload::Ecb, Workload::File] {
            for col in COLUMNS {
                writeln!(out, "crossover: {}", crossover(rows, w, (col.0, col.1)))?;
            }
        }
    }
    for w in [Workload::Ecb, Workload::File] {
        for d in [Dir::Enc, Dir::Dec] {
            writeln!(out, "disk: {}", disk_line(rows, w, d))?;
        }
    }
    Ok(())
}
