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
use crate::backend::cpu::{ArmCrypto, ArmSha3};
use crate::backend::inout::InOut;
use crate::backend::xts_kernels::XtsKernels;
use crate::key::Block;

/// T * x in GF(2^128), IEEE 1619 bit order (little-endian), by mask.
#[inline(always)]
fn mul_x(t: u128) -> u128 {
    (t << 1) ^ (0u128.wrapping_sub(t >> 127) & 0x87)
}

/// `a ^ b ^ c` on bytes, two EORs.
macro_rules! xts_xor3_eor2 {
    ($a:expr, $b:expr, $c:expr) => {
        veorq_u8(veorq_u8($a, $b), $c)
    };
}

/// `a ^ b ^ c` on bytes, one EOR3.
macro_rules! xts_xor3_eor3 {
    ($a:expr, $b:expr, $c:expr) => {
        veor3q_u8($a, $b, $c)
    };
}

/// Middle rounds 1..R-1 (keys `k[1..=R-2]`) after a first round that the
/// caller has already done.
macro_rules! rounds_after_first {
    ($round:ident, $k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        $round!(k[1], $b);
        $round!(k[2], $b);
        $round!(k[3], $b);
        $round!(k[4], $b);
        $round!(k[5], $b);
        $round!(k[6], $b);
        $round!(k[7], $b);
        $round!(k[8], $b);
        if $r >= 12 {
            $round!(k[9], $b);
            $round!(k[10], $b);
        }
        if $r >= 14 {
            $round!(k[11], $b);
            $round!(k[12], $b);
        }
    }};
}

/// Defines one XTS kernel: `$first`/`$mix` are the AES or inverse round
/// instructions, `$keys` the schedule field, `$round` the middle-round macro.
macro_rules! xts_kernel {
    (
        $(#[$doc:meta])* $name:ident, $features:literal, $tok:ident, $xor3:ident,
        $keys:ident, $first:ident, $mix:ident, $round:ident
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const R: usize>(
            k: &ArmAes,
            _: $tok,
            tweak: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            let key = &k.$keys;
            let (k0, last) = (key[0], key[R]);
            let mut t = u128::from_le_bytes(*tweak);
            let mut i = 0;
            while i + LANES <= n {
                let mut tw = [vdupq_n_u8(0); LANES];
                for x in tw.iter_mut() {
                    *x = vreinterpretq_u8_p128(t);
                    t = mul_x(t);
                }
                let mut b = [vdupq_n_u8(0); LANES];
                for (j, x) in b.iter_mut().enumerate() {
                    // SAFETY: blocks i..i+8 lie inside the input (i + 8 <= n).
                    let d = unsafe { vld1q_u8(src.add(16 * (i + j))) };
                    *x = $mix($first(d, veorq_u8(tw[j], k0)));
                }
                rounds_after_first!($round, key, R, b);
                for (j, x) in b.iter().enumerate() {
                    let y = $first(*x, key[R - 1]);
                    // SAFETY: as for the loads, in the output; all loads of
                    // the batch came before the first store.
                    unsafe { vst1q_u8(dst.add(16 * (i + j)), $xor3!(y, last, tw[j])) };
                }
                i += LANES;
            }
            while i < n {
                let tv = vreinterpretq_u8_p128(t);
                // SAFETY: block i < n lies inside both regions; load before
                // store.
                let d = unsafe { vld1q_u8(src.add(16 * i)) };
                let mut b = [$mix($first(d, veorq_u8(tv, k0)))];
                rounds_after_first!($round, key, R, b);
                let y = $first(b[0], key[R - 1]);
                // SAFETY: as above.
                unsafe { vst1q_u8(dst.add(16 * i), $xor3!(y, last, tv)) };
                t = mul_x(t);
                i += 1;
            }
            *tweak = t.to_le_bytes();
        }
    };
}

xts_kernel!(
    /// XTS-encrypts whole blocks from the encrypted tweak `tweak`, which
    /// becomes the tweak of the next block.
    xts_encrypt, "aes", ArmCrypto, xts_xor3_eor2, enc, vaeseq_u8, vaesmcq_u8, enc_round
);
xts_kernel!(
    /// As [`xts_encrypt`], with EOR3.
    xts_encrypt_eor3, "aes,sha3", ArmSha3, xts_xor3_eor3, enc, vaeseq_u8, vaesmcq_u8, enc_round
);
xts_kernel!(
    /// XTS-decrypts whole blocks; `tweak` advances as in [`xts_encrypt`].
    xts_decrypt, "aes", ArmCrypto, xts_xor3_eor2, dec, vaesdq_u8, vaesimcq_u8, dec_round
);
xts_kernel!(
    /// As [`xts_decrypt`], with EOR3.
    xts_decrypt_eor3, "aes,sha3", ArmSha3, xts_xor3_eor3, dec, vaesdq_u8, vaesimcq_u8, dec_round
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
