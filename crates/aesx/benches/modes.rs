//! aesx against itself: criterion micro-benchmarks of the library's own
//! calls, one group per mode and size, one line per backend this machine
//! runs. For work on the kernels: save a baseline, change a kernel, compare.
//!
//! ```text
//! cargo bench -p aesx --bench modes -- --save-baseline before
//! cargo bench -p aesx --bench modes -- --baseline before [FILTER, e.g. gcm-seal]
//! ```
//!
//! Who measures what (each home serves someone else):
//! - here, `crates/aesx/benches`: library and kernel developers. No peer
//!   library: a line moves because aesx changed. Besides the modes it has
//!   the batched calls only the library offers: multi-buffer CBC
//!   encryption against the same messages one by one, XTS over many
//!   sectors per call, ESP decryption with its checksum against plain GCM,
//!   and GMAC (GHASH alone). `soft.rs` races the soft backend against
//!   RustCrypto's portable build (which only a cfg at compile time
//!   selects) and `traits.rs` prices the RustCrypto trait layer.
//! - `aesx bench` (crates/aesx-bench): people choosing a library. aesx
//!   beside OpenSSL, AWS-LC, ring and RustCrypto in one run, outputs
//!   checked, tiers, reports; `docs/BENCHMARKS.md`.
//! - aesx-cuda's `cuda_bench` example: the GPU kernels and the copies
//!   that bound them, on a GPU machine (`tools/gpu/check.sh`).
//! - `python/benchmarks`: the Python package against pyca/cryptography,
//!   and `aesx.cuda` on CuPy and PyTorch arrays.
//!
//! Every call works in place, the key expanded once outside
//! the timing; the opening benchmarks restore their input untimed
//! (`iter_batched_ref`).

use std::hint::black_box;
use std::time::Duration;

use aesx::{
    cbc_encrypt_many, Aes, Backend, Cbc, CbcJob, Ccm, Cmac, Ctr, Esp, Gcm, GcmSiv, KeyWrap,
    Xaes256Gcm, Xts,
};
use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, Throughput};

/// Key bytes that differ (XTS refuses equal halves); a mode takes the
/// first 16, 32 or 64.
const KEY: [u8; 64] = {
    let mut k = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        k[i] = (i as u8).wrapping_mul(37).wrapping_add(11);
        i += 1;
    }
    k
};
const IV: [u8; 16] = [0x24; 16];
const NONCE: [u8; 12] = [0x24; 12];
const AAD: [u8; 16] = [0xaa; 16];

fn backends() -> Vec<Backend> {
    Backend::available().iter().collect()
}

fn data(n: usize) -> Vec<u8> {
    (0..n).map(|i| (i * 131 + 7) as u8).collect()
}

/// A group of `bytes` per call.
fn group<'a>(c: &'a mut Criterion, name: String, bytes: usize) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.warm_up_time(Duration::from_millis(300));
    g.measurement_time(Duration::from_millis(900));
    g
}

/// ECB encryption, CTR, CBC encryption (one chain, latency bound) and
/// decryption, the chain and the counter running on from call to call.
fn block_modes(c: &mut Criterion) {
    for bits in [128, 256] {
        let key = &KEY[..bits / 8];
        for mode in ["ecb", "ctr", "cbc-enc", "cbc-dec"] {
            for n in [64, 1024, 16384] {
                let mut g = group(c, format!("aes{bits}/{mode}/{n}"), n);
                for b in backends() {
                    let mut buf = data(n);
                    let aes = Aes::with_backend(key, b).unwrap();
                    let mut chain = IV;
                    match mode {
                        "ecb" => g.bench_function(b.name(), |t| {
                            t.iter(|| aes.encrypt_blocks(black_box(&mut buf)).unwrap())
                        }),
                        "ctr" => {
                            let mut ctr = Ctr::from_aes(aes, &IV).unwrap();
                            g.bench_function(b.name(), |t| {
                                t.iter(|| ctr.apply_keystream(black_box(&mut buf)))
                            })
                        }
                        "cbc-enc" => {
                            let cbc = Cbc::from(aes);
                            g.bench_function(b.name(), |t| {
                                t.iter(|| cbc.encrypt_chained(&mut chain, black_box(&mut buf)))
                            })
                        }
                        _ => {
                            let cbc = Cbc::from(aes);
                            g.bench_function(b.name(), |t| {
                                t.iter(|| cbc.decrypt_chained(&mut chain, black_box(&mut buf)))
                            })
                        }
                    };
                }
                g.finish();
            }
        }
    }
}

