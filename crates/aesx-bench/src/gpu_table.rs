//! `aesx bench --gpu-table`: the CPU-versus-GPU file table. For each size,
//! AES-256-ECB (PKCS#7 padded, as `aesx cipher`) and the authenticated file
//! format (AES-256-GCM 16 KiB chunks, as `aesx encrypt`), encrypt and
//! decrypt, on the best CPU backend (all cores) and on the GPU, each timed
//! two ways:
//! - end to end: read the input file, crypt, write the output file;
//! - in memory: the crypt step alone, on bytes already in memory (the
//!   seed's "encrypt time").
//!
//! A plain copy (read the input, write it out) of the same file is timed
//! in the same run: where both sides' end-to-end times are within
//! [`DISK_SLACK`] of it, the disk (or page cache) bounds them, not the
//! cipher, and the table says so. The GPU is opened and its kernels loaded
//! once before timing (a long-running process pays that once); each
//! file's key setup is timed, on both sides. Buffers are allocated once per
//! size, outside the timing, except the GPU's chunk pipe: it is tied to the
//! file's chunk key, so it is built per file (sized to it) and timed, as
//! `aesx encrypt --backend cuda` pays it. Without a GPU the CPU columns
//! still run and the GPU's read "n/a".

mod gpu;

use std::cell::RefCell;
use std::fs::File;
use std::io::{Read, Write};
use std::ops::DerefMut;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use aesx::{Aes, Backend};
use aesx_file::payload::{
    self, ChunkCipher, Opener, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN,
    SALT_LEN,
};
use plotters::prelude::*;

use crate::error::BenchError;

pub use gpu::Gpu;

/// The seed's sizes: 1028 B to 7,196,000 B, then 64 MiB and 1 GiB.
pub const DEFAULT_SIZES: [usize; 7] = [1028, 4096, 65536, 1 << 20, 7_196_000, 64 << 20, 1 << 30];
/// Largest --size with --gpu-table.
const MAX_SIZE: usize = 4 << 30;
/// CPU batches of the file format (as `aesx encrypt`).
const CPU_BATCH_CHUNKS: usize = 128;
/// An end-to-end time at most this much above the plain copy's counts as
/// bound by the disk: run-to-run noise of a copy through the page cache is
/// a few percent, so 10% separates "the I/O is the cost" from "the cipher
/// adds to it".
pub const DISK_SLACK: f64 = 1.10;

/// The two workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// AES-256-ECB with PKCS#7 padding.
    Ecb,
    /// The aesx file format: Cobblestone-256, AES-256-GCM per 16 KiB chunk.
    File,
}

impl Workload {
    fn name(self) -> &'static str {
        match self {
            Workload::Ecb => "AES-256-ECB",
            Workload::File => "file format (AES-256-GCM chunks)",
        }
    }
    fn short(self) -> &'static str {
        match self {
            Workload::Ecb => "ECB",
            Workload::File => "file",
        }
    }
}

/// Encrypt or decrypt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Enc,
    Dec,
}

/// Memory a side holds its data in.
pub type Buf = Box<dyn DerefMut<Target = [u8]>>;

/// One side of the table.
pub trait Side {
    /// For the header line.
    fn describe(&self) -> String;
    /// Host threads the crypt step of `w` on `len` input bytes uses.
    fn threads(&self, w: Workload, len: usize) -> usize;
    /// `len` zeroed bytes, held as this side's user would hold data.
    fn buffer(&self, len: usize) -> Result<Buf, String>;
    /// AES-256-ECB over whole blocks in place.
    fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String>;
    /// The file format in memory: `input` (plaintext, or a payload of
    /// header and records) into `out` (the payload, or the plaintext).
    fn file_mem(
        &self,
        k: &FileKey,
        dir: Dir,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String>;
    /// The same from the file `input` to the file `output`.
    fn file_e2e(&self, k: &FileKey, dir: Dir, input: &Path, output: &Path) -> Result<(), String>;
}

/// What a file's payload is sealed under: input key, context and salt.
pub struct FileKey<'a> {
    key: &'a [u8; 32],
    context: &'a [u8],
    salt: &'a [u8; SALT_LEN],
}

const KEY: [u8; 32] = [0x5a; 32];
const SALT: [u8; SALT_LEN] = [0x11; SALT_LEN];
const FILE_KEY: FileKey<'static> = FileKey {
    key: &KEY,
    context: b"aesx gpu table",
    salt: &SALT,
};

/// Writes the payload header (salt and commitment, made on the CPU with
/// `backend`) as the start of `out`; the chunk cipher it commits to.
fn header_into(k: &FileKey, backend: Backend, out: &mut Vec<u8>) -> Result<ChunkCipher, String> {
    let (ph, cipher) = payload::seal_header(Suite::Aes256Gcm, k.key, k.context, k.salt, backend)
        .map_err(|e| e.to_string())?;
    out.clear();
    out.extend_from_slice(&ph);
    Ok(cipher)
}

