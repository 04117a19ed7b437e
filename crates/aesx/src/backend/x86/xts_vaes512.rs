//! XTS kernels on 512-bit zmm registers (VAES + VPCLMULQDQ + AVX-512).
//!
//! Four zmm registers of four blocks each are in flight per iteration. Tweak
//! register `V_j` holds the tweaks of blocks `4j..4j+3` of the iteration; the
//! next iteration's tweaks are `V_j * x^16` lane by lane: one shift, one
//! carry-less multiply and one three-way XOR per register, independent of
//! each other and overlapped with the AES rounds. The first tweak vectors
//! come straight from `T` with per-lane variable shifts (`T * x^(4j + lane)`),
//! so a data unit starts without a serial chain of doublings. The input
//! whitening is one three-way XOR (data ^ tweak ^ round key 0) and the
//! output whitening is folded into the last round key: `AESENCLAST(s, rk ^
//! T) = AESENCLAST(s, rk) ^ T` (likewise AESDECLAST). Tails of fewer than
//! four blocks use masked loads and stores.
//!
//! The kernels are generic over the number of rounds so that the round loop
//! unrolls completely and the round keys stay in registers (AVX-512 has 32).
//!
//! The sector kernel keeps the data key's round keys in registers across
//! sectors and encrypts the sector numbers sixteen at a time with the tweak
//! key (four zmm registers), so a 512-byte sector costs one call-free pass.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::X86Aes;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::{Block, MAX_ROUNDS};

/// zmm registers (of four blocks) in flight per iteration: 4 or 8.
const WIDTH: usize = 4;

type Keys = [__m512i; MAX_ROUNDS + 1];

/// Round keys broadcast to all four lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn broadcast(keys: &[__m128i; MAX_ROUNDS + 1]) -> Keys {
    let mut out = [_mm512_setzero_si512(); MAX_ROUNDS + 1];
    for (z, x) in out.iter_mut().zip(keys.iter()) {
        *z = _mm512_broadcast_i32x4(*x);
    }
    out
}

/// The reduction constant 0x87 in the low qword of every lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn poly() -> __m512i {
    _mm512_set_epi64(0, 0x87, 0, 0x87, 0, 0x87, 0, 0x87)
}

/// Carries the bits `top` that left each qword: those of the low qword into
/// the high qword (a byte shift), those of bit 127 back into the low qword
/// times 0x87 (x^128 = x^7 + x^2 + x + 1). `top` holds at most 56 bits per
/// qword, so the product fits the low qword and needs no second reduction.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
fn fold(shifted: __m512i, top: __m512i) -> __m512i {
    let reduced = _mm512_clmulepi64_epi128::<0x01>(top, poly());
    let carried = _mm512_bslli_epi128::<8>(top);
    _mm512_ternarylogic_epi64::<0x96>(shifted, reduced, carried)
}

/// `v * x^(8 BYTES)` in each lane, 1 <= BYTES <= 7: a byte shift of the
/// whole 128-bit lane carries between its qwords by itself, and the bytes
/// that leave bit 127 come back times 0x87 (at most 7 * 8 + 8 bits, so the
/// product stays in the low qword). Four instructions per register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
fn mul_x8n<const BYTES: i32, const REST: i32>(v: __m512i) -> __m512i {
    let top = _mm512_bsrli_epi128::<REST>(v);
    let reduced = _mm512_clmulepi64_epi128::<0x00>(top, poly());
    _mm512_xor_si512(_mm512_bslli_epi128::<BYTES>(v), reduced)
}

/// Lanes `t * x^(base + lane)`, lane 0..3, for base + 3 <= 56: per-lane
/// variable shifts (a right shift by 64 gives 0, as lane 0 of base 0 needs).
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vpclmulqdq")]
fn tweak_lanes(t: __m128i, base: i64) -> __m512i {
    let b = _mm512_broadcast_i32x4(t);
    let (s0, s1, s2, s3) = (base, base + 1, base + 2, base + 3);
    let left = _mm512_set_epi64(s3, s3, s2, s2, s1, s1, s0, s0);
    let right = _mm512_sub_epi64(_mm512_set1_epi64(64), left);
    fold(_mm512_sllv_epi64(b, left), _mm512_srlv_epi64(b, right))
}

#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn round<const ENC: bool>(x: __m512i, k: __m512i) -> __m512i {
    if ENC {
        _mm512_aesenc_epi128(x, k)
    } else {
        _mm512_aesdec_epi128(x, k)
    }
}

