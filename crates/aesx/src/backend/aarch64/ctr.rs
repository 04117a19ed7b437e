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
use super::rounds::{xor_keystream, Enc, Flavour};
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

/// The 8 counter blocks from `c`: one ADD and one REV64 each where the
/// low halves `c..c+7` do not wrap (lane-wise adds are then exact), else
/// each built from the full 128-bit value.
#[inline]
#[target_feature(enable = "aes")]
fn counters(c: u128) -> [uint8x16_t; LANES] {
    let mut b = [vdupq_n_u8(0); LANES];
    if (c as u64) <= u64::MAX - (LANES as u64 - 1) {
        let one = vcombine_u64(vcreate_u64(0), vcreate_u64(1));
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
    b
}

/// The CTR kernel body: keystream, last round key and data combined with
/// [`Flavour::xor3`]. The last round's key XOR is deferred
/// ([`ArmAes::lanes_open`]) and merged with the data XOR: one EOR3, or two
/// EORs of which the `data ^ k[R]` one is off the AES chain.
#[inline(always)]
fn ctr_body<X: Flavour, const R: usize>(x: X, k: &ArmAes, ctr: &mut Block, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let last = k.enc[R];
    let mut c = u128::from_be_bytes(*ctr);
    let mut i = 0;
    while i + LANES <= n {
        // SAFETY: the token `x` proves FEAT_AES.
        let mut b = unsafe { counters(c) };
        k.lanes_open::<Enc, R, LANES>(&mut b);
        // SAFETY: blocks i..i+LANES lie inside both regions (i + LANES <= n).
        unsafe { xor_keystream(x, src, dst, i, last, &b) };
        c = c.wrapping_add(LANES as u128);
        i += LANES;
    }
    while i < n {
        // SAFETY: the token `x` proves FEAT_AES.
        let mut b = [unsafe { counter_block(c) }];
        k.lanes_open::<Enc, R, 1>(&mut b);
        // SAFETY: block i < n lies inside both regions.
        unsafe { xor_keystream(x, src, dst, i, last, &b) };
        c = c.wrapping_add(1);
        i += 1;
    }
    *ctr = c.to_be_bytes();
}

flavours!(
    /// XORs the keystream from counter block `ctr` into whole blocks; the
    /// counter advances by the number of blocks.
    ctr_apply, ctr_apply_eor3 = ctr_body<R>(k: &ArmAes, ctr: &mut Block, io: InOut<'_>)
);
