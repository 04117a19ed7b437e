//! The armv8 kernels against two references: the soft backend (for the
//! cipher itself) and the generic trait defaults run over this backend's own
//! single-block path (for the CBC/CTR chaining, batching and counter carry).
//! Every length from 0 to 40 blocks crosses the 8-block batch edges.

use super::ghash::ArmHKey;
use super::{ghash, ArmAes};
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::xts::XtsKernels;
use crate::backend::kernels::BlockKernels;
use crate::backend::soft::SoftAes;
use crate::key::{Block, RoundKeys};
use crate::test_bytes::xorshift_bytes as bytes;

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

/// [`bytes`] as one block.
fn block(seed: u64) -> Block {
    bytes(seed, 16).try_into().unwrap()
}

/// Runs `f` for each key size (the key and the soft backend's copy of it)
/// and every length `n` from 0 to 40 blocks, with `bytes(seed + n, 16 n)`
/// as the data; nothing where armv8 is unavailable.
fn each_case(seed: u64, mut f: impl FnMut(&ArmAes, &SoftAes, usize, &[u8])) {
    if !super::available() {
        return;
    }
    for len in [16usize, 24, 32] {
        let rk = RoundKeys::expand(&bytes(len as u64, len)).unwrap();
        let arm = ArmAes::new(&rk).expect("armv8 must be available");
        let soft = SoftAes::new(&rk);
        for n in 0..=40 {
            f(&arm, &soft, n, &bytes(seed + n as u64, 16 * n));
        }
    }
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

/// [`both_ways`] for a kernel that carries state (an IV, a counter, a
/// tweak): each run starts from `s0`. Returns the output and the state each
/// run left.
fn both_ways_from<S: Copy>(
    input: &[u8],
    s0: S,
    mut f: impl FnMut(&mut S, InOut<'_>),
) -> (std::vec::Vec<u8>, std::vec::Vec<S>) {
    let mut states = std::vec::Vec::new();
    let out = both_ways(input, |io| {
        let mut s = s0;
        f(&mut s, io);
        states.push(s);
    });
    (out, states)
}

/// The XOR flavours of the kernels this CPU runs: the baseline (two EORs)
/// always, EOR3 where detection found FEAT_SHA3.
fn flavours(arm: &ArmAes) -> &'static [bool] {
    if arm.sha3.is_some() {
        &[false, true]
    } else {
        &[false]
    }
}

/// The FEAT_SHA3 token of a key whose EOR3 flavours a test runs; those
/// tests run them only where detection found FEAT_SHA3.
/// The key with the kernels of one flavour: EOR3 (`eor3`, which needs
/// FEAT_SHA3 detected) or the baseline two-EOR ones.
fn flavour(arm: &ArmAes, eor3: bool) -> ArmAes {
    if eor3 {
        assert!(
            arm.sha3.is_some(),
            "EOR3 kernels run only where FEAT_SHA3 was detected"
        );
        arm.clone()
    } else {
        arm.without_sha3()
    }
}

fn ghash_update(arm: &ArmAes, eor3: bool, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
    flavour(arm, eor3).ghash_update(hk, acc, data)
}

fn ctr32_apply(arm: &ArmAes, eor3: bool, ctr: &mut Block, io: InOut<'_>) {
    GcmKernels::ctr32_apply(&flavour(arm, eor3), ctr, io)
}

/// The stitched GCM kernels: encryption, or decryption when `dec`; the
/// state is (counter, GHASH accumulator).
fn gcm_stitched(
    arm: &ArmAes,
    eor3: bool,
    dec: bool,
    hk: &ArmHKey,
    (ctr, acc): &mut (Block, Block),
    io: InOut<'_>,
) {
    let k = flavour(arm, eor3);
    if dec {
        k.gcm_decrypt(hk, ctr, acc, io)
    } else {
        k.gcm_encrypt(hk, ctr, acc, io)
    }
}

/// The XTS kernels: encryption, or decryption when `dec`.
fn xts_kernel(arm: &ArmAes, eor3: bool, dec: bool, tweak: &mut Block, io: InOut<'_>) {
    let k = flavour(arm, eor3);
    if dec {
        k.xts_decrypt(tweak, io)
    } else {
        k.xts_encrypt(tweak, io)
    }
}

/// H = E_K(0) through the soft backend (the reference) and this backend's
/// key powers of it.
fn hash_keys(arm: &ArmAes, soft: &SoftAes) -> (Block, ArmHKey) {
    let mut h = [0u8; 16];
    soft.encrypt_blocks(InOut::in_place(&mut h));
    // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token).
    (h, unsafe { ghash::hkey(arm) })
}

#[test]
fn ecb_matches_soft() {
    each_case(0, |arm, soft, n, pt| {
        let ct = both_ways(pt, |io| arm.encrypt_blocks(io));
        let want = both_ways(pt, |io| soft.encrypt_blocks(io));
        assert_eq!(ct, want, "encrypt, {n} blocks");
        let back = both_ways(&ct, |io| arm.decrypt_blocks(io));
        assert_eq!(back, pt, "decrypt, {n} blocks");
        let back_soft = both_ways(&ct, |io| soft.decrypt_blocks(io));
        assert_eq!(back_soft, pt, "soft decrypt, {n} blocks");
    });
}

#[test]
fn cbc_matches_generic() {
    each_case(100, |arm, _, n, pt| {
        let generic = Generic(arm);
        // The EOR3 kernel where the CPU has FEAT_SHA3, and the baseline one
        // always.
        let plain = arm.without_sha3();
        let iv0 = block(200 + n as u64);
        let run = |k: &dyn BlockKernels, enc: bool, data: &[u8]| {
            both_ways_from(data, iv0, |iv, io| {
                if enc {
                    k.cbc_encrypt(iv, io)
                } else {
                    k.cbc_decrypt(iv, io)
                }
            })
        };
        let ct = run(arm, true, pt);
        assert_eq!(ct, run(&generic, true, pt), "encrypt, {n} blocks");
        let back = run(arm, false, &ct.0);
        assert_eq!(back.0, pt, "decrypt, {n} blocks");
        assert_eq!(back, run(&generic, false, &ct.0), "decrypt, {n} blocks");
        assert_eq!(back, run(&plain, false, &ct.0), "EOR2 decrypt, {n} blocks");
        // The chaining value carries across calls: two halves = one call.
        let half = 16 * (n / 2);
        let mut iv = iv0;
        let mut split = pt.to_vec();
        let (a, b) = split.split_at_mut(half);
        arm.cbc_encrypt(&mut iv, InOut::in_place(a));
        arm.cbc_encrypt(&mut iv, InOut::in_place(b));
        assert_eq!(split, ct.0, "encrypt in two calls, {n} blocks");
    });
}

#[test]
fn ctr_matches_generic_across_carries() {
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
    each_case(300, |arm, _, n, data| {
        let generic = Generic(arm);
        // The EOR3 kernel where the CPU has FEAT_SHA3, and the baseline one
        // always.
        let plain = arm.without_sha3();
        for &start in &starts {
            let run = |k: &dyn BlockKernels| {
                both_ways_from(data, start.to_be_bytes(), |c, io| k.ctr_apply(c, io))
            };
            let got = run(arm);
            assert_eq!(got, run(&generic), "start {start:#x}, {n} blocks");
            assert_eq!(run(&plain), got, "EOR2 vs EOR3, {n} blocks");
            let next = start.wrapping_add(n as u128).to_be_bytes();
            assert_eq!(got.1[0], next, "counter after {n} blocks");
        }
    });
}

/// CI names the features its (emulated) CPU has, so that a detection bug
/// cannot quietly skip the armv8 or EOR3 kernels there.
#[test]
fn detection_finds_expected_features() {
    let Ok(want) = std::env::var("AESX_EXPECT_ARM_FEATURES") else {
        return;
    };
    let f = crate::backend::kernels::cpu::features();
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
    assert_eq!(ArmAes::new(&rk).is_some(), super::available());
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
    let mut state = (iv, [0u8; 16]);
    // SAFETY: FEAT_AES/PMULL are present (`arm` holds the `ArmCrypto` token).
    let hk = unsafe { ghash::hkey(&arm) };
    for &eor3 in flavours(&arm) {
        ghash_update(&arm, eor3, &hk, &mut state.1, &buf);
        for dec in [false, true] {
            gcm_stitched(&arm, eor3, dec, &hk, &mut state, InOut::in_place(&mut buf));
        }
        for dec in [false, true] {
            xts_kernel(&arm, eor3, dec, &mut state.0, InOut::in_place(&mut buf));
        }
    }
    assert!(core::hint::black_box(&buf).len() == 65536);
    assert!(core::hint::black_box(&state).1.len() == 16);
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
    each_case(400, |arm, soft, n, data| {
        let (h, hk) = hash_keys(arm, soft);
        let acc0 = block(500 + n as u64);
        let want = ghash_reference(&h, &acc0, data);
        for &eor3 in flavours(arm) {
            let mut acc = acc0;
            ghash_update(arm, eor3, &hk, &mut acc, data);
            assert_eq!(acc, want, "GHASH, {n} blocks, eor3 {eor3}");
        }
    });
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
    let hk = unsafe { ghash::hkey(&arm) };
    let mut acc = [0u8; 16];
    ghash_update(&arm, false, &hk, &mut acc, &data);
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
    each_case(600, |arm, soft, n, pt| {
        let (h, hk) = hash_keys(arm, soft);
        let acc0 = block(700 + n as u64);
        // Counters whose low word wraps inside the data, and not.
        for low in [0u32, u32::MAX - 3] {
            let mut ctr0 = block(800 + n as u64);
            ctr0[12..].copy_from_slice(&low.to_be_bytes());
            let mut want_ct = pt.to_vec();
            let mut want_ctr = ctr0;
            ctr32_reference(arm, &mut want_ctr, &mut want_ct);
            let want_acc = ghash_reference(&h, &acc0, &want_ct);

            for &eor3 in flavours(arm) {
                // CTR32 alone.
                let (ks, ctrs) = both_ways_from(pt, ctr0, |c, io| ctr32_apply(arm, eor3, c, io));
                for c in ctrs {
                    assert_eq!(c, want_ctr, "ctr32 counter, {n} blocks");
                }
                assert_eq!(ks, want_ct, "ctr32, {n} blocks, eor3 {eor3}");

                // Stitched encrypt, then decrypt back.
                let stitched = |dec: bool, data: &[u8]| {
                    let (out, states) = both_ways_from(data, (ctr0, acc0), |s, io| {
                        gcm_stitched(arm, eor3, dec, &hk, s, io)
                    });
                    let what = if dec { "decrypt" } else { "encrypt" };
                    for (c, a) in states {
                        assert_eq!(c, want_ctr, "{what} counter, {n} blocks");
                        assert_eq!(a, want_acc, "{what} GHASH, {n} blocks, eor3 {eor3}");
                    }
                    out
                };
                let ct = stitched(false, pt);
                assert_eq!(ct, want_ct, "encrypt, {n} blocks, eor3 {eor3}");
                assert_eq!(stitched(true, &ct), pt, "decrypt, {n} blocks, eor3 {eor3}");
            }
        }
    });
}

#[test]
fn xts_kernels_match_reference() {
    each_case(900, |arm, _, n, pt| {
        // A tweak with the top bit set, so the first doubling reduces.
        let mut t0 = block(950 + n as u64);
        t0[15] |= 0x80;
        // Reference: C_j = E(P_j ^ T_j) ^ T_j through this backend's ECB.
        let mut want = pt.to_vec();
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
        for &eor3 in flavours(arm) {
            let run = |dec: bool, data: &[u8]| {
                let (out, tweaks) =
                    both_ways_from(data, t0, |tw, io| xts_kernel(arm, eor3, dec, tw, io));
                for tw in tweaks {
                    assert_eq!(tw, want_t, "next tweak, {n} blocks");
                }
                out
            };
            let ct = run(false, pt);
            assert_eq!(ct, want, "xts encrypt, {n} blocks, eor3 {eor3}");
            assert_eq!(run(true, &ct), pt, "xts decrypt, {n} blocks, eor3 {eor3}");
        }
    });
}

/// One operation through the public API, on a buffer.
type Op<'a> = (&'a str, &'a dyn Fn(&mut [u8]));

/// A key forced to `armv8` through the public API reaches this backend's own
/// kernels (debug builds count kernel entries; see `backend::kernels::trace`).
#[test]
fn forced_armv8_runs_armv8_kernels() {
    use crate::backend::{kernels::trace, Backend};
    use crate::{Cbc, Ctr, Ecb};
    if !super::available() || !trace::enabled() {
        return;
    }
    let count = |op: &str| trace::count(&format!("armv8::{op}")).expect("armv8 counter");
    for key in [&[9u8; 16][..], &[9u8; 24], &[9u8; 32]] {
        let mut buf = vec![0x3cu8; 16 * 37];
        let ecb = Ecb::with_backend(key, Backend::Armv8).unwrap();
        let cbc = Cbc::with_backend(key, Backend::Armv8).unwrap();
        let ops: [Op<'_>; 5] = [
            ("encrypt_blocks", &|b| ecb.encrypt_in_place(b).unwrap()),
            ("decrypt_blocks", &|b| ecb.decrypt_in_place(b).unwrap()),
            ("cbc_encrypt", &|b| {
                cbc.encrypt_in_place(&[1; 16], b).unwrap()
            }),
            ("cbc_decrypt", &|b| {
                cbc.decrypt_in_place(&[1; 16], b).unwrap()
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
