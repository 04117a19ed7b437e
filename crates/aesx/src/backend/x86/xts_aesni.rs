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
use super::vector::ONES_THEN_ZEROS;
use super::X86Aes;
use crate::backend::kernels::cpu;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::xts::{mul_x as mul_x_u128, mul_x_pow};
use crate::key::Block;

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

/// Blocks before the stolen pair below which [`steal_first`] computes the
/// pair's first tweak directly (`T * x^k` is a shift and two folds for
/// `k < 128`, [`mul_x_pow`]): units of up to 2 KiB, network packets.
const EARLY_STEAL_MAX: usize = 128;

/// The first block cipher of ciphertext stealing, issued before the bulk
/// call of the data unit: `CC = E(P_{m-1})` under `T_{m-1}` (encryption)
/// or `PP = D(C_{m-1})` under `T_m` (decryption) into `out`, from the
/// unit's encrypted tweak `T_0` in `tweak` and `k = m - 1`, the blocks
/// before the pair. It depends on nothing the bulk computes, so its AES
/// latency hides under the bulk's rounds; after the bulk only the second
/// cipher is serial (`steal_finish`). Returns false, doing nothing, when
/// `k >= EARLY_STEAL_MAX`.
///
/// # Safety
/// As [`xts`]; `tail` holds 17..=31 bytes (the pair).
pub(super) unsafe fn steal_first<const ENC: bool>(
    k: &X86Aes,
    tweak: &Block,
    blocks_before: usize,
    tail: &InOut<'_>,
    out: &mut Block,
) -> bool {
    if blocks_before >= EARLY_STEAL_MAX {
        return false;
    }
    // T_{m-1}, and for decryption T_m: C_{m-1} was made under T_m.
    let t = mul_x_pow(u128::from_le_bytes(*tweak), blocks_before as u32);
    let t = if ENC { t } else { mul_x_u128(t) };
    // SAFETY: the caller guarantees the CPU features and the tail's size.
    unsafe { by_rounds!(k, steal_first_r::<ENC>(k, t, tail, out)) };
    true
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn steal_first_r<const R: usize, const ENC: bool>(
    k: &X86Aes,
    t: u128,
    tail: &InOut<'_>,
    out: &mut Block,
) {
    let t = _mm_set_epi64x((t >> 64) as i64, t as i64);
    // SAFETY: the tail's first 16 bytes are readable; `out` is 16 writable
    // bytes.
    unsafe {
        let whole = _mm_loadu_si128(tail.src_ptr().cast());
        _mm_storeu_si128(out.as_mut_ptr().cast(), cipher1::<R, ENC>(k, whole, t));
    }
}

/// Whitens, runs the rounds and unwhitens one block under tweak `t`.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
fn cipher1<const R: usize, const ENC: bool>(k: &X86Aes, x: __m128i, t: __m128i) -> __m128i {
    let rk = if ENC { &k.enc } else { &k.dec };
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
}

/// Finishes ciphertext stealing in registers: the last whole block and the
/// partial one after it (`tail`), from `T_{m-1}` in `tweak` (where the
/// bulk call left it). `first` is [`steal_first`]'s block when it ran;
/// otherwise the first cipher runs here. Then the stolen block (the partial
/// input's bytes and the first block's rest) goes through the second
/// cipher, `C_{m-1}` under `T_m` (encryption) or `P_{m-1}` under `T_{m-1}`
/// (decryption), and the first block's head is the partial output.
///
/// # Safety
/// As [`xts`]; `tail` holds 17..=31 bytes.
pub(super) unsafe fn steal_finish<const ENC: bool>(
    k: &X86Aes,
    tweak: &Block,
    first: Option<&Block>,
    tail: InOut<'_>,
) {
    // SAFETY: the caller guarantees the CPU features.
    unsafe { by_rounds!(k, steal_finish_r::<ENC>(k, tweak, first, tail)) }
}

/// PSHUFB masks for byte shifts by a run-time count: 16 bytes at
/// `16 + s` move a register's bytes down by `s` (byte `i` takes byte
/// `i + s`, zeros above), 16 bytes at `16 - s` move them up by `s`.
static SHIFTS: [u8; 48] = {
    let mut t = [0x80u8; 48];
    let mut i = 0;
    while i < 16 {
        t[16 + i] = i as u8;
        i += 1;
    }
    t
};

/// The PSHUFB mask that moves bytes down (`up == false`) or up by `s`.
///
/// # Safety
/// SSSE3; `s <= 16`.
#[inline]
#[target_feature(enable = "sse4.1")]
unsafe fn shift_mask(s: usize, up: bool) -> __m128i {
    let at = if up { 16 - s } else { 16 + s };
    // SAFETY: at + 16 <= 48 for s <= 16.
    unsafe { _mm_loadu_si128(SHIFTS.as_ptr().add(at).cast()) }
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn steal_finish_r<const R: usize, const ENC: bool>(
    k: &X86Aes,
    tweak: &Block,
    first: Option<&Block>,
    mut tail: InOut<'_>,
) {
    let partial = tail.len() - 16;
    debug_assert!((1..16).contains(&partial));
    // Only whole 16-byte loads and stores, overlapping at the end of the
    // tail (no byte copies, no call between the two ciphers): the partial
    // input is the top of the last 16 bytes, and the partial output goes
    // out in one store that overlaps the whole block's.
    // SAFETY: `tweak` and `first` are 16 readable bytes; `tail` holds
    // 16 + partial bytes in each region, so [0, 16) and [partial,
    // 16 + partial) lie inside it; every load is done before the first
    // store (in place); the table windows lie inside the tables.
    unsafe {
        let prev = _mm_loadu_si128(tweak.as_ptr().cast());
        let next = mul_x(prev);
        // Encryption: CC under T_{m-1}, then the stolen block under T_m;
        // decryption: PP under T_m, then the stolen block under T_{m-1}.
        let (t1, t2) = if ENC { (prev, next) } else { (next, prev) };
        let src = tail.src_ptr();
        let end = _mm_loadu_si128(src.add(partial).cast());
        let x = match first {
            Some(b) => _mm_loadu_si128(b.as_ptr().cast()),
            None => cipher1::<R, ENC>(k, _mm_loadu_si128(src.cast()), t1),
        };
        // The stolen block: the partial input's bytes, then x's.
        let part = _mm_shuffle_epi8(end, shift_mask(16 - partial, false));
        let keep = _mm_loadu_si128(ONES_THEN_ZEROS.as_ptr().add(32 - partial).cast());
        let z = cipher1::<R, ENC>(k, _mm_blendv_epi8(x, part, keep), t2);
        // Bytes [partial, 16 + partial) of the output: z's last
        // 16 - partial bytes, then x's first `partial`.
        let over = _mm_or_si128(
            _mm_shuffle_epi8(z, shift_mask(partial, false)),
            _mm_shuffle_epi8(x, shift_mask(16 - partial, true)),
        );
        let dst = tail.dst_ptr();
        _mm_storeu_si128(dst.cast(), z);
        _mm_storeu_si128(dst.add(partial).cast(), over);
    }
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
