//! XTS kernels on 128-bit lanes (AES-NI + PCLMULQDQ).
//!
//! Eight blocks are in flight per iteration (AES latency 4 cycles, two per
//! cycle). The tweaks are a serial chain `T_{j+1} = T_j * x` on the vector
//! ALU ports; the chain for the next eight blocks runs while this
//! iteration's rounds occupy the AES pipes (an earlier version jumped six
//! tweak registers by `x^6` with a PCLMULQDQ each, which competes with AESENC
//! for the same pipes on Zen). The last-round XOR with the tweak is
//! folded into the last round key: `AESENCLAST(s, rk ^ T) = AESENCLAST(s,
//! rk) ^ T` because AESENCLAST ends with the key XOR (the same holds for
//! AESDECLAST).
//!
//! The wider kernels (VAES) call these for their tails.
//!
//! Compiled twice: in legacy SSE encodings, and in VEX encodings for the
//! CPUs with AVX (three-operand forms: the tweak XORs need no register
//! copies), chosen per call from the detected features.
//!
//! Registers (16 xmm): the eight states and the round key of the
//! moment; the eight tweaks spill to the stack and are memory operands of
//! the first XOR and of the last-round key XOR.
//!
//! Where the cycles go (Zen 5): AES-128 needs 10 AESENC per block, two per
//! cycle, so 5 core cycles per block is the port bound; the tweak chain
//! (4 vector ALU ops per block, one doubling issued after each of rounds
//! 1..=8 so that it sits between the AES rounds in program order) and the
//! loads/stores fit beside it. Measured 9.3-9.8 GB/s for XTS-128 at 16 KiB,
//! level with OpenSSL restricted to AES-NI (its six-block aesni_xts:
//! 0.97-1.06x in the same runs), 6.9-7.4 GB/s for XTS-256 (1.02-1.07x).
//! Computing all eight tweaks before the rounds was 10% slower; dropping the
//! round-order barrier, 30% slower.

use core::arch::x86_64::*;

use super::aesni::aes_round;
use super::X86Aes;
use crate::backend::kernels::cpu;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::Block;
use zeroize::Zeroize;

/// `t * x` in GF(2^128) (IEEE 1619 order: byte 0 is least significant),
/// branch-free: the top bits of both 64-bit halves are spread into masks.
#[inline]
#[target_feature(enable = "sse2")]
pub(super) fn mul_x(t: __m128i) -> __m128i {
    // dword 0 <- dword 3 (holds bit 127), dword 2 <- dword 1 (holds bit 63).
    let spread = _mm_srai_epi32::<31>(_mm_shuffle_epi32::<0x13>(t));
    // Bit 127 folds back as 0x87 into the low qword; bit 63 carries into
    // bit 64.
    let carry = _mm_and_si128(spread, _mm_set_epi32(0, 1, 0, 0x87));
    _mm_xor_si128(_mm_slli_epi64::<1>(t), carry)
}

/// Blocks in flight per iteration: AESENC has a latency of four cycles and
/// two issue per cycle, so eight independent chains fill the pipes.
const W: usize = 8;

/// Keeps the eight states in round-major order (see `aesni.rs`).
use super::vector::order_xmm as order;

