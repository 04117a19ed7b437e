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
use super::ghash::{self, acc_load, acc_store, ghash_blocks, ArmHKey, POWERS};
use super::rounds::{xor_keystream, Enc, Flavour};
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::key::{Block, KeySize};

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

/// The next `N` counter blocks from the lanes `base` (one ADD and one REV32
/// per block), advancing `base`.
#[inline]
#[target_feature(enable = "aes")]
fn ctr32_next<const N: usize>(base: &mut uint32x4_t) -> [uint8x16_t; N] {
    let one = vsetq_lane_u32::<3>(1, vdupq_n_u32(0));
    let mut b = [vdupq_n_u8(0); N];
    for x in b.iter_mut() {
        *x = vrev32q_u8(vreinterpretq_u8_u32(*base));
        *base = vaddq_u32(*base, one);
    }
    b
}

/// The CTR32 kernel body: as `ctr_body` in `ctr.rs`, with the 32-bit
/// counter.
#[inline(always)]
fn ctr32_body<X: Flavour, const R: usize>(x: X, k: &ArmAes, ctr: &mut Block, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let last = k.enc[R];
    // SAFETY: the token `x` proves FEAT_AES.
    let mut base = unsafe { ctr32_load(ctr) };
    let mut i = 0;
    while i + LANES <= n {
        // SAFETY: the token `x` proves FEAT_AES.
        let mut b = unsafe { ctr32_next::<LANES>(&mut base) };
        k.lanes_open::<Enc, R, LANES>(&mut b);
        // SAFETY: blocks i..i+LANES lie inside both regions (i + LANES <= n).
        unsafe { xor_keystream(x, src, dst, i, last, &b) };
        i += LANES;
    }
    while i < n {
        // SAFETY: the token `x` proves FEAT_AES.
        let mut b = unsafe { ctr32_next::<1>(&mut base) };
        k.lanes_open::<Enc, R, 1>(&mut b);
        // SAFETY: block i < n lies inside both regions.
        unsafe { xor_keystream(x, src, dst, i, last, &b) };
        i += 1;
    }
    // SAFETY: the token `x` proves FEAT_AES.
    unsafe { ctr32_store(base, ctr) };
}

