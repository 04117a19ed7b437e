//! GCM with AES-NI and PCLMULQDQ on 128-bit registers (the AES-NI tier's
//! own source; the VAES tiers have theirs).
//!
//! Schedule: eight blocks per step. Eight counter blocks go through the AES
//! rounds in round-major order (an empty `asm!` barrier per round keeps LLVM
//! from running pairs of blocks through all rounds, which clogs the AES
//! queue); after each of rounds 1..=8 one Karatsuba product of the GHASH
//! (three PCLMULQDQ, the multiplier's half-sum precomputed per call) is
//! issued, and the eight products are reduced once per step (two PCLMULQDQ).
//! Encryption hashes the previous step's ciphertext (one step in flight);
//! decryption hashes the current step's input. Counter blocks are kept
//! byte-reversed so that `paddd` on the low dword is inc32 (wraps modulo
//! 2^32, no carry into the IV). The kernel is generic over the round count
//! so the round loops unroll and every round key is a memory operand.
//!
//! Registers (16 xmm, no AVX): eight AES states, the three product
//! accumulators, a round key / temporary; the eight ciphertext blocks to
//! hash, H^8..H^1 and their half-sums live on the stack and are memory
//! operands of PCLMULQDQ.
//!
//! Where the cycles go (Zen 5, AESENC and PCLMULQDQ share two pipes): per
//! 16 bytes AES-128 needs 10 AES ops and GHASH 3 + 2/8 carry-less
//! multiplies, 13.25 pipe slots, about 6.6 core cycles per block at the port
//! bound; measured we reach about 75% of that (5.3-5.5 GB/s at 16 KiB when
//! the machine is quiet, XTS-128 on the same pipes reaches 8.4). Schoolbook
//! products (four per block) cost 7% more slots; the runtime round loop of
//! the previous version cost AES-256 a third of its speed.
//! Tried and not kept: splitting the round loop in two constant-bound loops
//! (LLVM outlined the step, 5-10% slower), dropping the barrier (10-20%
//! slower), making the next step's counter blocks between the rounds
//! (5-9% slower, unlike XTS's tweaks).

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, half_sum, Wide, WideK, X86HKey, POWERS};
use super::X86Aes;
use crate::backend::kernels::gcm::inc32;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::Block;

/// Blocks per step.
const STEP: usize = 8;

/// Keeps the eight AES states in round-major order (see `aesni::order!`):
/// an empty `asm!` that takes and returns them, no instruction.
#[inline(always)]
fn order(b: &mut [__m128i; STEP]) {
    // SAFETY: an empty template: no instruction, no memory access.
    unsafe {
        core::arch::asm!(
            "/* {0} {1} {2} {3} {4} {5} {6} {7} */",
            inout(xmm_reg) b[0],
            inout(xmm_reg) b[1],
            inout(xmm_reg) b[2],
            inout(xmm_reg) b[3],
            inout(xmm_reg) b[4],
            inout(xmm_reg) b[5],
            inout(xmm_reg) b[6],
            inout(xmm_reg) b[7],
            options(pure, nomem, nostack, preserves_flags)
        )
    };
}

/// Encrypts the first `m` of `b` (all rounds, blocks interleaved).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt_n<const R: usize>(rk: &[__m128i; 15], b: &mut [__m128i; STEP], m: usize) {
    for x in b.iter_mut().take(m) {
        *x = _mm_xor_si128(*x, rk[0]);
    }
    for key in &rk[1..R] {
        for x in b.iter_mut().take(m) {
            *x = _mm_aesenc_si128(*x, *key);
        }
    }
    for x in b.iter_mut().take(m) {
        *x = _mm_aesenclast_si128(*x, rk[R]);
    }
}

/// Encrypts all eight (the loop bounds known, so fully interleaved).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt8<const R: usize>(rk: &[__m128i; 15], b: &mut [__m128i; STEP]) {
    for x in b.iter_mut() {
        *x = _mm_xor_si128(*x, rk[0]);
    }
    for key in &rk[1..R] {
        for x in b.iter_mut() {
            *x = _mm_aesenc_si128(*x, *key);
        }
        order(b);
    }
    for x in b.iter_mut() {
        *x = _mm_aesenclast_si128(*x, rk[R]);
    }
}

/// AES on eight blocks with the GHASH of eight byte-reversed ciphertext
/// blocks `x` (times H^8..H^1 in `pw`, their Karatsuba half-sums in `pk`)
/// woven between the rounds, one product after each of rounds 1..8;
/// returns the new GHASH state.
// `r` is the round number; it also picks the product woven after it.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "aes,sse2,pclmulqdq")]
fn encrypt8_ghash<const R: usize>(
    rk: &[__m128i; 15],
    b: &mut [__m128i; STEP],
    x: &[__m128i; STEP],
    pw: &[__m128i; STEP],
    pk: &[__m128i; STEP],
    y: __m128i,
) -> __m128i {
    let mut w = WideK::zero();
    for v in b.iter_mut() {
        *v = _mm_xor_si128(*v, rk[0]);
    }
    for r in 1..R {
        for v in b.iter_mut() {
            *v = _mm_aesenc_si128(*v, rk[r]);
        }
        order(b);
        let j = r - 1;
        if j < STEP {
            let a = if j == 0 { _mm_xor_si128(x[0], y) } else { x[j] };
            w.mul_add(a, pw[j], pk[j]);
        }
    }
    for v in b.iter_mut() {
        *v = _mm_aesenclast_si128(*v, rk[R]);
    }
    w.reduce()
}

