//! XTS throughput: aesx (every hardware backend this machine has) against
//! OpenSSL (vendored) and RustCrypto `xts-mode` in the same run.
//!
//! Three shapes, for XTS-AES-128 and XTS-AES-256, encrypt and decrypt:
//! - a 1 MiB buffer of 4 KiB sectors, through aesx's sector API;
//! - a 1 MiB buffer of 512-byte sectors, likewise;
//! - one 16 KiB data unit.
//!
//! OpenSSL has no multi-sector call, so it is driven as a disk driver would
//! drive EVP: the key is set once, and for each sector only the IV (the
//! little-endian sector number) is set again before one `EVP_CipherUpdate`.
//! RustCrypto runs `encrypt_area`/`decrypt_area` with its default
//! (little-endian) tweak. The soft backend is left out unless
//! `AESX_BENCH_SOFT=1`: it is a slow placeholder being replaced.
//!
//! After criterion's groups, a paired summary table (implementations taking
//! turns, best round kept) is printed: on a shared machine its ratios are
//! the ones to quote.

mod common;

use std::hint::black_box;
use std::time::Duration;

use aes::cipher::KeyInit;
use aesx::{Backend, Xts};
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use openssl::cipher::Cipher;
use openssl::cipher_ctx::CipherCtx;

const BUF: usize = 1 << 20;
const UNIT: usize = 16 << 10;
const FIRST_SECTOR: u64 = 12345;

fn key(len: usize) -> Vec<u8> {
    (0..len as u8)
        .map(|i| i.wrapping_mul(37).wrapping_add(11))
        .collect()
}

fn backends() -> Vec<Backend> {
    let soft = std::env::var("AESX_BENCH_SOFT").is_ok_and(|v| v == "1");
    Backend::available()
        .iter()
        .filter(|&b| soft || b != Backend::Soft)
        .collect()
}

/// OpenSSL with the key schedule set up once and the IV reset per sector.
struct Ossl {
    ctx: CipherCtx,
}

impl Ossl {
    fn new(key: &[u8], encrypt: bool) -> Self {
        let cipher = if key.len() == 32 {
            Cipher::aes_128_xts()
        } else {
            Cipher::aes_256_xts()
        };
        Ossl {
            ctx: common::evp(cipher, Some(key), encrypt),
        }
    }

    fn sectors(&mut self, encrypt: bool, size: usize, first: u64, src: &[u8], dst: &mut [u8]) {
        for (j, (s, d)) in src.chunks(size).zip(dst.chunks_mut(size)).enumerate() {
            let iv = (first as u128 + j as u128).to_le_bytes();
            if encrypt {
                self.ctx.encrypt_init(None, None, Some(&iv)).unwrap();
            } else {
                self.ctx.decrypt_init(None, None, Some(&iv)).unwrap();
            }
            self.ctx.cipher_update(s, Some(d)).unwrap();
        }
    }
}

// Two instances per benchmark group: their size does not matter.
#[allow(clippy::large_enum_variant)]
enum Rc {
    A128(xts_mode::Xts128<aes::Aes128>),
    A256(xts_mode::Xts128<aes::Aes256>),
}

impl Rc {
    fn new(key: &[u8]) -> Self {
        let h = key.len() / 2;
        if h == 16 {
            Rc::A128(xts_mode::Xts128::new(
                aes::Aes128::new_from_slice(&key[..h]).unwrap(),
                aes::Aes128::new_from_slice(&key[h..]).unwrap(),
            ))
        } else {
            Rc::A256(xts_mode::Xts128::new(
                aes::Aes256::new_from_slice(&key[..h]).unwrap(),
                aes::Aes256::new_from_slice(&key[h..]).unwrap(),
            ))
        }
    }

    fn area(&self, encrypt: bool, buf: &mut [u8], size: usize, first: u64) {
        let f = xts_mode::get_tweak_default;
        let first = first as u128;
        match (self, encrypt) {
            (Rc::A128(x), true) => x.encrypt_area(buf, size, first, f),
            (Rc::A128(x), false) => x.decrypt_area(buf, size, first, f),
            (Rc::A256(x), true) => x.encrypt_area(buf, size, first, f),
            (Rc::A256(x), false) => x.decrypt_area(buf, size, first, f),
        }
    }
}

/// aesx over whole sectors from `src` into `dst`, one way.
fn aesx_sectors(xts: &Xts, encrypt: bool, size: usize, src: &[u8], dst: &mut [u8]) {
    if encrypt {
        xts.encrypt_sectors_to(size, FIRST_SECTOR.into(), src, dst)
    } else {
        xts.decrypt_sectors_to(size, FIRST_SECTOR.into(), src, dst)
    }
    .unwrap();
    black_box(dst);
}

/// The three implementations agree before anything is timed.
fn cross_check(key: &[u8], size: usize) {
    let pt: Vec<u8> = (0..64 * size).map(|i| (i * 131 + 7) as u8).collect();
    let mut a = pt.clone();
    Xts::new(key)
        .unwrap()
        .encrypt_sectors(size, FIRST_SECTOR.into(), &mut a)
        .unwrap();
    let mut o = vec![0u8; pt.len()];
    Ossl::new(key, true).sectors(true, size, FIRST_SECTOR, &pt, &mut o);
    let mut r = pt.clone();
    Rc::new(key).area(true, &mut r, size, FIRST_SECTOR);
    assert_eq!(a, o, "aesx vs OpenSSL");
    assert_eq!(a, r, "aesx vs RustCrypto");
}

