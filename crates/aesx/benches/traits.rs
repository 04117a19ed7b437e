//! What the RustCrypto trait paths cost: aesx through `cipher`/`aead` (and
//! the `ctr`, `cbc`, `xts-mode` crates) against aesx's inherent API, and
//! RustCrypto's own `aes`/`aes-gcm` on the same paths, at 16 KiB and 64 B.
//!
//! For work on the library's RustCrypto layer (`src/rustcrypto/`): what a
//! caller pays for porting through the traits rather than calling aesx
//! directly. `aesx bench` measures the inherent API only; the other
//! benchmark homes, and who each serves, are listed in `modes.rs`.
//!
//! The machine this runs on is usually shared, so the summary table comes
//! from an interleaved run: every round times each variant of a case in
//! turn (rotating which goes first) by the CPU time of this thread, and the
//! table reports each variant's median over the rounds and its ratio to the
//! inherent API. Criterion's own groups follow, for the usual reports.
//!
//! ```text
//! cargo bench -p aesx --bench traits            # table, then criterion
//! cargo bench -p aesx --bench traits -- --table # the table only
//! ```

use std::hint::black_box;
use std::time::Duration;

use aead::inout::InOutBuf;
use aead::AeadInOut;
use aesx::{Aes, Backend, Cbc, Ctr, Gcm, Xts};
use cipher::{Array, BlockCipherEncrypt, BlockModeDecrypt, InnerIvInit, KeyInit, StreamCipher};
use cpu_time::ThreadTime;
use criterion::{BenchmarkId, Criterion, Throughput};

const SIZES: [usize; 2] = [16 * 1024, 64];
const KEY: [u8; 16] = [0x42; 16];
const KEY2: [u8; 16] = [0x24; 16];
const IV: [u8; 16] = [0x11; 16];
const NONCE: [u8; 12] = [0x33; 12];
const AAD: [u8; 16] = [0x55; 16];