/// GHASH of eight byte-reversed blocks times H^8..H^1.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn ghash8(x: &[__m128i; STEP], pw: &[__m128i; STEP], pk: &[__m128i; STEP], y: __m128i) -> __m128i {
    let mut w = WideK::zero();
    w.mul_add(_mm_xor_si128(x[0], y), pw[0], pk[0]);
    for j in 1..STEP {
        w.mul_add(x[j], pw[j], pk[j]);
    }
    w.reduce()
}

/// CTR32 encryption or decryption of whole blocks stitched with GHASH of
/// the ciphertext.
///
/// # Safety
/// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1 (holding any
/// `X86Aes`).
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
pub(super) unsafe fn gcm_crypt<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &mut Block,
    acc: &mut Block,
    io: InOut<'_>,
) {
    trace::hit(if ENCRYPT {
        Kernel::AesniGcmEnc
    } else {
        Kernel::AesniGcmDec
    });
    let n = io.blocks();
    if n == 0 {
        return;
    }
    // SAFETY: the caller guarantees the CPU features.
    unsafe { by_rounds!(k, crypt::<ENCRYPT>(&k.enc, hk, acc, ctr, io)) }
    inc32(ctr, n as u32);
}

/// The kernel, generic over the number of rounds so the round loops unroll
/// and every round key is a memory operand of AESENC.
// Block `j` of a step indexes several arrays at once.
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
unsafe fn crypt<const R: usize, const ENCRYPT: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    acc: &mut Block,
    ctr: &Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    let bs = bswap_mask();
    let one = _mm_set_epi32(0, 0, 0, 1);
    // SAFETY: blocks i..i+m with i + m <= n are inside both buffers of
    // 16 * n bytes; each block is loaded before its position is stored.
    // Key loads read whole powers inside the key.
    unsafe {
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs);
        let mut c = _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bs);
        let mut i = 0;
        // Full steps: GHASH woven into the AES rounds; encryption hashes the
        // previous step's ciphertext (one step in flight).
        let mut pw = [_mm_setzero_si128(); STEP];
        let mut pk = [_mm_setzero_si128(); STEP];
        if n >= STEP {
            for j in 0..STEP {
                pw[j] = _mm_loadu_si128(hk.ptr(POWERS - STEP + j).cast());
                pk[j] = half_sum(pw[j]);
            }
        }
        let counters = |c: &mut __m128i| {
            let mut b = [_mm_setzero_si128(); STEP];
            for x in b.iter_mut() {
                *x = _mm_shuffle_epi8(*c, bs);
                *c = _mm_add_epi32(*c, one);
            }
            b
        };
        if ENCRYPT && n >= STEP {
            let mut prev = [_mm_setzero_si128(); STEP];
            let mut b = counters(&mut c);
            encrypt8::<R>(rk, &mut b);
            for j in 0..STEP {
                let v = _mm_xor_si128(b[j], _mm_loadu_si128(src.add(16 * j).cast()));
                _mm_storeu_si128(dst.add(16 * j).cast(), v);
                prev[j] = _mm_shuffle_epi8(v, bs);
            }
            i = STEP;
            while i + STEP <= n {
                let mut b = counters(&mut c);
                y = encrypt8_ghash::<R>(rk, &mut b, &prev, &pw, &pk, y);
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                for j in 0..STEP {
                    let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.add(16 * j).cast()));
                    _mm_storeu_si128(d.add(16 * j).cast(), v);
                    prev[j] = _mm_shuffle_epi8(v, bs);
                }
                i += STEP;
            }
            y = ghash8(&prev, &pw, &pk, y);
        } else if !ENCRYPT {
            while i + STEP <= n {
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                let mut x = [_mm_setzero_si128(); STEP];
                for j in 0..STEP {
                    x[j] = _mm_shuffle_epi8(_mm_loadu_si128(s.add(16 * j).cast()), bs);
                }
                let mut b = counters(&mut c);
                y = encrypt8_ghash::<R>(rk, &mut b, &x, &pw, &pk, y);
                for j in 0..STEP {
                    // The ciphertext is read again (from L1) rather than
                    // kept in eight more registers across the rounds.
                    let ct = _mm_loadu_si128(s.add(16 * j).cast());
                    _mm_storeu_si128(d.add(16 * j).cast(), _mm_xor_si128(b[j], ct));
                }
                i += STEP;
            }
        }
        while i < n {
            let m = (n - i).min(STEP);
            let s = src.add(16 * i);
            let d = dst.add(16 * i);
            let mut b = [_mm_setzero_si128(); STEP];
            for x in b.iter_mut().take(m) {
                *x = _mm_shuffle_epi8(c, bs);
                c = _mm_add_epi32(c, one);
            }
            let mut data = [_mm_setzero_si128(); STEP];
            for (j, v) in data.iter_mut().enumerate().take(m) {
                *v = _mm_loadu_si128(s.add(16 * j).cast());
            }
            if m == STEP {
                encrypt8::<R>(rk, &mut b);
            } else {
                encrypt_n::<R>(rk, &mut b, m);
            }
            let mut w = Wide::zero();
            let base = POWERS - m;
            for j in 0..m {
                let out = _mm_xor_si128(b[j], data[j]);
                _mm_storeu_si128(d.add(16 * j).cast(), out);
                let mut x = _mm_shuffle_epi8(if ENCRYPT { out } else { data[j] }, bs);
                if j == 0 {
                    x = _mm_xor_si128(x, y);
                }
                w.mul_add(x, _mm_loadu_si128(hk.ptr(base + j).cast()));
            }
            y = w.reduce();
            i += m;
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bs));
    }
}
