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

//!
//! Modules: `side` (the workloads and the `Side` trait), `cpu` and `gpu`
//! (the two sides), `files` (file I/O and the plain copy), `measure` (the
//! timing loop), `row` (the rows), `text`, `json`, `csv`, `plot` (output).

mod cpu;
mod csv;
mod files;
mod gpu;
mod json;
mod measure;
mod plot;
mod row;
mod side;
#[cfg(test)]
mod tests;
mod text;

use std::path::PathBuf;
use std::process::ExitCode;

use aesx_file::CommandError;

use crate::args::parse_size_up_to;
use crate::writable::{check_writable, write_report};
use cpu::Cpu;
use csv::csv_rows;
use gpu::Gpu;
use json::json_rows;
use measure::measure;
use plot::plot;
use side::Side;
use text::print;

/// The seed's sizes: 1028 B to 7,196,000 B, then 64 MiB and 1 GiB.
pub const DEFAULT_SIZES: [usize; 7] = [1028, 4096, 65536, 1 << 20, 7_196_000, 64 << 20, 1 << 30];
/// Largest --size with --gpu-table.
const MAX_SIZE: usize = 4 << 30;

/// Parses `--size` for the table (suffixes K, M, G, KiB, MiB, GiB).
pub fn parse_sizes(given: &[String]) -> Result<Vec<usize>, CommandError> {
    if given.is_empty() {
        return Ok(DEFAULT_SIZES.to_vec());
    }
    given
        .iter()
        .map(|s| {
            parse_size_up_to(s, MAX_SIZE).ok_or_else(|| {
                CommandError::usage(format!(
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
pub fn run(sizes: &[String], outputs: Outputs<'_>) -> Result<ExitCode, CommandError> {
    let sizes = parse_sizes(sizes)?;
    // A report that cannot be written fails now, not after the whole run.
    for (flag, p) in [
        ("--json", outputs.json),
        ("--csv", outputs.csv),
        ("--plot", outputs.plot),
    ] {
        if let Some(p) = p {
            check_writable(flag, p)?;
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
        .map_err(|e| CommandError::failure(format!("cannot create a temporary directory: {e}")))?;
    let rows = measure(
        &cpu,
        gpu.as_ref().map(|g| g as &dyn Side),
        &sizes,
        dir.path(),
    )
    .map_err(CommandError::failure)?;
    let c = cpu.describe();
    let g = gpu
        .as_ref()
        .map_or_else(|| "unavailable (n/a)".to_string(), Side::describe);
    let mut out = std::io::stdout().lock();
    print(&mut out, &c, &g, &rows)
        .map_err(|e| CommandError::failure(format!("writing the report: {e}")))?;
    if let Some(p) = outputs.json {
        write_report(p, json_rows(&c, &g, &rows))?;
    }
    if let Some(p) = outputs.csv {
        write_report(p, csv_rows(&rows))?;
    }
    if let Some(p) = outputs.plot {
        // The sides' first clauses: the rest is in the text report.
        let short = |s: &str| s.split(';').next().unwrap_or_default().to_string();
        plot(
            p,
            &format!("aesx --gpu-table: {} vs {}", short(&c), short(&g)),
            &rows,
        )
        .map_err(|e| CommandError::failure(format!("{}: {e}", p.display())))?;
    }
    Ok(ExitCode::SUCCESS)
}
