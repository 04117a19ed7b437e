//! x86 backends against OpenSSL (vendored, EVP) and RustCrypto (`aes` 0.9
//! with `ctr`/`cbc`), in one run: AES-128 and AES-256; ECB encryption, CTR,
//! CBC decryption and CBC encryption at 64 B, 1 KiB and 16 KiB; and
//! multi-buffer CBC encryption of 16 and of 64 messages of 1504 B (1500 B
//! rounded up to whole blocks).
//!
//! All measurements are out of place (src -> dst), since OpenSSL's `Crypter`
//! only works that way. Set-up that is counted and not counted:
//! - Keys are expanded once, outside the timing, for every library.
//! - Single-stream cases reuse one context across iterations (OpenSSL
//!   `Crypter`, RustCrypto mode objects, aesx `Ctr`/chaining IVs): the
//!   stream simply continues; no per-message set-up is counted.
//! - Multi-buffer cases count what a packet encryptor pays per message: a
//!   fresh IV for each message (OpenSSL: `EVP_EncryptInit_ex` with only the
//!   IV on a prebuilt context per key; RustCrypto: a mode object built from
//!   a clone of the expanded key and the IV; aesx: a `CbcJob`).
//!
//! Two ways to run it:
//! - `cargo bench -p aesx --bench x86` : criterion (statistics, HTML).
//! - `AESX_BENCH_TABLE=1 cargo bench -p aesx --bench x86` : one compact
//!   table, GB/s and cycles/byte with ratios to OpenSSL, measured
//!   interleaved in the same process (best of `AESX_BENCH_ROUNDS`, default
//!   60, batches per implementation; `AESX_BENCH_FILTER=text` keeps the
//!   cases whose name contains `text`). Cycles are TSC cycles: the TSC rate is
//!   taken from `AESX_TSC_MHZ` or else the first `cpu MHz` in
//!   /proc/cpuinfo (the nominal rate on a `tsc_known_freq` machine).

use std::hint::black_box;
use std::time::{Duration, Instant};

use aes::cipher::{
    BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt, InnerIvInit, KeyInit, KeyIvInit,
    StreamCipher,
};
use aesx::{cbc_encrypt_many, Aes, Backend, Cbc, CbcJob, Ctr};
use criterion::{Criterion, Throughput};
use openssl::symm::{Cipher, Crypter, Mode};

const SIZES: [usize; 3] = [64, 1024, 16384];
const MODES: [&str; 4] = ["ecb", "ctr", "cbc-dec", "cbc-enc"];
/// Message counts of the multi-buffer cases: 16, and enough
/// for the 32-lane zmm layout.
const MULTI_NS: [usize; 2] = [16, 64];
const MULTI_LEN: usize = 1504;

struct Case {
    group: String,
    name: String,
    bytes: usize,
    f: Box<dyn FnMut()>,
}

fn hw_backends() -> Vec<Backend> {
    Backend::ALL
        .into_iter()
        .filter(|b| b.family() == "x86" && b.is_available())
        .collect()
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 + 7) as u8).collect()
}

fn ossl_cipher(mode: &str, ks: usize) -> Cipher {
    match (mode, ks) {
        ("ecb", 16) => Cipher::aes_128_ecb(),
        ("ecb", _) => Cipher::aes_256_ecb(),
        ("ctr", 16) => Cipher::aes_128_ctr(),
        ("ctr", _) => Cipher::aes_256_ctr(),
        (_, 16) => Cipher::aes_128_cbc(),
        (_, _) => Cipher::aes_256_cbc(),
    }
}

/// RustCrypto cases for one cipher type (AES-128 or AES-256); a macro, as
/// the mode crates' trait bounds are heavy to spell generically.
macro_rules! rustcrypto {
    ($c:ty, $mode:expr, $key:expr, $iv:expr, $n:expr) => {{
        let (key, iv, n): (&[u8], [u8; 16], usize) = ($key, $iv, $n);
        let src = data(n);
        let mut dst = vec![0u8; n];
        let src_b = aes::Block::slice_as_chunks(&src).0.to_vec();
        let mut dst_b = src_b.clone();
        let f: Box<dyn FnMut()> = match $mode {
            "ecb" => {
                let c = <$c>::new_from_slice(key).unwrap();
                Box::new(move || c.encrypt_blocks_b2b(&src_b, &mut dst_b).unwrap())
            }
            "ctr" => {
                let mut c = ctr::Ctr128BE::<$c>::new_from_slices(key, &iv).unwrap();
                Box::new(move || c.apply_keystream_b2b(&src, &mut dst))
            }
            "cbc-dec" => {
                let mut c = cbc::Decryptor::<$c>::new_from_slices(key, &iv).unwrap();
                Box::new(move || c.decrypt_blocks_b2b(&src_b, &mut dst_b).unwrap())
            }
            _ => {
                let mut c = cbc::Encryptor::<$c>::new_from_slices(key, &iv).unwrap();
                Box::new(move || c.encrypt_blocks_b2b(&src_b, &mut dst_b).unwrap())
            }
        };
        f
    }};
}

