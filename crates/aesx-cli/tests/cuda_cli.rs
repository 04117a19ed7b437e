//! `--backend cuda` from the command line. Without a GPU (this machine, CI)
//! every such command must exit 2 with one `aesx: --backend cuda: ...` line
//! that says what is missing, write no output file (nor leave a temporary
//! one) and never panic. With a GPU the same commands must succeed and give
//! the CPU's bytes, so the tests check that instead (AESX_REQUIRE_GPU=1
//! makes a missing GPU a failure). A build without the `cuda` feature:
//! `tests/features.rs`.
#![cfg(feature = "cuda")]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn aesx(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aesx"));
    c.args(args).current_dir(repo()).env_remove("AESX_BACKEND");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("spawn aesx")
}

/// Checks a `--backend cuda` run: Ok(true) if the GPU ran it (exit 0),
/// Ok(false) after checking the no-GPU failure; `out` must not exist then,
/// and `dir` must hold nothing but `keep`.
fn gpu_or_clean_failure(o: &Output, out: Option<&Path>, dir: &Path, keep: &[&str]) -> bool {
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "panic: {err}");
    if o.status.code() == Some(0) {
        return true;
    }
    // On a GPU machine the GPU paths must really run.
    assert!(
        std::env::var("AESX_REQUIRE_GPU").as_deref() != Ok("1"),
        "AESX_REQUIRE_GPU=1 but: {err}"
    );
    assert_eq!(o.status.code(), Some(2), "exit status; stderr: {err}");
    assert_eq!(err.lines().count(), 1, "one line: {err:?}");
    assert!(err.starts_with("aesx: --backend cuda: "), "{err:?}");
    let why = ["libcuda", "driver", "device", "NVRTC", "nvrtc"];
    assert!(why.iter().any(|w| err.contains(w)), "says why: {err:?}");
    if let Some(p) = out {
        assert!(!p.exists(), "{} was created", p.display());
    }
    let left: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !keep.contains(&n.as_str()))
        .collect();
    assert!(left.is_empty(), "files left behind: {left:?}");
    false
}

const KEY16: &str = "000102030405060708090a0b0c0d0e0f";
const KEY32: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const KEY64: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
                     202122232425262728292a2b2c2d2e2f303132333435363738393a3b3c3d3e3f";
const IV: &str = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const CTR: [&str; 6] = ["--mode", "ctr", "--key", KEY16, "--iv", IV];

#[test]
fn cipher_modes_on_cuda_fail_cleanly_or_match_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.bin");
    // 70,001 bytes: not whole blocks (padding, CTR tail, XTS stealing).
    let data: Vec<u8> = (0..70_001u32).map(|i| (i * 7 + i / 251) as u8).collect();
    std::fs::write(&input, &data).unwrap();
    let sectors = dir.path().join("sectors.bin");
    std::fs::write(&sectors, &data[..4096 * 8]).unwrap();
    let cases: Vec<Vec<&str>> = vec![
        vec!["--mode", "ecb", "--key", KEY16],
        vec!["--mode", "cbc", "--key", KEY32, "--iv", IV],
        CTR.to_vec(),
        vec!["--mode", "xts", "--key", KEY64, "--tweak", IV],
        vec!["--mode", "xts", "--key", KEY32, "--sector", "77"],
        vec![
            "--mode",
            "gcm",
            "--key",
            KEY32,
            "--iv",
            "000102030405060708090a0b",
            "--aad",
            "abcd",
        ],
    ];
    let keep = ["in.bin", "sectors.bin", "cpu.bin", "back.bin"];
    for case in &cases {
        let out = dir.path().join("gpu.bin");
        let cpu = dir.path().join("cpu.bin");
        let i = input.to_str().unwrap();
        let mut args = vec!["cipher", "encrypt"];
        args.extend(case);
        let mut cpu_args = args.clone();
        cpu_args.extend(["-i", i, "-o", cpu.to_str().unwrap(), "--force"]);
        assert!(aesx(&cpu_args, &[]).status.success(), "{case:?} on the CPU");
        let mut gpu_args = args.clone();
        gpu_args.extend(["-i", i, "-o", out.to_str().unwrap(), "--backend", "cuda"]);
        let o = aesx(&gpu_args, &[]);
        if gpu_or_clean_failure(&o, Some(&out), dir.path(), &keep) {
            assert_eq!(
                std::fs::read(&out).unwrap(),
                std::fs::read(&cpu).unwrap(),
                "{case:?}"
            );
            std::fs::remove_file(&out).unwrap();
        }
        // Decryption on the GPU of the CPU's ciphertext; AESX_BACKEND too.
        let back = dir.path().join("back.bin");
        let mut dec = vec!["cipher", "decrypt"];
        dec.extend(case);
        dec.extend(["-i", cpu.to_str().unwrap(), "-o", out.to_str().unwrap()]);
        let o = aesx(&dec, &[("AESX_BACKEND", "cuda")]);
        if gpu_or_clean_failure(&o, Some(&out), dir.path(), &keep) {
            assert_eq!(std::fs::read(&out).unwrap(), data, "{case:?} decrypt");
            std::fs::remove_file(&out).unwrap();
        }
        let _ = std::fs::remove_file(&back);
    }
    // A disk image of sectors, both ways.
    let out = dir.path().join("gpu.bin");
    let image = |extra: &[&str]| {
        let mut args = vec!["cipher", "encrypt", "--mode", "xts", "--key", KEY64];
        args.extend(["--sector-size", "4096", "-i", sectors.to_str().unwrap()]);
        args.extend(extra);
        aesx(&args, &[])
    };
    let o = image(&["-o", out.to_str().unwrap(), "--backend", "cuda"]);
    if gpu_or_clean_failure(&o, Some(&out), dir.path(), &keep) {
        let cpu = image(&[]);
        assert_eq!(std::fs::read(&out).unwrap(), cpu.stdout);
    }
}

