//! `--csv FILE`: one line per row (no field needs quoting: names are plain).

use std::fmt::Write as _;
use std::path::Path;

use super::report::Row;
use super::writable::write_report;
use aesx_file::CommandError;

const HEADER: &str = "impl,peer,mode,key_bits,size,threads,iterations,calls_per_iter,\
ns_per_call,gb_per_s,cycles_per_byte,best_gb_per_s,worst_gb_per_s,vs_best_peer,vs_soft,vs_bound";

/// The CSV text for `rows`.
pub fn render(rows: &[Row]) -> String {
    let o = |v: Option<f64>| v.map_or(String::new(), |v| format!("{v}"));
    let mut s = String::from(HEADER);
    s.push('\n');
    for r in rows {
        let _ = writeln!(
            s,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.imp,
            r.peer,
            r.mode.name(),
            r.key_bits,
            r.size,
            r.threads,
            r.iterations,
            r.calls_per_iter,
            r.ns_per_call,
            r.gb_per_s,
            o(r.cycles_per_byte),
            r.best_gb_per_s,
            r.worst_gb_per_s,
            o(r.vs_best_peer),
            o(r.vs_soft),
            o(r.vs_bound),
        );
    }
    s
}

/// Writes the CSV file.
pub fn write(path: &Path, rows: &[Row]) -> Result<(), CommandError> {
    write_report(path, render(rows))
}
