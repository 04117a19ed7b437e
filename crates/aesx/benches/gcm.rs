//! AES-GCM seal/open throughput: aesx on every available backend against
//! OpenSSL (EVP, vendored), ring and RustCrypto `aes-gcm`, in one run.
//! Also ESP decryption with its checksum against plain GCM decryption.
//!
//! `cargo bench -p aesx --bench gcm` (filter with a substring, e.g. `16384`).
//! Every library reuses one expanded key; open benchmarks restore the
//! ciphertext in an untimed setup step (`iter_batched_ref`).

mod common;

use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInOut, KeyInit};
use aesx::{Backend, Esp, Gcm};
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, BatchSize, Bencher, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use openssl::cipher::Cipher;
use std::time::Duration;

const SIZES: [usize; 4] = [64, 1024, 1500, 16384];
const AAD: [u8; 16] = [0xaa; 16];
const NONCE: [u8; 12] = [0x24; 12];

fn backends() -> Vec<Backend> {
    Backend::available().iter().collect()
}

fn ossl_cipher(key: &[u8]) -> &'static openssl::cipher::CipherRef {
    if key.len() == 16 {
        Cipher::aes_128_gcm()
    } else {
        Cipher::aes_256_gcm()
    }
}

/// ring's AES-GCM key.
fn ring_key(key: &[u8]) -> ring::aead::LessSafeKey {
    let alg = if key.len() == 16 {
        &ring::aead::AES_128_GCM
    } else {
        &ring::aead::AES_256_GCM
    };
    ring::aead::LessSafeKey::new(ring::aead::UnboundKey::new(alg, key).unwrap())
}

/// RustCrypto's `aes-gcm` (`C` for the key size) sealing `pt` in place, or
/// opening `ct` with `tag` from a fresh copy each time.
fn rustcrypto<C: KeyInit + AeadInOut<NonceSize = U12>>(
    bch: &mut Bencher,
    key: &[u8],
    seal: bool,
    pt: &[u8],
    (ct, tag): (&[u8], &[u8]),
) {
    let nonce = &aes_gcm::aead::Nonce::<C>::from(NONCE);
    let rc = C::new_from_slice(key).unwrap();
    if seal {
        let mut buf = pt.to_vec();
        bch.iter(|| {
            rc.encrypt_inout_detached(nonce, &AAD, buf.as_mut_slice().into())
                .unwrap()
        });
    } else {
        let t = &aes_gcm::aead::Tag::<C>::try_from(tag).unwrap();
        bch.iter_batched_ref(
            || ct.to_vec(),
            |buf| {
                rc.decrypt_inout_detached(nonce, &AAD, buf.as_mut_slice().into(), t)
                    .unwrap()
            },
            BatchSize::SmallInput,
        );
    }
}

