//! GCM with AES-NI and PCLMULQDQ on 128-bit registers.
//!
//! Eight blocks per step: eight counter blocks through the AES rounds, and the
//! eight ciphertext blocks multiplied by H^8..H^1 and reduced once. Within a
//! step the AES chain and the multiplications of (for decryption) the same
//! step are independent; for encryption the multiplications depend on this
//! step's output but not on the next step's AES, which the out-of-order core
//! starts early. Counter blocks are kept byte-reversed so that `paddd` on the
//! low dword is inc32 (wraps modulo 2^32, no carry into the IV).

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, Wide, X86HKey, POWERS};
use super::X86Aes;
use crate::backend::gcm_kernels::inc32;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::Block;

/// Blocks per step.
const STEP: usize = 8;

/// Encrypts the first `m` of `b` (all rounds, blocks interleaved).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt_n(k: &X86Aes, b: &mut [__m128i; STEP], m: usize) {
    let nr = k.rounds;
    for x in b.iter_mut().take(m) {
        *x = _mm_xor_si128(*x, k.enc[0]);
    }
    for r in 1..nr {
        for x in b.iter_mut().take(m) {
            *x = _mm_aesenc_si128(*x, k.enc[r]);
        }
    }
    for x in b.iter_mut().take(m) {
        *x = _mm_aesenclast_si128(*x, k.enc[nr]);
    }
}

/// Encrypts all eight (the loop bounds known, so fully interleaved).
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt8(k: &X86Aes, b: &mut [__m128i; STEP]) {
    let nr = k.rounds;
    for x in b.iter_mut() {
        *x = _mm_xor_si128(*x, k.enc[0]);
    }
    for r in 1..nr {
        let rk = k.enc[r];
        for x in b.iter_mut() {
            *x = _mm_aesenc_si128(*x, rk);
        }
    }
    for x in b.iter_mut() {
        *x = _mm_aesenclast_si128(*x, k.enc[nr]);
    }
}

/// AES on eight blocks with the GHASH of eight byte-reversed ciphertext
/// blocks `x` (times H^8..H^1 in `pw`) woven between the rounds, one
/// product per round; returns the new GHASH state.
// `r` is the round number; it also picks the product woven after it.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "aes,sse2,pclmulqdq")]
fn encrypt8_ghash(
    k: &X86Aes,
    b: &mut [__m128i; STEP],
    x: &[__m128i; STEP],
    pw: &[__m128i; STEP],
    y: __m128i,
) -> __m128i {
    let nr = k.rounds;
    let mut w = Wide::zero();
    for v in b.iter_mut() {
        *v = _mm_xor_si128(*v, k.enc[0]);
    }
    w.mul_add(_mm_xor_si128(x[0], y), pw[0]);
    for r in 1..nr {
        let rk = k.enc[r];
        for v in b.iter_mut() {
            *v = _mm_aesenc_si128(*v, rk);
        }
        if r < STEP {
            w.mul_add(x[r], pw[r]);
        }
    }
    for v in b.iter_mut() {
        *v = _mm_aesenclast_si128(*v, k.enc[nr]);
    }
    w.reduce()
}

/// GHASH of eight byte-reversed blocks times H^8..H^1.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn ghash8(x: &[__m128i; STEP], pw: &[__m128i; STEP], y: __m128i) -> __m128i {
    let mut w = Wide::zero();
    w.mul_add(_mm_xor_si128(x[0], y), pw[0]);
    for j in 1..STEP {
        w.mul_add(x[j], pw[j]);
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
    mut io: InOut<'_>,
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
        for (j, p) in pw.iter_mut().enumerate() {
            *p = _mm_loadu_si128(hk.ptr(POWERS - STEP + j).cast());
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
            encrypt8(k, &mut b);
            for j in 0..STEP {
                let v = _mm_xor_si128(b[j], _mm_loadu_si128(src.add(16 * j).cast()));
                _mm_storeu_si128(dst.add(16 * j).cast(), v);
                prev[j] = _mm_shuffle_epi8(v, bs);
            }
            i = STEP;
            while i + STEP <= n {
                let mut b = counters(&mut c);
                y = encrypt8_ghash(k, &mut b, &prev, &pw, y);
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                for j in 0..STEP {
                    let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.add(16 * j).cast()));
                    _mm_storeu_si128(d.add(16 * j).cast(), v);
                    prev[j] = _mm_shuffle_epi8(v, bs);
                }
                i += STEP;
            }
            y = ghash8(&prev, &pw, y);
        } else if !ENCRYPT {
            while i + STEP <= n {
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                let mut ct = [_mm_setzero_si128(); STEP];
                let mut x = [_mm_setzero_si128(); STEP];
                for j in 0..STEP {
                    ct[j] = _mm_loadu_si128(s.add(16 * j).cast());
                    x[j] = _mm_shuffle_epi8(ct[j], bs);
                }
                let mut b = counters(&mut c);
                y = encrypt8_ghash(k, &mut b, &x, &pw, y);
                for j in 0..STEP {
                    _mm_storeu_si128(d.add(16 * j).cast(), _mm_xor_si128(b[j], ct[j]));
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
                encrypt8(k, &mut b);
            } else {
                encrypt_n(k, &mut b, m);
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
    inc32(ctr, n as u32);
}
