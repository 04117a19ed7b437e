//! The armv8 kernels against two references: the soft backend (for the
//! cipher itself) and the generic trait defaults run over this backend's own
//! single-block path (for the CBC/CTR chaining, batching and counter carry).
//! Every length from 0 to 40 blocks crosses the 8-block batch edges.

use super::ArmAes;
use crate::backend::cpu::ArmSha3;
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
        // The EOR3 kernel where the CPU has FEAT_SHA3, and the baseline one
        // always.
        let plain = arm.without_sha3();
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
            assert_eq!(back, run(&plain, false, &ct.0), "EOR2 decrypt, {n} blocks");
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
        let plain = arm.without_sha3();
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

/// The FEAT_SHA3 token of a key whose EOR3 flavours a test runs; those
/// tests run them only where detection found FEAT_SHA3.
fn sha3(arm: &ArmAes) -> ArmSha3 {
    arm.sha3()
        .expect("EOR3 kernels run only where FEAT_SHA3 was detected")
}

/// CI names the features its (emulated) CPU has, so that a detection bug
/// cannot quietly skip the armv8 or EOR3 kernels there.
#[test]
fn detection_finds_expected_features() {
    let Ok(want) = std::env::var("AESX_EXPECT_ARM_FEATURES") else {
        return;
    };
    let f = crate::backend::cpu::features();
    for name in want.split(',').map(str::trim) {
        match name {
            "aes" | "pmull" => assert!(f.crypto.is_some(), "FEAT_AES/PMULL not detected"),
            "sha3" => assert!(f.sha3.is_some(), "FEAT_SHA3 not detected"),
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

/// Not a check: a fixed workload for counting the instructions each kernel
/// executes per block under `qemu-aarch64 -d in_asm,exec,nochain` (see
/// docs/ARM64.md). Every kernel runs once over 64 KiB with an AES-128 key,
/// so only the R = 10 instance of each executes.
#[test]
#[ignore]
fn instruction_count_workload() {
    if !super::available() {
        return;
    }
    let rk = RoundKeys::expand(&bytes(1, 16)).unwrap();
    let arm = ArmAes::new(&rk).unwrap();
    let plain = arm.without_sha3();
    let mut buf = bytes(2, 65536);
    let mut iv = [7u8; 16];
    arm.encrypt_blocks(InOut::in_place(&mut buf));
    arm.decrypt_blocks(InOut::in_place(&mut buf));
    arm.cbc_encrypt(&mut iv, InOut::in_place(&mut buf));
    arm.cbc_decrypt(&mut iv, InOut::in_place(&mut buf));
    plain.cbc_decrypt(&mut iv, InOut::in_place(&mut buf));
    arm.ctr_apply(&mut iv, InOut::in_place(&mut buf));
    plain.ctr_apply(&mut iv, InOut::in_place(&mut buf));
    let mut acc = [0u8; 16];
    // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token); the EOR3
    // flavours run only where FEAT_SHA3 was detected.
    unsafe {
        use super::{gcm, ghash, xts};
        let hk = ghash::hkey(&arm);
        ghash::ghash_update(arm.crypto(), &hk, &mut acc, &buf);
        gcm::gcm_encrypt::<10>(
            &arm,
            arm.crypto(),
            &hk,
            &mut iv,
            &mut acc,
            InOut::in_place(&mut buf),
        );
        gcm::gcm_decrypt::<10>(
            &arm,
            arm.crypto(),
            &hk,
            &mut iv,
            &mut acc,
            InOut::in_place(&mut buf),
        );
        xts::xts_encrypt::<10>(&arm, arm.crypto(), &mut iv, InOut::in_place(&mut buf));
        xts::xts_decrypt::<10>(&arm, arm.crypto(), &mut iv, InOut::in_place(&mut buf));
        if arm.sha3().is_some() {
            ghash::ghash_update_eor3(sha3(&arm), &hk, &mut acc, &buf);
            gcm::gcm_encrypt_eor3::<10>(
                &arm,
                sha3(&arm),
                &hk,
                &mut iv,
                &mut acc,
                InOut::in_place(&mut buf),
            );
            gcm::gcm_decrypt_eor3::<10>(
                &arm,
                sha3(&arm),
                &hk,
                &mut iv,
                &mut acc,
                InOut::in_place(&mut buf),
            );
            xts::xts_encrypt_eor3::<10>(&arm, sha3(&arm), &mut iv, InOut::in_place(&mut buf));
            xts::xts_decrypt_eor3::<10>(&arm, sha3(&arm), &mut iv, InOut::in_place(&mut buf));
        }
    }
    assert!(core::hint::black_box(&buf).len() == 65536);
    assert!(core::hint::black_box(&acc).len() == 16);
}

/// GF(2^128) multiplication straight from SP 800-38D algorithm 1 (bit by
/// bit, GCM bit order), as the reference for the PMULL GHASH.
fn gf128_mul_reference(x: u128, y: u128) -> u128 {
    const R: u128 = 0xe1 << 120;
    let mut z = 0;
    let mut v = y;
    for i in 0..128 {
        if (x >> (127 - i)) & 1 == 1 {
            z ^= v;
        }
        v = if v & 1 == 1 { (v >> 1) ^ R } else { v >> 1 };
    }
    z
}

fn ghash_reference(h: &Block, acc: &Block, data: &[u8]) -> Block {
    let h = u128::from_be_bytes(*h);
    let mut y = u128::from_be_bytes(*acc);
    for b in data.chunks_exact(16) {
        y = gf128_mul_reference(y ^ u128::from_be_bytes(b.try_into().unwrap()), h);
    }
    y.to_be_bytes()
}

#[test]
fn ghash_matches_reference() {
    if !super::available() {
        return;
    }
    for (_, arm, soft) in keys() {
        let mut h = [0u8; 16];
        soft.encrypt_blocks(InOut::in_place(&mut h));
        // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token).
        let hk = unsafe { super::ghash::hkey(&arm) };
        for n in 0..=40 {
            let data = bytes(400 + n as u64, 16 * n);
            let acc0: Block = bytes(500 + n as u64, 16).try_into().unwrap();
            let want = ghash_reference(&h, &acc0, &data);
            let mut acc = acc0;
            // SAFETY: as above.
            unsafe { super::ghash::ghash_update(arm.crypto(), &hk, &mut acc, &data) };
            assert_eq!(acc, want, "GHASH, {n} blocks");
            if arm.sha3().is_some() {
                let mut acc = acc0;
                // SAFETY: as above, and FEAT_SHA3 was detected.
                unsafe { super::ghash::ghash_update_eor3(sha3(&arm), &hk, &mut acc, &data) };
                assert_eq!(acc, want, "GHASH with EOR3, {n} blocks");
            }
        }
    }
}

#[test]
fn ghash_known_answer() {
    // SP 800-38D / McGrew-Viega test case 2: K = 0, so H = E_K(0) is
    // 66e94bd4ef8a2c3b884cfa59ca342b2e; the one ciphertext block is
    // 0388dace60b6a392f328c2b971b2fe78 and the length block is 0 || 128.
    // Reference value cross-checked against the bitwise multiply above.
    if !super::available() {
        return;
    }
    let rk = RoundKeys::expand(&[0u8; 16]).unwrap();
    let arm = ArmAes::new(&rk).unwrap();
    let h: Block = [
        0x66, 0xe9, 0x4b, 0xd4, 0xef, 0x8a, 0x2c, 0x3b, 0x88, 0x4c, 0xfa, 0x59, 0xca, 0x34, 0x2b,
        0x2e,
    ];
    let mut data = [0u8; 32];
    data[..16].copy_from_slice(&[
        0x03, 0x88, 0xda, 0xce, 0x60, 0xb6, 0xa3, 0x92, 0xf3, 0x28, 0xc2, 0xb9, 0x71, 0xb2, 0xfe,
        0x78,
    ]);
    data[31] = 0x80;
    let want = ghash_reference(&h, &[0; 16], &data);
    // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token).
    let hk = unsafe { super::ghash::hkey(&arm) };
    let mut acc = [0u8; 16];
    // SAFETY: as above.
    unsafe { super::ghash::ghash_update(arm.crypto(), &hk, &mut acc, &data) };
    assert_eq!(acc, want);
    // Tag = GHASH ^ E_K(J0), J0 = 0^96 || 1; the published tag is
    // ab6e47d42cec13bdf53a67b21257bddf.
    let mut j0 = [0u8; 16];
    j0[15] = 1;
    arm.encrypt_blocks(InOut::in_place(&mut j0));
    let tag: std::vec::Vec<u8> = acc.iter().zip(j0.iter()).map(|(a, b)| a ^ b).collect();
    assert_eq!(
        tag,
        [
            0xab, 0x6e, 0x47, 0xd4, 0x2c, 0xec, 0x13, 0xbd, 0xf5, 0x3a, 0x67, 0xb2, 0x12, 0x57,
            0xbd, 0xdf
        ]
    );
}

/// CTR32 (SP 800-38D inc32) keystream XOR through this backend's ECB.
fn ctr32_reference(arm: &ArmAes, ctr: &mut Block, data: &mut [u8]) {
    for b in data.chunks_exact_mut(16) {
        let mut ks = *ctr;
        arm.encrypt_blocks(InOut::in_place(&mut ks));
        for (x, k) in b.iter_mut().zip(ks.iter()) {
            *x ^= k;
        }
        let c = u32::from_be_bytes(ctr[12..].try_into().unwrap()).wrapping_add(1);
        ctr[12..].copy_from_slice(&c.to_be_bytes());
    }
}

#[test]
fn gcm_kernels_match_reference() {
    use super::gcm;
    if !super::available() {
        return;
    }
    for (_, arm, soft) in keys() {
        let mut h = [0u8; 16];
        soft.encrypt_blocks(InOut::in_place(&mut h));
        // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token).
        let hk = unsafe { super::ghash::hkey(&arm) };
        let r = arm.rounds;
        for n in 0..=40 {
            let pt = bytes(600 + n as u64, 16 * n);
            let acc0: Block = bytes(700 + n as u64, 16).try_into().unwrap();
            // Counters whose low word wraps inside the data, and not.
            for low in [0u32, u32::MAX - 3] {
                let mut ctr0: Block = bytes(800 + n as u64, 16).try_into().unwrap();
                ctr0[12..].copy_from_slice(&low.to_be_bytes());
                let mut want_ct = pt.clone();
                let mut want_ctr = ctr0;
                ctr32_reference(&arm, &mut want_ctr, &mut want_ct);
                let want_acc = ghash_reference(&h, &acc0, &want_ct);

                let flavours: &[bool] = if arm.sha3().is_some() {
                    &[false, true]
                } else {
                    &[false]
                };
                for &eor3 in flavours {
                    // CTR32 alone.
                    let ks = both_ways(&pt, |io| {
                        let mut c = ctr0;
                        // SAFETY: FEAT_AES present; FEAT_SHA3 when eor3.
                        unsafe {
                            match (r, eor3) {
                                (10, false) => {
                                    gcm::ctr32_apply::<10>(&arm, arm.crypto(), &mut c, io)
                                }
                                (12, false) => {
                                    gcm::ctr32_apply::<12>(&arm, arm.crypto(), &mut c, io)
                                }
                                (_, false) => {
                                    gcm::ctr32_apply::<14>(&arm, arm.crypto(), &mut c, io)
                                }
                                (10, true) => {
                                    gcm::ctr32_apply_eor3::<10>(&arm, sha3(&arm), &mut c, io)
                                }
                                (12, true) => {
                                    gcm::ctr32_apply_eor3::<12>(&arm, sha3(&arm), &mut c, io)
                                }
                                (_, true) => {
                                    gcm::ctr32_apply_eor3::<14>(&arm, sha3(&arm), &mut c, io)
                                }
                            }
                        }
                        assert_eq!(c, want_ctr, "ctr32 counter, {n} blocks");
                    });
                    assert_eq!(ks, want_ct, "ctr32, {n} blocks, eor3 {eor3}");

                    // Stitched encrypt, then decrypt back.
                    let ct = both_ways(&pt, |io| {
                        let (mut c, mut a) = (ctr0, acc0);
                        // SAFETY: as above.
                        unsafe {
                            match (r, eor3) {
                                (10, false) => gcm::gcm_encrypt::<10>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (12, false) => gcm::gcm_encrypt::<12>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (_, false) => gcm::gcm_encrypt::<14>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (10, true) => gcm::gcm_encrypt_eor3::<10>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (12, true) => gcm::gcm_encrypt_eor3::<12>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (_, true) => gcm::gcm_encrypt_eor3::<14>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                            }
                        }
                        assert_eq!(c, want_ctr, "encrypt counter, {n} blocks");
                        assert_eq!(a, want_acc, "encrypt GHASH, {n} blocks, eor3 {eor3}");
                    });
                    assert_eq!(ct, want_ct, "encrypt, {n} blocks, eor3 {eor3}");
                    let back = both_ways(&ct, |io| {
                        let (mut c, mut a) = (ctr0, acc0);
                        // SAFETY: as above.
                        unsafe {
                            match (r, eor3) {
                                (10, false) => gcm::gcm_decrypt::<10>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (12, false) => gcm::gcm_decrypt::<12>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (_, false) => gcm::gcm_decrypt::<14>(
                                    &arm,
                                    arm.crypto(),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (10, true) => gcm::gcm_decrypt_eor3::<10>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (12, true) => gcm::gcm_decrypt_eor3::<12>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                                (_, true) => gcm::gcm_decrypt_eor3::<14>(
                                    &arm,
                                    sha3(&arm),
                                    &hk,
                                    &mut c,
                                    &mut a,
                                    io,
                                ),
                            }
                        }
                        assert_eq!(c, want_ctr, "decrypt counter, {n} blocks");
                        assert_eq!(a, want_acc, "decrypt GHASH, {n} blocks, eor3 {eor3}");
                    });
                    assert_eq!(back, pt, "decrypt, {n} blocks, eor3 {eor3}");
                }
            }
        }
    }
}

#[test]
fn xts_kernels_match_reference() {
    use super::xts;
    if !super::available() {
        return;
    }
    for (_, arm, _) in keys() {
        let r = arm.rounds;
        let flavours: &[bool] = if arm.sha3().is_some() {
            &[false, true]
        } else {
            &[false]
        };
        for n in 0..=40 {
            let pt = bytes(900 + n as u64, 16 * n);
            // A tweak with the top bit set, so the first doubling reduces.
            let mut t0: Block = bytes(950 + n as u64, 16).try_into().unwrap();
            t0[15] |= 0x80;
            // Reference: C_j = E(P_j ^ T_j) ^ T_j through this backend's ECB.
            let mut want = pt.clone();
            let mut t = u128::from_le_bytes(t0);
            for b in want.chunks_exact_mut(16) {
                let tb = t.to_le_bytes();
                let mut x: Block = core::array::from_fn(|i| b[i] ^ tb[i]);
                arm.encrypt_blocks(InOut::in_place(&mut x));
                for i in 0..16 {
                    b[i] = x[i] ^ tb[i];
                }
                t = (t << 1) ^ (if t >> 127 == 1 { 0x87 } else { 0 });
            }
            let want_t = t.to_le_bytes();
            for &eor3 in flavours {
                let run = |enc: bool, data: &[u8]| {
                    both_ways(data, |io| {
                        let mut tw = t0;
                        // SAFETY: FEAT_AES present; FEAT_SHA3 when eor3.
                        unsafe {
                            match (r, enc, eor3) {
                                (10, true, false) => {
                                    xts::xts_encrypt::<10>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (12, true, false) => {
                                    xts::xts_encrypt::<12>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (_, true, false) => {
                                    xts::xts_encrypt::<14>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (10, true, true) => {
                                    xts::xts_encrypt_eor3::<10>(&arm, sha3(&arm), &mut tw, io)
                                }
                                (12, true, true) => {
                                    xts::xts_encrypt_eor3::<12>(&arm, sha3(&arm), &mut tw, io)
                                }
                                (_, true, true) => {
                                    xts::xts_encrypt_eor3::<14>(&arm, sha3(&arm), &mut tw, io)
                                }
                                (10, false, false) => {
                                    xts::xts_decrypt::<10>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (12, false, false) => {
                                    xts::xts_decrypt::<12>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (_, false, false) => {
                                    xts::xts_decrypt::<14>(&arm, arm.crypto(), &mut tw, io)
                                }
                                (10, false, true) => {
                                    xts::xts_decrypt_eor3::<10>(&arm, sha3(&arm), &mut tw, io)
                                }
                                (12, false, true) => {
                                    xts::xts_decrypt_eor3::<12>(&arm, sha3(&arm), &mut tw, io)
                                }
                                (_, false, true) => {
                                    xts::xts_decrypt_eor3::<14>(&arm, sha3(&arm), &mut tw, io)
                                }
                            }
                        }
                        assert_eq!(tw, want_t, "next tweak, {n} blocks");
                    })
                };
                let ct = run(true, &pt);
                assert_eq!(ct, want, "xts encrypt, {n} blocks, eor3 {eor3}");
                assert_eq!(run(false, &ct), pt, "xts decrypt, {n} blocks, eor3 {eor3}");
            }
        }
    }
}

/// One operation through the public API, on a buffer.
type Op<'a> = (&'a str, &'a dyn Fn(&mut [u8]));

/// A key forced to `armv8` through the public API reaches this backend's own
/// kernels (debug builds count kernel entries; see `backend::trace`).
#[test]
fn forced_armv8_runs_armv8_kernels() {
    use crate::backend::{trace, Backend};
    use crate::{Cbc, Ctr, Ecb};
    if !super::available() || !trace::enabled() {
        return;
    }
    let count = |op: &str| trace::count(&format!("armv8::{op}")).expect("armv8 counter");
    for key in [&[9u8; 16][..], &[9u8; 24], &[9u8; 32]] {
        let mut buf = vec![0x3cu8; 16 * 37];
        let ops: [Op<'_>; 5] = [
            ("encrypt_blocks", &|b| {
                Ecb::with_backend(key, Backend::Armv8)
                    .unwrap()
                    .encrypt_in_place(b)
                    .unwrap()
            }),
            ("decrypt_blocks", &|b| {
                Ecb::with_backend(key, Backend::Armv8)
                    .unwrap()
                    .decrypt_in_place(b)
                    .unwrap()
            }),
            ("cbc_encrypt", &|b| {
                Cbc::with_backend(key, Backend::Armv8)
                    .unwrap()
                    .encrypt_in_place(&[1; 16], b)
                    .unwrap()
            }),
            ("cbc_decrypt", &|b| {
                Cbc::with_backend(key, Backend::Armv8)
                    .unwrap()
                    .decrypt_in_place(&[1; 16], b)
                    .unwrap()
            }),
            ("ctr_apply", &|b| {
                Ctr::with_backend(key, &[2; 16], Backend::Armv8)
                    .unwrap()
                    .apply_keystream(b)
            }),
        ];
        for (op, f) in ops {
            // Other tests may run kernels concurrently: counters only grow,
            // so "grew" is the check that cannot be fooled by them.
            let before = count(op);
            f(&mut buf);
            assert!(count(op) > before, "armv8::{op} did not run");
        }
    }
}
