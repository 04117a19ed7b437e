//! `aesx bench --gpu-table`: the CPU-versus-GPU file table. For each size,
//! AES-256-ECB (PKCS#7 padded, as `aesx cipher`) and the authenticated file
//! format (AES-256-GCM chunks, as `aesx encrypt`), each end to end: read
//! the input file, encrypt, write the output file, on the best CPU backend
//! (all cores) and on the GPU. The GPU is opened and its kernels loaded
//! once before timing (a long-running process pays that once); the key
//! setup of each file is timed, on both sides.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use aesx::{Aes, Backend};
use aesx_file::payload::{self, ChunkCipher, Sealer, Suite, CHUNK_LEN, SALT_LEN};
use plotters::prelude::*;

use crate::backend_arg;
use crate::file::gpu::{GpuChunks, BATCH_CHUNKS as GPU_BATCH_CHUNKS};
use crate::CliError;

/// The seed's sizes: 1028 B to 7,196,000 B, then 64 MiB and 1 GiB.
pub const DEFAULT_SIZES: [usize; 7] = [1028, 4096, 65536, 1 << 20, 7_196_000, 64 << 20, 1 << 30];
/// Largest --size with --gpu-table.
const MAX_SIZE: usize = 4 << 30;
/// CPU batches of the file format (as `aesx encrypt`).
const CPU_BATCH_CHUNKS: usize = 128;

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
}

/// One side of the table: the encryption step between read and write.
pub trait Side {
    /// For the header line.
    fn describe(&self) -> String;
    /// AES-256-ECB over whole blocks in place (the input is already padded).
    fn ecb(&self, key: &[u8; 32], buf: &mut [u8]) -> Result<(), String>;
    /// The file format's payload of `pt` into `out`.
    fn file(&self, k: &FileKey, pt: &[u8], out: &mut Vec<u8>) -> Result<(), String>;
}

/// What a file's payload is sealed under: input key, context and salt.
pub struct FileKey<'a> {
    key: &'a [u8; 32],
    context: &'a [u8],
    salt: &'a [u8; SALT_LEN],
}

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
}

