//! The table's plumbing with the CPU standing in for the GPU, and the
//! GPU side's file code through the chunk-pipe model.

use std::cell::RefCell;

use aesx::Backend;
use aesx_file::payload::{self, ChunkCipher, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN};

use super::cpu::Cpu;
use super::csv::csv_rows;
use super::gpu;
use super::json::json_rows;
use super::measure::measure;
use super::plot::plot;
use super::row::{TableRow, Times, COLUMNS};
use super::side::{Dir, Side, Workload, FILE_KEY, KEY, SALT};
use super::text::{crossover, disk_line, print};
use super::{parse_sizes, DEFAULT_SIZES};

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
