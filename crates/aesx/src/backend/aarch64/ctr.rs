//! CTR with a 128-bit big-endian counter block wrapping modulo 2^128.
//!
//! The counter lives in a vector as two native 64-bit lanes `[high, low]`;
//! a block's counter is one ADD (lane-wise, `+ [0, j]`) and one REV64 (each
//! lane to big-endian bytes), two instructions per block, with no round trip
//! through general registers. That lane-wise add cannot carry from the low
//! half into the high one, so a batch whose low half would wrap (once per
//! 2^64 blocks, or when a caller starts near it) builds its counters from the
//! full 128-bit value instead. The choice depends only on the counter, which
//! is public, never on keys or data.

use core::arch::aarch64::*;

use super::blocks::LANES;
use super::ArmAes;
use crate::backend::inout::InOut;
use crate::key::Block;

/// The counter block `c` as big-endian bytes in a vector.
#[inline]
#[target_feature(enable = "aes")]
fn counter_block(c: u128) -> uint8x16_t {
    let hi = vcreate_u64((c >> 64) as u64);
    let lo = vcreate_u64(c as u64);
    vrev64q_u8(vreinterpretq_u8_u64(vcombine_u64(hi, lo)))
}

/// XORs the keystream from counter block `ctr` into whole blocks; `ctr`
/// advances by the number of blocks.
///
/// # Safety
/// The CPU must have FEAT_AES (guaranteed by holding an `ArmAes`).
#[target_feature(enable = "aes")]
pub(super) unsafe fn ctr_apply<const R: usize>(k: &ArmAes, ctr: &mut Block, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let key = &k.enc;
    let mut c = u128::from_be_bytes(*ctr);
    let one = vcombine_u64(vcreate_u64(0), vcreate_u64(1));
    let mut i = 0;
    while i + LANES <= n {
        let mut b = [vdupq_n_u8(0); LANES];
        if (c as u64) <= u64::MAX - (LANES as u64 - 1) {
            // Low halves c..c+7 do not wrap: lane-wise adds are exact.
            let mut v = vcombine_u64(vcreate_u64((c >> 64) as u64), vcreate_u64(c as u64));
            for x in b.iter_mut() {
                *x = vrev64q_u8(vreinterpretq_u8_u64(v));
                v = vaddq_u64(v, one);
            }
        } else {
            for (j, x) in b.iter_mut().enumerate() {
                *x = counter_block(c.wrapping_add(j as u128));
            }
        }
        encrypt_lanes!(key, R, b);
        for (j, x) in b.iter().enumerate() {
            // SAFETY: blocks i..i+LANES lie inside both regions (i + LANES
            // <= n); each block is loaded before the store to it.
            unsafe {
                let d = vld1q_u8(src.add(16 * (i + j)));
                vst1q_u8(dst.add(16 * (i + j)), veorq_u8(d, *x));
            }
        }
        c = c.wrapping_add(LANES as u128);
        i += LANES;
    }
    while i < n {
        let mut b = [counter_block(c)];
        encrypt_lanes!(key, R, b);
        // SAFETY: block i < n lies inside both regions; load before store.
        unsafe {
            let d = vld1q_u8(src.add(16 * i));
            vst1q_u8(dst.add(16 * i), veorq_u8(d, b[0]));
        }
        c = c.wrapping_add(1);
        i += 1;
    }
    *ctr = c.to_be_bytes();
}
