//! `--json` for the table: one object per row and line.

use super::row::{TableRow, COLUMNS};
use super::side::Dir;

/// The rows, one JSON object per line.
pub(super) fn json_rows(cpu: &str, gpu: &str, rows: &[TableRow]) -> String {
    let mut s = String::new();
    for r in rows {
        let gs = |d, m| r.gpu.map(|g| g.get(d, m));
        // The fields of the first table (encrypt end to end) keep their
        // names; the other columns are added beside them.
        let mut v = serde_json::json!({
            "size": r.size,
            "workload": r.workload.name(),
            "cpu": cpu,
            "gpu": gpu,
            "gpu_available": r.gpu.is_some(),
            "cpu_seconds": r.cpu.enc_e2e,
            "gpu_seconds": gs(Dir::Enc, false),
            "speedup": r.speedup(Dir::Enc, false),
            "cpu_gb_per_s": r.gbps(r.cpu.enc_e2e),
            "gpu_gb_per_s": gs(Dir::Enc, false).map(|t| r.gbps(t)),
            "cpu_threads": r.cpu.threads,
            "gpu_threads": r.gpu.map(|g| g.threads),
            "copy_seconds": r.copy_s,
            "copy_gb_per_s": r.gbps(r.copy_s),
            "disk_bound_encrypt": r.disk_bound(Dir::Enc),
            "disk_bound_decrypt": r.disk_bound(Dir::Dec),
        });
        for (d, m, name) in &COLUMNS[1..] {
            let (c, g) = (r.cpu.get(*d, *m), gs(*d, *m));
            v[format!("cpu_{name}_seconds")] = c.into();
            v[format!("gpu_{name}_seconds")] = g.into();
            v[format!("{name}_speedup")] = r.speedup(*d, *m).into();
            v[format!("cpu_{name}_gb_per_s")] = r.gbps(c).into();
            v[format!("gpu_{name}_gb_per_s")] = g.map(|t| r.gbps(t)).into();
        }
        s.push_str(&v.to_string());
        s.push('\n');
    }
    s
}
