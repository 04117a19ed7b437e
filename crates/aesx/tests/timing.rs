//! A dudect-style timing-leak test (Reparaz, Balasch, Verbauwhede, "Dude, is
//! my code constant time?", 2017) for the code that must not leak: soft AES
//! encryption and decryption, soft GHASH, the GCM tag check (alone and inside
//! `open`), the XTS equal-halves key check and the CBC padding check.
//!
//! Each measurement picks one of two input classes at random, "fixed" (a
//! value chosen to be the worst case for a leaky implementation) or "random",
//! with all inputs prepared before the timed loop. The times are cropped at
//! several percentiles as dudect does (a leak often hides in the fast bulk of
//! the distribution, under the tail of interrupts), and Welch's t is taken
//! for each crop and for the whole; |t| >= 4.5 in any of them flags a leak.
//!
//! A control, an early-exit byte compare (the bug the tag and key checks
//! avoid), runs through the same harness and must be flagged: that shows the
//! test can fail on this machine, however noisy.
//!
//! Short form (CI, part of `cargo test --workspace`): 100 000 measurements
//! per target. Long form, with the count in `AESX_DUDECT_N`:
//!
//! ```text
//! AESX_DUDECT_N=2000000 cargo test --release -p aesx --test timing -- --nocapture
//! ```
//!
//! On a machine shared with other work a target that fails is measured once
//! more, and fails the test only if it fails both times; a real leak shows in
//! every run (see the control).

use std::hint::black_box;
use std::time::Instant;

use aesx::{Aes, Backend, Cbc, Gcm, Padding, Xts};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

/// |t| at or above this flags a leak (dudect's threshold).
const T_FAIL: f64 = 4.5;

/// Measurements per target in the short form.
const SHORT_N: usize = 100_000;

/// Measurements per batch: inputs are prepared a batch at a time.
const BATCH: usize = 10_000;

/// Welch's t-test, accumulated online (Welford) per class.
#[derive(Clone, Copy, Default)]
struct Welch {
    n: [f64; 2],
    mean: [f64; 2],
    m2: [f64; 2],
}

impl Welch {
    fn push(&mut self, class: usize, x: f64) {
        self.n[class] += 1.0;
        let d = x - self.mean[class];
        self.mean[class] += d / self.n[class];
        self.m2[class] += d * (x - self.mean[class]);
    }

    fn t(&self) -> f64 {
        if self.n[0] < 2.0 || self.n[1] < 2.0 {
            return 0.0;
        }
        let v0 = self.m2[0] / (self.n[0] - 1.0);
        let v1 = self.m2[1] / (self.n[1] - 1.0);
        let se = (v0 / self.n[0] + v1 / self.n[1]).sqrt();
        if se == 0.0 {
            return 0.0;
        }
        (self.mean[0] - self.mean[1]) / se
    }
}

/// The verdict on one target.
struct Verdict {
    /// Largest |t| over the whole and every crop.
    max_t: f64,
    /// t over all measurements.
    t_all: f64,
    /// Measurements.
    n: usize,
    /// Median time per class, in ns.
    median: [u64; 2],
}

/// dudect's crop thresholds: the 1 - 0.5^(10 (k+1) / 100) percentiles, of
/// which we keep every tenth (the others are nearly the same test).
fn crop_quantiles() -> Vec<f64> {
    (0..100)
        .step_by(10)
        .map(|k| 1.0 - 0.5f64.powf(10.0 * (k as f64 + 1.0) / 100.0))
        .collect()
}

/// Runs `n` measurements: `prepare(class, rng, slot)` fills an input for
/// the class outside the timed region, `op(input)` is what is timed.
fn measure<I: Clone>(
    n: usize,
    seed: u64,
    mut prepare: impl FnMut(usize, &mut StdRng) -> I,
    mut op: impl FnMut(&I),
) -> Verdict {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut samples: Vec<(u8, u64)> = Vec::with_capacity(n);
    // Warm up caches, branch predictors and the clock.
    for _ in 0..1000 {
        let c = rng.gen_range(0..2);
        op(&prepare(c, &mut rng));
    }
    while samples.len() < n {
        let m = BATCH.min(n - samples.len());
        let classes: Vec<usize> = (0..m).map(|_| rng.gen_range(0..2)).collect();
        let inputs: Vec<I> = classes.iter().map(|&c| prepare(c, &mut rng)).collect();
        for (c, input) in classes.iter().zip(&inputs) {
            let t0 = Instant::now();
            op(input);
            let dt = t0.elapsed().as_nanos() as u64;
            samples.push((*c as u8, dt));
        }
    }
    let mut sorted: Vec<u64> = samples.iter().map(|s| s.1).collect();
    sorted.sort_unstable();
    let thresholds: Vec<u64> = crop_quantiles()
        .iter()
        .map(|q| sorted[((q * sorted.len() as f64) as usize).min(sorted.len() - 1)])
        .collect();
    let mut all = Welch::default();
    let mut crops = vec![Welch::default(); thresholds.len()];
    let mut per_class: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    for &(c, x) in &samples {
        let c = c as usize;
        all.push(c, x as f64);
        per_class[c].push(x);
        for (w, &th) in crops.iter_mut().zip(&thresholds) {
            if x < th {
                w.push(c, x as f64);
            }
        }
    }
    let mut max_t = all.t().abs();
    for w in &crops {
        // Like dudect, ignore crops too small to mean anything.
        if w.n[0] + w.n[1] >= 1000.0 {
            max_t = max_t.max(w.t().abs());
        }
    }
    let median = [0, 1].map(|c| {
        let v = &mut per_class[c];
        v.sort_unstable();
        v.get(v.len() / 2).copied().unwrap_or(0)
    });
    Verdict {
        max_t,
        t_all: all.t(),
        n,
        median,
    }
}

