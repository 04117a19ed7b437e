//! `--json FILE`: the run's facts and one object per row.

use std::path::Path;

use serde_json::{json, Value};

use super::report::{Meta, Row};
use super::writable::write_report;
use aesx_file::CommandError;

/// The JSON value of one row.
pub fn row_value(r: &Row) -> Value {
    json!({
        "impl": r.imp,
        "peer": r.peer,
        "mode": r.mode.name(),
        "key_bits": r.key_bits,
        "size": r.size,
        "threads": r.threads,
        "iterations": r.iterations,
        "calls_per_iter": r.calls_per_iter,
        "ns_per_call": r.ns_per_call,
        "gb_per_s": r.gb_per_s,
        "cycles_per_byte": r.cycles_per_byte,
        "best_gb_per_s": r.best_gb_per_s,
        "worst_gb_per_s": r.worst_gb_per_s,
        "vs_best_peer": r.vs_best_peer,
        "vs_soft": r.vs_soft,
        "vs_bound": r.vs_bound,
    })
}

/// Writes `{"cpu", "date", "clock", "rows": [...]}` to `path`.
pub fn write(path: &Path, meta: &Meta, rows: &[Row]) -> Result<(), CommandError> {
    let doc = json!({
        "tool": "aesx bench",
        "version": env!("CARGO_PKG_VERSION"),
        "cpu": meta.cpu,
        "date": meta.date,
        "clock": meta.clock,
        "bounds": meta.bounds,
        "rows": rows.iter().map(row_value).collect::<Vec<_>>(),
    });
    let text = serde_json::to_string_pretty(&doc)
        .map_err(|e| CommandError::failure(format!("encoding JSON: {e}")))?;
    write_report(path, text + "\n")
}