fn bench_seal_open(c: &mut Criterion, key: &[u8]) {
    let bits = key.len() * 8;
    for (op, seal) in [("seal", true), ("open", false)] {
        let mut g = c.benchmark_group(format!("aes{bits}-gcm-{op}"));
        g.warm_up_time(Duration::from_millis(300));
        g.measurement_time(Duration::from_millis(900));
        for &n in &SIZES {
            g.throughput(Throughput::Bytes(n as u64));
            let pt = vec![0x5cu8; n];
            let reference = Gcm::with_backend(key, Backend::Soft).unwrap();
            let sealed = reference.seal(&NONCE, &AAD, &pt).unwrap();
            let (ct, tag) = sealed.split_at(n);

            for b in backends() {
                let gcm = Gcm::with_backend(key, b).unwrap();
                if b == Backend::Soft && n > 1500 {
                    continue;
                }
                g.bench_with_input(BenchmarkId::new(format!("aesx-{b}"), n), &n, |bch, _| {
                    if seal {
                        let mut buf = pt.clone();
                        bch.iter(|| gcm.seal_in_place_detached(&NONCE, &AAD, &mut buf).unwrap());
                    } else {
                        bch.iter_batched_ref(
                            || sealed.clone(),
                            |buf| {
                                gcm.open_in_place(&NONCE, &AAD, buf).unwrap();
                            },
                            BatchSize::SmallInput,
                        );
                    }
                });
            }

            // OpenSSL EVP with one context, re-initialised per message with
            // only the IV (the key schedule is kept).
            let mut ctx = common::evp(ossl_cipher(key), Some(key), seal);
            g.bench_with_input(BenchmarkId::new("openssl", n), &n, |bch, _| {
                if seal {
                    let mut buf = pt.clone();
                    let mut t = [0u8; 16];
                    bch.iter(|| {
                        ctx.encrypt_init(None, None, Some(&NONCE)).unwrap();
                        ctx.cipher_update(&AAD, None).unwrap();
                        ctx.cipher_update_inplace(&mut buf, n).unwrap();
                        ctx.cipher_final(&mut []).unwrap();
                        ctx.tag(&mut t).unwrap();
                    });
                } else {
                    bch.iter_batched_ref(
                        || ct.to_vec(),
                        |buf| {
                            ctx.decrypt_init(None, None, Some(&NONCE)).unwrap();
                            ctx.cipher_update(&AAD, None).unwrap();
                            ctx.cipher_update_inplace(buf, n).unwrap();
                            ctx.set_tag(tag).unwrap();
                            ctx.cipher_final(&mut []).unwrap();
                        },
                        BatchSize::SmallInput,
                    );
                }
            });

            let rk = ring_key(key);
            g.bench_with_input(BenchmarkId::new("ring", n), &n, |bch, _| {
                let nonce = || ring::aead::Nonce::assume_unique_for_key(NONCE);
                if seal {
                    let mut buf = pt.clone();
                    bch.iter(|| {
                        rk.seal_in_place_separate_tag(nonce(), ring::aead::Aad::from(AAD), &mut buf)
                            .unwrap()
                    });
                } else {
                    bch.iter_batched_ref(
                        || sealed.clone(),
                        |buf| {
                            rk.open_in_place(nonce(), ring::aead::Aad::from(AAD), buf)
                                .unwrap();
                        },
                        BatchSize::SmallInput,
                    );
                }
            });

            g.bench_with_input(BenchmarkId::new("rustcrypto", n), &n, |bch, _| {
                if key.len() == 16 {
                    rustcrypto::<aes_gcm::Aes128Gcm>(bch, key, seal, &pt, (ct, tag));
                } else {
                    rustcrypto::<aes_gcm::Aes256Gcm>(bch, key, seal, &pt, (ct, tag));
                }
            });
        }
        g.finish();
    }
}

fn gcm128(c: &mut Criterion) {
    bench_seal_open(c, &[0x42u8; 16]);
}

fn gcm256(c: &mut Criterion) {
    bench_seal_open(c, &[0x42u8; 32]);
}

/// The ESP comparison's packet: 1500 bytes, 8-byte AAD, 16-byte ICV.
const ESP_LEN: usize = 1500;
const ESP_KEY: [u8; 16] = [0x42; 16];
const ESP_SALT: [u8; 4] = [1, 2, 3, 4];
const ESP_IV: [u8; 8] = [7; 8];
const ESP_AAD: [u8; 8] = [0, 0, 1, 0, 0, 0, 0, 9];

/// One hardware backend, its ESP and GCM keys, the GCM nonce ESP builds
/// from its salt and IV, and the packet sealed by ESP (ciphertext, ICV).
type EspCase = (Backend, Esp, Gcm, [u8; 12], Vec<u8>, aesx::Tag);

fn esp_cases() -> Vec<EspCase> {
    let mut nonce = [0u8; 12];
    nonce[..4].copy_from_slice(&ESP_SALT);
    nonce[4..].copy_from_slice(&ESP_IV);
    let hardware = backends().into_iter().filter(|&b| b != Backend::Soft);
    hardware
        .map(|b| {
            let esp = Esp::with_backend(&ESP_KEY, &ESP_SALT, 16, b).unwrap();
            let gcm = Gcm::with_backend(&ESP_KEY, b).unwrap();
            let mut ct = vec![0x5cu8; ESP_LEN];
            let tag = esp.seal_in_place(&ESP_IV, &ESP_AAD, &mut ct).unwrap();
            (b, esp, gcm, nonce, ct, tag)
        })
        .collect()
}

/// Times `open` on a fresh copy of `ct` each call (copied untimed).
fn bench_open<O>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    id: BenchmarkId,
    ct: &[u8],
    open: impl Fn(&mut Vec<u8>) -> O,
) {
    g.bench_function(id, |bch| {
        bch.iter_batched_ref(|| ct.to_vec(), |buf| open(buf), BatchSize::SmallInput)
    });
}

