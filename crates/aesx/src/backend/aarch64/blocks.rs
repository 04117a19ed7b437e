//! ECB and CBC kernels.
//!
//! Parallel work (ECB both ways, CBC decryption) runs 8 blocks at a time:
//! AESE+AESMC has a latency of 2 to 3 cycles on current cores and they issue
//! up to 4 AES operations per cycle (Neoverse V1/V2, Apple M1), so about 8
//! independent blocks are needed to keep the AES pipes full. CBC encryption
//! is one dependent chain and is bound by that latency, whatever we do.

use core::arch::aarch64::*;

use super::rounds::{zeros, Dec, Dir, Flavour};
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::inout::InOut;
use crate::key::Block;

/// Blocks in flight in the parallel kernels.
pub(super) const LANES: usize = 8;

/// ECB over whole blocks in direction `D` (encryption or decryption), 8
/// blocks at a time, then one at a time.
///
/// # Safety
/// The CPU must have FEAT_AES (guaranteed by holding an `ArmAes`).
#[target_feature(enable = "aes")]
pub(super) unsafe fn ecb<D: Dir, const R: usize>(k: &ArmAes, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let mut i = 0;
    while i + LANES <= n {
        let mut b = zeros::<LANES>();
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+LANES lie inside the input (i + LANES <= n).
            *x = unsafe { vld1q_u8(src.add(16 * (i + j))) };
        }
        k.lanes::<D, R, LANES>(&mut b);
        for (j, x) in b.iter().enumerate() {
            // SAFETY: blocks i..i+LANES lie inside the output; every load of
            // this batch came before the first store, so in place is fine.
            unsafe { vst1q_u8(dst.add(16 * (i + j)), *x) };
        }
        i += LANES;
    }
    while i < n {
        // SAFETY: block i < n lies inside the input.
        let mut b = [unsafe { vld1q_u8(src.add(16 * i)) }];
        k.lanes::<D, R, 1>(&mut b);
        // SAFETY: block i < n lies inside the output; its input was read.
        unsafe { vst1q_u8(dst.add(16 * i), b[0]) };
        i += 1;
    }
}

/// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// The chain is the whole cost, so nothing stays on it that can leave:
/// AESE XORs its two operands before SubBytes, so the plaintext and first
/// round key enter as the *key* operand of the first AESE, prepared while the
/// previous block is still in flight. The last round key is folded the same
/// way: the chain carries `t = AESE(x, k[R-1])` without the final `^ k[R]`,
/// and the next block's first operand is `p ^ k[0] ^ k[R]`. The ciphertext
/// `t ^ k[R]` is computed beside the chain, not on it. Per block the chain is
/// then exactly R AESE and R-1 AESMC (R-1 fused pairs and one AESE).
///
/// # Safety
/// The CPU must have FEAT_AES (guaranteed by holding an `ArmAes`).
#[target_feature(enable = "aes")]
pub(super) unsafe fn cbc_encrypt<const R: usize>(k: &ArmAes, iv: &mut Block, mut io: InOut<'_>) {
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let key = &k.enc;
    let first = veorq_u8(key[0], key[R]);
    // SAFETY: `iv` is 16 readable bytes.
    let mut t = veorq_u8(unsafe { vld1q_u8(iv.as_ptr()) }, key[R]);
    let mut c = t;
    for i in 0..n {
        // SAFETY: block i < n lies inside the input.
        let p = unsafe { vld1q_u8(src.add(16 * i)) };
        let mut x = vaesmcq_u8(vaeseq_u8(t, veorq_u8(p, first)));
        for rk in &key[1..R - 1] {
            x = vaesmcq_u8(vaeseq_u8(x, *rk));
        }
        t = vaeseq_u8(x, key[R - 1]);
        c = veorq_u8(t, key[R]);
        // SAFETY: block i lies inside the output; its input was read above.
        unsafe { vst1q_u8(dst.add(16 * i), c) };
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { vst1q_u8(iv.as_mut_ptr(), c) };
}

/// CBC decryption of whole blocks, 8 at a time; `iv` becomes the last
/// ciphertext block. The last round key and the previous ciphertext block
/// join the output in one [`Flavour::xor3`].
#[inline(always)]
fn cbc_decrypt_body<X: Flavour, const R: usize>(
    x: X,
    k: &ArmAes,
    iv: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let last = k.dec[R];
    // SAFETY: `iv` is 16 readable bytes.
    let mut prev = unsafe { vld1q_u8(iv.as_ptr()) };
    let mut i = 0;
    while i + LANES <= n {
        let mut ct = zeros::<LANES>();
        for (j, c) in ct.iter_mut().enumerate() {
            // SAFETY: blocks i..i+LANES lie inside the input (i + LANES <= n).
            *c = unsafe { vld1q_u8(src.add(16 * (i + j))) };
        }
        let mut b = ct;
        k.lanes_open::<Dec, R, LANES>(&mut b);
        for j in 0..LANES {
            let chain = if j == 0 { prev } else { ct[j - 1] };
            // SAFETY: blocks i..i+LANES lie inside the output. All
            // ciphertext of the batch is in registers before the first
            // store, so in place is fine.
            unsafe { vst1q_u8(dst.add(16 * (i + j)), x.xor3(b[j], last, chain)) };
        }
        prev = ct[LANES - 1];
        i += LANES;
    }
    while i < n {
        // SAFETY: block i < n lies inside the input.
        let ct = unsafe { vld1q_u8(src.add(16 * i)) };
        let mut b = [ct];
        k.lanes_open::<Dec, R, 1>(&mut b);
        // SAFETY: block i < n lies inside the output; its input was read.
        unsafe { vst1q_u8(dst.add(16 * i), x.xor3(b[0], last, prev)) };
        prev = ct;
        i += 1;
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { vst1q_u8(iv.as_mut_ptr(), prev) };
}

flavours!(
    /// CBC-decrypts whole blocks; `iv` becomes the last ciphertext block.
    cbc_decrypt, cbc_decrypt_eor3 = cbc_decrypt_body<R>(k: &ArmAes, iv: &mut Block, io: InOut<'_>)
);