/// The fastest CPU backend on every core.
pub struct Cpu {
    backend: Backend,
    threads: usize,
    /// The end-to-end file format's input and output buffers, kept from
    /// call to call as the GPU side keeps its pinned ones: a fresh
    /// allocation per file would time page faults, not the CPU.
    io: RefCell<(Vec<u8>, Vec<u8>)>,
}

impl Cpu {
    /// The fastest backend, all cores.
    pub fn best() -> Cpu {
        Cpu {
            backend: Backend::fastest(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            io: RefCell::default(),
        }
    }

    /// Bytes per ECB piece: at least 64 KiB, so that a small file starts
    /// no thread.
    fn ecb_piece(&self, len: usize) -> usize {
        (len / 16).div_ceil(self.threads).max(4096) * 16
    }
}

impl Side for Cpu {
    fn describe(&self) -> String {
        format!(
            "aesx-{} on up to {} threads",
            self.backend.name(),
            self.threads
        )
    }

    fn threads(&self, w: Workload, len: usize) -> usize {
        match w {
            Workload::Ecb => {
                // The padded length, as ecb() splits it.
                let padded = (len / 16 + 1) * 16;
                padded.div_ceil(self.ecb_piece(padded))
            }
            // As Sealer/Opener split a batch: one run of chunks per thread.
            Workload::File => (len / CHUNK_LEN + 1)
                .min(CPU_BATCH_CHUNKS)
                .min(self.threads),
        }
    }

    fn buffer(&self, len: usize) -> Result<Buf, String> {
        Ok(Box::new(vec![0u8; len]))
    }

    fn ecb(&self, key: &[u8; 32], dir: Dir, buf: &mut [u8]) -> Result<(), String> {
        let aes = Aes::with_backend(key, self.backend).map_err(|e| e.to_string())?;
        let run = |aes: &Aes, c: &mut [u8]| match dir {
            Dir::Enc => aes.encrypt_blocks(c),
            Dir::Dec => aes.decrypt_blocks(c),
        };
        let per = self.ecb_piece(buf.len());
        if buf.len() <= per {
            // One piece: no thread to start for a small file.
            return run(&aes, buf).map_err(|e| e.to_string());
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = buf
                .chunks_mut(per)
                .map(|c| {
                    let aes = &aes;
                    s.spawn(move || run(aes, c))
                })
                .collect();
            for h in handles {
                match h.join() {
                    Ok(r) => r.map_err(|e| e.to_string())?,
                    Err(p) => std::panic::resume_unwind(p),
                }
            }
            Ok(())
        })
    }

    fn file_mem(
        &self,
        k: &FileKey,
        dir: Dir,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), String> {
        match dir {
            Dir::Enc => {
                let mut sealer = Sealer::new(header_into(k, self.backend, out)?);
                in_batches(input, CPU_BATCH_CHUNKS * CHUNK_LEN, out, |b, last, o| {
                    sealer
                        .seal_batch(b, last, o, self.threads)
                        .map_err(|e| e.to_string())
                })
            }
            Dir::Dec => {
                let h = input
                    .get(..PAYLOAD_HEADER_LEN)
                    .ok_or("the payload header is truncated")?;
                let cipher =
                    payload::open_header(Suite::Aes256Gcm, k.key, k.context, h, self.backend)
                        .map_err(|e| e.to_string())?;
                let mut opener = Opener::new(cipher);
                out.clear();
                in_batches(
                    &input[PAYLOAD_HEADER_LEN..],
                    CPU_BATCH_CHUNKS * ENC_CHUNK_LEN,
                    out,
                    |b, last, o| {
                        opener
                            .open_batch(b, last, o, self.threads)
                            .map_err(|e| e.error.to_string())
                    },
                )
            }
        }
    }

    fn file_e2e(&self, k: &FileKey, dir: Dir, input: &Path, output: &Path) -> Result<(), String> {
        let mut io = self.io.borrow_mut();
        let (data, out) = &mut *io;
        data.clear();
        File::open(input)
            .and_then(|mut f| f.read_to_end(data))
            .map_err(|e| format!("reading {}: {e}", input.display()))?;
        self.file_mem(k, dir, data, out)?;
        write_from(out, output)
    }
}

/// Runs `crypt(batch, last, scratch)` over `input` in batches of `step`
/// bytes, appending each batch's output to `out`.
fn in_batches(
    input: &[u8],
    step: usize,
    out: &mut Vec<u8>,
    mut crypt: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Result<(), String>,
) -> Result<(), String> {
    let mut o = Vec::new();
    let mut off = 0;
    loop {
        let end = (off + step).min(input.len());
        let last = end - off < step;
        crypt(&input[off..end], last, &mut o)?;
        out.extend_from_slice(&o);
        if last {
            return Ok(());
        }
        off = end;
    }
}