flavours!(
    /// XORs the CTR32 keystream from `ctr` into whole blocks; the counter
    /// advances by the number of blocks (mod 2^32 in its last word).
    ctr32_apply, ctr32_apply_eor3 = ctr32_body<R>(k: &ArmAes, ctr: &mut Block, io: InOut<'_>)
);

/// The flavour's own CTR32 and GHASH kernels, which the stitched kernels
/// call for the blocks after the last whole batch.
trait Tail: Flavour {
    fn ctr32<const R: usize>(self, k: &ArmAes, ctr: &mut Block, io: InOut<'_>);
    fn ghash(self, hk: &ArmHKey, acc: &mut Block, data: &[u8]);
}

impl Tail for ArmCrypto {
    #[inline(always)]
    fn ctr32<const R: usize>(self, k: &ArmAes, ctr: &mut Block, io: InOut<'_>) {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES.
        unsafe { ctr32_apply::<R>(self, k, ctr, io) }
    }

    #[inline(always)]
    fn ghash(self, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES and FEAT_PMULL.
        unsafe { ghash::update(self, hk, acc, data) }
    }
}

impl Tail for ArmSha3 {
    #[inline(always)]
    fn ctr32<const R: usize>(self, k: &ArmAes, ctr: &mut Block, io: InOut<'_>) {
        // SAFETY: the `ArmSha3` token proves FEAT_AES and FEAT_SHA3.
        unsafe { ctr32_apply_eor3::<R>(self, k, ctr, io) }
    }

    #[inline(always)]
    fn ghash(self, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
        // SAFETY: the `ArmSha3` token proves FEAT_AES, FEAT_PMULL and
        // FEAT_SHA3.
        unsafe { ghash::update_eor3(self, hk, acc, data) }
    }
}

/// The stitched GCM body: encryption (`DEC` false) or decryption of whole
/// blocks with CTR32 from `ctr`, the ciphertext hashed into `acc`. `DEC`
/// is a constant, so the branches on it fold away.
#[inline(always)]
fn gcm_body<X: Tail, const R: usize, const DEC: bool>(
    x: X,
    k: &ArmAes,
    hk: &ArmHKey,
    ctr: &mut Block,
    acc: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let whole = n - n % LANES;
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let last = k.enc[R];
    // SAFETY: the token `x` proves FEAT_AES.
    let (mut base, mut y) = unsafe { (ctr32_load(ctr), acc_load(acc)) };
    let mut i = 0;
    while i < whole {
        // SAFETY: the token `x` proves FEAT_AES.
        let mut b = unsafe { ctr32_next::<LANES>(&mut base) };
        if DEC {
            // SAFETY: blocks i..i+8 of the input are readable; nothing of
            // this batch has been stored yet.
            y = unsafe { ghash_blocks(x, hk, y, src.add(16 * i), POWERS) };
        } else if i > 0 {
            // The previous batch's ciphertext, stored last iteration.
            // SAFETY: blocks i-8..i of the output were written.
            y = unsafe { ghash_blocks(x, hk, y, dst.add(16 * (i - LANES)), POWERS) };
        }
        k.lanes_open::<Enc, R, LANES>(&mut b);
        // SAFETY: blocks i..i+8 lie inside both regions (i + 8 <= whole <= n).
        unsafe { xor_keystream(x, src, dst, i, last, &b) };
        i += LANES;
    }
    if !DEC && whole > 0 {
        // SAFETY: blocks whole-8..whole of the output were written.
        y = unsafe { ghash_blocks(x, hk, y, dst.add(16 * (whole - LANES)), POWERS) };
    }
    // SAFETY: the token `x` proves FEAT_AES.
    unsafe { (ctr32_store(base, ctr), acc_store(y, acc)) };
    if whole < n {
        let (_, mut rest) = io.split_at(16 * whole);
        if DEC {
            // SAFETY: `rest`'s input region is `rest.len()` readable bytes;
            // the shared slice over it is last used (the ciphertext hashed)
            // before the CTR32 kernel writes the output, which may be the
            // same memory.
            let input = unsafe { core::slice::from_raw_parts(rest.src_ptr(), rest.len()) };
            x.ghash(hk, acc, input);
            x.ctr32::<R>(k, ctr, rest.reborrow());
        } else {
            x.ctr32::<R>(k, ctr, rest.reborrow());
            // SAFETY: `rest`'s output region is `rest.len()` initialised
            // bytes (the caller's buffer) that the CTR32 kernel just wrote;
            // the shared slice over it is dropped before anything writes
            // there again.
            let out = unsafe { core::slice::from_raw_parts(rest.dst_ptr(), rest.len()) };
            x.ghash(hk, acc, out);
        }
    }
}

/// Encryption body for `flavours!`.
#[inline(always)]
fn gcm_encrypt_body<X: Tail, const R: usize>(
    x: X,
    k: &ArmAes,
    hk: &ArmHKey,
    ctr: &mut Block,
    acc: &mut Block,
    io: InOut<'_>,
) {
    gcm_body::<X, R, false>(x, k, hk, ctr, acc, io)
}

/// Decryption body for `flavours!`.
#[inline(always)]
fn gcm_decrypt_body<X: Tail, const R: usize>(
    x: X,
    k: &ArmAes,
    hk: &ArmHKey,
    ctr: &mut Block,
    acc: &mut Block,
    io: InOut<'_>,
) {
    gcm_body::<X, R, true>(x, k, hk, ctr, acc, io)
}

flavours!(
    /// Encrypts whole blocks with CTR32 from `ctr` and hashes the
    /// ciphertext into `acc`.
    gcm_encrypt, gcm_encrypt_eor3 = gcm_encrypt_body<R>(
        k: &ArmAes, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>
    )
);
flavours!(
    /// Hashes whole ciphertext blocks into `acc` and decrypts them with
    /// CTR32 from `ctr`.
    gcm_decrypt, gcm_decrypt_eor3 = gcm_decrypt_body<R>(
        k: &ArmAes, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>
    )
);

impl GcmKernels for ArmAes {
    type HKey = ArmHKey;

    fn ghash_key(&self) -> ArmHKey {
        // SAFETY: `self.crypto` proves FEAT_AES and FEAT_PMULL.
        unsafe { ghash::hkey(self) }
    }

    fn ghash_update(&self, hk: &ArmHKey, acc: &mut Block, data: &[u8]) {
        match self.sha3 {
            Some(t) => t.ghash(hk, acc, data),
            None => self.crypto.ghash(hk, acc, data),
        }
    }

    fn ctr32_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        match (self.sha3, self.size) {
            (Some(t), KeySize::Aes128) => t.ctr32::<10>(self, ctr, io),
            (Some(t), KeySize::Aes192) => t.ctr32::<12>(self, ctr, io),
            (Some(t), KeySize::Aes256) => t.ctr32::<14>(self, ctr, io),
            (None, KeySize::Aes128) => self.crypto.ctr32::<10>(self, ctr, io),
            (None, KeySize::Aes192) => self.crypto.ctr32::<12>(self, ctr, io),
            (None, KeySize::Aes256) => self.crypto.ctr32::<14>(self, ctr, io),
        }
    }

    fn gcm_encrypt(&self, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        let c = self.crypto;
        // SAFETY: `self.crypto` proves FEAT_AES and FEAT_PMULL, and the
        // `ArmSha3` token handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => gcm_encrypt_eor3::<10>(t, self, hk, ctr, acc, io),
                (Some(t), KeySize::Aes192) => gcm_encrypt_eor3::<12>(t, self, hk, ctr, acc, io),
                (Some(t), KeySize::Aes256) => gcm_encrypt_eor3::<14>(t, self, hk, ctr, acc, io),
                (None, KeySize::Aes128) => gcm_encrypt::<10>(c, self, hk, ctr, acc, io),
                (None, KeySize::Aes192) => gcm_encrypt::<12>(c, self, hk, ctr, acc, io),
                (None, KeySize::Aes256) => gcm_encrypt::<14>(c, self, hk, ctr, acc, io),
            }
        }
    }

    fn gcm_decrypt(&self, hk: &ArmHKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        let c = self.crypto;
        // SAFETY: `self.crypto` proves FEAT_AES and FEAT_PMULL, and the
        // `ArmSha3` token handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => gcm_decrypt_eor3::<10>(t, self, hk, ctr, acc, io),
                (Some(t), KeySize::Aes192) => gcm_decrypt_eor3::<12>(t, self, hk, ctr, acc, io),
                (Some(t), KeySize::Aes256) => gcm_decrypt_eor3::<14>(t, self, hk, ctr, acc, io),
                (None, KeySize::Aes128) => gcm_decrypt::<10>(c, self, hk, ctr, acc, io),
                (None, KeySize::Aes192) => gcm_decrypt::<12>(c, self, hk, ctr, acc, io),
                (None, KeySize::Aes256) => gcm_decrypt::<14>(c, self, hk, ctr, acc, io),
            }
        }
    }
}