type Variant = (&'static str, Box<dyn FnMut()>);

/// One case: a mode at one size, its variants (the inherent API first).
struct Case {
    name: String,
    len: usize,
    variants: Vec<Variant>,
}

impl Case {
    /// A case of the three usual variants, in the table's order: aesx's
    /// inherent API, aesx through the RustCrypto traits, RustCrypto's own.
    /// Each works on its own copy of `buf` (passed through `black_box`).
    fn new(
        name: String,
        buf: Vec<u8>,
        inherent: impl FnMut(&mut [u8]) + 'static,
        aesx_trait: impl FnMut(&mut [u8]) + 'static,
        rustcrypto: impl FnMut(&mut [u8]) + 'static,
    ) -> Case {
        fn on_own_copy(buf: &[u8], mut f: impl FnMut(&mut [u8]) + 'static) -> Box<dyn FnMut()> {
            let mut buf = buf.to_vec();
            Box::new(move || f(black_box(&mut buf)))
        }
        Case {
            name,
            len: buf.len(),
            variants: vec![
                ("inherent", on_own_copy(&buf, inherent)),
                ("aesx-trait", on_own_copy(&buf, aesx_trait)),
                ("rustcrypto", on_own_copy(&buf, rustcrypto)),
            ],
        }
    }
}

fn blocks_of(buf: &mut [u8]) -> &mut [Array<u8, cipher::consts::U16>] {
    Array::slice_as_chunks_mut(buf).0
}

fn cases(backend: Backend) -> Vec<Case> {
    let mut out = Vec::new();
    for len in SIZES {
        // The AES-128 key under the traits, aesx's and RustCrypto's, expanded
        // once and cloned into the cases that use it.
        let ours128 = aesx::Aes128::with_backend(&KEY, backend).unwrap();
        let theirs128 = aes::Aes128::new(&KEY.into());
        // ECB: the block cipher's bulk entry point.
        {
            let inherent = Aes::with_backend(&KEY, backend).unwrap();
            let (ours, theirs) = (ours128.clone(), theirs128.clone());
            out.push(Case::new(
                format!("ecb-encrypt/{len}"),
                vec![0u8; len],
                move |a| inherent.encrypt_blocks(a).unwrap(),
                move |b| ours.encrypt_blocks(blocks_of(b)),
                move |c| theirs.encrypt_blocks(blocks_of(c)),
            ));
        }
        // CTR: aesx::Ctr against ctr::Ctr128BE over each cipher; the stream
        // is set up once (as a long-lived stream would be).
        {
            let mut inherent = Ctr::with_backend(&KEY, &IV, backend).unwrap();
            let mut ours =
                ctr::Ctr128BE::from_core(ctr::CtrCore::inner_iv_init(ours128.clone(), &IV.into()));
            let mut theirs = ctr::Ctr128BE::from_core(ctr::CtrCore::inner_iv_init(
                theirs128.clone(),
                &IV.into(),
            ));
            out.push(Case::new(
                format!("ctr/{len}"),
                vec![0u8; len],
                move |a| inherent.apply_keystream(a),
                move |b| ours.apply_keystream(b),
                move |c| theirs.apply_keystream(c),
            ));
        }
        // CBC decryption (the parallel direction): a message per call, the
        // key expanded once.
        {
            let inherent = Cbc::with_backend(&KEY, backend).unwrap();
            let (ours, theirs) = (ours128.clone(), theirs128.clone());
            out.push(Case::new(
                format!("cbc-decrypt/{len}"),
                vec![0u8; len],
                move |a| inherent.decrypt_in_place(&IV, a).unwrap(),
                move |b| {
                    cbc::Decryptor::inner_iv_init(&ours, &IV.into()).decrypt_blocks(blocks_of(b))
                },
                move |c| {
                    cbc::Decryptor::inner_iv_init(&theirs, &IV.into()).decrypt_blocks(blocks_of(c))
                },
            ));
        }
        // XTS: one data unit per call. xts-mode drives the cipher one block
        // at a time (its design), so this measures that, not aesx's kernels.
        {
            let inherent = Xts::with_backend(&[KEY, KEY2].concat(), backend).unwrap();
            let ours = xts_mode::Xts128::new(
                aesx::Aes128::with_backend(&KEY, backend).unwrap(),
                aesx::Aes128::with_backend(&KEY2, backend).unwrap(),
            );
            let theirs = xts_mode::Xts128::new(
                aes::Aes128::new(&KEY.into()),
                aes::Aes128::new(&KEY2.into()),
            );
            out.push(Case::new(
                format!("xts-encrypt/{len}"),
                vec![0u8; len],
                move |a| inherent.encrypt(&IV, a).unwrap(),
                move |b| ours.encrypt_sector(b, IV.into()),
                move |c| theirs.encrypt_sector(c, IV.into()),
            ));
        }
        // GCM seal and open, detached tag, in place.
        for seal in [true, false] {
            let inherent = Gcm::with_backend(&KEY, backend).unwrap();
            let ours = aesx::Aes128Gcm::with_backend(&KEY, backend).unwrap();
            let theirs = aes_gcm::Aes128Gcm::new(&KEY.into());
            let nonce = Array::from(NONCE);
            let pt = vec![0x77u8; len];
            let mut ct = pt.clone();
            let tag = inherent
                .seal_in_place_detached(&NONCE, &AAD, &mut ct)
                .unwrap();
            let tag_arr = Array::try_from(tag.as_bytes()).unwrap();
            let name = format!("gcm-{}/{len}", if seal { "seal" } else { "open" });
            out.push(if seal {
                Case::new(
                    name,
                    pt.clone(),
                    move |a| {
                        black_box(inherent.seal_in_place_detached(&NONCE, &AAD, a).unwrap());
                    },
                    move |b| {
                        black_box(
                            ours.encrypt_inout_detached(&nonce, &AAD, InOutBuf::from(b))
                                .unwrap(),
                        );
                    },
                    move |c| {
                        black_box(
                            theirs
                                .encrypt_inout_detached(&nonce, &AAD, InOutBuf::from(c))
                                .unwrap(),
                        );
                    },
                )
            } else {
                // Out of place from the same ciphertext, so that every call
                // verifies (an in-place open would need a fresh copy).
                let (ct_a, ct_b, ct_c) = (ct.clone(), ct.clone(), ct);
                Case::new(
                    name,
                    pt.clone(),
                    move |a| {
                        inherent
                            .open_to_detached(&NONCE, &AAD, &ct_a, tag.as_bytes(), a)
                            .unwrap();
                    },
                    move |b| {
                        let io = InOutBuf::new(&ct_b, b).unwrap();
                        ours.decrypt_inout_detached(&nonce, &AAD, io, &tag_arr)
                            .unwrap();
                    },
                    move |c| {
                        let io = InOutBuf::new(&ct_c, c).unwrap();
                        theirs
                            .decrypt_inout_detached(&nonce, &AAD, io, &tag_arr)
                            .unwrap();
                    },
                )
            });
        }
    }
    out
}

/// Nanoseconds of thread CPU time per call over `iters` calls.
fn time(f: &mut dyn FnMut(), iters: u64) -> f64 {
    let t0 = ThreadTime::now();
    for _ in 0..iters {
        f();
    }
    t0.elapsed().as_nanos() as f64 / iters as f64
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// The interleaved table: per case, every round runs each variant once for
/// about 2 ms of CPU time.
fn table(backend: Backend) {
    const ROUNDS: usize = 31;
    println!("\ntrait paths vs inherent API, backend {backend}, AES-128, thread CPU time,");
    println!("median of {ROUNDS} interleaved rounds (ratio = variant / inherent)");
    println!(
        "{:<20} {:>12} {:>12} {:>8} {:>12} {:>8}",
        "case", "inherent", "aesx-trait", "ratio", "rustcrypto", "ratio"
    );
    for mut case in cases(backend) {
        let n = case.variants.len();
        // Calibrate: iterations for ~2 ms of the inherent variant.
        let per = time(&mut case.variants[0].1, 200).max(1.0);
        let iters = ((2e6 / per) as u64).clamp(10, 1 << 20);
        for v in case.variants.iter_mut() {
            time(&mut v.1, iters / 4 + 1); // warm up
        }
        let mut samples = vec![Vec::with_capacity(ROUNDS); n];
        for r in 0..ROUNDS {
            for k in 0..n {
                let i = (r + k) % n;
                samples[i].push(time(&mut case.variants[i].1, iters));
            }
        }
        let med: Vec<f64> = samples.iter_mut().map(|s| median(s)).collect();
        let gbs = |ns: f64| case.len as f64 / ns;
        println!(
            "{:<20} {:>9.0} ns {:>9.0} ns {:>8.3} {:>9.0} ns {:>8.3}   ({:.2} / {:.2} / {:.2} GB/s)",
            case.name,
            med[0],
            med[1],
            med[1] / med[0],
            med[2],
            med[2] / med[0],
            gbs(med[0]),
            gbs(med[1]),
            gbs(med[2]),
        );
    }
}

fn criterion_groups(backend: Backend) {
    let mut c = Criterion::default()
        .warm_up_time(Duration::from_millis(200))
        .measurement_time(Duration::from_millis(800))
        .configure_from_args();
    for case in cases(backend) {
        let mut g = c.benchmark_group(&case.name);
        g.throughput(Throughput::Bytes(case.len as u64));
        for (who, mut f) in case.variants {
            g.bench_function(BenchmarkId::from_parameter(who), |b| b.iter(&mut f));
        }
        g.finish();
    }
    c.final_summary();
}

fn main() {
    let backend = Backend::fastest();
    let table_only = std::env::args().any(|a| a == "--table");
    // `cargo test --benches` runs this binary without `--bench`: one quick
    // pass of every variant is enough there.
    if !std::env::args().any(|a| a == "--bench") && !table_only {
        for mut case in cases(backend) {
            for v in case.variants.iter_mut() {
                (v.1)();
            }
        }
        return;
    }
    table(backend);
    if !table_only {
        criterion_groups(backend);
    }
}
