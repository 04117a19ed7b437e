//! XTS kernels on 512-bit zmm registers (VAES + VPCLMULQDQ + AVX-512).
//!
//! Four zmm registers of four blocks each are in flight per iteration. Tweak
//! register `V_j` holds the tweaks of blocks `4j..4j+3` of the iteration; the
//! next iteration's tweaks are `V_j * x^16` lane by lane, one shift, one
//! carry-less multiply and one three-way XOR per register, independent of
//! each other and overlapped with the AES rounds. The input whitening is one
//! three-way XOR (data ^ tweak ^ round key 0) and the output whitening is
//! folded into the last round key: `AESENCLAST(s, rk ^ T) = AESENCLAST(s, rk)
//! ^ T` (likewise AESDECLAST). Fewer than 16 remaining blocks go to the
//! 128-bit kernel.

use core::arch::x86_64::*;

use super::{xts_aesni, X86Aes};
use crate::backend::inout::InOut;
use crate::key::Block;

/// `v * x^K` in each 128-bit lane, for 1 <= K <= 56: every qword is shifted
/// left by K; the K bits leaving the low qword enter the high qword
/// (byte shift of the extracted top bits), the K bits leaving bit 127 are
/// reduced by a carry-less multiply with 0x87 (x^128 = x^7 + x^2 + x + 1);
/// K + 8 bits fit in the low qword, so no second reduction is needed.
macro_rules! mul_xk512 {
    ($v:expr, $poly:expr, $k:literal, $rest:literal) => {{
        let v = $v;
        let top = _mm512_srli_epi64::<$rest>(v);
        let reduced = _mm512_clmulepi64_epi128::<0x01>(top, $poly);
        let carried = _mm512_bslli_epi128::<8>(top);
        _mm512_ternarylogic_epi64::<0x96>(_mm512_slli_epi64::<$k>(v), reduced, carried)
    }};
}

macro_rules! xts_kernel {
    ($name:ident, $tail:ident, $keys:ident, $round:ident, $last:ident) => {
        /// XTS over whole blocks from the encrypted tweak `tweak`, which is
        /// advanced past the last block.
        ///
        /// # Safety
        /// The CPU must support VAES, VPCLMULQDQ and AVX-512 F/BW/VL besides
        /// AES-NI (guaranteed by holding an `X86Aes` of level `Vaes512`).
        #[target_feature(
            enable = "aes,sse4.1,pclmulqdq,avx2,avx512f,avx512bw,avx512vl,vaes,vpclmulqdq"
        )]
        pub(super) unsafe fn $name(k: &X86Aes, tweak: &mut Block, mut io: InOut<'_>) {
            let n = io.blocks();
            if n < 16 {
                // SAFETY: this CPU has everything the 128-bit kernel needs.
                return unsafe { xts_aesni::$tail(k, tweak, io) };
            }
            let src = io.src_ptr();
            let dst = io.reborrow().dst_ptr();
            let rounds = k.rounds;
            let mut rk = [_mm512_setzero_si512(); 15];
            for (z, x) in rk.iter_mut().zip(k.$keys.iter()).take(rounds + 1) {
                *z = _mm512_broadcast_i32x4(*x);
            }
            let first = rk[0];
            let last = rk[rounds];
            let poly = _mm512_set_epi64(0, 0x87, 0, 0x87, 0, 0x87, 0, 0x87);

            // SAFETY: `tweak` is 16 readable bytes.
            let t0 = unsafe { _mm_loadu_si128(tweak.as_ptr().cast()) };
            let t1 = xts_aesni::mul_x(t0);
            let t2 = xts_aesni::mul_x(t1);
            let t3 = xts_aesni::mul_x(t2);
            let mut v0 = _mm512_castsi128_si512(t0);
            v0 = _mm512_inserti32x4::<1>(v0, t1);
            v0 = _mm512_inserti32x4::<2>(v0, t2);
            v0 = _mm512_inserti32x4::<3>(v0, t3);
            let v1 = mul_xk512!(v0, poly, 4, 60);
            let v2 = mul_xk512!(v1, poly, 4, 60);
            let v3 = mul_xk512!(v2, poly, 4, 60);
            let mut tw = [v0, v1, v2, v3];

            let mut i = 0;
            while i + 16 <= n {
                let mut b = [_mm512_setzero_si512(); 4];
                for j in 0..4 {
                    // SAFETY: blocks i + 4j .. i + 4j + 3 < n lie inside the
                    // input.
                    let p = unsafe { _mm512_loadu_si512(src.add(16 * (i + 4 * j)).cast()) };
                    b[j] = _mm512_ternarylogic_epi64::<0x96>(p, tw[j], first);
                }
                for r in 1..rounds {
                    for x in b.iter_mut() {
                        *x = $round(*x, rk[r]);
                    }
                }
                for j in 0..4 {
                    b[j] = $last(b[j], _mm512_xor_si512(last, tw[j]));
                    // SAFETY: the same blocks lie inside the output and were
                    // read above, so in place is fine.
                    unsafe { _mm512_storeu_si512(dst.add(16 * (i + 4 * j)).cast(), b[j]) };
                    tw[j] = mul_xk512!(tw[j], poly, 16, 48);
                }
                i += 16;
            }

            let mut next: Block = [0; 16];
            // SAFETY: `next` is 16 writable bytes.
            unsafe { _mm_storeu_si128(next.as_mut_ptr().cast(), _mm512_castsi512_si128(tw[0])) };
            let (_, rest) = io.split_at(16 * i);
            // SAFETY: this CPU has everything the 128-bit kernel needs.
            unsafe { xts_aesni::$tail(k, &mut next, rest) };
            *tweak = next;
        }
    };
}

xts_kernel!(
    xts_encrypt,
    xts_encrypt,
    enc,
    _mm512_aesenc_epi128,
    _mm512_aesenclast_epi128
);
xts_kernel!(
    xts_decrypt,
    xts_decrypt,
    dec,
    _mm512_aesdec_epi128,
    _mm512_aesdeclast_epi128
);