#[test]
fn cipher_to_stdout_on_cuda_writes_nothing_without_a_gpu() {
    let mut args = vec!["cipher", "encrypt"];
    args.extend(CTR);
    args.extend(["-i", "README.md", "--backend", "cuda"]);
    let o = aesx(&args, &[]);
    let dir = tempfile::tempdir().unwrap();
    if !gpu_or_clean_failure(&o, None, dir.path(), &[]) {
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn file_encryption_on_cuda_fails_cleanly_or_interoperates() {
    let dir = tempfile::tempdir().unwrap();
    let d = |n: &str| dir.path().join(n);
    let key = d("k.key");
    assert!(aesx(&["keygen", "-o", key.to_str().unwrap()], &[])
        .status
        .success());
    let k = key.to_str().unwrap();
    // `aesx VERB -q -k KEY INPUT -o OUT`, on `backend` when given.
    let file_cmd = |verb: &str, input: &Path, out: &Path, backend: Option<&str>| {
        let mut args = vec![verb, "-q", "-k", k, input.to_str().unwrap()];
        args.extend(["-o", out.to_str().unwrap()]);
        if let Some(b) = backend {
            args.extend(["--backend", b, "-j", "2"]);
        }
        aesx(&args, &[])
    };
    // Empty, one byte, across the GPU's 2048-chunk run and the CPU
    // workers' 128-chunk runs, exact multiples of both (a final empty
    // chunk), and a short final chunk.
    let sizes = [
        0usize,
        1,
        16384,
        130 * 16384 + 7,
        2048 * 16384,
        2049 * 16384 + 5,
    ];
    for (n, size) in sizes.into_iter().enumerate() {
        let data: Vec<u8> = (0..size as u32).map(|i| (i ^ (i >> 9)) as u8).collect();
        let i = d(&format!("in{n}.bin"));
        std::fs::write(&i, &data).unwrap();
        let cpu_file = d(&format!("cpu{n}.aesx"));
        assert!(file_cmd("encrypt", &i, &cpu_file, None).status.success());
        let keep_names = [
            "k.key".to_string(),
            format!("in{n}.bin"),
            format!("cpu{n}.aesx"),
        ];
        let mut keep: Vec<&str> = keep_names.iter().map(|s| s.as_str()).collect();
        // Earlier sizes' files are still there.
        let earlier: Vec<String> = (0..n)
            .flat_map(|m| [format!("in{m}.bin"), format!("cpu{m}.aesx")])
            .collect();
        keep.extend(earlier.iter().map(|s| s.as_str()));
        for backend in ["cuda", "cpu+cuda"] {
            let gpu_out = d("gpu.aesx");
            let o = file_cmd("encrypt", &i, &gpu_out, Some(backend));
            if gpu_or_clean_failure(&o, Some(&gpu_out), dir.path(), &keep) {
                // The GPU's file opens on the CPU.
                let back = aesx(&["decrypt", "-q", "-k", k, gpu_out.to_str().unwrap()], &[]);
                assert!(back.status.success(), "{backend} {size}");
                assert!(back.stdout == data, "{backend} {size}");
                std::fs::remove_file(&gpu_out).unwrap();
            }
            // The CPU's file opens on the GPU.
            let plain = d("plain.bin");
            let o = file_cmd("decrypt", &cpu_file, &plain, Some(backend));
            if gpu_or_clean_failure(&o, Some(&plain), dir.path(), &keep) {
                assert!(std::fs::read(&plain).unwrap() == data, "{backend} {size}");
                std::fs::remove_file(&plain).unwrap();
            }
        }
    }
    // `--backend cuda` really ran on the GPU: every byte of the largest
    // file went through it, none through a CPU fallback.
    let gpu_out = d("gpu.aesx");
    let (i5, o5) = (d("in5.bin"), gpu_out.to_str().unwrap().to_string());
    let o = aesx(
        &[
            "encrypt",
            "-q",
            "-k",
            k,
            i5.to_str().unwrap(),
            "-o",
            &o5,
            "--backend",
            "cuda",
        ],
        &[("AESX_OFFLOAD_STATS", "1")],
    );
    if o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        let size = sizes[5].to_string();
        assert!(
            err.contains(&format!(" {size} bytes on the GPU, 0 on 0 CPU workers")),
            "not all on the GPU: {err}"
        );
        std::fs::remove_file(&gpu_out).unwrap();
    }
    // A modified, a truncated and an extended file fail on the GPU as on
    // the CPU, with nothing written.
    let good = std::fs::read(d("cpu5.aesx")).unwrap();
    let n = good.len();
    let mut flipped = good.clone();
    flipped[n - 40_000] ^= 1;
    let mut extended = good.clone();
    extended.push(0);
    let cases = [
        flipped,
        good[..n - 5].to_vec(),
        good[..n - 16389].to_vec(),
        extended,
    ];
    let plain = d("plain.bin");
    for (c, bytes) in cases.iter().enumerate() {
        std::fs::write(d("bad.aesx"), bytes).unwrap();
        let cpu_err = file_cmd("decrypt", &d("bad.aesx"), &plain, None);
        assert_eq!(cpu_err.status.code(), Some(1), "case {c}");
        assert!(!plain.exists());
        for backend in ["cuda", "cpu+cuda"] {
            let o = file_cmd("decrypt", &d("bad.aesx"), &plain, Some(backend));
            if o.status.code() != Some(2) {
                assert_eq!(o.status.code(), Some(1), "case {c} {backend}");
                assert_eq!(o.stderr, cpu_err.stderr, "case {c} {backend}");
            }
            assert!(!plain.exists(), "case {c} {backend}");
        }
    }
}

#[test]
#[cfg(all(feature = "peers", feature = "plot"))]
fn cavp_and_bench_on_cuda_fail_cleanly_without_a_gpu() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        vec![
            "cavp",
            "--backend",
            "cuda",
            "vectors/nist/GCM/gcmDecrypt128.rsp",
        ],
        vec![
            "bench",
            "--backend",
            "cuda",
            "--mode",
            "ctr",
            "--size",
            "4096",
            "--no-peers",
            "--time",
            "0.05",
        ],
    ] {
        let o = aesx(&args, &[]);
        gpu_or_clean_failure(&o, None, dir.path(), &[]);
    }
    let json = dir.path().join("t.json");
    let o = aesx(
        &[
            "bench",
            "--gpu-table",
            "--size",
            "4096",
            "--json",
            json.to_str().unwrap(),
        ],
        &[],
    );
    // Without a GPU the table runs on the CPU alone (GPU columns n/a,
    // stderr says why); with AESX_REQUIRE_GPU=1 that would be a silent
    // fallback, so the GPU must be named.
    if gpu_or_clean_failure(&o, Some(&json), dir.path(), &[]) {
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            text.contains("speed-up") && text.contains("crossover") && text.contains("disk: "),
            "{text}"
        );
        assert_eq!(std::fs::read_to_string(&json).unwrap().lines().count(), 2);
        let gpu_ran = text.contains("GPU: aesx-cuda on ");
        assert_eq!(gpu_ran, !text.contains("n/a"), "{text}");
        if std::env::var("AESX_REQUIRE_GPU").as_deref() == Ok("1") {
            assert!(
                gpu_ran,
                "AESX_REQUIRE_GPU=1 but the table ran without the GPU: {text}"
            );
        } else if !gpu_ran {
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("GPU columns read n/a"), "{err}");
        }
    }
}

#[test]
fn gpu_table_is_in_the_help() {
    if cfg!(feature = "peers") {
        let o = aesx(&["bench", "--help"], &[]);
        assert!(String::from_utf8_lossy(&o.stdout).contains("--gpu-table"));
    }
    let o = aesx(&["cipher", "--help"], &[]);
    assert!(String::from_utf8_lossy(&o.stdout)
        .contains("CBC encryption is serial and stays on the CPU"));
}
