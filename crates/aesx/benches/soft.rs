//! The soft backend against RustCrypto's portable (fixsliced) `aes`, in one
//! process so that both see the same machine load.
//!
//! RustCrypto picks its backend at compile time; build with
//!
//! ```text
//! RUSTFLAGS='--cfg aes_backend="soft"' cargo bench -p aesx --bench soft
//! ```
//!
//! so that it runs its soft code too (the cfg is read by the `aes` crate and
//! checked below; without it the comparison would be against AES-NI).

// `aes_backend` is RustCrypto's cfg, unknown to this crate's check-cfg list.
#![allow(unexpected_cfgs)]

use aes::cipher::{BlockCipherDecrypt, KeyInit, KeyIvInit, StreamCipher};
use aesx::{Aes, Backend, Ctr};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const LEN: usize = 16 * 1024;

fn rustcrypto_is_soft() -> bool {
    cfg!(aes_backend = "soft")
}

fn bench(c: &mut Criterion) {
    if !rustcrypto_is_soft() {
        eprintln!(
            "warning: RustCrypto `aes` is NOT on its soft backend; \
             set RUSTFLAGS='--cfg aes_backend=\"soft\"' for a like-for-like comparison"
        );
    }
    let peer = if rustcrypto_is_soft() {
        "rustcrypto-soft"
    } else {
        "rustcrypto-auto"
    };
    let key = [0x42u8; 32];
    let iv = [0x24u8; 16];

    let mut g = c.benchmark_group("ctr-16KiB");
    g.throughput(Throughput::Bytes(LEN as u64));
    for bits in [128usize, 256] {
        let k = &key[..bits / 8];
        let mut buf = vec![0u8; LEN];
        let mut ours = Ctr::with_backend(k, &iv, Backend::Soft).unwrap();
        g.bench_function(BenchmarkId::new("aesx-soft", bits), |b| {
            b.iter(|| ours.apply_keystream(black_box(&mut buf)))
        });
        if bits == 128 {
            let mut theirs = ctr::Ctr128BE::<aes::Aes128>::new_from_slices(k, &iv).unwrap();
            g.bench_function(BenchmarkId::new(peer, bits), |b| {
                b.iter(|| theirs.apply_keystream(black_box(&mut buf)))
            });
        } else {
            let mut theirs = ctr::Ctr128BE::<aes::Aes256>::new_from_slices(k, &iv).unwrap();
            g.bench_function(BenchmarkId::new(peer, bits), |b| {
                b.iter(|| theirs.apply_keystream(black_box(&mut buf)))
            });
        }
    }
    g.finish();

    let mut g = c.benchmark_group("ecb-decrypt-16KiB");
    g.throughput(Throughput::Bytes(LEN as u64));
    for bits in [128usize, 256] {
        let k = &key[..bits / 8];
        let mut buf = vec![0u8; LEN];
        let ours = Aes::with_backend(k, Backend::Soft).unwrap();
        g.bench_function(BenchmarkId::new("aesx-soft", bits), |b| {
            b.iter(|| ours.decrypt_blocks(black_box(&mut buf)).unwrap())
        });
        let mut blocks = vec![aes::Block::default(); LEN / 16];
        if bits == 128 {
            let theirs = aes::Aes128::new_from_slice(k).unwrap();
            g.bench_function(BenchmarkId::new(peer, bits), |b| {
                b.iter(|| theirs.decrypt_blocks(black_box(&mut blocks)))
            });
        } else {
            let theirs = aes::Aes256::new_from_slice(k).unwrap();
            g.bench_function(BenchmarkId::new(peer, bits), |b| {
                b.iter(|| theirs.decrypt_blocks(black_box(&mut blocks)))
            });
        }
    }
    g.finish();
}

criterion_group! {
    name = benches;
    // Short runs: the machine is shared and the ratio is what matters.
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