/// AES-256-ECB end to end: read `input` into `buf`, pad (encrypting) or
/// check and strip the padding (decrypting), crypt, write `output`.
fn ecb_e2e(
    side: &dyn Side,
    dir: Dir,
    buf: &mut [u8],
    input: &Path,
    output: &Path,
) -> Result<(), String> {
    let len = read_into(buf, input)?;
    let n = match dir {
        Dir::Enc => {
            let pad = 16 - len % 16;
            buf[len..len + pad].fill(pad as u8);
            side.ecb(&KEY, dir, &mut buf[..len + pad])?;
            len + pad
        }
        Dir::Dec => {
            if len == 0 || !len.is_multiple_of(16) {
                return Err(format!("{}: not whole blocks", input.display()));
            }
            side.ecb(&KEY, dir, &mut buf[..len])?;
            let pad = usize::from(buf[len - 1]);
            if !(1..=16).contains(&pad)
                || buf[len - pad..len].iter().any(|&b| usize::from(b) != pad)
            {
                return Err(format!("{}: bad padding", input.display()));
            }
            len - pad
        }
    };
    write_from(&buf[..n], output)
}

/// Reads the whole file into the start of `buf` (16 bytes to spare, for
/// the padding); its length.
fn read_into(buf: &mut [u8], input: &Path) -> Result<usize, String> {
    let e = |e: std::io::Error| format!("reading {}: {e}", input.display());
    let mut f = File::open(input).map_err(e)?;
    let len = f.metadata().map_err(e)?.len() as usize;
    if len + 16 > buf.len() {
        return Err(format!("internal: {} outgrew its buffer", input.display()));
    }
    f.read_exact(&mut buf[..len]).map_err(e)?;
    Ok(len)
}

fn write_from(data: &[u8], output: &Path) -> Result<(), String> {
    let e = |e: std::io::Error| format!("writing {}: {e}", output.display());
    File::create(output).map_err(e)?.write_all(data).map_err(e)
}

/// The plain copy the end-to-end times are held against: the same reads
/// and writes, no cipher.
fn copy(buf: &mut [u8], input: &Path, output: &Path) -> Result<(), String> {
    let len = read_into(buf, input)?;
    write_from(&buf[..len], output)
}

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
const COLUMNS: [(Dir, bool, &str); 4] = [
    (Dir::Enc, false, "encrypt"),
    (Dir::Dec, false, "decrypt"),
    (Dir::Enc, true, "encrypt_memory"),
    (Dir::Dec, true, "decrypt_memory"),
];

