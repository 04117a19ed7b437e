//! `--csv` for the table: the encrypt end-to-end columns first, the
//! others beside them.

use super::row::{TableRow, COLUMNS};
use super::side::Dir;

/// `x` with `prec` decimals, or an empty field.
pub(super) fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or_else(String::new, |x| format!("{x:.prec$}"))
}

/// The rows as CSV, with the header line.
pub(super) fn csv_rows(rows: &[TableRow]) -> String {
    // The first columns as before (encrypt end to end); the rest after.
    let mut s =
        String::from("size,workload,cpu_seconds,gpu_seconds,speedup,cpu_gb_per_s,gpu_gb_per_s");
    for (_, _, name) in &COLUMNS[1..] {
        s.push_str(&format!(
            ",cpu_{name}_seconds,gpu_{name}_seconds,{name}_speedup,cpu_{name}_gb_per_s,gpu_{name}_gb_per_s"
        ));
    }
    s.push_str(",cpu_threads,gpu_threads,copy_seconds,copy_gb_per_s,disk_bound_encrypt,disk_bound_decrypt\n");
    for r in rows {
        let gs = |d, m| r.gpu.map(|g| g.get(d, m));
        s.push_str(&format!(
            "{},\"{}\",{:.9},{},{},{:.4},{}",
            r.size,
            r.workload.name(),
            r.cpu.enc_e2e,
            opt(gs(Dir::Enc, false), 9),
            opt(r.speedup(Dir::Enc, false), 4),
            r.gbps(r.cpu.enc_e2e),
            opt(gs(Dir::Enc, false).map(|t| r.gbps(t)), 4)
        ));
        for (d, m, _) in &COLUMNS[1..] {
            let (c, g) = (r.cpu.get(*d, *m), gs(*d, *m));
            s.push_str(&format!(
                ",{c:.9},{},{},{:.4},{}",
                opt(g, 9),
                opt(r.speedup(*d, *m), 4),
                r.gbps(c),
                opt(g.map(|t| r.gbps(t)), 4)
            ));
        }
        s.push_str(&format!(
            ",{},{},{:.9},{:.4},{},{}\n",
            r.cpu.threads,
            r.gpu.map_or_else(String::new, |g| g.threads.to_string()),
            r.copy_s,
            r.gbps(r.copy_s),
            r.disk_bound(Dir::Enc),
            r.disk_bound(Dir::Dec)
        ));
    }
    s
}