#[inline]
#[target_feature(enable = "avx512f,vaes")]
fn round_last<const ENC: bool>(x: __m512i, k: __m512i) -> __m512i {
    if ENC {
        _mm512_aesenclast_epi128(x, k)
    } else {
        _mm512_aesdeclast_epi128(x, k)
    }
}

/// Whitens, runs the `R` rounds and unwhitens one register of four blocks;
/// the output whitening rides in the last round key.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,vaes")]
fn cipher4<const R: usize, const ENC: bool>(rk: &Keys, p: __m512i, t: __m512i) -> __m512i {
    let mut b = _mm512_ternarylogic_epi64::<0x96>(p, t, rk[0]);
    for k in &rk[1..R] {
        b = round::<ENC>(b, *k);
    }
    round_last::<ENC>(b, _mm512_xor_si512(rk[R], t))
}

/// XTS over `n` blocks from `src` to `dst` starting at the encrypted tweak
/// `t`; returns the tweak of block `n`.
///
/// # Safety
/// `src` must be readable and `dst` writable for `16 * n` bytes, either the
/// same pointer or disjoint regions; the CPU must have the enabled features.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn unit<const R: usize, const ENC: bool, const W: usize>(
    rk: &Keys,
    t: __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> __m128i {
    // W registers of four blocks per iteration; tw[j] holds the tweaks of
    // blocks 4j..4j+3 of the iteration, then jumps by x^(4W).
    let mut tw = [_mm512_setzero_si512(); W];
    for (j, v) in tw.iter_mut().enumerate() {
        *v = tweak_lanes(t, 4 * j as i64);
    }
    let mut i = 0;
    while i + 4 * W <= n {
        let mut b = [_mm512_setzero_si512(); W];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i + 4j .. i + 4j + 3 < n lie inside the input.
            let p = unsafe { _mm512_loadu_si512(src.add(16 * (i + 4 * j)).cast()) };
            *x = _mm512_ternarylogic_epi64::<0x96>(p, tw[j], rk[0]);
        }
        for k in &rk[1..R] {
            for x in b.iter_mut() {
                *x = round::<ENC>(*x, *k);
            }
        }
        for j in 0..W {
            let c = round_last::<ENC>(b[j], _mm512_xor_si512(rk[R], tw[j]));
            // SAFETY: the same blocks lie inside the output and were read
            // above, so in place is fine.
            unsafe { _mm512_storeu_si512(dst.add(16 * (i + 4 * j)).cast(), c) };
            tw[j] = if W == 8 {
                mul_x8n::<4, 12>(tw[j])
            } else {
                mul_x8n::<2, 14>(tw[j])
            };
        }
        i += 4 * W;
    }
    // Fewer than 4W blocks are left: up to W - 1 whole registers, then 0..3
    // blocks under a mask.
    let mut q = 0;
    while i + 4 <= n {
        // SAFETY: blocks i..i + 3 < n lie inside both regions; read first.
        unsafe {
            let p = _mm512_loadu_si512(src.add(16 * i).cast());
            let c = cipher4::<R, ENC>(rk, p, tw[q]);
            _mm512_storeu_si512(dst.add(16 * i).cast(), c);
        }
        q += 1;
        i += 4;
    }
    let cur = tw[q];
    let rem = n - i;
    if rem > 0 {
        let mask: __mmask64 = (1u64 << (16 * rem)) - 1;
        // SAFETY: the mask limits the access to the 16 * rem bytes that are
        // left in each region; masked-off bytes are neither read nor written.
        unsafe {
            let p = _mm512_maskz_loadu_epi8(mask, src.add(16 * i).cast());
            let c = cipher4::<R, ENC>(rk, p, cur);
            _mm512_mask_storeu_epi8(dst.add(16 * i).cast(), mask, c);
        }
    }
    // The next tweak is lane `rem` of the current vector: rotate it down to
    // lane 0 (qword indices 2 rem, 2 rem + 1, ...; only the low lane counts).
    let idx = _mm512_add_epi64(
        _mm512_set1_epi64(2 * rem as i64),
        _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0),
    );
    _mm512_castsi512_si128(_mm512_permutexvar_epi64(idx, cur))
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn run<const R: usize, const ENC: bool>(k: &X86Aes, tweak: &mut Block, mut io: InOut<'_>) {
    let rk = broadcast(if ENC { &k.enc } else { &k.dec });
    // SAFETY: `tweak` is 16 readable bytes.
    let t = unsafe { _mm_loadu_si128(tweak.as_ptr().cast()) };
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: the InOut guarantees 16 * n bytes in each region, equal or
    // disjoint.
    let next = unsafe { unit::<R, ENC, WIDTH>(&rk, t, src, dst, n) };
    // SAFETY: `tweak` is 16 writable bytes.
    unsafe { _mm_storeu_si128(tweak.as_mut_ptr().cast(), next) };
}