impl Times {
    fn get(&self, dir: Dir, mem: bool) -> f64 {
        match (dir, mem) {
            (Dir::Enc, false) => self.enc_e2e,
            (Dir::Dec, false) => self.dec_e2e,
            (Dir::Enc, true) => self.enc_mem,
            (Dir::Dec, true) => self.dec_mem,
        }
    }
    fn set_min(&mut self, dir: Dir, mem: bool, s: f64) {
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
    fn gbps(&self, s: f64) -> f64 {
        self.size as f64 / s / 1e9
    }
    /// CPU time over GPU time for a column.
    fn speedup(&self, dir: Dir, mem: bool) -> Option<f64> {
        self.gpu.map(|g| self.cpu.get(dir, mem) / g.get(dir, mem))
    }
    /// Whether every side's end-to-end time is within [`DISK_SLACK`] of the
    /// plain copy: the reads and writes, not the cipher, set it.
    pub fn disk_bound(&self, dir: Dir) -> bool {
        let bound = self.copy_s * DISK_SLACK;
        self.cpu.get(dir, false) <= bound && self.gpu.is_none_or(|g| g.get(dir, false) <= bound)
    }
}

/// Where one size's files lie.
struct Files {
    pt: PathBuf,
    ct: PathBuf,
    out: PathBuf,
}

/// One timing of `side` on a column; with `check`, its output is compared
/// with the reference (`ct` encrypting, `pt` decrypting) first.
// One cell of the timing loop needs the column, the side's buffer, the
// reference bytes, the files and the scratch output: grouping them would
// only move the list elsewhere.
#[allow(clippy::too_many_arguments)]
fn once(
    side: &dyn Side,
    w: Workload,
    (dir, mem): (Dir, bool),
    buf: &mut [u8],
    (pt, ct): (&[u8], &[u8]),
    f: &Files,
    scratch: &mut Vec<u8>,
    check: bool,
) -> Result<f64, String> {
    let (src, want, src_path) = match dir {
        Dir::Enc => (pt, ct, &f.pt),
        Dir::Dec => (ct, pt, &f.ct),
    };
    let t;
    let got: Option<Vec<u8>> = if mem {
        match w {
            Workload::Ecb => {
                // The data is in the side's buffer before the clock starts.
                buf[..src.len()].copy_from_slice(src);
                if dir == Dir::Enc {
                    buf[pt.len()..ct.len()].fill((ct.len() - pt.len()) as u8);
                }
                let s = Instant::now();
                side.ecb(&KEY, dir, &mut buf[..ct.len()])?;
                t = s.elapsed().as_secs_f64();
                check.then(|| buf[..want.len()].to_vec())
            }
            Workload::File => {
                let s = Instant::now();
                side.file_mem(&FILE_KEY, dir, src, scratch)?;
                t = s.elapsed().as_secs_f64();
                check.then(|| scratch.clone())
            }
        }
    } else {
        let s = Instant::now();
        match w {
            Workload::Ecb => ecb_e2e(side, dir, buf, src_path, &f.out)?,
            Workload::File => side.file_e2e(&FILE_KEY, dir, src_path, &f.out)?,
        }
        t = s.elapsed().as_secs_f64();
        if check {
            Some(std::fs::read(&f.out).map_err(|e| e.to_string())?)
        } else {
            None
        }
    };
    if got.is_some_and(|g| g != want) {
        return Err(format!(
            "{} {} of {} bytes{}: wrong output on {}",
            w.name(),
            if dir == Dir::Enc {
                "encrypt"
            } else {
                "decrypt"
            },
            pt.len(),
            if mem { " in memory" } else { "" },
            side.describe()
        ));
    }
    Ok(t)
}

/// Measures every size and workload, encrypt and decrypt, end to end and
/// in memory, on the CPU and (if any) the GPU, interleaved with the plain
/// copy; every output is checked against the CPU's reference first.
pub fn measure(
    cpu: &dyn Side,
    gpu: Option<&dyn Side>,
    sizes: &[usize],
    dir: &Path,
) -> Result<Vec<TableRow>, String> {
    let sides: Vec<&dyn Side> = std::iter::once(cpu).chain(gpu).collect();
    let mut rows = Vec::new();
    for &size in sizes {
        let f = Files {
            pt: dir.join(format!("in-{size}")),
            ct: dir.join(format!("ct-{size}")),
            out: dir.join("out"),
        };
        let pt: Vec<u8> = (0..size)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) as u8 ^ (i >> 13) as u8)
            .collect();
        write_from(&pt, &f.pt)?;
        let mut bufs: Vec<Buf> = sides
            .iter()
            .map(|s| s.buffer(size + 32))
            .collect::<Result<_, _>>()?;
        // Room for the ECB ciphertext (one block more) and its padding.
        let mut copy_buf = vec![0u8; size + 32];
        let mut scratch = Vec::with_capacity(size + size / 1000 + 256);
        let runs = if size >= 256 << 20 {
            3
        } else if size >= 8 << 20 {
            5
        } else {
            15
        };
        for w in [Workload::Ecb, Workload::File] {
            let mut copy_s = f64::MAX;
            // The reference ciphertext, from the CPU in memory.
            let mut ct = Vec::new();
            match w {
                Workload::Ecb => {
                    ct.extend_from_slice(&pt);
                    let pad = 16 - size % 16;
                    ct.resize(size + pad, pad as u8);
                    cpu.ecb(&KEY, Dir::Enc, &mut ct)?;
                }
                Workload::File => cpu.file_mem(&FILE_KEY, Dir::Enc, &pt, &mut ct)?,
            }
            write_from(&ct, &f.ct)?;
            let unset = f64::MAX;
            let mut times: Vec<Times> = sides
                .iter()
                .map(|s| Times {
                    enc_e2e: unset,
                    dec_e2e: unset,
                    enc_mem: unset,
                    dec_mem: unset,
                    threads: s.threads(w, size),
                })
                .collect();
            // One untimed, checked run of everything (page cache,
            // allocations, first launches), then the timed runs, every
            // column of every side in turn.
            for run in 0..=runs {
                let s = Instant::now();
                copy(&mut copy_buf, &f.pt, &f.out)?;
                if run > 0 {
                    copy_s = copy_s.min(s.elapsed().as_secs_f64());
                }
                for (i, side) in sides.iter().enumerate() {
                    for (d, mem, _) in COLUMNS {
                        let t = once(
                            *side,
                            w,
                            (d, mem),
                            &mut bufs[i],
                            (&pt, &ct),
                            &f,
                            &mut scratch,
                            run == 0,
                        )?;
                        if run > 0 {
                            times[i].set_min(d, mem, t);
                        }
                    }
                }
            }
            rows.push(TableRow {
                size,
                workload: w,
                cpu: times[0],
                gpu: times.get(1).copied(),
                copy_s,
            });
        }
        for p in [&f.pt, &f.ct, &f.out] {
            let _ = std::fs::remove_file(p);
        }
    }
    Ok(rows)
}

fn dir_name(d: Dir) -> &'static str {
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