macro_rules! rustcrypto_multi {
    ($c:ty, $keys:expr, $count:expr) => {{
        let count: usize = $count;
        let ciphers: Vec<$c> = $keys
            .iter()
            .map(|k| <$c>::new_from_slice(k).unwrap())
            .collect();
        let src: Vec<Vec<aes::Block>> = (0..count)
            .map(|_| aes::Block::slice_as_chunks(&data(MULTI_LEN)).0.to_vec())
            .collect();
        let mut dst = src.clone();
        let f: Box<dyn FnMut()> = Box::new(move || {
            for (i, c) in ciphers.iter().enumerate() {
                let iv = [i as u8; 16];
                let mut e = cbc::Encryptor::<$c>::inner_iv_init(c.clone(), &iv.into());
                e.encrypt_blocks_b2b(&src[i], &mut dst[i]).unwrap();
            }
            black_box(&dst);
        });
        f
    }};
}

fn single_cases(ks: usize) -> Vec<Case> {
    let key: Vec<u8> = (0..ks as u8).map(|i| i.wrapping_mul(29) ^ 0x5c).collect();
    let iv = [0xa7u8; 16];
    let bits = ks * 8;
    let mut out = Vec::new();
    for mode in MODES {
        for n in SIZES {
            let group = format!("aes{bits}/{mode}/{n}");
            for b in hw_backends() {
                let src = data(n);
                let mut dst = vec![0u8; n];
                let aes = Aes::with_backend(&key, b).unwrap();
                let f: Box<dyn FnMut()> = match mode {
                    "ecb" => Box::new(move || aes.encrypt_blocks_to(&src, &mut dst).unwrap()),
                    "ctr" => {
                        let mut c = Ctr::from_aes(aes, &iv).unwrap();
                        Box::new(move || c.apply_keystream_to(&src, &mut dst).unwrap())
                    }
                    "cbc-dec" => {
                        let c = Cbc::from(aes);
                        let mut chain = iv;
                        Box::new(move || c.decrypt_chained_to(&mut chain, &src, &mut dst).unwrap())
                    }
                    _ => {
                        let c = Cbc::from(aes);
                        let mut chain = iv;
                        Box::new(move || c.encrypt_chained_to(&mut chain, &src, &mut dst).unwrap())
                    }
                };
                out.push(Case {
                    group: group.clone(),
                    name: format!("aesx-{}", b.name()),
                    bytes: n,
                    f,
                });
            }
            let src = data(n);
            let mut dst = vec![0u8; n + 16];
            let m = if mode == "cbc-dec" {
                Mode::Decrypt
            } else {
                Mode::Encrypt
            };
            let ivo = if mode == "ecb" { None } else { Some(&iv[..]) };
            let mut c = Crypter::new(ossl_cipher(mode, ks), m, &key, ivo).unwrap();
            c.pad(false);
            out.push(Case {
                group: group.clone(),
                name: "openssl".into(),
                bytes: n,
                f: Box::new(move || {
                    c.update(&src, &mut dst).unwrap();
                }),
            });
            let f = if ks == 16 {
                rustcrypto!(aes::Aes128, mode, &key, iv, n)
            } else {
                rustcrypto!(aes::Aes256, mode, &key, iv, n)
            };
            out.push(Case {
                group,
                name: "rustcrypto".into(),
                bytes: n,
                f,
            });
        }
    }
    out
}

fn multi_cases(ks: usize, count: usize) -> Vec<Case> {
    let keys: Vec<Vec<u8>> = (0..count)
        .map(|j| (0..ks).map(|i| (i * 7 + j * 13) as u8).collect())
        .collect();
    let group = format!("aes{}/cbc-enc-multi/{count}x{MULTI_LEN}", ks * 8);
    let bytes = count * MULTI_LEN;
    let mut out = Vec::new();
    for b in hw_backends() {
        let aes: Vec<Aes> = keys
            .iter()
            .map(|k| Aes::with_backend(k, b).unwrap())
            .collect();
        let mut bufs: Vec<Vec<u8>> = (0..count).map(|_| data(MULTI_LEN)).collect();
        let aes2 = aes.clone();
        let mut bufs2 = bufs.clone();
        out.push(Case {
            group: group.clone(),
            name: format!("aesx-{}-many", b.name()),
            bytes,
            f: Box::new(move || {
                let mut jobs: Vec<CbcJob> = bufs
                    .iter_mut()
                    .zip(aes.iter())
                    .enumerate()
                    .map(|(i, (d, k))| CbcJob {
                        key: k,
                        iv: [i as u8; 16],
                        data: d,
                    })
                    .collect();
                cbc_encrypt_many(&mut jobs).unwrap();
            }),
        });
        out.push(Case {
            group: group.clone(),
            name: format!("aesx-{}-one-by-one", b.name()),
            bytes,
            f: Box::new(move || {
                for (i, (d, k)) in bufs2.iter_mut().zip(aes2.iter()).enumerate() {
                    let mut iv = [i as u8; 16];
                    Cbc::from(k.clone()).encrypt_chained(&mut iv, d).unwrap();
                }
            }),
        });
    }
    let mut ctxs: Vec<openssl::cipher_ctx::CipherCtx> = keys
        .iter()
        .map(|k| {
            let mut c = openssl::cipher_ctx::CipherCtx::new().unwrap();
            let t = if ks == 16 {
                openssl::cipher::Cipher::aes_128_cbc()
            } else {
                openssl::cipher::Cipher::aes_256_cbc()
            };
            c.encrypt_init(Some(t), Some(k), Some(&[0u8; 16])).unwrap();
            c.set_padding(false);
            c
        })
        .collect();
    let src = data(MULTI_LEN);
    let mut dst = vec![0u8; MULTI_LEN + 16];
    out.push(Case {
        group: group.clone(),
        name: "openssl".into(),
        bytes,
        f: Box::new(move || {
            for (i, c) in ctxs.iter_mut().enumerate() {
                c.encrypt_init(None, None, Some(&[i as u8; 16])).unwrap();
                c.cipher_update(&src, Some(&mut dst)).unwrap();
            }
        }),
    });
    out.push(Case {
        group,
        name: "rustcrypto".into(),
        bytes,
        f: if ks == 16 {
            rustcrypto_multi!(aes::Aes128, &keys, count)
        } else {
            rustcrypto_multi!(aes::Aes256, &keys, count)
        },
    });
    out
}

