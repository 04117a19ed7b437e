//! GCM bulk kernels: CTR32 keystream and the stitched CTR32 + GHASH passes.
//!
//! GCM's counter (SP 800-38D inc32) increments only the last 32 bits, big
//! endian, modulo 2^32. The counter block is kept as four native 32-bit
//! lanes (`REV32` of the block); a block's counter is one lane-wise ADD and
//! one `REV32` back, and the lane-wise add wraps modulo 2^32 by itself, so
//! unlike the 128-bit CTR there is no carry case at all.
//!
//! Stitching: per 8 blocks, the AES rounds (AESE/AESMC) and the GHASH
//! multiplies (PMULL) are independent work for different units, placed in
//! one loop body so that an out-of-order core runs them side by side. When
//! decrypting, the ciphertext is there from the start and is hashed in the
//! same iteration as it is decrypted. When encrypting, the ciphertext of a
//! batch only exists after its AES, so each iteration hashes the previous
//! batch's ciphertext (read back from the output, where it was just stored)
//! while it encrypts the current one; the last batch is hashed after the
//! loop.

use core::arch::aarch64::*;

use super::blocks::LANES;
use super::ghash::{
    self, acc_load, acc_store, base, ghash_blocks, load_swapped, sha3, ArmHKey, Partial, POWERS,
};
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::key::Block;

/// The counter block `ctr` as four native 32-bit lanes (`REV32`).
#[inline]
#[target_feature(enable = "aes")]
fn ctr32_load(ctr: &Block) -> uint32x4_t {
    // SAFETY: `ctr` is 16 readable bytes.
    vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(ctr.as_ptr()) }))
}

/// Stores the lanes `base` back into `ctr` as a counter block.
#[inline]
#[target_feature(enable = "aes")]
fn ctr32_store(base: uint32x4_t, ctr: &mut Block) {
    // SAFETY: `ctr` is 16 writable bytes.
    unsafe { vst1q_u8(ctr.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(base))) };
}

/// Fills the array `$b` with the next counter blocks from the lanes `$base`
/// (one ADD of `$one` and one REV32 per block), advancing `$base`.
macro_rules! ctr32_lanes {
    ($base:ident, $one:ident, $b:ident) => {
        for x in $b.iter_mut() {
            *x = vrev32q_u8(vreinterpretq_u8_u32($base));
            $base = vaddq_u32($base, $one);
        }
    };
}

/// The CTR32 body for `state_kernels!`: as `ctr_body!` in `ctr.rs`, with the
/// 32-bit counter.
macro_rules! ctr32_body {
    ($k:ident, $r:ident, $ctr:ident, $n:ident, $src:ident, $dst:ident, $xor3:ident) => {{
        let key = &$k.enc;
        let last = key[$r];
        let mut base = ctr32_load($ctr);
        let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
        let mut i = 0;
        while i + LANES <= $n {
            let mut b = [vdupq_n_u8(0); LANES];
            ctr32_lanes!(base, one, b);
            lanes_open!(enc, key, $r, b);
            // SAFETY: blocks i..i+8 lie inside both regions.
            unsafe { xor_keystream!($xor3, $src, $dst, i, last, b) };
            i += LANES;
        }
        while i < $n {
            let mut b = [vdupq_n_u8(0)];
            ctr32_lanes!(base, one, b);
            lanes_open!(enc, key, $r, b);
            // SAFETY: block i < n lies inside both regions.
            unsafe { xor_keystream!($xor3, $src, $dst, i, last, b) };
            i += 1;
        }
        ctr32_store(base, $ctr);
    }};
}

state_kernels!(
    /// XORs the CTR32 keystream from `state` into whole blocks; the counter
    /// advances by the number of blocks (mod 2^32 in its last word).
    ctr32_apply;
    /// As [`ctr32_apply`], with EOR3.
    ctr32_apply_eor3;
    ctr32_body
);