/// The kernel, generic over the number of rounds so the round loop unrolls.
///
/// Eight blocks per iteration. The tweaks of the next iteration are a serial
/// chain of eight `mul_x` (shift, shuffle, arithmetic shift, mask: the
/// vector ALU ports, not the AES/CLMUL pipes) computed while this
/// iteration's rounds run; the tweaks live on the stack (8 states and a round
/// key fill the sixteen xmm registers) and are read as memory operands of
/// the first and last XOR.
/// Defines the kernel under a name with the given target features: it is
/// compiled twice, in legacy SSE encodings (`run`) and in VEX encodings
/// (`run_vex`, for CPUs with AVX, whose token it takes: with three operands
/// the XORs with the tweaks need no register copies, which made XTS 5-9%
/// faster on the Xeon of the benchmarks, at 16 KiB and 1500 bytes).
macro_rules! xts_kernel {
    ($name:ident, $features:literal $(, $token:ident: $ty:ty)?) => {
        #[target_feature(enable = $features)]
        unsafe fn $name<const R: usize, const ENC: bool>(
            $($token: $ty,)?
            k: &X86Aes,
            tweak: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            let rk = if ENC { &k.enc } else { &k.dec };
            let first = rk[0];
            let last = rk[R];
            // SAFETY: `tweak` is 16 readable bytes; loadu needs no alignment.
            let mut t = unsafe { _mm_loadu_si128(tweak.as_ptr().cast()) };
            let mut i = 0;
            if n >= W {
                let mut tw = [t; W];
                for j in 1..W {
                    tw[j] = mul_x(tw[j - 1]);
                }
                while i + W <= n {
                    let mut b = [_mm_setzero_si128(); W];
                    for j in 0..W {
                        // SAFETY: block i + j < n lies inside the input.
                        let p = unsafe { _mm_loadu_si128(src.add(16 * (i + j)).cast()) };
                        b[j] = _mm_xor_si128(p, _mm_xor_si128(tw[j], first));
                    }
                    // The next iteration's tweaks, one doubling after each of
                    // rounds 1..=8 (R - 1 >= 9 rounds), so the ALU work is spread
                    // between the AES rounds in program order.
                    let mut next = [_mm_setzero_si128(); W];
                    let mut cur = tw[W - 1];
                    for (r, key) in rk[1..R].iter().enumerate() {
                        for x in b.iter_mut() {
                            *x = aes_round(!ENC, false, *x, *key);
                        }
                        order(&mut b);
                        if r < W {
                            cur = mul_x(cur);
                            next[r] = cur;
                        }
                    }
                    for j in 0..W {
                        b[j] = aes_round(!ENC, true, b[j], _mm_xor_si128(last, tw[j]));
                        // SAFETY: block i + j < n lies inside the output; its input
                        // was read above, so in place is fine.
                        unsafe { _mm_storeu_si128(dst.add(16 * (i + j)).cast(), b[j]) };
                    }
                    tw = next;
                    i += W;
                }
                t = tw[0];
            }
            while i < n {
                // SAFETY: block i < n lies inside both regions; read first.
                let p = unsafe { _mm_loadu_si128(src.add(16 * i).cast()) };
                let mut b = _mm_xor_si128(p, _mm_xor_si128(t, first));
                for key in &rk[1..R] {
                    b = aes_round(!ENC, false, b, *key);
                }
                b = aes_round(!ENC, true, b, _mm_xor_si128(last, t));
                // SAFETY: as above.
                unsafe { _mm_storeu_si128(dst.add(16 * i).cast(), b) };
                t = mul_x(t);
                i += 1;
            }
            // SAFETY: `tweak` is 16 writable bytes.
            unsafe { _mm_storeu_si128(tweak.as_mut_ptr().cast(), t) };
        }
    };
}

xts_kernel!(run, "aes,sse4.1,pclmulqdq");
xts_kernel!(run_vex, "aes,sse4.1,pclmulqdq,avx", _avx: cpu::Avx2);

/// XTS-encrypts (`ENC`) or -decrypts whole blocks from the encrypted tweak
/// `tweak`, which is advanced past the last block.
///
/// # Safety
/// The CPU must support AES-NI, SSE4.1 and PCLMULQDQ (guaranteed by holding
/// an `X86Aes`, whose every level implies them).
pub(super) unsafe fn xts<const ENC: bool>(k: &X86Aes, tweak: &mut Block, io: InOut<'_>) {
    trace::hit(if ENC {
        Kernel::AesniXtsEnc
    } else {
        Kernel::AesniXtsDec
    });
    // SAFETY: the caller guarantees the CPU features.
    unsafe { blocks::<ENC>(k, tweak, io) }
}

/// The 128-bit kernel without the trace counter, for the short calls and
/// tails of the wider levels (which have counted themselves).
///
/// # Safety
/// As [`xts`].
pub(super) unsafe fn blocks<const ENC: bool>(k: &X86Aes, tweak: &mut Block, io: InOut<'_>) {
    match cpu::features().avx2 {
        // SAFETY: the caller guarantees AES-NI, SSE4.1 and PCLMULQDQ; the
        // token proves AVX.
        Some(avx) => unsafe { by_rounds!(k, run_vex::<ENC>(avx, k, tweak, io)) },
        // SAFETY: the caller guarantees the CPU features.
        None => unsafe { by_rounds!(k, run::<ENC>(k, tweak, io)) },
    }
}

/// Ciphertext stealing in registers (`XtsKernels::xts_encrypt_stolen` and
/// `xts_decrypt_stolen`): the last whole block and the partial one after
/// it, from `T_{m-1}` in `tweak`. The two block ciphers depend on each
/// other, but the first depends only on the tweak and the input, so it runs
/// beside the tail of the bulk call before it; what the generic path adds
/// (two kernel calls with their set-up, the blocks and the doubled tweak
/// through memory) is what this saves.
///
/// # Safety
/// As [`xts`]; `tail` holds 17..=31 bytes.
pub(super) unsafe fn stolen<const ENC: bool>(k: &X86Aes, tweak: &Block, tail: InOut<'_>) {
    // SAFETY: the caller guarantees the CPU features.
    unsafe { by_rounds!(k, stolen_r::<ENC>(k, tweak, tail)) }
}

