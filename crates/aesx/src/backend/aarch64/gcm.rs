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
    bytes_from_swapped, load_swapped, mul, mul_acc, mul_acc_eor3, mul_eor3, reduce, reduce_eor3,
    swapped_from_bytes, ArmHKey, Partial, POWERS,
};
use super::ArmAes;
use crate::backend::cpu::{ArmCrypto, ArmSha3};
use crate::backend::gcm_kernels::GcmKernels;
use crate::backend::inout::InOut;
use crate::key::Block;

/// `a ^ b ^ c` on bytes, two EORs.
macro_rules! xor3_bytes_eor2 {
    ($a:expr, $b:expr, $c:expr) => {
        veorq_u8(veorq_u8($a, $b), $c)
    };
}

/// `a ^ b ^ c` on bytes, one EOR3.
macro_rules! xor3_bytes_eor3 {
    ($a:expr, $b:expr, $c:expr) => {
        veor3q_u8($a, $b, $c)
    };
}

/// Hashes 8 blocks at `p` (swapped on load) into the running hash `y`.
macro_rules! ghash8 {
    ($hk:expr, $y:ident, $p:expr, $mul:ident, $mul_acc:ident, $reduce:ident) => {{
        let hk: &ArmHKey = $hk;
        let p: *const u8 = $p;
        // SAFETY: the caller's loop keeps 8 blocks at `p` readable.
        let x0 = veorq_u64($y, unsafe { load_swapped(p, 0) });
        let mut part: Partial = $mul(x0, hk.k[POWERS - 1], hk.kx[POWERS - 1]);
        for j in 1..POWERS {
            // SAFETY: as above.
            let x = unsafe { load_swapped(p, j) };
            $mul_acc(&mut part, x, hk.k[POWERS - 1 - j], hk.kx[POWERS - 1 - j]);
        }
        $y = $reduce(part);
    }};
}

