//! The emulation harness: the CUDA kernels compiled as C++ (`harness.cpp`)
//! and run thread by thread on the CPU, one launch per call.

#![allow(dead_code)] // each test binary uses a different part

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use aesx_cuda::plan::{self, LaunchDims};
use aesx_cuda::testing;

pub fn harness() -> Option<&'static PathBuf> {
    static BIN: OnceLock<Option<PathBuf>> = OnceLock::new();
    BIN.get_or_init(|| {
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
        let bin = dir.join(format!("aesx-cuda-harness-{}", std::process::id()));
        let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/emulate/harness.cpp");
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
        match Command::new(&cxx)
            .args(["-O2", "-std=c++17", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&bin)
            .arg(&src)
            .output()
        {
            Ok(out) if out.status.success() => Some(bin),
            Ok(out) => panic!(
                "the kernels do not compile as C++:\n{}",
                String::from_utf8_lossy(&out.stderr)
            ),
            Err(e) => {
                eprintln!("skipping kernel emulation: no C++ compiler ({cxx}: {e})");
                None
            }
        }
    })
    .as_ref()
}

/// A generator with a fixed seed for a kernel test, or None (the test then
/// returns early, having said why) when the harness cannot be built.
pub fn emulated_rng(seed: u64) -> Option<rand::rngs::StdRng> {
    use rand::SeedableRng;
    harness()?;
    Some(rand::rngs::StdRng::seed_from_u64(seed))
}

pub struct Launch<'a> {
    pub kernel: &'a str,
    pub key: &'a [u8],
    pub key2: Option<&'a [u8]>,
    pub p: [u64; 6],
    pub dims: LaunchDims,
    pub dims2: LaunchDims,
    pub data: &'a [u8],
}

pub fn run(l: &Launch) -> Vec<u8> {
    let bin = harness().expect("harness");
    let (rk, nr) = testing::round_key_words(l.key).unwrap();
    let rk2 = match l.key2 {
        Some(k) => testing::round_key_words(k).unwrap().0,
        None => [0u32; 60],
    };
    let mut input = Vec::new();
    input.extend_from_slice(&nr.to_le_bytes());
    input.extend_from_slice(&0u32.to_le_bytes());
    for w in rk.iter().chain(rk2.iter()) {
        input.extend_from_slice(&w.to_le_bytes());
    }
    let masks = |k: Option<&[u8]>| match k {
        Some(k) => testing::round_key_masks(k).unwrap(),
        None => Vec::new(),
    };
    for m in [masks(Some(l.key)), masks(l.key2)] {
        // Two schedules of 15 rounds' worth, zero-padded, whatever the
        // key size.
        let mut all = [0u32; 2 * 15 * 128];
        all[..m.len()].copy_from_slice(&m);
        for w in all {
            input.extend_from_slice(&w.to_le_bytes());
        }
    }
    for v in l.p {
        input.extend_from_slice(&v.to_le_bytes());
    }
    for v in [l.dims.grid, l.dims.block, l.dims2.grid, l.dims2.block] {
        input.extend_from_slice(&u64::from(v).to_le_bytes());
    }
    input.extend_from_slice(&(l.data.len() as u64).to_le_bytes());
    input.extend_from_slice(l.data);
    let mut child = Command::new(bin)
        .arg(l.kernel)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn harness");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "harness failed for {}", l.kernel);
    out.stdout
}

/// A launch with one key and one grid for every phase (all kernels but XTS).
pub fn run_one_key(
    kernel: &str,
    key: &[u8],
    p: [u64; 6],
    dims: LaunchDims,
    data: &[u8],
) -> Vec<u8> {
    run(&Launch {
        kernel,
        key,
        key2: None,
        p,
        dims,
        dims2: dims,
        data,
    })
}

pub fn aes_launch(kernel: &str, key: &[u8], p: [u64; 6], data: &[u8]) -> Vec<u8> {
    let blocks = (data.len() as u64).div_ceil(16);
    run_one_key(kernel, key, p, plan::aes_launch_dims(blocks).unwrap(), data)
}

/// A GHASH kernel on `threads` threads (it takes no key).
pub fn ghash_launch(kernel: &str, p: [u64; 6], threads: u64, data: &[u8]) -> Vec<u8> {
    let dims = plan::ghash_launch_dims(threads).unwrap();
    run_one_key(kernel, &[0u8; 16], p, dims, data)
}

/// The launch parameters of a CTR kernel from a counter block.
pub fn ctr_params(counter: &[u8; 16], ctr32: bool) -> [u64; 6] {
    let (hi, lo) = plan::counter_halves(counter);
    [hi, lo, u64::from(ctr32), 0, 0, 0]
}