/// Multi-buffer CBC encryption: `count` messages of 1504 bytes (1500
/// rounded up to whole blocks), each with its own key and IV, through
/// `cbc_encrypt_many` and one by one.
fn cbc_many(c: &mut Criterion) {
    const LEN: usize = 1504;
    for count in [16, 64] {
        for bits in [128, 256] {
            let keys: Vec<Vec<u8>> = (0..count)
                .map(|j| (0..bits / 8).map(|i| (i * 7 + j * 13) as u8).collect())
                .collect();
            let mut g = group(
                c,
                format!("aes{bits}/cbc-enc-many/{count}x{LEN}"),
                count * LEN,
            );
            for b in backends() {
                let aes: Vec<Aes> = keys
                    .iter()
                    .map(|k| Aes::with_backend(k, b).unwrap())
                    .collect();
                let mut bufs: Vec<Vec<u8>> = (0..count).map(|_| data(LEN)).collect();
                g.bench_function(format!("{}-many", b.name()), |t| {
                    t.iter(|| {
                        let mut jobs: Vec<CbcJob> = bufs
                            .iter_mut()
                            .zip(&aes)
                            .enumerate()
                            .map(|(i, (data, key))| CbcJob {
                                key,
                                iv: [i as u8; 16],
                                data,
                            })
                            .collect();
                        cbc_encrypt_many(&mut jobs).unwrap();
                    })
                });
                g.bench_function(format!("{}-one-by-one", b.name()), |t| {
                    t.iter(|| {
                        for (i, (d, k)) in bufs.iter_mut().zip(&aes).enumerate() {
                            let mut iv = [i as u8; 16];
                            Cbc::from(k.clone()).encrypt_chained(&mut iv, d).unwrap();
                        }
                    })
                });
            }
            g.finish();
        }
    }
}

/// XTS through the sector API: 1 MiB of 4 KiB sectors, of 512-byte
/// sectors, and one 16 KiB data unit.
fn xts(c: &mut Criterion) {
    for bits in [128, 256] {
        let key = &KEY[..bits / 4];
        for (shape, size, total) in [
            ("4KiB-sectors", 4096, 1 << 20),
            ("512B-sectors", 512, 1 << 20),
            ("16KiB-unit", 16384, 16384),
        ] {
            for encrypt in [true, false] {
                let dir = if encrypt { "enc" } else { "dec" };
                let mut g = group(c, format!("xts-aes{bits}/{shape}/{dir}"), total);
                g.sample_size(20);
                for b in backends() {
                    let xts = Xts::with_backend(key, b).unwrap();
                    let mut buf = data(total);
                    g.bench_function(b.name(), |t| {
                        t.iter(|| {
                            let buf = black_box(&mut buf);
                            if encrypt {
                                xts.encrypt_sectors(size, 12345u64.into(), buf)
                            } else {
                                xts.decrypt_sectors(size, 12345u64.into(), buf)
                            }
                            .unwrap()
                        })
                    });
                }
                g.finish();
            }
        }
    }
}

/// GCM sealing (a tag per call) and opening (the tag verified), and GMAC:
/// 16 KiB of AAD and no plaintext, GHASH alone.
fn gcm(c: &mut Criterion) {
    for bits in [128, 256] {
        let key = &KEY[..bits / 8];
        for n in [64, 1024, 1500, 16384] {
            let pt = data(n);
            let sealed = Gcm::new(key).unwrap().seal(&NONCE, &AAD, &pt).unwrap();
            let mut g = group(c, format!("aes{bits}/gcm-seal/{n}"), n);
            for b in backends() {
                let gcm = Gcm::with_backend(key, b).unwrap();
                let mut buf = pt.clone();
                g.bench_function(b.name(), |t| {
                    t.iter(|| gcm.seal_in_place_detached(&NONCE, &AAD, black_box(&mut buf)))
                });
            }
            g.finish();
            let mut g = group(c, format!("aes{bits}/gcm-open/{n}"), n);
            for b in backends() {
                let gcm = Gcm::with_backend(key, b).unwrap();
                g.bench_function(b.name(), |t| {
                    t.iter_batched_ref(
                        || sealed.clone(),
                        |buf| {
                            gcm.open_in_place(&NONCE, &AAD, buf).unwrap();
                        },
                        BatchSize::SmallInput,
                    )
                });
            }
            g.finish();
        }
    }
    let aad = data(16384);
    let mut g = group(c, "aes128/gmac/16384".into(), aad.len());
    for b in backends() {
        let gcm = Gcm::with_backend(&KEY[..16], b).unwrap();
        g.bench_function(b.name(), |t| {
            t.iter(|| gcm.seal_in_place_detached(&NONCE, black_box(&aad), &mut []))
        });
    }
    g.finish();
}

