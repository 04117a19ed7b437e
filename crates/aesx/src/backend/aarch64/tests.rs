//! The armv8 kernels against two references: the soft backend (for the
//! cipher itself) and the generic trait defaults run over this backend's own
//! single-block path (for the CBC/CTR chaining, batching and counter carry).
//! Every length from 0 to 40 blocks crosses the 8-block batch edges.

use super::ArmAes;
use crate::backend::inout::InOut;
use crate::backend::kernels::BlockKernels;
use crate::backend::soft::SoftAes;
use crate::key::{Block, RoundKeys};

/// This backend's ECB, with every other kernel left to the generic defaults.
struct Generic<'a>(&'a ArmAes);

impl BlockKernels for Generic<'_> {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        self.0.encrypt_blocks(io)
    }
    fn decrypt_blocks(&self, io: InOut<'_>) {
        self.0.decrypt_blocks(io)
    }
}

/// A deterministic byte pattern (xorshift), different per seed.
fn bytes(seed: u64, n: usize) -> std::vec::Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

fn keys() -> std::vec::Vec<(RoundKeys, ArmAes, SoftAes)> {
    [16usize, 24, 32]
        .iter()
        .map(|&len| {
            let rk = RoundKeys::expand(&bytes(len as u64, len)).unwrap();
            let arm = ArmAes::new(&rk).expect("armv8 must be available");
            let soft = SoftAes::new(&rk);
            (rk, arm, soft)
        })
        .collect()
}

/// Runs `f` in place and out of place; both must agree. Returns the output.
fn both_ways(input: &[u8], mut f: impl FnMut(InOut<'_>)) -> std::vec::Vec<u8> {
    let mut inplace = input.to_vec();
    f(InOut::in_place(&mut inplace));
    let mut out = vec![0u8; input.len()];
    f(InOut::new(input, &mut out).unwrap());
    assert_eq!(inplace, out, "in place and out of place differ");
    out
}

#[test]
fn ecb_matches_soft() {
    if !super::available() {
        return;
    }
    for (_, arm, soft) in keys() {
        for n in 0..=40 {
            let pt = bytes(n as u64, 16 * n);
            let ct = both_ways(&pt, |io| arm.encrypt_blocks(io));
            let want = both_ways(&pt, |io| soft.encrypt_blocks(io));
            assert_eq!(ct, want, "encrypt, {n} blocks");
            let back = both_ways(&ct, |io| arm.decrypt_blocks(io));
            assert_eq!(back, pt, "decrypt, {n} blocks");
            let back_soft = both_ways(&ct, |io| soft.decrypt_blocks(io));
            assert_eq!(back_soft, pt, "soft decrypt, {n} blocks");
        }
    }
}

#[test]
fn cbc_matches_generic() {
    if !super::available() {
        return;
    }
    for (_, arm, _) in keys() {
        let generic = Generic(&arm);
        for n in 0..=40 {
            let pt = bytes(100 + n as u64, 16 * n);
            let iv0: Block = bytes(200 + n as u64, 16).try_into().unwrap();
            let run = |k: &dyn BlockKernels, enc: bool, data: &[u8]| {
                let mut ivs = std::vec::Vec::new();
                let out = both_ways(data, |io| {
                    let mut iv = iv0;
                    if enc {
                        k.cbc_encrypt(&mut iv, io)
                    } else {
                        k.cbc_decrypt(&mut iv, io)
                    }
                    ivs.push(iv);
                });
                (out, ivs)
            };
            let ct = run(&arm, true, &pt);
            assert_eq!(ct, run(&generic, true, &pt), "encrypt, {n} blocks");
            let back = run(&arm, false, &ct.0);
            assert_eq!(back.0, pt, "decrypt, {n} blocks");
            assert_eq!(back, run(&generic, false, &ct.0), "decrypt, {n} blocks");
            // The chaining value carries across calls: two halves = one call.
            let half = 16 * (n / 2);
            let mut iv = iv0;
            let mut split = pt.clone();
            let (a, b) = split.split_at_mut(half);
            arm.cbc_encrypt(&mut iv, InOut::in_place(a));
            arm.cbc_encrypt(&mut iv, InOut::in_place(b));
            assert_eq!(split, ct.0, "encrypt in two calls, {n} blocks");
        }
    }
}

#[test]
fn ctr_matches_generic_across_carries() {
    if !super::available() {
        return;
    }
    // Counters at and just before every carry boundary the vector path
    // special-cases: the low 64 bits wrapping into the high half, and the
    // whole 128-bit block wrapping to zero.
    let starts: [u128; 7] = [
        0,
        0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        (1u128 << 64) - 1,
        (1u128 << 64) - 5,
        (1u128 << 64) - 8,
        u128::MAX,
        u128::MAX - 12,
    ];
    for (_, arm, _) in keys() {
        let generic = Generic(&arm);
        // The EOR3 kernel where the CPU has FEAT_SHA3, and the baseline one
        // always.
        let mut plain = arm.clone();
        plain.features.sha3 = false;
        for &start in &starts {
            for n in 0..=40 {
                let data = bytes(300 + n as u64, 16 * n);
                let run = |k: &dyn BlockKernels| {
                    let mut ctrs = std::vec::Vec::new();
                    let out = both_ways(&data, |io| {
                        let mut c = start.to_be_bytes();
                        k.ctr_apply(&mut c, io);
                        ctrs.push(c);
                    });
                    (out, ctrs)
                };
                let got = run(&arm);
                assert_eq!(got, run(&generic), "start {start:#x}, {n} blocks");
                assert_eq!(run(&plain), got, "EOR2 vs EOR3, {n} blocks");
                let next = start.wrapping_add(n as u128).to_be_bytes();
                assert_eq!(got.1[0], next, "counter after {n} blocks");
            }
        }
    }
}

/// CI names the features its (emulated) CPU has, so that a detection bug
/// cannot quietly skip the armv8 or EOR3 kernels there.
#[test]
fn detection_finds_expected_features() {
    let Ok(want) = std::env::var("AESX_EXPECT_ARM_FEATURES") else {
        return;
    };
    let f = super::detect();
    for name in want.split(',').map(str::trim) {
        match name {
            "aes" | "pmull" => assert!(f.aes, "FEAT_AES/PMULL not detected"),
            "sha3" => assert!(f.sha3, "FEAT_SHA3 not detected"),
            "" => {}
            other => panic!("unknown feature {other:?} in AESX_EXPECT_ARM_FEATURES"),
        }
    }
}

#[test]
fn detection_matches_backend_list() {
    use crate::backend::Backend;
    assert_eq!(super::available(), Backend::Armv8.is_available());
    let rk = RoundKeys::expand(&[0u8; 16]).unwrap();
    assert_eq!(ArmAes::new(&rk).is_ok(), super::available());
}

#[test]
fn timer_advances() {
    let f = super::timer::frequency();
    assert!(f > 0, "CNTFRQ_EL0 is zero");
    let a = super::timer::ticks();
    let mut x = 0u64;
    for i in 0..100_000u64 {
        x = core::hint::black_box(x.wrapping_add(i));
    }
    let b = super::timer::ticks();
    assert!(b > a, "CNTVCT_EL0 did not advance ({a} -> {b}, {x})");
}