/// Defines the CTR32 and stitched GCM kernels for one set of target
/// features and XOR3 flavour.
macro_rules! gcm_kernels {
    (
        $features:literal, $tok:ident, $xor3:ident, $mul:ident, $mul_acc:ident, $reduce:ident,
        $update:path, $ctr32:ident, $encrypt:ident, $decrypt:ident
    ) => {
        /// XORs the CTR32 keystream from `ctr` into whole blocks; `ctr`
        /// advances by the number of blocks (mod 2^32 in its last word).
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $ctr32<const R: usize>(
            k: &ArmAes,
            _: $tok,
            ctr: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            let key = &k.enc;
            let last = key[R];
            // SAFETY: `ctr` is 16 readable bytes.
            let mut base = vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(ctr.as_ptr()) }));
            let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
            let mut i = 0;
            while i + LANES <= n {
                let mut b = [vdupq_n_u8(0); LANES];
                for x in b.iter_mut() {
                    *x = vrev32q_u8(vreinterpretq_u8_u32(base));
                    base = vaddq_u32(base, one);
                }
                encrypt_lanes_open!(key, R, b);
                for (j, x) in b.iter().enumerate() {
                    // SAFETY: blocks i..i+8 lie inside both regions; each is
                    // loaded before it is stored.
                    unsafe {
                        let d = vld1q_u8(src.add(16 * (i + j)));
                        vst1q_u8(dst.add(16 * (i + j)), $xor3!(d, last, *x));
                    }
                }
                i += LANES;
            }
            while i < n {
                let mut b = [vrev32q_u8(vreinterpretq_u8_u32(base))];
                base = vaddq_u32(base, one);
                encrypt_lanes_open!(key, R, b);
                // SAFETY: block i < n lies inside both regions; load before
                // store.
                unsafe {
                    let d = vld1q_u8(src.add(16 * i));
                    vst1q_u8(dst.add(16 * i), $xor3!(d, last, b[0]));
                }
                i += 1;
            }
            // SAFETY: `ctr` is 16 writable bytes.
            unsafe { vst1q_u8(ctr.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(base))) };
        }

        /// Encrypts whole blocks with CTR32 from `ctr` and hashes the
        /// ciphertext into `acc`.
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $encrypt<const R: usize>(
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
            // SAFETY: `ctr` is 16 readable bytes.
            let mut base = vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(ctr.as_ptr()) }));
            // SAFETY: `acc` is 16 readable bytes.
            let mut y = swapped_from_bytes(unsafe { vld1q_u8(acc.as_ptr()) });
            let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
            let mut i = 0;
            while i < whole {
                let mut b = [vdupq_n_u8(0); LANES];
                for x in b.iter_mut() {
                    *x = vrev32q_u8(vreinterpretq_u8_u32(base));
                    base = vaddq_u32(base, one);
                }
                if i > 0 {
                    // The previous batch's ciphertext, stored last iteration.
                    // SAFETY: blocks i-8..i of the output were written.
                    let prev = unsafe { dst.add(16 * (i - LANES)) };
                    ghash8!(hk, y, prev, $mul, $mul_acc, $reduce);
                }
                encrypt_lanes_open!(key, R, b);
                for (j, x) in b.iter().enumerate() {
                    // SAFETY: blocks i..i+8 lie inside both regions (i + 8
                    // <= whole <= n); each is loaded before it is stored.
                    unsafe {
                        let d = vld1q_u8(src.add(16 * (i + j)));
                        vst1q_u8(dst.add(16 * (i + j)), $xor3!(d, last, *x));
                    }
                }
                i += LANES;
            }
            if whole > 0 {
                // SAFETY: blocks whole-8..whole of the output were written.
                let prev = unsafe { dst.add(16 * (whole - LANES)) };
                ghash8!(hk, y, prev, $mul, $mul_acc, $reduce);
            }
            // SAFETY: `ctr` and `acc` are 16 writable bytes.
            unsafe {
                vst1q_u8(ctr.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(base)));
                vst1q_u8(acc.as_mut_ptr(), bytes_from_swapped(y));
            }
            if whole < n {
                let (_, mut rest) = io.split_at(16 * whole);
                // SAFETY: the callees need only this function's features.
                // `rest`'s output region is `rest.len()` initialised bytes
                // (the caller's buffer) that `$ctr32` just wrote; the shared
                // slice over it is dropped before anything writes there again.
                unsafe {
                    $ctr32::<R>(k, tok, ctr, rest.reborrow());
                    let out = core::slice::from_raw_parts(rest.dst_ptr(), rest.len());
                    $update(tok, hk, acc, out);
                }
            }
        }

        /// Hashes whole ciphertext blocks into `acc` and decrypts them with
        /// CTR32 from `ctr`.
        ///
        /// # Safety
        /// The CPU must have the target features named above; the token
        /// argument (`ArmCrypto` for "aes", `ArmSha3` for "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $decrypt<const R: usize>(
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
            // SAFETY: `ctr` is 16 readable bytes.
            let mut base = vreinterpretq_u32_u8(vrev32q_u8(unsafe { vld1q_u8(ctr.as_ptr()) }));
            // SAFETY: `acc` is 16 readable bytes.
            let mut y = swapped_from_bytes(unsafe { vld1q_u8(acc.as_ptr()) });
            let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
            let mut i = 0;
            while i < whole {
                let mut b = [vdupq_n_u8(0); LANES];
                for x in b.iter_mut() {
                    *x = vrev32q_u8(vreinterpretq_u8_u32(base));
                    base = vaddq_u32(base, one);
                }
                // SAFETY: blocks i..i+8 of the input are readable; nothing of
                // this batch has been stored yet.
                ghash8!(hk, y, unsafe { src.add(16 * i) }, $mul, $mul_acc, $reduce);
                encrypt_lanes_open!(key, R, b);
                for (j, x) in b.iter().enumerate() {
                    // SAFETY: blocks i..i+8 lie inside both regions; each is
                    // loaded before it is stored.
                    unsafe {
                        let d = vld1q_u8(src.add(16 * (i + j)));
                        vst1q_u8(dst.add(16 * (i + j)), $xor3!(d, last, *x));
                    }
                }
                i += LANES;
            }
            // SAFETY: `ctr` and `acc` are 16 writable bytes.
            unsafe {
                vst1q_u8(ctr.as_mut_ptr(), vrev32q_u8(vreinterpretq_u8_u32(base)));
                vst1q_u8(acc.as_mut_ptr(), bytes_from_swapped(y));
            }
            if whole < n {
                let (_, mut rest) = io.split_at(16 * whole);
                // SAFETY: the callees need only this function's features.
                // `rest`'s input region is `rest.len()` readable bytes; the
                // shared slice over it is last used (the ciphertext hashed)
                // before `$ctr32` writes the output, which may be the same
                // memory.
                unsafe {
                    let input = core::slice::from_raw_parts(rest.src_ptr(), rest.len());
                    $update(tok, hk, acc, input);
                    $ctr32::<R>(k, tok, ctr, rest.reborrow());
                }
            }
        }
    };
}

gcm_kernels!(
    "aes",
    ArmCrypto,
    xor3_bytes_eor2,
    mul,
    mul_acc,
    reduce,
    super::ghash::ghash_update,
    ctr32_apply,
    gcm_encrypt,
    gcm_decrypt
);

gcm_kernels!(
    "aes,sha3",
    ArmSha3,
    xor3_bytes_eor3,
    mul_eor3,
    mul_acc_eor3,
    reduce_eor3,
    super::ghash::ghash_update_eor3,
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
        unsafe { super::ghash::hkey(self) }
    }

    fn ghash_update(&self, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
        if let Some(sha3) = self.sha3() {
            // SAFETY: see above.
            unsafe { super::ghash::ghash_update_eor3(sha3, hk, acc, data) }
        } else {
            // SAFETY: see above.
            unsafe { super::ghash::ghash_update(self.crypto(), hk, acc, data) }
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