/// 16 bytes of ones then 16 of zeros: `partial` ones are a window of it.
static ONES_THEN_ZEROS: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut i = 0;
    while i < 16 {
        t[i] = 0xff;
        i += 1;
    }
    t
};

#[target_feature(enable = "aes,sse4.1")]
unsafe fn stolen_r<const R: usize, const ENC: bool>(
    k: &X86Aes,
    tweak: &Block,
    mut tail: InOut<'_>,
) {
    let partial = tail.len() - 16;
    debug_assert!((1..16).contains(&partial));
    let rk = if ENC { &k.enc } else { &k.dec };
    let one = |x: __m128i, t: __m128i| -> __m128i {
        let mut x = _mm_xor_si128(_mm_xor_si128(x, t), rk[0]);
        for key in &rk[1..R] {
            x = if ENC {
                _mm_aesenc_si128(x, *key)
            } else {
                _mm_aesdec_si128(x, *key)
            };
        }
        let last = _mm_xor_si128(rk[R], t);
        if ENC {
            _mm_aesenclast_si128(x, last)
        } else {
            _mm_aesdeclast_si128(x, last)
        }
    };
    let mut part = [0u8; 16];
    let mut out = [0u8; 16];
    // SAFETY: `tweak` is 16 readable bytes; `tail` holds 16 + partial bytes
    // in each region, all of them read before any is written (in place);
    // the mask window lies inside the table (partial < 16).
    unsafe {
        let prev = _mm_loadu_si128(tweak.as_ptr().cast());
        let next = mul_x(prev);
        // Encryption: CC under T_{m-1}, then the stolen block under T_m;
        // decryption: PP under T_m, then the stolen block under T_{m-1}.
        let (first, second) = if ENC { (prev, next) } else { (next, prev) };
        let src = tail.src_ptr();
        let whole = _mm_loadu_si128(src.cast());
        core::ptr::copy_nonoverlapping(src.add(16), part.as_mut_ptr(), partial);
        let x = one(whole, first);
        // The stolen block: the partial input's bytes, then x's.
        let keep = _mm_loadu_si128(ONES_THEN_ZEROS.as_ptr().add(16 - partial).cast());
        let y = _mm_blendv_epi8(x, _mm_loadu_si128(part.as_ptr().cast()), keep);
        _mm_storeu_si128(out.as_mut_ptr().cast(), x);
        let z = one(y, second);
        let dst = tail.dst_ptr();
        core::ptr::copy_nonoverlapping(out.as_ptr(), dst.add(16), partial);
        _mm_storeu_si128(dst.cast(), z);
    }
    part.zeroize();
    out.zeroize();
}

/// Encrypts eight blocks in place with `tk`'s encryption round keys, all
/// eight in flight (the sector tweaks of the AES-NI and VAES256 levels).
#[target_feature(enable = "aes,sse4.1")]
unsafe fn encrypt8<const R: usize>(tk: &X86Aes, blocks: &mut [Block; 8]) {
    let rk = &tk.enc;
    let mut b = [_mm_setzero_si128(); 8];
    for (x, blk) in b.iter_mut().zip(blocks.iter()) {
        // SAFETY: `blk` is 16 readable bytes.
        *x = _mm_xor_si128(unsafe { _mm_loadu_si128(blk.as_ptr().cast()) }, rk[0]);
    }
    for key in &rk[1..R] {
        for x in b.iter_mut() {
            *x = _mm_aesenc_si128(*x, *key);
        }
    }
    for (x, blk) in b.iter().zip(blocks.iter_mut()) {
        // SAFETY: `blk` is 16 writable bytes.
        unsafe { _mm_storeu_si128(blk.as_mut_ptr().cast(), _mm_aesenclast_si128(*x, rk[R])) };
    }
}

/// Encrypts eight sector tweaks in place with the tweak key `tk`.
///
/// # Safety
/// As [`xts`].
pub(super) unsafe fn encrypt_tweaks(tk: &X86Aes, blocks: &mut [Block; 8]) {
    // SAFETY: the caller guarantees the CPU features.
    unsafe {
        match tk.rounds {
            10 => encrypt8::<10>(tk, blocks),
            12 => encrypt8::<12>(tk, blocks),
            _ => encrypt8::<14>(tk, blocks),
        }
    }
}
