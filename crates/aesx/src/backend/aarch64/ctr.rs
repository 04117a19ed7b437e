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
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::inout::InOut;
use crate::key::Block;

/// The counter block `c` as big-endian bytes in a vector.
#[inline]
#[target_feature(enable = "aes")]
fn counter_block(c: u128) -> uint8x16_t {
    let hi = vcreate_u64((c >> 64) as u64);
    let lo = vcreate_u64(c as u64);
    vrev64q_u8(vreinterpretq_u8_u64(vcombine_u64(hi, lo)))
}

/// The CTR body for `state_kernels!`: keystream, last round key and data
/// combined with `$xor3`. The last round's key XOR is deferred
/// (`lanes_open!`) and merged with the data XOR: one EOR3, or two EORs of
/// which the `data ^ k[R]` one is off the AES chain.
macro_rules! ctr_body {
    ($k:ident, $r:ident, $ctr:ident, $n:ident, $src:ident, $dst:ident, $xor3:ident) => {{
        let key = &$k.enc;
        let last = key[$r];
        let mut c = u128::from_be_bytes(*$ctr);
        let one = vcombine_u64(vcreate_u64(0), vcreate_u64(1));
        let mut i = 0;
        while i + LANES <= $n {
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
            lanes_open!(enc, key, $r, b);
            // SAFETY: blocks i..i+LANES lie inside both regions (i + LANES
            // <= n).
            unsafe { xor_keystream!($xor3, $src, $dst, i, last, b) };
            c = c.wrapping_add(LANES as u128);
            i += LANES;
        }
        while i < $n {
            let mut b = [counter_block(c)];
            lanes_open!(enc, key, $r, b);
            // SAFETY: block i < n lies inside both regions.
            unsafe { xor_keystream!($xor3, $src, $dst, i, last, b) };
            c = c.wrapping_add(1);
            i += 1;
        }
        *$ctr = c.to_be_bytes();
    }};
}

state_kernels!(
    /// XORs the keystream from counter block `state` into whole blocks;
    /// the counter advances by the number of blocks.
    ctr_apply;
    /// As [`ctr_apply`], with EOR3 merging keystream, last key and data.
    ctr_apply_eor3;
    ctr_body
);