fn bench(c: &mut Criterion) {
    for key_len in [32usize, 64] {
        let key = key(key_len);
        let bits = key_len * 4;
        cross_check(&key, 512);
        cross_check(&key, 4096);
        for (shape, size, total) in [
            ("4KiB-sectors", 4096usize, BUF),
            ("512B-sectors", 512, BUF),
            ("16KiB-unit", UNIT, UNIT),
        ] {
            for encrypt in [true, false] {
                let dir = if encrypt { "enc" } else { "dec" };
                let mut g = c.benchmark_group(format!("xts-aes{bits}/{shape}/{dir}"));
                g.throughput(Throughput::Bytes(total as u64));
                g.warm_up_time(Duration::from_millis(500));
                g.measurement_time(Duration::from_millis(1500));
                g.sample_size(20);
                let src: Vec<u8> = (0..total).map(|i| (i * 7) as u8).collect();
                let mut dst = vec![0u8; total];

                for backend in backends() {
                    let xts = Xts::with_backend(&key, backend).unwrap();
                    g.bench_function(BenchmarkId::new("aesx", backend.name()), |b| {
                        b.iter(|| aesx_sectors(&xts, encrypt, size, &src, &mut dst))
                    });
                }

                let mut ossl = Ossl::new(&key, encrypt);
                g.bench_function("openssl", |b| {
                    b.iter(|| {
                        ossl.sectors(encrypt, size, FIRST_SECTOR, &src, &mut dst);
                        black_box(&dst);
                    })
                });

                let rc = Rc::new(&key);
                g.bench_function("rustcrypto-xts-mode", |b| {
                    b.iter(|| {
                        // In place only: copy in first (a memcpy, small
                        // against its AES cost).
                        dst.copy_from_slice(&src);
                        rc.area(encrypt, &mut dst, size, FIRST_SECTOR);
                        black_box(&dst);
                    })
                });
                g.finish();
            }
        }
    }
}

/// A second view that suits a shared, noisy machine: the implementations
/// take turns (round robin, 11 rounds) and each keeps its fastest round, so
/// a burst of load from other processes hits all of them alike. Printed as
/// a table of GB/s with ratios to OpenSSL; runs only under `cargo bench`.
fn paired_summary() {
    const ROUNDS: usize = 11;
    println!();
    println!(
        "Paired summary (round robin, best of {ROUNDS} rounds, GB/s; ratio = aesx best / OpenSSL)"
    );
    println!(
        "| case | {} | openssl | rustcrypto | ratio |",
        backends()
            .iter()
            .map(|b| format!("aesx {b}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|---|{}---|---|---|", "---|".repeat(backends().len()));
    for key_len in [32usize, 64] {
        let key = key(key_len);
        for (shape, size, total) in [
            ("4 KiB sectors, 1 MiB", 4096usize, BUF),
            ("512 B sectors, 1 MiB", 512, BUF),
            ("one 16 KiB unit", UNIT, UNIT),
        ] {
            for encrypt in [true, false] {
                let src: Vec<u8> = (0..total).map(|i| (i * 7) as u8).collect();
                let mut dst = vec![0u8; total];
                let reps = ((32 << 20) / total).max(1);
                let rc_reps = ((4 << 20) / total).max(1);
                let xts: Vec<Xts> = backends()
                    .iter()
                    .map(|&b| Xts::with_backend(&key, b).unwrap())
                    .collect();
                let mut ossl = Ossl::new(&key, encrypt);
                let rc = Rc::new(&key);
                let mut best = vec![f64::MAX; xts.len() + 2];
                for _ in 0..ROUNDS {
                    for (i, x) in xts.iter().enumerate() {
                        let t = std::time::Instant::now();
                        for _ in 0..reps {
                            aesx_sectors(x, encrypt, size, &src, &mut dst);
                        }
                        best[i] = best[i].min(t.elapsed().as_secs_f64() / reps as f64);
                    }
                    let t = std::time::Instant::now();
                    for _ in 0..reps {
                        ossl.sectors(encrypt, size, FIRST_SECTOR, &src, &mut dst);
                        black_box(&dst);
                    }
                    let n = xts.len();
                    best[n] = best[n].min(t.elapsed().as_secs_f64() / reps as f64);
                    let t = std::time::Instant::now();
                    for _ in 0..rc_reps {
                        dst.copy_from_slice(&src);
                        rc.area(encrypt, &mut dst, size, FIRST_SECTOR);
                        black_box(&dst);
                    }
                    best[n + 1] = best[n + 1].min(t.elapsed().as_secs_f64() / rc_reps as f64);
                }
                let gbs: Vec<f64> = best.iter().map(|t| total as f64 / t / 1e9).collect();
                let n = xts.len();
                let top = gbs[..n].iter().cloned().fold(0.0, f64::max);
                println!(
                    "| AES-{} {shape} {} | {} | {:.2} | {:.2} | {:.2}x |",
                    key_len * 4,
                    if encrypt { "enc" } else { "dec" },
                    gbs[..n]
                        .iter()
                        .map(|g| format!("{g:.2}"))
                        .collect::<Vec<_>>()
                        .join(" | "),
                    gbs[n],
                    gbs[n + 1],
                    top / gbs[n]
                );
            }
        }
    }
}

criterion_group!(benches, bench);

fn main() {
    benches();
    if std::env::args().any(|a| a == "--bench") {
        paired_summary();
    }
    Criterion::default().configure_from_args().final_summary();
}