fn all_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for ks in [16, 32] {
        v.extend(single_cases(ks));
    }
    for count in MULTI_NS {
        for ks in [16, 32] {
            v.extend(multi_cases(ks, count));
        }
    }
    v
}

fn tsc_mhz() -> f64 {
    if let Some(v) = std::env::var("AESX_TSC_MHZ")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return v;
    }
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("cpu MHz"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse().ok())
        })
        .unwrap_or(0.0)
}

/// Calls per timed batch so that one batch takes about `target`.
fn batch_size(c: &mut Case, target: Duration) -> u64 {
    let mut iters = 1u64;
    loop {
        let t = Instant::now();
        for _ in 0..iters {
            (c.f)();
        }
        if t.elapsed() >= target || iters > 1 << 30 {
            return iters;
        }
        iters *= 2;
    }
}

/// Seconds per call of each case of a group: the best of `rounds` batches,
/// with the cases' batches interleaved round by round, so that load from
/// other processes on a shared machine hits every implementation alike and
/// the minimum finds the moments when the core was ours.
fn time_group(cases: &mut [Case], rounds: usize) -> Vec<f64> {
    for c in cases.iter_mut() {
        (c.f)();
    }
    let iters: Vec<u64> = cases
        .iter_mut()
        .map(|c| batch_size(c, Duration::from_micros(500)))
        .collect();
    let mut best = vec![f64::INFINITY; cases.len()];
    for _ in 0..rounds {
        for (k, c) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..iters[k] {
                (c.f)();
            }
            let per = t.elapsed().as_secs_f64() / iters[k] as f64;
            best[k] = best[k].min(per);
        }
    }
    best
}

fn table() {
    let mhz = tsc_mhz();
    let rounds: usize = std::env::var("AESX_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut cases = all_cases();
    if let Ok(f) = std::env::var("AESX_BENCH_FILTER") {
        cases.retain(|c| c.group.contains(&f));
    }
    println!(
        "TSC {mhz:.0} MHz; best of {rounds} interleaved ~0.5 ms batches; ratio = OpenSSL time / this time"
    );
    println!(
        "{:<34} {:<26} {:>9} {:>8} {:>8}",
        "case", "implementation", "GB/s", "c/B", "vs ossl"
    );
    let mut i = 0;
    while i < cases.len() {
        let g = cases[i].group.clone();
        let mut j = i;
        while j < cases.len() && cases[j].group == g {
            j += 1;
        }
        let times = time_group(&mut cases[i..j], rounds);
        let ossl = cases[i..j]
            .iter()
            .zip(times.iter())
            .find(|(c, _)| c.name == "openssl")
            .map(|(_, t)| *t)
            .unwrap_or(f64::NAN);
        for (c, t) in cases[i..j].iter().zip(times.iter()) {
            let gbs = c.bytes as f64 / t / 1e9;
            let cpb = t * mhz * 1e6 / c.bytes as f64;
            println!(
                "{:<34} {:<26} {:>9.2} {:>8.3} {:>8.2}",
                g,
                c.name,
                gbs,
                cpb,
                ossl / t
            );
        }
        i = j;
    }
}

fn main() {
    if std::env::var_os("AESX_BENCH_TABLE").is_some() {
        table();
        return;
    }
    let mut crit = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1))
        .configure_from_args();
    let mut cases = all_cases();
    let mut i = 0;
    while i < cases.len() {
        let g = cases[i].group.clone();
        let mut group = crit.benchmark_group(&g);
        group.throughput(Throughput::Bytes(cases[i].bytes as u64));
        while i < cases.len() && cases[i].group == g {
            let c = &mut cases[i];
            group.bench_function(c.name.clone(), |b| b.iter(|| (c.f)()));
            i += 1;
        }
        group.finish();
    }
    crit.final_summary();
}
