//! The table's rows: one side's four timings, and a row of both sides
//! beside the plain copy of the same file.

use super::side::{Dir, Workload};

/// An end-to-end time at most this much above the plain copy's counts as
/// bound by the disk: run-to-run noise of a copy through the page cache is
/// a few percent, so 10% separates "the I/O is the cost" from "the cipher
/// adds to it".
pub const DISK_SLACK: f64 = 1.10;

/// One side's four timings of a row, seconds (best of the runs), and the
/// host threads its crypt step used.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Times {
    pub enc_e2e: f64,
    pub dec_e2e: f64,
    pub enc_mem: f64,
    pub dec_mem: f64,
    pub threads: usize,
}

/// The four columns, in table order: (direction, in memory, name).
pub(super) const COLUMNS: [(Dir, bool, &str); 4] = [
    (Dir::Enc, false, "encrypt"),
    (Dir::Dec, false, "decrypt"),
    (Dir::Enc, true, "encrypt_memory"),
    (Dir::Dec, true, "decrypt_memory"),
];

impl Times {
    pub(super) fn get(&self, dir: Dir, mem: bool) -> f64 {
        match (dir, mem) {
            (Dir::Enc, false) => self.enc_e2e,
            (Dir::Dec, false) => self.dec_e2e,
            (Dir::Enc, true) => self.enc_mem,
            (Dir::Dec, true) => self.dec_mem,
        }
    }
    pub(super) fn set_min(&mut self, dir: Dir, mem: bool, s: f64) {
        let t = match (dir, mem) {
            (Dir::Enc, false) => &mut self.enc_e2e,
            (Dir::Dec, false) => &mut self.dec_e2e,
            (Dir::Enc, true) => &mut self.enc_mem,
            (Dir::Dec, true) => &mut self.dec_mem,
        };
        *t = t.min(s);
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    /// Input (plaintext) file bytes.
    pub size: usize,
    /// What was done to it.
    pub workload: Workload,
    pub cpu: Times,
    /// None: no GPU on this machine.
    pub gpu: Option<Times>,
    /// Best seconds of the plain copy of the input file, same run.
    pub copy_s: f64,
}

impl TableRow {
    pub(super) fn gbps(&self, s: f64) -> f64 {
        self.size as f64 / s / 1e9
    }
    /// CPU time over GPU time for a column.
    pub(super) fn speedup(&self, dir: Dir, mem: bool) -> Option<f64> {
        self.gpu.map(|g| self.cpu.get(dir, mem) / g.get(dir, mem))
    }
    /// Whether every side's end-to-end time is within [`DISK_SLACK`] of the
    /// plain copy: the reads and writes, not the cipher, set it.
    pub fn disk_bound(&self, dir: Dir) -> bool {
        let bound = self.copy_s * DISK_SLACK;
        self.cpu.get(dir, false) <= bound && self.gpu.is_none_or(|g| g.get(dir, false) <= bound)
    }
}
