//! XTS (IEEE 1619) over whole blocks with the data key, 8 blocks at a time.
//!
//! The tweak sequence T, T*x, T*x^2, ... is computed in general registers
//! (a 128-bit shift and a masked XOR of 0x87, no branch on the secret top
//! bit) and moved into vectors: the vector pipes are what limits AES on
//! every current core, so the tweak arithmetic goes to the integer pipes,
//! which are otherwise idle here. Per block the vector work is the rounds
//! plus two XORs: `T ^ k[0]` enters as the first AESE's key operand (AESE
//! XORs its operands first), and the output whitening `^ T` merges with the
//! last round key, in one EOR3 where FEAT_SHA3 is present.

use core::arch::aarch64::*;

use super::blocks::LANES;
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::xts::XtsKernels;
use crate::key::Block;

/// T * x in GF(2^128), IEEE 1619 bit order (little-endian), by mask.
#[inline(always)]
fn mul_x(t: u128) -> u128 {
    (t << 1) ^ (0u128.wrapping_sub(t >> 127) & 0x87)
}

/// The XTS body for `state_kernels!`: rounds of direction `$dir` with the
/// schedule `$keys`.
macro_rules! xts_body {
    ($k:ident, $r:ident, $tweak:ident, $n:ident, $src:ident, $dst:ident, $xor3:ident, $dir:tt, $keys:ident) => {{
        let key = &$k.$keys;
        let (k0, last) = (key[0], key[$r]);
        let mut t = u128::from_le_bytes(*$tweak);
        let mut i = 0;
        while i + LANES <= $n {
            let mut tw = [vdupq_n_u8(0); LANES];
            for x in tw.iter_mut() {
                *x = vreinterpretq_u8_p128(t);
                t = mul_x(t);
            }
            let mut b = [vdupq_n_u8(0); LANES];
            for (j, x) in b.iter_mut().enumerate() {
                // SAFETY: blocks i..i+8 lie inside the input (i + 8 <= n).
                let d = unsafe { vld1q_u8($src.add(16 * (i + j))) };
                *x = round!($dir, d, veorq_u8(tw[j], k0));
            }
            rounds_after_first!($dir, key, $r, b);
            for (j, x) in b.iter().enumerate() {
                let y = last_round!($dir, *x, key[$r - 1]);
                // SAFETY: as for the loads, in the output; all loads of
                // the batch came before the first store.
                unsafe { vst1q_u8($dst.add(16 * (i + j)), $xor3!(y, last, tw[j])) };
            }
            i += LANES;
        }
        while i < $n {
            let tv = vreinterpretq_u8_p128(t);
            // SAFETY: block i < n lies inside both regions; load before
            // store.
            let d = unsafe { vld1q_u8($src.add(16 * i)) };
            let mut b = [round!($dir, d, veorq_u8(tv, k0))];
            rounds_after_first!($dir, key, $r, b);
            let y = last_round!($dir, b[0], key[$r - 1]);
            // SAFETY: as above.
            unsafe { vst1q_u8($dst.add(16 * i), $xor3!(y, last, tv)) };
            t = mul_x(t);
            i += 1;
        }
        *$tweak = t.to_le_bytes();
    }};
}

state_kernels!(
    /// XTS-encrypts whole blocks from the encrypted tweak `state`, which
    /// becomes the tweak of the next block.
    xts_encrypt;
    /// As [`xts_encrypt`], with EOR3.
    xts_encrypt_eor3;
    xts_body, enc, enc
);
state_kernels!(
    /// XTS-decrypts whole blocks; the tweak `state` advances as in
    /// [`xts_encrypt`].
    xts_decrypt;
    /// As [`xts_decrypt`], with EOR3.
    xts_decrypt_eor3;
    xts_body, dec, dec
);

// SAFETY (all calls below): `self` holds the `ArmCrypto` token (FEAT_AES),
// which the plain kernels are handed; the EOR3 flavours are handed its
// `ArmSha3` token (FEAT_SHA3), taken from `self.sha3()`. The sector kernels
// are the trait's: one tweak encryption batch per group of sectors, each
// sector through these kernels.
impl XtsKernels for ArmAes {
    fn xts_encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { by_rounds!(self, xts_encrypt_eor3, sha3, tweak, io) }
        } else {
            // SAFETY: see above.
            unsafe { by_rounds!(self, xts_encrypt, self.crypto(), tweak, io) }
        }
    }

    fn xts_decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { by_rounds!(self, xts_decrypt_eor3, sha3, tweak, io) }
        } else {
            // SAFETY: see above.
            unsafe { by_rounds!(self, xts_decrypt, self.crypto(), tweak, io) }
        }
    }
}