fn human(n: usize) -> String {
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

fn secs(s: f64) -> String {
    if s < 1e-3 {
        format!("{:.1} us", s * 1e6)
    } else if s < 1.0 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{s:.3} s")
    }
}

fn cell(s: Option<f64>) -> String {
    s.map_or_else(|| "n/a".into(), secs)
}

fn ratio(s: Option<f64>) -> String {
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

fn json_rows(cpu: &str, gpu: &str, rows: &[TableRow]) -> String {
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

fn opt(x: Option<f64>, prec: usize) -> String {
    x.map_or_else(String::new, |x| format!("{x:.prec$}"))
}

fn csv_rows(rows: &[TableRow]) -> String {
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

/// Two panels, end to end (with the plain copy) and in memory: GB/s
/// against file size, a line per workload, direction and side.
fn plot(path: &Path, title: &str, rows: &[TableRow]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    if rows.is_empty() {
        return Err("nothing to plot".into());
    }
    let root = SVGBackend::new(path, (1280, 520)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let root = root.titled(title, ("sans-serif", 16)).map_err(e)?;
    let panels = root.split_evenly((1, 2));
    let xmin = rows.iter().map(|r| r.size).min().unwrap_or(1) as f64;
    let xmax = (rows.iter().map(|r| r.size).max().unwrap_or(2) as f64).max(xmin * 2.0);
    for (panel, mem) in panels.iter().zip([false, true]) {
        let ymax = rows
            .iter()
            .flat_map(|r| {
                let mut v = vec![
                    r.gbps(r.cpu.get(Dir::Enc, mem)),
                    r.gbps(r.cpu.get(Dir::Dec, mem)),
                ];
                if let Some(g) = r.gpu {
                    v.extend([r.gbps(g.get(Dir::Enc, mem)), r.gbps(g.get(Dir::Dec, mem))]);
                }
                if !mem {
                    v.push(r.gbps(r.copy_s));
                }
                v
            })
            .fold(1e-3, f64::max)
            * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(
                if mem {
                    "in memory (crypt alone)"
                } else {
                    "end to end (read, crypt, write)"
                },
                ("sans-serif", 14),
            )
            .margin(10)
            .x_label_area_size(32)
            .y_label_area_size(52)
            .build_cartesian_2d((xmin..xmax).log_scale(), 0f64..ymax)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc("file bytes")
            .y_desc("GB/s")
            .x_label_formatter(&|x| human(*x as usize))
            .draw()
            .map_err(e)?;
        let mut k = 0;
        for w in [Workload::Ecb, Workload::File] {
            for d in [Dir::Enc, Dir::Dec] {
                for gpu in [false, true] {
                    let pts: Vec<(f64, f64)> = rows
                        .iter()
                        .filter(|r| r.workload == w)
                        .filter_map(|r| {
                            let t = if gpu {
                                r.gpu?.get(d, mem)
                            } else {
                                r.cpu.get(d, mem)
                            };
                            Some((r.size as f64, r.gbps(t)))
                        })
                        .collect();
                    if !pts.is_empty() {
                        let side = if gpu { "GPU" } else { "CPU" };
                        let label = format!("{} {} {side}", w.short(), dir_name(d));
                        super::plot::series(&mut chart, pts, k, &label)?;
                    }
                    k += 1;
                }
            }
        }
        if !mem {
            // One copy line: the ECB rows' (the file rows copy the same file).
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.workload == Workload::Ecb)
                .map(|r| (r.size as f64, r.gbps(r.copy_s)))
                .collect();
            super::plot::series(&mut chart, pts, k, "plain copy")?;
        }
        super::plot::legend(&mut chart)?;
    }
    root.present().map_err(|e| e.to_string())
}

/// Parses `--size` for the table (suffixes K, M, G, KiB, MiB, GiB).
pub fn parse_sizes(given: &[String]) -> Result<Vec<usize>, BenchError> {
    if given.is_empty() {
        return Ok(DEFAULT_SIZES.to_vec());
    }
    given
        .iter()
        .map(|s| {
            let t = s.trim().to_ascii_lowercase();
            let t = t
                .strip_suffix("ib")
                .or_else(|| t.strip_suffix('b'))
                .unwrap_or(&t);
            let (num, mult) = match t.chars().last() {
                Some('k') => (&t[..t.len() - 1], 1usize << 10),
                Some('m') => (&t[..t.len() - 1], 1 << 20),
                Some('g') => (&t[..t.len() - 1], 1 << 30),
                _ => (t, 1),
            };
            num.trim()
                .replace(['_', ','], "")
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_mul(mult))
                .filter(|n| (1..=MAX_SIZE).contains(n))
                .ok_or_else(|| {
                    BenchError::usage(format!(
                        "--size {s:?}: expected 1 B to 4 GiB (suffixes K, M, G)"
                    ))
                })
        })
        .collect()
}

/// Where the table's outputs go.
pub struct Outputs<'a> {
    pub json: Option<&'a PathBuf>,
    pub csv: Option<&'a PathBuf>,
    pub plot: Option<&'a PathBuf>,
}

/// Runs `aesx bench --gpu-table`.
pub fn run(sizes: &[String], outputs: Outputs<'_>) -> Result<ExitCode, BenchError> {
    let sizes = parse_sizes(sizes)?;
    // A report that cannot be written fails now, not after the whole run.
    for (flag, p) in [
        ("--json", outputs.json),
        ("--csv", outputs.csv),
        ("--plot", outputs.plot),
    ] {
        if let Some(p) = p {
            crate::writable::check_writable(flag, p)?;
        }
    }
    // Without a GPU the CPU columns still run and say what the GPU's would
    // be measured against; stderr says why the GPU's are n/a.
    let gpu = match crate::cuda_impl::gpu_or_why() {
        Ok(g) => Some(Gpu(g)),
        Err(e) => {
            eprintln!("aesx: {e}; the GPU columns read n/a");
            None
        }
    };
    let cpu = Cpu::best();
    let dir = tempfile::Builder::new()
        .prefix("aesx-gpu-table-")
        .tempdir()
        .map_err(|e| BenchError::failure(format!("cannot create a temporary directory: {e}")))?;
    let rows = measure(
        &cpu,
        gpu.as_ref().map(|g| g as &dyn Side),
        &sizes,
        dir.path(),
    )
    .map_err(BenchError::failure)?;
    let c = cpu.describe();
    let g = gpu
        .as_ref()
        .map_or_else(|| "unavailable (n/a)".to_string(), Side::describe);
    let mut out = std::io::stdout().lock();
    print(&mut out, &c, &g, &rows)
        .map_err(|e| BenchError::failure(format!("writing the report: {e}")))?;
    let write = |p: &PathBuf, text: String| {
        std::fs::write(p, text).map_err(|e| BenchError::failure(format!("{}: {e}", p.display())))
    };
    if let Some(p) = outputs.json {
        write(p, json_rows(&c, &g, &rows))?;
    }
    if let Some(p) = outputs.csv {
        write(p, csv_rows(&rows))?;
    }
    if let Some(p) = outputs.plot {
        // The sides' first clauses: the rest is in the text report.
        let short = |s: &str| s.split(';').next().unwrap_or_default().to_string();
        plot(
            p,
            &format!("aesx --gpu-table: {} vs {}", short(&c), short(&g)),
            &rows,
        )
        .map_err(|e| BenchError::failure(format!("{}: {e}", p.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn soft() -> Cpu {
        Cpu {
            backend: Backend::Soft,
            threads: 1,
            io: RefCell::default(),
        }
    }

    /// The plumbing with the CPU on both sides (no GPU here): rows for every
    /// size and workload, every output checked, and the reports written
    /// with the new columns beside the old.
    #[test]
    fn table_with_the_cpu_on_both_sides() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [1028, 4096, 65536 + 5];
        let rows = measure(&Cpu::best(), Some(&soft()), &sizes, dir.path()).unwrap();
        assert_eq!(rows.len(), 6);
        for r in &rows {
            let g = r.gpu.unwrap();
            for t in [r.cpu, g] {
                for (d, m, _) in COLUMNS {
                    assert!(t.get(d, m) > 0.0 && t.get(d, m) < 60.0, "{r:?}");
                }
            }
            assert_eq!(g.threads, 1);
            assert!(r.copy_s > 0.0 && r.copy_s < 60.0);
        }
        let mut text = Vec::new();
        print(&mut text, "a", "b", &rows).unwrap();
        let text = String::from_utf8(text).unwrap();
        for want in [
            "speed-up",
            "encrypt e2e",
            "decrypt e2e",
            "encrypt mem",
            "decrypt mem",
            "threads",
            "plain",
            "crossover: AES-256-ECB encrypt end to end",
            "crossover: file format (AES-256-GCM chunks) decrypt in memory",
            "disk: AES-256-ECB encrypt",
            "disk: file format (AES-256-GCM chunks) decrypt",
            "both end-to-end times",
        ] {
            assert!(text.contains(want), "{want}: {text}");
        }
        assert!(!text.contains("n/a"), "{text}");
        let json = json_rows("a", "b", &rows);
        assert_eq!(json.lines().count(), 6);
        for line in json.lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            for k in [
                "cpu_seconds",
                "gpu_seconds",
                "speedup",
                "cpu_gb_per_s",
                "gpu_gb_per_s",
                "cpu_decrypt_seconds",
                "gpu_decrypt_seconds",
                "cpu_encrypt_memory_seconds",
                "gpu_encrypt_memory_seconds",
                "cpu_decrypt_memory_seconds",
                "gpu_decrypt_memory_seconds",
                "decrypt_memory_speedup",
                "copy_seconds",
            ] {
                assert!(v[k].as_f64().is_some_and(|x| x > 0.0), "{k}: {line}");
            }
            assert!(v["cpu_threads"].as_u64().is_some_and(|t| t >= 1));
            assert_eq!(v["gpu_threads"], 1);
            assert!(v["disk_bound_encrypt"].is_boolean() && v["disk_bound_decrypt"].is_boolean());
            assert_eq!(v["gpu_available"], true);
        }
        let csv = csv_rows(&rows);
        assert_eq!(csv.lines().count(), 7);
        let head: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
        assert_eq!(
            head[..7],
            [
                "size",
                "workload",
                "cpu_seconds",
                "gpu_seconds",
                "speedup",
                "cpu_gb_per_s",
                "gpu_gb_per_s"
            ]
        );
        for k in [
            "cpu_decrypt_memory_seconds",
            "cpu_threads",
            "copy_seconds",
            "disk_bound_decrypt",
        ] {
            assert!(head.contains(&k), "{k}");
        }
        for line in csv.lines().skip(1) {
            // The workload's name is quoted and holds no comma.
            assert_eq!(line.split(',').count(), head.len(), "{line}");
        }
        let svg = dir.path().join("t.svg");
        plot(&svg, "t", &rows).unwrap();
        let svg = std::fs::read_to_string(&svg).unwrap();
        assert!(svg.contains("<svg") && svg.contains("plain copy") && svg.contains("in memory"));
        // Nothing left behind but the plot.
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["t.svg"]);
    }

    /// Without a GPU: the CPU columns, the GPU's n/a (null in JSON, empty
    /// in CSV), and the disk line about the CPU alone.
    #[test]
    fn table_without_a_gpu() {
        let dir = tempfile::tempdir().unwrap();
        let rows = measure(&Cpu::best(), None, &[4096, 3 * CHUNK_LEN + 7], dir.path()).unwrap();
        assert_eq!(rows.len(), 4);
        assert!(rows.iter().all(|r| r.gpu.is_none()));
        let mut text = Vec::new();
        print(&mut text, "a", "unavailable", &rows).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(
            text.contains("n/a") && text.contains("no GPU figures"),
            "{text}"
        );
        assert!(text.contains("(no GPU)"), "{text}");
        for line in json_rows("a", "b", &rows).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert!(v["gpu_seconds"].is_null() && v["gpu_decrypt_memory_seconds"].is_null());
            assert!(v["cpu_decrypt_seconds"].as_f64().is_some());
            assert_eq!(v["gpu_available"], false);
        }
        let csv = csv_rows(&rows);
        let n = csv.lines().next().unwrap().split(',').count();
        assert!(csv.lines().all(|l| l.split(',').count() == n));
        assert!(csv.lines().nth(1).unwrap().contains(",,"));
        plot(&dir.path().join("t.svg"), "t", &rows).unwrap();
    }

    fn times(e2e: f64, mem: f64) -> Times {
        Times {
            enc_e2e: e2e,
            dec_e2e: e2e,
            enc_mem: mem,
            dec_mem: mem,
            threads: 1,
        }
    }

    fn row(size: usize, cpu_s: f64, gpu_s: f64) -> TableRow {
        TableRow {
            size,
            workload: Workload::Ecb,
            cpu: times(cpu_s, cpu_s / 2.0),
            gpu: Some(times(gpu_s, gpu_s / 2.0)),
            copy_s: 1.0,
        }
    }

    #[test]
    fn crossover_lines() {
        let col = (Dir::Enc, false);
        let rows = [
            row(1, 1.0, 2.0),
            row(2, 1.0, 0.5),
            row(3, 1.0, 2.0),
            row(4, 2.0, 1.0),
            row(5, 3.0, 1.0),
        ];
        assert!(crossover(&rows, Workload::Ecb, col).contains("from 4 B on (CPU faster at 3 B)"));
        assert!(crossover(&rows, Workload::Ecb, (Dir::Dec, true)).contains("from 4 B on"));
        let never = [row(1, 1.0, 2.0)];
        assert!(crossover(&never, Workload::Ecb, col).contains("not faster"));
        let always = [row(1, 2.0, 1.0), row(2, 2.0, 1.0)];
        assert!(crossover(&always, Workload::Ecb, col).contains("every size"));
        assert!(crossover(&always, Workload::File, col).contains("no GPU figures"));
    }

    #[test]
    fn the_disk_bounds_a_row_only_when_every_side_is_near_the_copy() {
        // copy_s = 1.0: within 10% on both sides, then one side beyond.
        assert!(row(1, 1.05, 1.09).disk_bound(Dir::Enc));
        assert!(!row(1, 1.05, 1.2).disk_bound(Dir::Enc));
        assert!(!row(1, 1.3, 1.0).disk_bound(Dir::Dec));
        let mut r = row(1, 1.05, 5.0);
        r.gpu = None;
        assert!(r.disk_bound(Dir::Enc));
        let rows = [row(1, 3.0, 3.0), row(2, 1.0, 1.02), row(3, 1.08, 1.0)];
        let line = disk_line(&rows, Workload::Ecb, Dir::Enc);
        assert!(
            line.contains("bounds both end-to-end times (CPU and GPU) at 2 B, 3 B"),
            "{line}"
        );
        assert!(disk_line(&rows[..1], Workload::Ecb, Dir::Dec).contains("bounds no size"));
    }

    /// The GPU side's driver of the chunk pipe, against a model of the
    /// pipe on the CPU: the same payloads as the CPU side, both ways, over
    /// several batches with a full pipe; a chunk that fails to verify
    /// stops the stream before its batch is released.
    #[test]
    fn the_chunk_pipe_driver_matches_the_cpu() {
        use gpu::model::Model;
        let d = payload::derive(Suite::Aes256Gcm, &KEY, &SALT, FILE_KEY.context).unwrap();
        let model = |dir, batch| Model {
            cipher: ChunkCipher::new(&d.key, d.base_nonce, Backend::fastest()).unwrap(),
            base: d.base_nonce,
            dir,
            batch,
            slots: 2,
            next: 0,
            input: Vec::new(),
            done: Default::default(),
            corrupt: None,
        };
        let cpu = Cpu::best();
        for len in [0, 1, CHUNK_LEN, 2 * CHUNK_LEN, 7 * CHUNK_LEN + 5] {
            let pt: Vec<u8> = (0..len).map(|i| (i * 31 + i / 977) as u8).collect();
            let mut want = Vec::new();
            cpu.file_mem(&FILE_KEY, Dir::Enc, &pt, &mut want).unwrap();
            let mut got = want[..PAYLOAD_HEADER_LEN].to_vec();
            let mut m = model(Dir::Enc, 2);
            gpu::stream(
                &mut m,
                Dir::Enc,
                &d.base_nonce,
                len,
                |pos, b| {
                    b.copy_from_slice(&pt[pos..pos + b.len()]);
                    Ok(())
                },
                |o| {
                    got.extend_from_slice(o);
                    Ok(())
                },
            )
            .unwrap();
            assert!(got == want, "seal {len}");
            let records = &want[PAYLOAD_HEADER_LEN..];
            let open = |m: &mut Model, records: &[u8]| {
                let mut back = Vec::new();
                let r = gpu::stream(
                    m,
                    Dir::Dec,
                    &d.base_nonce,
                    records.len(),
                    |pos, b| {
                        b.copy_from_slice(&records[pos..pos + b.len()]);
                        Ok(())
                    },
                    |o| {
                        back.extend_from_slice(o);
                        Ok(())
                    },
                );
                (r, back)
            };
            let (r, back) = open(&mut model(Dir::Dec, 3), records);
            r.unwrap();
            assert!(back == pt, "open {len}");
            // A bad tag in the last chunk: no byte of its batch comes out.
            let n = gpu::chunk_count(Dir::Dec, records.len()) as u64;
            let mut m = model(Dir::Dec, 3);
            m.corrupt = Some(n - 1);
            let (r, back) = open(&mut m, records);
            assert!(r.unwrap_err().contains("did not verify"));
            assert_eq!(back.len(), ((n - 1) / 3 * 3) as usize * CHUNK_LEN, "{len}");
            // Cut at a record boundary: refused before anything is read.
            if n > 1 {
                let cut = &records[..(n as usize - 1) * ENC_CHUNK_LEN];
                let (r, back) = open(&mut model(Dir::Dec, 3), cut);
                assert!(r.unwrap_err().contains("truncated") && back.is_empty());
            }
        }
    }

    /// The GPU side's file-format code end to end and in memory, with the
    /// model for the pipe (batches of two chunks): every output equals the
    /// CPU's bytes (measure checks them) at sizes of one, several and an
    /// exact number of chunks.
    #[test]
    fn the_gpu_side_file_code_through_measure() {
        let dir = tempfile::tempdir().unwrap();
        let side = gpu::model::ModelSide { batch: 2 };
        let sizes = [1028, 4 * CHUNK_LEN, 65536 + 5];
        let rows = measure(&Cpu::best(), Some(&side), &sizes, dir.path()).unwrap();
        assert_eq!(rows.len(), 6);
        assert!(rows.iter().all(|r| r.gpu.is_some_and(|g| g.threads == 1)));
    }

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_sizes(&[]).unwrap(), DEFAULT_SIZES.to_vec());
        assert_eq!(
            parse_sizes(&["7196000".into(), "1G".into(), "4KiB".into()]).unwrap(),
            vec![7_196_000, 1 << 30, 4096]
        );
        assert!(parse_sizes(&["0".into()]).is_err());
        assert!(parse_sizes(&["5G".into()]).is_err());
    }
}
