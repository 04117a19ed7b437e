//! The soft backend against RustCrypto's portable (fixsliced) `aes`, in one
//! process so that both see the same machine load.
//!
//! For work on the soft backend. It is the one peer comparison among the
//! library's benchmarks, because it is the one `aesx bench` cannot make:
//! RustCrypto's portable code is chosen only when it is compiled (a cfg),
//! and `aesx bench` is built once, with RustCrypto's fastest code. The other
//! benchmark homes, and who each serves, are listed in `modes.rs`.
//!
//! RustCrypto picks its backend at compile time; build with
//!
//! ```text
//! RUSTFLAGS='--cfg aes_backend="soft"' cargo bench -p aesx --bench soft
//! ```
//!
//! so that it runs its soft code too (the cfg is read by the `aes` crate and
//! checked below; without it the comparison would be against AES-NI).
//! `AESX_SOFT_SIMD=baseline` measures aesx's baseline (SSE2) build instead of
//! its AVX2 one.
//!
//! Every case is measured twice: by wall-clock time (criterion's default)
//! and, in the `*-cputime` groups, by the CPU time of the benchmark thread,
//! which stays meaningful when the machine is shared and the thread spends
//! much of its time waiting for a core.

// `aes_backend` is RustCrypto's cfg, unknown to this crate's check-cfg list.
#![allow(unexpected_cfgs)]

use std::hint::black_box;
use std::time::Duration;

use aes::cipher::{BlockCipherDecrypt, KeyInit, KeyIvInit, StreamCipher};
use aesx::{Aes, Backend, Ctr};
use cpu_time::ThreadTime;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

const LEN: usize = 16 * 1024;

type Case = (String, Box<dyn FnMut()>);

fn cases_ctr(bits: usize, peer: &str) -> Vec<Case> {
    let key = [0x42u8; 32];
    let k = &key[..bits / 8];
    let iv = [0x24u8; 16];
    let mut ours = Ctr::with_backend(k, &iv, Backend::Soft).unwrap();
    let mut buf_a = vec![0u8; LEN];
    let mut buf_b = vec![0u8; LEN];
    let theirs: Box<dyn FnMut()> = if bits == 128 {
        let mut c = ctr::Ctr128BE::<aes::Aes128>::new_from_slices(k, &iv).unwrap();
        Box::new(move || c.apply_keystream(black_box(&mut buf_b)))
    } else {
        let mut c = ctr::Ctr128BE::<aes::Aes256>::new_from_slices(k, &iv).unwrap();
        Box::new(move || c.apply_keystream(black_box(&mut buf_b)))
    };
    vec![
        (
            "aesx-soft".into(),
            Box::new(move || ours.apply_keystream(black_box(&mut buf_a))),
        ),
        (peer.into(), theirs),
    ]
}

fn cases_ecb_decrypt(bits: usize, peer: &str) -> Vec<Case> {
    let key = [0x42u8; 32];
    let k = &key[..bits / 8];
    let ours = Aes::with_backend(k, Backend::Soft).unwrap();
    let mut buf = vec![0u8; LEN];
    let mut blocks = vec![aes::Block::default(); LEN / 16];
    let theirs: Box<dyn FnMut()> = if bits == 128 {
        let c = aes::Aes128::new_from_slice(k).unwrap();
        Box::new(move || c.decrypt_blocks(black_box(&mut blocks)))
    } else {
        let c = aes::Aes256::new_from_slice(k).unwrap();
        Box::new(move || c.decrypt_blocks(black_box(&mut blocks)))
    };
    vec![
        (
            "aesx-soft".into(),
            Box::new(move || ours.decrypt_blocks(black_box(&mut buf)).unwrap()),
        ),
        (peer.into(), theirs),
    ]
}

fn bench(c: &mut Criterion) {
    // The library reads no environment variable; the bench does and says so.
    if std::env::var("AESX_SOFT_SIMD").is_ok_and(|v| v == "baseline") {
        aesx::__testing::soft_simd_baseline();
    }
    let soft = cfg!(aes_backend = "soft");
    if !soft {
        eprintln!(
            "warning: RustCrypto `aes` is NOT on its soft backend; \
             set RUSTFLAGS='--cfg aes_backend=\"soft\"' for a like-for-like comparison"
        );
    }
    let peer = if soft {
        "rustcrypto-soft"
    } else {
        "rustcrypto-auto"
    };
    type Make = fn(usize, &str) -> Vec<Case>;
    let modes: [(&str, Make); 2] = [
        ("ctr-16KiB", cases_ctr),
        ("ecb-decrypt-16KiB", cases_ecb_decrypt),
    ];
    for (mode, make) in modes {
        for cpu in [false, true] {
            let name = if cpu {
                format!("{mode}-cputime")
            } else {
                mode.to_string()
            };
            let mut g = c.benchmark_group(name);
            g.throughput(Throughput::Bytes(LEN as u64));
            for bits in [128usize, 256] {
                for (who, mut f) in make(bits, peer) {
                    g.bench_function(BenchmarkId::new(who, bits), |b| {
                        if cpu {
                            b.iter_custom(|iters| {
                                let t0 = ThreadTime::now();
                                for _ in 0..iters {
                                    f();
                                }
                                t0.elapsed()
                            })
                        } else {
                            b.iter(&mut f)
                        }
                    });
                }
            }
            g.finish();
        }
    }
}

criterion_group! {
    name = benches;
    // Short runs: the machine is shared and the ratio is what matters.
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_millis(1500));
    targets = bench
}
criterion_main!(benches);
