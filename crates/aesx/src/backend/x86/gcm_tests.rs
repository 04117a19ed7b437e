//! The stitched GCM kernels of every x86 level against the soft backend,
//! called directly with chosen counter blocks: the main loops derive their
//! counter blocks from the counter's low bits (byte-order tricks that hold
//! only between carries), so the starting counters here sit on every
//! alignment, just below a carry out of the last byte, and just below the
//! 2^32 wrap, with block counts on both sides of each loop's step.

use super::key::{Level, X86Aes};
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::backend::soft::SoftAes;
use crate::key::{Block, RoundKeys};

/// The low counter words tried: every residue mod 32 near zero, the last
/// byte about to carry, and the 32-bit wrap.
fn low_words() -> Vec<u32> {
    let mut v: Vec<u32> = (0..33).collect();
    v.extend([
        0xd9, 0xe7, 0xf0, 0xf7, 0xf8, 0xf9, 0xfe, 0xff, 0x1f8, 0xfff8,
    ]);
    v.extend((1..=33).map(|k| 0u32.wrapping_sub(k)));
    v
}

/// Block counts: every count up to three zmm steps and a few past it.
fn block_counts() -> Vec<usize> {
    let mut v: Vec<usize> = (0..=100).collect();
    v.extend([127, 128, 129, 255, 256, 257, 300]);
    v
}

fn check_level(level: Level, key: &[u8]) {
    let rk = RoundKeys::expand(key).unwrap();
    let x86 = X86Aes::new(level, &rk);
    let soft = SoftAes::new(&rk);
    let (hx, hs) = (x86.ghash_key(), soft.ghash_key());
    let max = 300 * 16;
    let pt: Vec<u8> = (0..max).map(|i| (i * 7 + 3) as u8).collect();
    let acc0: Block = core::array::from_fn(|i| (i * 29 + 1) as u8);
    for low in low_words() {
        let mut ctr0: Block = core::array::from_fn(|i| (i * 13 + 5) as u8);
        ctr0[12..].copy_from_slice(&low.to_be_bytes());
        for n in block_counts() {
            let data = &pt[..16 * n];
            let (mut want_ctr, mut want_acc) = (ctr0, acc0);
            let mut want = data.to_vec();
            soft.gcm_encrypt(
                &hs,
                &mut want_ctr,
                &mut want_acc,
                InOut::in_place(&mut want),
            );

            // Encrypt out of place, decrypt in place.
            let (mut ctr, mut acc) = (ctr0, acc0);
            let mut out = vec![0u8; data.len()];
            x86.gcm_encrypt(&hx, &mut ctr, &mut acc, InOut::new(data, &mut out).unwrap());
            let what = format!("{level:?} low {low:#x} blocks {n}");
            assert_eq!(out, want, "encrypt, {what}");
            assert_eq!((ctr, acc), (want_ctr, want_acc), "encrypt state, {what}");

            let (mut ctr, mut acc) = (ctr0, acc0);
            x86.gcm_decrypt(&hx, &mut ctr, &mut acc, InOut::in_place(&mut out));
            assert_eq!(out, data, "decrypt, {what}");
            assert_eq!((ctr, acc), (want_ctr, want_acc), "decrypt state, {what}");
        }
    }
}

#[test]
fn stitched_gcm_matches_soft_at_every_counter_alignment() {
    for tier in 0..3 {
        let Some(level) = Level::detect(tier) else {
            continue;
        };
        for key in [&[0x5au8; 16][..], &[0xa5u8; 32][..]] {
            check_level(level, key);
        }
    }
}
