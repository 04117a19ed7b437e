//! The timing loop: every size and workload, encrypt and decrypt, end to
//! end and in memory, on each side, interleaved with the plain copy; the
//! first run of each cell checked against the CPU's reference output.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::files::{copy, ecb_e2e, write_from};
use super::row::{TableRow, Times, COLUMNS};
use super::side::{Buf, Dir, Side, Workload, FILE_KEY, KEY};

/// Where one size's files lie.
pub(super) struct Files {
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
pub(super) fn once(
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
