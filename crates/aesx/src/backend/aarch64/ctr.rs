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
use crate::backend::cpu::{ArmCrypto, ArmSha3};
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

/// `a ^ b ^ c` in two EORs (baseline Armv8).
macro_rules! xor3_eor2 {
    ($a:expr, $b:expr, $c:expr) => {
        veorq_u8(veorq_u8($a, $b), $c)
    };
}

/// `a ^ b ^ c` in one EOR3 (FEAT_SHA3).
macro_rules! xor3_eor3 {
    ($a:expr, $b:expr, $c:expr) => {
        veor3q_u8($a, $b, $c)
    };
}

/// Defines a CTR kernel for the target features `$features`, combining
/// keystream, last round key and data with `$xor3`. The last round's key XOR
/// is deferred (`encrypt_lanes_open!`) and merged with the data XOR: one
/// EOR3, or two EORs of which the `data ^ k[R]` one is off the AES chain.
macro_rules! ctr_kernel {
    ($(#[$doc:meta])* $name:ident, $features:literal, $tok:ident, $xor3:ident) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const R: usize>(
            k: &ArmAes,
            _: $tok,
            ctr: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            let key = &k.enc;
            let last = key[R];
            let mut c = u128::from_be_bytes(*ctr);
            let one = vcombine_u64(vcreate_u64(0), vcreate_u64(1));
            let mut i = 0;
            while i + LANES <= n {
                let mut b = [vdupq_n_u8(0); LANES];
                if (c as u64) <= u64::MAX - (LANES as u64 - 1) {
                    // Low halves c..c+7 do not wrap: lane-wise adds are exact.
                    let mut v =
                        vcombine_u64(vcreate_u64((c >> 64) as u64), vcreate_u64(c as u64));
                    for x in b.iter_mut() {
                        *x = vrev64q_u8(vreinterpretq_u8_u64(v));
                        v = vaddq_u64(v, one);
                    }
                } else {
                    for (j, x) in b.iter_mut().enumerate() {
                        *x = counter_block(c.wrapping_add(j as u128));
                    }
                }
                encrypt_lanes_open!(key, R, b);
                for (j, x) in b.iter().enumerate() {
                    // SAFETY: blocks i..i+LANES lie inside both regions
                    // (i + LANES <= n); each block is loaded before the
                    // store to it.
                    unsafe {
                        let d = vld1q_u8(src.add(16 * (i + j)));
                        vst1q_u8(dst.add(16 * (i + j)), $xor3!(d, last, *x));
                    }
                }
                c = c.wrapping_add(LANES as u128);
                i += LANES;
            }
            while i < n {
                let mut b = [counter_block(c)];
                encrypt_lanes_open!(key, R, b);
                // SAFETY: block i < n lies inside both regions; load before
                // store.
                unsafe {
                    let d = vld1q_u8(src.add(16 * i));
                    vst1q_u8(dst.add(16 * i), $xor3!(d, last, b[0]));
                }
                c = c.wrapping_add(1);
                i += 1;
            }
            *ctr = c.to_be_bytes();
        }
    };
}

ctr_kernel!(
    /// XORs the keystream from counter block `ctr` into whole blocks; `ctr`
    /// advances by the number of blocks.
    ctr_apply,
    "aes",
    ArmCrypto,
    xor3_eor2
);

ctr_kernel!(
    /// As [`ctr_apply`], with EOR3 merging keystream, last key and data.
    ctr_apply_eor3,
    "aes,sha3",
    ArmSha3,
    xor3_eor3
);