/// ESP decryption with its one's-complement checksum against plain GCM
/// decryption of the same 1500-byte packet (8-byte AAD, 16-byte ICV).
fn esp(c: &mut Criterion) {
    const SALT: [u8; 4] = [1, 2, 3, 4];
    const ESP_IV: [u8; 8] = [7; 8];
    const ESP_AAD: [u8; 8] = [0, 0, 1, 0, 0, 0, 0, 9];
    let mut nonce = [0u8; 12];
    nonce[..4].copy_from_slice(&SALT);
    nonce[4..].copy_from_slice(&ESP_IV);
    let mut g = group(c, "aes128/esp-open/1500".into(), 1500);
    for b in backends() {
        let esp = Esp::with_backend(&KEY[..16], &SALT, 16, b).unwrap();
        let gcm = Gcm::with_backend(&KEY[..16], b).unwrap();
        let mut ct = data(1500);
        let tag = esp.seal_in_place(&ESP_IV, &ESP_AAD, &mut ct).unwrap();
        let tag = tag.as_bytes();
        g.bench_function(format!("esp+checksum-{}", b.name()), |t| {
            t.iter_batched_ref(
                || ct.clone(),
                |buf| esp.open_in_place(&ESP_IV, &ESP_AAD, buf, tag).unwrap(),
                BatchSize::SmallInput,
            )
        });
        g.bench_function(format!("gcm-{}", b.name()), |t| {
            t.iter_batched_ref(
                || ct.clone(),
                |buf| {
                    gcm.open_in_place_detached(&nonce, &ESP_AAD, buf, tag)
                        .unwrap()
                },
                BatchSize::SmallInput,
            )
        });
    }
    g.finish();
}

/// One group of `n`-byte calls: per backend, `make` keys the object once
/// and `call` is timed (what it returns goes through `black_box`).
fn keyed<K, R>(
    c: &mut Criterion,
    name: &str,
    n: usize,
    make: impl Fn(Backend) -> K,
    call: impl Fn(&K, &mut [u8]) -> R,
) {
    let mut g = group(c, format!("{name}/{n}"), n);
    for b in backends() {
        let (k, mut buf) = (make(b), data(n));
        g.bench_function(b.name(), |t| t.iter(|| call(&k, black_box(&mut buf))));
    }
    g.finish();
}

/// The one-shot AEADs sealing (GCM-SIV, XAES-256-GCM, CCM with a 16-byte
/// tag), CMAC and key wrap, over the POLYVAL and MAC kernels.
fn one_shot_and_macs(c: &mut Criterion) {
    let key = &KEY[..16];
    for n in [64, 16384] {
        keyed(
            c,
            "aes128/gcm-siv-seal",
            n,
            |b| GcmSiv::with_backend(key, b).unwrap(),
            |a, buf| a.seal_in_place_detached(&NONCE, &AAD, buf).unwrap(),
        );
        keyed(
            c,
            "xaes256/seal",
            n,
            |b| Xaes256Gcm::with_backend(&KEY[..32], b).unwrap(),
            |a, buf| a.seal_in_place_detached(&[0x24; 24], &AAD, buf).unwrap(),
        );
        keyed(
            c,
            "aes128/ccm-seal",
            n,
            |b| Ccm::with_backend(key, 16, b).unwrap(),
            |a, buf| a.seal_in_place_detached(&NONCE, &AAD, buf).unwrap(),
        );
        keyed(
            c,
            "aes128/cmac",
            n,
            |b| Cmac::with_backend(key, b).unwrap(),
            |m, buf| m.mac(buf),
        );
        keyed(
            c,
            "aes128/kw-wrap",
            n,
            |b| KeyWrap::with_backend(key, b).unwrap(),
            |kw, buf| kw.wrap(buf).unwrap(),
        );
    }
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    block_modes(&mut c);
    cbc_many(&mut c);
    xts(&mut c);
    gcm(&mut c);
    esp(&mut c);
    one_shot_and_macs(&mut c);
    c.final_summary();
}