/// ESP decryption with its one's-complement checksum against plain GCM
/// decryption of the same 1500-byte packet (8-byte AAD, 16-byte ICV).
fn esp(c: &mut Criterion) {
    let mut g = c.benchmark_group("esp-open-1500");
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_millis(900));
    let n = ESP_LEN;
    g.throughput(Throughput::Bytes(n as u64));
    for (b, esp, gcm, nonce, ct, tag) in esp_cases() {
        let id = |name: &str| BenchmarkId::new(format!("{name}-{b}"), n);
        bench_open(&mut g, id("esp+checksum"), &ct, |buf| {
            esp.open_in_place(&ESP_IV, &ESP_AAD, buf, tag.as_bytes())
                .unwrap()
        });
        bench_open(&mut g, id("gcm"), &ct, |buf| {
            gcm.open_in_place_detached(&nonce, &ESP_AAD, buf, tag.as_bytes())
                .unwrap()
        });
    }
    g.finish();
}

criterion_group!(benches, gcm128, gcm256, esp);

/// `AESX_GCM_QUICK=1 cargo bench -p aesx --bench gcm`: instead of criterion,
/// an interleaved comparison for a shared, noisy machine: every contender
/// runs a short burst in turn, many rounds, and the fastest burst of each
/// counts (interference only ever slows a burst down). Prints GB/s and the
/// ratio to the best peer.
fn quick() {
    use std::time::Instant;
    type Run<'a> = Box<dyn FnMut() + 'a>;
    let rounds: usize = std::env::var("AESX_GCM_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let sizes: Vec<usize> = std::env::var("AESX_GCM_SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| SIZES.to_vec());
    println!(
        "{:<8} {:<6} {:>6} {:<16} {:>9} {:>8}",
        "key", "op", "bytes", "impl", "GB/s", "vs best peer"
    );
    for key in [vec![0x42u8; 16], vec![0x42u8; 32]] {
        for seal in [true, false] {
            for &n in &sizes {
                let pt = vec![0x5cu8; n];
                let sealed = Gcm::with_backend(&key, Backend::Soft)
                    .unwrap()
                    .seal(&NONCE, &AAD, &pt)
                    .unwrap();
                let (ct, tag) = sealed.split_at(n);
                let mut names: Vec<String> = Vec::new();
                let mut runs: Vec<Run> = Vec::new();
                for b in backends() {
                    if b == Backend::Soft && n > 1500 {
                        continue;
                    }
                    let gcm = Gcm::with_backend(&key, b).unwrap();
                    names.push(format!("aesx-{b}"));
                    if seal {
                        let mut buf = pt.clone();
                        runs.push(Box::new(move || {
                            gcm.seal_in_place_detached(&NONCE, &AAD, &mut buf).unwrap();
                        }));
                    } else {
                        // Every contender opens in place from a fresh copy.
                        let mut out = vec![0u8; n];
                        let (ct, tag) = (ct.to_vec(), tag.to_vec());
                        runs.push(Box::new(move || {
                            out.copy_from_slice(&ct);
                            gcm.open_in_place_detached(&NONCE, &AAD, &mut out, &tag)
                                .unwrap();
                        }));
                    }
                }
                let mut ctx = common::evp(ossl_cipher(&key), Some(&key), seal);
                names.push("openssl".into());
                {
                    let mut out = vec![0u8; n + 16];
                    let (ct, tag) = (ct.to_vec(), tag.to_vec());
                    runs.push(Box::new(move || {
                        let mut t = [0u8; 16];
                        if seal {
                            ctx.encrypt_init(None, None, Some(&NONCE)).unwrap();
                            ctx.cipher_update(&AAD, None).unwrap();
                            ctx.cipher_update_inplace(&mut out[..n], n).unwrap();
                            ctx.cipher_final(&mut []).unwrap();
                            ctx.tag(&mut t).unwrap();
                        } else {
                            out[..n].copy_from_slice(&ct);
                            ctx.decrypt_init(None, None, Some(&NONCE)).unwrap();
                            ctx.cipher_update(&AAD, None).unwrap();
                            ctx.cipher_update_inplace(&mut out[..n], n).unwrap();
                            ctx.set_tag(&tag).unwrap();
                            ctx.cipher_final(&mut []).unwrap();
                        }
                    }));
                }
                let rk = ring_key(&key);
                names.push("ring".into());
                {
                    let mut out = pt.clone();
                    let (ct, tag) = (ct.to_vec(), tag.to_vec());
                    runs.push(Box::new(move || {
                        let nonce = ring::aead::Nonce::assume_unique_for_key(NONCE);
                        if seal {
                            let _ = rk
                                .seal_in_place_separate_tag(
                                    nonce,
                                    ring::aead::Aad::from(AAD),
                                    &mut out,
                                )
                                .unwrap();
                        } else {
                            out.copy_from_slice(&ct);
                            let t = ring::aead::Tag::try_from(&tag[..]).unwrap();
                            rk.open_in_place_separate_tag(
                                nonce,
                                ring::aead::Aad::from(AAD),
                                t,
                                &mut out,
                                0..,
                            )
                            .unwrap();
                        }
                    }));
                }
                // AESX_GCM_IMPL=substring keeps only matching contenders.
                if let Ok(f) = std::env::var("AESX_GCM_IMPL") {
                    let keep: Vec<bool> = names.iter().map(|nm| nm.contains(f.as_str())).collect();
                    let mut k = keep.iter();
                    names.retain(|_| *k.next().unwrap());
                    let mut k = keep.iter();
                    runs.retain(|_| *k.next().unwrap());
                }
                // Burst length: about 64 KiB of data per burst.
                let iters = (65536 / n.max(64)).max(4);
                let mut best = vec![f64::MAX; names.len()];
                for _ in 0..rounds {
                    for (r, bst) in runs.iter_mut().zip(best.iter_mut()) {
                        let t = Instant::now();
                        for _ in 0..iters {
                            r();
                        }
                        let dt = t.elapsed().as_secs_f64() / iters as f64;
                        *bst = bst.min(dt);
                    }
                }
                let gbs: Vec<f64> = best.iter().map(|t| n as f64 / t / 1e9).collect();
                let peer = names
                    .iter()
                    .zip(&gbs)
                    .filter(|(nm, _)| !nm.starts_with("aesx"))
                    .map(|(_, g)| *g)
                    .fold(0.0, f64::max);
                for (nm, g) in names.iter().zip(&gbs) {
                    println!(
                        "{:<8} {:<6} {:>6} {:<16} {:>9.3} {:>8.2}",
                        format!("aes{}", key.len() * 8),
                        if seal { "seal" } else { "open" },
                        n,
                        nm,
                        g,
                        g / peer
                    );
                }
            }
        }
    }
}