/// One target: a name and a function measuring it `n` times.
type Target = (&'static str, fn(usize, u64) -> Verdict);

/// The input classes of a target: class 0 always `fixed`, class 1 drawn by
/// `random`.
fn classes<T: Copy>(
    fixed: T,
    mut random: impl FnMut(&mut StdRng) -> T,
) -> impl FnMut(usize, &mut StdRng) -> T {
    move |c, rng| if c == 0 { fixed } else { random(rng) }
}

/// Tag candidates against the correct tag `tag`: fixed = right but for the
/// last byte (the slowest case for an early-exit compare), random = random
/// but wrong in the first byte (the fastest case).
fn near_or_random_tag(tag: &aesx::Tag) -> impl FnMut(usize, &mut StdRng) -> [u8; 16] {
    let mut near: [u8; 16] = tag.as_bytes().try_into().unwrap();
    near[15] ^= 1;
    classes(near, move |rng| {
        let mut r = random_block(rng);
        if r[0] == near[0] {
            r[0] ^= 0x80;
        }
        r
    })
}

fn random_block(rng: &mut StdRng) -> [u8; 16] {
    let mut b = [0u8; 16];
    rng.fill_bytes(&mut b);
    b
}

/// Soft AES on one block, one way (`op`), under a key drawn from
/// `seed ^ key_salt`: fixed = the all-zero block.
fn aes_block(n: usize, seed: u64, key_salt: u64, op: impl Fn(&Aes, &mut [u8; 16])) -> Verdict {
    let mut rng = StdRng::seed_from_u64(seed ^ key_salt);
    let aes = Aes::with_backend(&random_block(&mut rng), Backend::Soft).unwrap();
    measure(n, seed, classes([0u8; 16], random_block), |b| {
        let mut x = *b;
        op(&aes, &mut x);
        black_box(x);
    })
}

fn aes_encrypt(n: usize, seed: u64) -> Verdict {
    aes_block(n, seed, 1, Aes::encrypt_block)
}

fn aes_decrypt(n: usize, seed: u64) -> Verdict {
    aes_block(n, seed, 2, Aes::decrypt_block)
}

/// GHASH over 64 bytes of AAD (a GMAC): the soft GHASH multiplies by H with
/// data-dependent operands.
fn ghash(n: usize, seed: u64) -> Verdict {
    let mut rng = StdRng::seed_from_u64(seed ^ 3);
    let gcm = Gcm::with_backend(&random_block(&mut rng), Backend::Soft).unwrap();
    let nonce = [7u8; 12];
    measure(
        n,
        seed,
        classes([0u8; 64], |rng| {
            let mut a = [0u8; 64];
            rng.fill_bytes(&mut a);
            a
        }),
        |aad| {
            let tag = gcm.seal_in_place_detached(&nonce, aad, &mut []).unwrap();
            black_box(tag);
        },
    )
}

/// How many compares one tag-check measurement times (one is a few ns).
const COMPARES: usize = 32;

/// The correct tag, and candidates: fixed = right but for the last byte (the
/// slowest case for an early-exit compare), random = random (almost always
/// wrong from the first byte, the fastest case).
fn tag_candidates(seed: u64) -> (aesx::Tag, impl FnMut(usize, &mut StdRng) -> [u8; 16]) {
    let mut rng = StdRng::seed_from_u64(seed ^ 4);
    let gcm = Gcm::with_backend(&random_block(&mut rng), Backend::Soft).unwrap();
    let tag = gcm
        .seal_in_place_detached(&[1u8; 12], b"aad", &mut [])
        .unwrap();
    let prepare = near_or_random_tag(&tag);
    (tag, prepare)
}

fn gcm_tag_check(n: usize, seed: u64) -> Verdict {
    let (tag, prepare) = tag_candidates(seed);
    measure(n, seed, prepare, |cand| {
        for _ in 0..COMPARES {
            black_box(tag.verify(black_box(cand)));
        }
    })
}

/// The control: an early-exit compare, which must be flagged.
fn leaky_eq(a: &[u8], b: &[u8]) -> bool {
    for (x, y) in a.iter().zip(b) {
        if black_box(*x) != black_box(*y) {
            return false;
        }
    }
    a.len() == b.len()
}

fn control_early_exit(n: usize, seed: u64) -> Verdict {
    let (tag, prepare) = tag_candidates(seed);
    let want: [u8; 16] = tag.as_bytes().try_into().unwrap();
    measure(n, seed, prepare, |cand| {
        for _ in 0..COMPARES {
            black_box(leaky_eq(&want, black_box(cand)));
        }
    })
}

/// The whole one-shot open with a forged tag (GHASH, tag check, wiping the
/// output): the same two classes of tags on a fixed 64-byte ciphertext.
fn gcm_open_forged(n: usize, seed: u64) -> Verdict {
    let mut rng = StdRng::seed_from_u64(seed ^ 5);
    let gcm = Gcm::with_backend(&random_block(&mut rng), Backend::Soft).unwrap();
    let mut ct = [0u8; 64];
    rng.fill_bytes(&mut ct);
    let nonce = [2u8; 12];
    let tag = gcm.seal_in_place_detached(&nonce, &[], &mut ct).unwrap();
    measure(n, seed, near_or_random_tag(&tag), |cand| {
        let mut out = [0u8; 64];
        let r = gcm.open_to_detached(&nonce, &[], &ct, cand, &mut out);
        assert!(r.is_err());
        black_box(out);
    })
}

/// The XTS key check: fixed = halves equal but for the last byte (slowest
/// for an early-exit compare), random = random keys.
fn xts_equal_halves(n: usize, seed: u64) -> Verdict {
    let mut base = [0u8; 32];
    StdRng::seed_from_u64(seed ^ 6).fill_bytes(&mut base[..16]);
    base.copy_within(..16, 16);
    base[31] ^= 1;
    measure(
        n,
        seed,
        classes(base, |rng| {
            let mut k = [0u8; 32];
            rng.fill_bytes(&mut k);
            k
        }),
        |key| {
            black_box(Xts::with_backend(key, Backend::Soft).unwrap());
        },
    )
}

/// The CBC padding check on a two-block message that never has valid
/// padding: fixed = 16 pad bytes of 16 but the first one (the most work for
/// a check that scans and stops at the first bad byte), random = random last
/// blocks (mostly wrong in the last byte already).
fn cbc_padding(n: usize, seed: u64) -> Verdict {
    let mut rng = StdRng::seed_from_u64(seed ^ 7);
    let cbc = Cbc::with_backend(&random_block(&mut rng), Backend::Soft).unwrap();
    let iv = random_block(&mut rng);
    let valid = |b: &[u8; 16]| {
        let p = b[15] as usize;
        (1..=16).contains(&p) && b[16 - p..].iter().all(|&x| x as usize == p)
    };
    let encrypt = |last: [u8; 16]| {
        let mut m = [0x5au8; 32];
        m[16..].copy_from_slice(&last);
        cbc.encrypt_in_place(&iv, &mut m).unwrap();
        m
    };
    let mut fixed_last = [16u8; 16];
    fixed_last[0] = 15;
    let fixed = encrypt(fixed_last);
    measure(
        n,
        seed,
        classes(fixed, |rng| loop {
            let b = random_block(rng);
            if !valid(&b) {
                break encrypt(b);
            }
        }),
        |ct| {
            let mut out = [0u8; 32];
            let r = cbc.decrypt(&iv, ct, &mut out, Padding::Pkcs7);
            assert!(r.is_err());
            black_box(out);
        },
    )
}

const TARGETS: [Target; 7] = [
    ("soft AES encrypt", aes_encrypt),
    ("soft AES decrypt", aes_decrypt),
    ("soft GHASH (GMAC, 64 B)", ghash),
    ("GCM tag check (Tag::verify)", gcm_tag_check),
    ("GCM open, forged tag", gcm_open_forged),
    ("XTS equal-halves check", xts_equal_halves),
    ("CBC padding check", cbc_padding),
];

fn report(name: &str, v: &Verdict) {
    println!(
        "{name:<30} n={:<9} max|t|={:>8.2}  t(all)={:>8.2}  median ns fixed/random={}/{}",
        v.n, v.max_t, v.t_all, v.median[0], v.median[1]
    );
}

#[test]
fn constant_time() {
    let n = std::env::var("AESX_DUDECT_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(SHORT_N);
    let seed: u64 = rand::thread_rng().gen();
    println!("dudect: {n} measurements per target, seed {seed}, |t| < {T_FAIL} passes");

    // The control first: the harness must see a real leak.
    let control = control_early_exit(n.min(SHORT_N), seed);
    report("control: early-exit compare", &control);
    assert!(
        control.max_t >= T_FAIL,
        "the early-exit control was not flagged (max |t| {:.2}): the harness cannot see leaks here",
        control.max_t
    );

    let mut failed = Vec::new();
    for (i, (name, f)) in TARGETS.iter().enumerate() {
        let v = f(n, seed.wrapping_add(i as u64));
        report(name, &v);
        if v.max_t >= T_FAIL {
            // Noise from other work on the machine is not correlated with
            // the random classes, a leak is: measure again.
            let again = f(n, seed.wrapping_add(100 + i as u64));
            report(&format!("{name} (again)"), &again);
            if again.max_t >= T_FAIL {
                failed.push(format!("{name}: |t| {:.2}, {:.2}", v.max_t, again.max_t));
            }
        }
    }
    assert!(failed.is_empty(), "timing leaks: {failed:?}");
}