impl Cpu {
    /// The fastest backend, all cores.
    pub fn best() -> Cpu {
        Cpu {
            backend: Backend::fastest(),
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl Side for Cpu {
    fn describe(&self) -> String {
        format!("aesx-{} on {} threads", self.backend.name(), self.threads)
    }

    fn ecb(&self, key: &[u8; 32], buf: &mut [u8]) -> Result<(), String> {
        let aes = Aes::with_backend(key, self.backend).map_err(|e| e.to_string())?;
        let per = (buf.len() / 16).div_ceil(self.threads).max(4096) * 16;
        if buf.len() <= per {
            // One piece: no thread to start for a small file.
            return aes.encrypt_blocks(buf).map_err(|e| e.to_string());
        }
        std::thread::scope(|s| {
            let handles: Vec<_> = buf
                .chunks_mut(per)
                .map(|c| {
                    let aes = &aes;
                    s.spawn(move || aes.encrypt_blocks(c))
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

    fn file(&self, k: &FileKey, pt: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut sealer = Sealer::new(header_into(k, self.backend, out)?);
        seal_in_batches(pt, CPU_BATCH_CHUNKS, out, |b, last, o| {
            sealer
                .seal_batch(b, last, o, self.threads)
                .map_err(|e| e.to_string())
        })
    }
}

/// The GPU through aesx-cuda.
pub struct Gpu(pub aesx_cuda::Gpu);

impl Side for Gpu {
    fn describe(&self) -> String {
        format!(
            "aesx-cuda on {} ({})",
            self.0.info().name,
            self.0.info().arch
        )
    }

    fn ecb(&self, key: &[u8; 32], buf: &mut [u8]) -> Result<(), String> {
        let k = aesx_cuda::CudaAes::new(&self.0, key).map_err(|e| e.to_string())?;
        k.ecb_encrypt(buf).map_err(|e| e.to_string())
    }

    fn file(&self, k: &FileKey, pt: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        // The header on the CPU, as `aesx encrypt --backend cuda` does.
        header_into(k, Backend::fastest(), out)?;
        let mut chunks =
            GpuChunks::new(&self.0, k.key, k.context, k.salt).map_err(|e| e.to_string())?;
        seal_in_batches(pt, GPU_BATCH_CHUNKS, out, |b, last, o| {
            chunks.seal_batch(b, last, o).map_err(|e| e.to_string())
        })
    }
}

/// Seals `pt` in batches of `batch_chunks` chunks with `seal(batch, last,
/// scratch)`, appending each batch's output to `out`.
fn seal_in_batches(
    pt: &[u8],
    batch_chunks: usize,
    out: &mut Vec<u8>,
    mut seal: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Result<(), String>,
) -> Result<(), String> {
    let step = batch_chunks * CHUNK_LEN;
    let mut o = Vec::new();
    let mut off = 0;
    loop {
        let end = (off + step).min(pt.len());
        let last = end - off < step;
        seal(&pt[off..end], last, &mut o)?;
        out.extend_from_slice(&o);
        if last {
            return Ok(());
        }
        off = end;
    }
}

/// One line of the table.
#[derive(Clone, Debug, PartialEq)]
pub struct TableRow {
    /// Input file bytes.
    pub size: usize,
    /// What was done to it.
    pub workload: Workload,
    /// Best end-to-end seconds on the CPU and on the GPU.
    pub cpu_s: f64,
    pub gpu_s: f64,
}

impl TableRow {
    fn speedup(&self) -> f64 {
        self.cpu_s / self.gpu_s
    }
    fn gbps(&self, s: f64) -> f64 {
        self.size as f64 / s / 1e9
    }
}

/// End to end once: read `input`, encrypt, write `output`; the seconds.
fn end_to_end(side: &dyn Side, w: Workload, input: &Path, output: &Path) -> Result<f64, String> {
    let key = [0x5au8; 32];
    let salt = [0x11u8; SALT_LEN];
    let t = Instant::now();
    let mut data = std::fs::read(input).map_err(|e| format!("reading {}: {e}", input.display()))?;
    let out = match w {
        Workload::Ecb => {
            let pad = 16 - data.len() % 16;
            data.resize(data.len() + pad, pad as u8);
            side.ecb(&key, &mut data)?;
            data
        }
        Workload::File => {
            let mut out = Vec::with_capacity(data.len() + data.len() / 1000 + 128);
            let k = FileKey {
                key: &key,
                context: b"aesx gpu table",
                salt: &salt,
            };
            side.file(&k, &data, &mut out)?;
            out
        }
    };
    std::fs::write(output, &out).map_err(|e| format!("writing {}: {e}", output.display()))?;
    Ok(t.elapsed().as_secs_f64())
}

/// Measures every size and workload on both sides, interleaved, and checks
/// that both sides wrote the same bytes.
pub fn measure(
    cpu: &dyn Side,
    gpu: &dyn Side,
    sizes: &[usize],
    dir: &Path,
) -> Result<Vec<TableRow>, String> {
    let mut rows = Vec::new();
    for &size in sizes {
        let input = dir.join(format!("in-{size}"));
        let data: Vec<u8> = (0..size)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) as u8 ^ (i >> 13) as u8)
            .collect();
        std::fs::write(&input, &data).map_err(|e| format!("writing {}: {e}", input.display()))?;
        drop(data);
        let (out_c, out_g) = (dir.join("out-cpu"), dir.join("out-gpu"));
        let runs = if size >= 256 << 20 {
            3
        } else if size >= 8 << 20 {
            5
        } else {
            15
        };
        for w in [Workload::Ecb, Workload::File] {
            // One untimed run each (page cache, allocations, first launch).
            end_to_end(cpu, w, &input, &out_c)?;
            end_to_end(gpu, w, &input, &out_g)?;
            let same = std::fs::read(&out_c).map_err(|e| e.to_string())?
                == std::fs::read(&out_g).map_err(|e| e.to_string())?;
            if !same {
                return Err(format!(
                    "{} of {size} bytes: CPU and GPU outputs differ",
                    w.name()
                ));
            }
            let (mut c, mut g) = (f64::MAX, f64::MAX);
            for _ in 0..runs {
                c = c.min(end_to_end(cpu, w, &input, &out_c)?);
                g = g.min(end_to_end(gpu, w, &input, &out_g)?);
            }
            rows.push(TableRow {
                size,
                workload: w,
                cpu_s: c,
                gpu_s: g,
            });
        }
        let _ = std::fs::remove_file(&input);
    }
    Ok(rows)
}

/// "GPU faster from N" per workload: the smallest size from which the GPU
/// wins at every larger size measured.
pub fn crossover(rows: &[TableRow], w: Workload) -> String {
    let mut mine: Vec<&TableRow> = rows.iter().filter(|r| r.workload == w).collect();
    mine.sort_by_key(|r| r.size);
    let Some(last) = mine.last() else {
        return format!("{}: no sizes", w.name());
    };
    if last.gpu_s >= last.cpu_s {
        return format!(
            "{}: the GPU is not faster at any size up to {}",
            w.name(),
            human(last.size)
        );
    }
    let mut from = mine.len() - 1;
    while from > 0 && mine[from - 1].gpu_s < mine[from - 1].cpu_s {
        from -= 1;
    }
    if from == 0 {
        format!(
            "{}: the GPU is faster at every size measured (from {})",
            w.name(),
            human(mine[0].size)
        )
    } else {
        format!(
            "{}: the GPU is faster from {} on (CPU faster at {})",
            w.name(),
            human(mine[from].size),
            human(mine[from - 1].size)
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

/// The table, its header and the crossover lines.
pub fn print(out: &mut impl Write, cpu: &str, gpu: &str, rows: &[TableRow]) -> std::io::Result<()> {
    writeln!(out, "CPU: {cpu}\nGPU: {gpu}")?;
    writeln!(out, "end to end: read the input file, encrypt, write the output file; best of several runs, CPU and GPU interleaved")?;
    writeln!(
        out,
        "{:>12}  {:<34} {:>11} {:>11} {:>9} {:>9} {:>9}",
        "size", "workload", "time CPU", "time GPU", "speed-up", "CPU GB/s", "GPU GB/s"
    )?;
    for r in rows {
        writeln!(
            out,
            "{:>12}  {:<34} {:>11} {:>11} {:>8.2}x {:>9.3} {:>9.3}",
            r.size,
            r.workload.name(),
            secs(r.cpu_s),
            secs(r.gpu_s),
            r.speedup(),
            r.gbps(r.cpu_s),
            r.gbps(r.gpu_s)
        )?;
    }
    for w in [Workload::Ecb, Workload::File] {
        writeln!(out, "crossover: {}", crossover(rows, w))?;
    }
    Ok(())
}

fn json_rows(cpu: &str, gpu: &str, rows: &[TableRow]) -> String {
    let mut s = String::new();
    for r in rows {
        let v = serde_json::json!({
            "size": r.size,
            "workload": r.workload.name(),
            "cpu": cpu,
            "gpu": gpu,
            "cpu_seconds": r.cpu_s,
            "gpu_seconds": r.gpu_s,
            "speedup": r.speedup(),
            "cpu_gb_per_s": r.gbps(r.cpu_s),
            "gpu_gb_per_s": r.gbps(r.gpu_s),
        });
        s.push_str(&v.to_string());
        s.push('\n');
    }
    s
}

fn csv_rows(rows: &[TableRow]) -> String {
    let mut s =
        String::from("size,workload,cpu_seconds,gpu_seconds,speedup,cpu_gb_per_s,gpu_gb_per_s\n");
    for r in rows {
        s.push_str(&format!(
            "{},\"{}\",{:.9},{:.9},{:.4},{:.4},{:.4}\n",
            r.size,
            r.workload.name(),
            r.cpu_s,
            r.gpu_s,
            r.speedup(),
            r.gbps(r.cpu_s),
            r.gbps(r.gpu_s)
        ));
    }
    s
}

fn plot(path: &Path, title: &str, rows: &[TableRow]) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<_>| e.to_string();
    if rows.is_empty() {
        return Err("nothing to plot".into());
    }
    let root = SVGBackend::new(path, (760, 480)).into_drawing_area();
    root.fill(&WHITE).map_err(e)?;
    let xmin = rows.iter().map(|r| r.size).min().unwrap_or(1) as f64;
    let xmax = (rows.iter().map(|r| r.size).max().unwrap_or(2) as f64).max(xmin * 2.0);
    let ymax = rows
        .iter()
        .flat_map(|r| [r.gbps(r.cpu_s), r.gbps(r.gpu_s)])
        .fold(1e-3, f64::max)
        * 1.1;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(32)
        .y_label_area_size(52)
        .build_cartesian_2d((xmin..xmax).log_scale(), 0f64..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("file bytes")
        .y_desc("GB/s end to end")
        .x_label_formatter(&|x| human(*x as usize))
        .draw()
        .map_err(e)?;
    let mut k = 0;
    for w in [Workload::Ecb, Workload::File] {
        for gpu in [false, true] {
            let pts: Vec<(f64, f64)> = rows
                .iter()
                .filter(|r| r.workload == w)
                .map(|r| (r.size as f64, r.gbps(if gpu { r.gpu_s } else { r.cpu_s })))
                .collect();
            let label = format!("{} {}", w.name(), if gpu { "GPU" } else { "CPU" });
            super::plot::series(&mut chart, pts, k, &label)?;
            k += 1;
        }
    }
    super::plot::legend(&mut chart)?;
    root.present().map_err(|e| e.to_string())
}

/// Parses `--size` for the table (suffixes K, M, G, KiB, MiB, GiB).
pub fn parse_sizes(given: &[String]) -> Result<Vec<usize>, CliError> {
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
                    CliError::usage(format!(
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
pub fn run(sizes: &[String], outputs: Outputs<'_>) -> Result<ExitCode, CliError> {
    let sizes = parse_sizes(sizes)?;
    // No GPU: one line, exit 2, before anything is measured or written.
    let gpu = Gpu(backend_arg::open_gpu()?);
    let cpu = Cpu::best();
    let dir = tempfile::Builder::new()
        .prefix("aesx-gpu-table-")
        .tempdir()
        .map_err(|e| CliError::failure(format!("cannot create a temporary directory: {e}")))?;
    let rows = measure(&cpu, &gpu, &sizes, dir.path()).map_err(CliError::failure)?;
    let (c, g) = (cpu.describe(), gpu.describe());
    let mut out = std::io::stdout().lock();
    print(&mut out, &c, &g, &rows)
        .map_err(|e| CliError::failure(format!("writing the report: {e}")))?;
    let write = |p: &PathBuf, text: String| {
        std::fs::write(p, text).map_err(|e| CliError::failure(format!("{}: {e}", p.display())))
    };
    if let Some(p) = outputs.json {
        write(p, json_rows(&c, &g, &rows))?;
    }
    if let Some(p) = outputs.csv {
        write(p, csv_rows(&rows))?;
    }
    if let Some(p) = outputs.plot {
        plot(p, &format!("aesx --gpu-table: {c} vs {g}"), &rows)
            .map_err(|e| CliError::failure(format!("{}: {e}", p.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plumbing with the CPU on both sides (no GPU here): rows for every
    /// size and workload, equal outputs checked, and the reports written.
    #[test]
    fn table_with_the_cpu_on_both_sides() {
        let dir = tempfile::tempdir().unwrap();
        let sizes = [1028, 4096, 65536 + 5];
        let rows = measure(
            &Cpu::best(),
            &Cpu {
                backend: Backend::Soft,
                threads: 1,
            },
            &sizes,
            dir.path(),
        )
        .unwrap();
        assert_eq!(rows.len(), 6);
        let mut text = Vec::new();
        print(&mut text, "a", "b", &rows).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("speed-up") && text.contains("crossover: AES-256-ECB"));
        assert_eq!(json_rows("a", "b", &rows).lines().count(), 6);
        assert_eq!(csv_rows(&rows).lines().count(), 7);
        let svg = dir.path().join("t.svg");
        plot(&svg, "t", &rows).unwrap();
        assert!(std::fs::read_to_string(&svg).unwrap().contains("<svg"));
    }

    #[test]
    fn crossover_lines() {
        let r = |size, cpu_s, gpu_s| TableRow {
            size,
            workload: Workload::Ecb,
            cpu_s,
            gpu_s,
        };
        let rows = [
            r(1, 1.0, 2.0),
            r(2, 1.0, 0.5),
            r(3, 1.0, 2.0),
            r(4, 2.0, 1.0),
            r(5, 3.0, 1.0),
        ];
        assert!(crossover(&rows, Workload::Ecb).contains("from 4 B on (CPU faster at 3 B)"));
        let never = [r(1, 1.0, 2.0)];
        assert!(crossover(&never, Workload::Ecb).contains("not faster"));
        let always = [r(1, 2.0, 1.0), r(2, 2.0, 1.0)];
        assert!(crossover(&always, Workload::Ecb).contains("every size"));
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