/// Quick-mode ESP comparison: decrypt+checksum vs plain GCM decrypt, 1500 B.
fn quick_esp() {
    use std::time::Instant;
    /// Seconds per call of `open` over a burst of 64, each call on a fresh
    /// copy of `ct` in `buf`.
    fn burst<O>(ct: &[u8], buf: &mut [u8], mut open: impl FnMut(&mut [u8]) -> O) -> f64 {
        let t = Instant::now();
        for _ in 0..64 {
            buf.copy_from_slice(ct);
            open(buf);
        }
        t.elapsed().as_secs_f64() / 64.0
    }
    let n = ESP_LEN;
    for (b, esp, gcm, nonce, ct, tag) in esp_cases() {
        let mut buf = ct.clone();
        let (mut best_esp, mut best_gcm) = (f64::MAX, f64::MAX);
        for _ in 0..60 {
            let t = burst(&ct, &mut buf, |buf| {
                esp.open_in_place(&ESP_IV, &ESP_AAD, buf, tag.as_bytes())
                    .unwrap()
            });
            best_esp = best_esp.min(t);
            let t = burst(&ct, &mut buf, |buf| {
                gcm.open_in_place_detached(&nonce, &ESP_AAD, buf, tag.as_bytes())
                    .unwrap()
            });
            best_gcm = best_gcm.min(t);
        }
        println!(
            "esp-open 1500 {:<8} esp+checksum {:>7.3} GB/s  gcm {:>7.3} GB/s  ratio {:.3}",
            b.name(),
            n as f64 / best_esp / 1e9,
            n as f64 / best_gcm / 1e9,
            best_gcm / best_esp
        );
    }
}

/// Quick-mode GMAC (16 KiB of AAD, no plaintext) per backend: GHASH alone,
/// which on the soft backend separates the constant-time GHASH from the
/// (placeholder) soft AES.
fn quick_gmac() {
    use std::time::Instant;
    let aad = vec![0x3cu8; 16384];
    for b in backends() {
        let gcm = Gcm::with_backend(&[0x42u8; 16], b).unwrap();
        let mut best = f64::MAX;
        for _ in 0..20 {
            let t = Instant::now();
            for _ in 0..8 {
                gcm.seal_in_place_detached(&NONCE, &aad, &mut []).unwrap();
            }
            best = best.min(t.elapsed().as_secs_f64() / 8.0);
        }
        println!(
            "gmac 16384 {:<8} {:>9.1} MB/s",
            b.name(),
            aad.len() as f64 / best / 1e6
        );
    }
}

fn main() {
    if std::env::var_os("AESX_GCM_QUICK").is_some() {
        quick_gmac();
        if std::env::var_os("AESX_GCM_NO_ESP").is_none() {
            quick_esp();
        }
        quick();
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