/// Sectors of `size` bytes (a multiple of 16) from `first`; `io.len()` is a
/// multiple of `size` and the sector numbers do not wrap (the mode checks).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,vaes,vpclmulqdq")]
unsafe fn run_sectors<const R: usize, const ENC: bool>(
    k: &X86Aes,
    tk: &X86Aes,
    size: usize,
    first: u128,
    mut io: InOut<'_>,
) {
    let rk = broadcast(if ENC { &k.enc } else { &k.dec });
    let tk_rk = broadcast(&tk.enc);
    let count = io.len() / size;
    let blocks = size / 16;
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let mut tweaks = [0u8; 16 * 16];
    let mut s = 0;
    while s < count {
        let m = (count - s).min(16);
        for (j, t) in tweaks.chunks_exact_mut(16).enumerate() {
            // Unused slots (j >= m) are encrypted too and then ignored.
            t.copy_from_slice(&first.wrapping_add((s + j) as u128).to_le_bytes());
        }
        let mut v = [_mm512_setzero_si512(); 4];
        for (j, x) in v.iter_mut().enumerate() {
            // SAFETY: 64 bytes at 64 * j < 256 lie inside `tweaks`.
            *x = unsafe { _mm512_loadu_si512(tweaks.as_ptr().add(64 * j).cast()) };
            *x = _mm512_xor_si512(*x, tk_rk[0]);
        }
        for key in &tk_rk[1..R] {
            for x in v.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *key);
            }
        }
        for (j, x) in v.iter().enumerate() {
            let e = _mm512_aesenclast_epi128(*x, tk_rk[R]);
            // SAFETY: as for the load.
            unsafe { _mm512_storeu_si512(tweaks.as_mut_ptr().add(64 * j).cast(), e) };
        }
        for j in 0..m {
            let off = (s + j) * size;
            // SAFETY: 16 * j + 16 <= 256 bytes of `tweaks`; sector s + j <
            // count lies inside both regions (`off + size <= io.len()`).
            unsafe {
                let t = _mm_loadu_si128(tweaks.as_ptr().add(16 * j).cast());
                unit::<R, ENC, WIDTH>(&rk, t, src.add(off), dst.add(off), blocks);
            }
        }
        s += m;
    }
    // The encrypted tweaks are the whitening secrets of these sectors.
    tweaks.zeroize();
}

/// XTS-encrypts whole blocks from the encrypted tweak `tweak`, which is
/// advanced past the last block.
///
/// # Safety
/// The CPU must support VAES, VPCLMULQDQ and AVX-512 F/BW/VL (guaranteed by
/// holding an `X86Aes` of level `Vaes512`).
pub(super) unsafe fn xts_encrypt(k: &X86Aes, tweak: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512XtsEnc);
    // SAFETY: the caller guarantees the CPU features.
    unsafe { by_rounds!(k, run::<true>(k, tweak, io)) }
}

/// XTS-decrypts whole blocks, as [`xts_encrypt`].
///
/// # Safety
/// As [`xts_encrypt`].
pub(super) unsafe fn xts_decrypt(k: &X86Aes, tweak: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512XtsDec);
    // SAFETY: the caller guarantees the CPU features.
    unsafe { by_rounds!(k, run::<false>(k, tweak, io)) }
}

/// Processes consecutive sectors of `size` bytes numbered from `first`, with
/// data key `k` and tweak key `tk` (same key size).
///
/// # Safety
/// As [`xts_encrypt`]; `size` is a non-zero multiple of 16 dividing
/// `io.len()`.
pub(super) unsafe fn xts_sectors(
    k: &X86Aes,
    tk: &X86Aes,
    encrypt: bool,
    size: usize,
    first: u128,
    io: InOut<'_>,
) {
    trace::hit(if encrypt {
        Kernel::Vaes512XtsEnc
    } else {
        Kernel::Vaes512XtsDec
    });
    // SAFETY: the caller guarantees the CPU features and the shape.
    unsafe {
        if encrypt {
            by_rounds!(k, run_sectors::<true>(k, tk, size, first, io))
        } else {
            by_rounds!(k, run_sectors::<false>(k, tk, size, first, io))
        }
    }
}