/// Defines the stitched GCM kernels for one set of target features, XOR3
/// flavour and GHASH flavour module `$fl`: `$encrypt` and `$decrypt` from
/// one body, in which `$dec`
/// (a literal, so the branches on it fold away) picks what is hashed and
/// when.
macro_rules! gcm_kernels {
    (
        $fl:ident, $features:literal, $tok:ident, $xor3:ident, $ctr32:ident, $encrypt:ident,
        $decrypt:ident
    ) => {
        gcm_kernels!(
            @stitched
            /// Encrypts whole blocks with CTR32 from `ctr` and hashes the
            /// ciphertext into `acc`.
            $encrypt, false,
            $fl, $features, $tok, $xor3, $ctr32
        );
        gcm_kernels!(
            @stitched
            /// Hashes whole ciphertext blocks into `acc` and decrypts them
            /// with CTR32 from `ctr`.
            $decrypt, true,
            $fl, $features, $tok, $xor3, $ctr32
        );
    };
    (
        @stitched $(#[$doc:meta])* $name:ident, $dec:literal,
        $fl:ident, $features:literal, $tok:ident, $xor3:ident, $ctr32:ident
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const R: usize>(
            k: &ArmAes,
            tok: $tok,
            hk: &ArmHKey,
            ctr: &mut Block,
            acc: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let whole = n - n % LANES;
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            let key = &k.enc;
            let last = key[R];
            let mut base = ctr32_load(ctr);
            let mut y = acc_load(acc);
            let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
            let mut i = 0;
            while i < whole {
                let mut b = [vdupq_n_u8(0); LANES];
                ctr32_lanes!(base, one, b);
                if $dec {
                    // SAFETY: blocks i..i+8 of the input are readable;
                    // nothing of this batch has been stored yet.
                    unsafe { ghash_blocks!(hk, y, src.add(16 * i), POWERS, $fl) };
                } else if i > 0 {
                    // The previous batch's ciphertext, stored last iteration.
                    // SAFETY: blocks i-8..i of the output were written.
                    unsafe {
                        let prev = dst.add(16 * (i - LANES));
                        ghash_blocks!(hk, y, prev, POWERS, $fl);
                    }
                }
                lanes_open!(enc, key, R, b);
                // SAFETY: blocks i..i+8 lie inside both regions (i + 8
                // <= whole <= n).
                unsafe { xor_keystream!($xor3, src, dst, i, last, b) };
                i += LANES;
            }
            if !$dec && whole > 0 {
                // SAFETY: blocks whole-8..whole of the output were written.
                unsafe {
                    let prev = dst.add(16 * (whole - LANES));
                    ghash_blocks!(hk, y, prev, POWERS, $fl);
                }
            }
            ctr32_store(base, ctr);
            acc_store(y, acc);
            if whole < n {
                let (_, mut rest) = io.split_at(16 * whole);
                if $dec {
                    // SAFETY: the callees need only this function's features.
                    // `rest`'s input region is `rest.len()` readable bytes;
                    // the shared slice over it is last used (the ciphertext
                    // hashed) before `$ctr32` writes the output, which may be
                    // the same memory.
                    unsafe {
                        let input = core::slice::from_raw_parts(rest.src_ptr(), rest.len());
                        $fl::update(tok, hk, acc, input);
                        $ctr32::<R>(k, tok, ctr, rest.reborrow());
                    }
                } else {
                    // SAFETY: the callees need only this function's features.
                    // `rest`'s output region is `rest.len()` initialised
                    // bytes (the caller's buffer) that `$ctr32` just wrote;
                    // the shared slice over it is dropped before anything
                    // writes there again.
                    unsafe {
                        $ctr32::<R>(k, tok, ctr, rest.reborrow());
                        let out = core::slice::from_raw_parts(rest.dst_ptr(), rest.len());
                        $fl::update(tok, hk, acc, out);
                    }
                }
            }
        }
    };
}

gcm_kernels!(
    base,
    "aes",
    ArmCrypto,
    xor3_eor2,
    ctr32_apply,
    gcm_encrypt,
    gcm_decrypt
);
gcm_kernels!(
    sha3,
    "aes,sha3",
    ArmSha3,
    xor3_eor3,
    ctr32_apply_eor3,
    gcm_encrypt_eor3,
    gcm_decrypt_eor3
);

// SAFETY (all calls below): `self` holds the `ArmCrypto` token (FEAT_AES and
// FEAT_PMULL), which the plain kernels are handed; the EOR3 flavours are
// handed its `ArmSha3` token (FEAT_SHA3), taken from `self.sha3()`.
impl GcmKernels for ArmAes {
    type HKey = ArmHKey;

    fn ghash_key(&self) -> ArmHKey {
        // SAFETY: see above.
        unsafe { ghash::hkey(self) }
    }

    fn ghash_update(&self, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { ghash::sha3::update(sha3, hk, acc, data) }
        } else {
            // SAFETY: see above.
            unsafe { ghash::base::update(self.crypto(), hk, acc, data) }
        }
    }

    fn ctr32_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { by_rounds!(self, ctr32_apply_eor3, sha3, ctr, io) }
        } else {
            // SAFETY: see above.
            unsafe { by_rounds!(self, ctr32_apply, self.crypto(), ctr, io) }
        }
    }

    fn gcm_encrypt(&self, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { by_rounds!(self, gcm_encrypt_eor3, sha3, hk, ctr, acc, io) }
        } else {
            // SAFETY: see above.
            unsafe { by_rounds!(self, gcm_encrypt, self.crypto(), hk, ctr, acc, io) }
        }
    }

    fn gcm_decrypt(&self, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { by_rounds!(self, gcm_decrypt_eor3, sha3, hk, ctr, acc, io) }
        } else {
            // SAFETY: see above.
            unsafe { by_rounds!(self, gcm_decrypt, self.crypto(), hk, ctr, acc, io) }
        }
    }
}
