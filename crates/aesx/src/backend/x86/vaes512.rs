//! VAES kernels on 512-bit zmm registers (four blocks each) with AVX-512.
//!
//! Zen 5 (measured) issues two zmm VAES instructions per cycle (eight
//! block-rounds) with a latency of four cycles: eight zmm must be in flight.
//! The bulk loops keep eight (32 blocks), with all round keys broadcast into
//! zmm registers once per call (AVX-512 has 32 of them; loading keys as
//! memory operands would not do: this core loads one zmm per cycle). Tails use byte-masked
//! loads and stores, so a partial batch costs one pass of masked zmm
//! operations and never a scalar loop.

use core::arch::x86_64::*;

use super::aesni::ctr_le;
use super::X86Aes;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::Block;

/// zmm registers in flight in the bulk loops (4 blocks each).
const WIDE: usize = 8;

/// Keeps the eight registers of a bulk loop in round-major order, as in
/// `aesni.rs`. With AES-256 the eight zmm chains exactly match the two AES
/// pipes (8 x 14 rounds / 2 per cycle = 14 x 4 cycles of latency), so any
/// block-major stretch that LLVM schedules shows up as lost throughput. An
/// empty `asm!` over all eight states after each round is a barrier between
/// rounds that costs no instruction.
macro_rules! order {
    ($b:expr) => {{
        let b: &mut [__m512i; WIDE] = &mut $b;
        // SAFETY: an empty template: no instruction, no memory access.
        unsafe {
            core::arch::asm!(
                "/* {0} {1} {2} {3} {4} {5} {6} {7} */",
                inout(zmm_reg) b[0],
                inout(zmm_reg) b[1],
                inout(zmm_reg) b[2],
                inout(zmm_reg) b[3],
                inout(zmm_reg) b[4],
                inout(zmm_reg) b[5],
                inout(zmm_reg) b[6],
                inout(zmm_reg) b[7],
                options(pure, nomem, nostack, preserves_flags)
            )
        };
    }};
}

macro_rules! round {
    ($dec:expr, $b:expr, $k:expr) => {
        if $dec {
            _mm512_aesdec_epi128($b, $k)
        } else {
            _mm512_aesenc_epi128($b, $k)
        }
    };
}
macro_rules! last {
    ($dec:expr, $b:expr, $k:expr) => {
        if $dec {
            _mm512_aesdeclast_epi128($b, $k)
        } else {
            _mm512_aesenclast_epi128($b, $k)
        }
    };
}

#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn load(p: *const u8) -> __m512i {
    // SAFETY: the caller passes a pointer to 64 readable bytes.
    unsafe { _mm512_loadu_si512(p.cast()) }
}

#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn store(p: *mut u8, v: __m512i) {
    // SAFETY: the caller passes a pointer to 64 writable bytes.
    unsafe { _mm512_storeu_si512(p.cast(), v) }
}

/// Byte mask covering the first `blocks` (1..=4) blocks of a zmm.
#[inline]
fn mask(blocks: usize) -> __mmask64 {
    u64::MAX >> (64 - 16 * blocks)
}

/// Loads the first `blocks` blocks at `p`, zeros elsewhere.
#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn load_part(p: *const u8, blocks: usize) -> __m512i {
    // SAFETY: the caller passes `blocks` * 16 readable bytes; masked-off
    // bytes are not accessed (AVX-512 suppresses their faults).
    unsafe { _mm512_maskz_loadu_epi8(mask(blocks), p.cast()) }
}

/// Stores the first `blocks` blocks of `v` at `p`.
#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn store_part(p: *mut u8, v: __m512i, blocks: usize) {
    // SAFETY: the caller passes `blocks` * 16 writable bytes; masked-off
    // bytes are not written.
    unsafe { _mm512_mask_storeu_epi8(p.cast(), mask(blocks), v) }
}

/// Round keys `0..=R` broadcast to all four lanes.
#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
fn broadcast<const R: usize>(keys: &[__m128i; 15]) -> [__m512i; 15] {
    let mut rk = [_mm512_setzero_si512(); 15];
    for (z, k) in rk.iter_mut().zip(keys.iter()).take(R + 1) {
        *z = _mm512_broadcast_i32x4(*k);
    }
    rk
}

/// Calls below this many blocks take the 128-bit kernel: for up to 15
/// blocks, broadcasting the schedule into wide registers costs more than the
/// wider rounds save (measured at 64 bytes: 0.75-0.81x RustCrypto through the
/// wide path, 1.0x through the 128-bit one; at 128 bytes 0.82-0.86x and
/// 1.0x).
const SMALL_ECB: usize = 16;

/// ECB-encrypts whole blocks.
///
/// # Safety
/// The CPU must support VAES and AVX-512 F/BW/VL (guaranteed by holding an
/// `X86Aes` of level `Vaes512`).
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn encrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512EcbEnc);
    if io.blocks() < SMALL_ECB {
        // SAFETY: VAES levels include AES-NI and SSE4.1.
        return unsafe { super::aesni::ecb_small::<false>(k, io) };
    }
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<false>(&k.enc, io)) }
}

/// ECB-decrypts whole blocks.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn decrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512EcbDec);
    if io.blocks() < SMALL_ECB {
        // SAFETY: VAES levels include AES-NI and SSE4.1.
        return unsafe { super::aesni::ecb_small::<true>(k, io) };
    }
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<true>(&k.dec, io)) }
}

#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn ecb<const R: usize, const DEC: bool>(keys: &[__m128i; 15], mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let mut i = 0;
    while n - i >= 4 * WIDE {
        let mut b = [_mm512_setzero_si512(); WIDE];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+4*WIDE lie inside the input.
            *x = _mm512_xor_si512(unsafe { load(src.add(16 * (i + 4 * j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = round!(DEC, *x, *key);
            }
            order!(b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: inside the output; every block was read above.
            unsafe { store(dst.add(16 * (i + 4 * j)), last!(DEC, *x, rk[R])) };
        }
        i += 4 * WIDE;
    }
    // Up to 31 blocks: one zmm at a time (independent, so they overlap in
    // the out-of-order window), the last one masked.
    while i < n {
        let m = (n - i).min(4);
        // SAFETY: blocks i..i+m lie inside the input.
        let mut x = _mm512_xor_si512(unsafe { load_part(src.add(16 * i), m) }, rk[0]);
        for key in &rk[1..R] {
            x = round!(DEC, x, *key);
        }
        // SAFETY: blocks i..i+m lie inside the output and were read above.
        unsafe { store_part(dst.add(16 * i), last!(DEC, x, rk[R]), m) };
        i += m;
    }
}

/// CBC-decrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn cbc_decrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512CbcDec);
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, cbc_dec(&k.dec, iv, io)) }
}

/// The blocks preceding those of `cur`: lanes 2,1,0 of `cur` moved up one
/// lane, and lane 3 of `prev` (the block before `cur`'s first) in lane 0.
#[inline]
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
fn preceding(cur: __m512i, prev: __m512i) -> __m512i {
    _mm512_alignr_epi64::<6>(cur, prev)
}

#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn cbc_dec<const R: usize>(keys: &[__m128i; 15], iv: &mut Block, mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: n >= 1 blocks of input, read before anything is written.
    let last_ct = unsafe { _mm_loadu_si128(src.add(16 * (n - 1)).cast()) };
    // Only lane 3 of `prev` is ever used: the block before the next batch.
    // SAFETY: `iv` is 16 readable bytes.
    let mut prev = _mm512_broadcast_i32x4(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
    let mut i = 0;
    while n - i >= 4 * WIDE {
        let mut b = [_mm512_setzero_si512(); WIDE];
        let mut x = [_mm512_setzero_si512(); WIDE];
        for j in 0..WIDE {
            // SAFETY: blocks i..i+4*WIDE lie inside the input.
            let c = unsafe { load(src.add(16 * (i + 4 * j))) };
            b[j] = _mm512_xor_si512(c, rk[0]);
            // The chaining XOR rides in the last round key.
            x[j] = _mm512_xor_si512(preceding(c, prev), rk[R]);
            prev = c;
        }
        for key in &rk[1..R] {
            for v in b.iter_mut() {
                *v = _mm512_aesdec_epi128(*v, *key);
            }
            order!(b);
        }
        for j in 0..WIDE {
            // SAFETY: inside the output; the whole batch was read above.
            unsafe {
                store(
                    dst.add(16 * (i + 4 * j)),
                    _mm512_aesdeclast_epi128(b[j], x[j]),
                )
            };
        }
        i += 4 * WIDE;
    }
    while i < n {
        let m = (n - i).min(4);
        // SAFETY: blocks i..i+m lie inside the input.
        let c = unsafe { load_part(src.add(16 * i), m) };
        let x = _mm512_xor_si512(preceding(c, prev), rk[R]);
        prev = c;
        let mut b = _mm512_xor_si512(c, rk[0]);
        for key in &rk[1..R] {
            b = _mm512_aesdec_epi128(b, *key);
        }
        // SAFETY: blocks i..i+m lie inside the output and were read above.
        unsafe { store_part(dst.add(16 * i), _mm512_aesdeclast_epi128(b, x), m) };
        i += m;
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { _mm_storeu_si128(iv.as_mut_ptr().cast(), last_ct) };
}

/// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// One chain is latency-bound, and a wider register cannot shorten it, so
/// this is the 128-bit chain of [`super::aesni::cbc_enc`] compiled with this
/// level's (VEX) encoding. Many independent messages go through
/// [`super::cbc_multi`] instead.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn cbc_encrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512CbcEnc);
    use super::aesni::cbc_enc;
    // SAFETY: AES-NI and SSE4.1 are implied by this function's features.
    unsafe { by_rounds!(k, cbc_enc(&k.enc, iv, io)) }
}

/// CTR over whole blocks with a 128-bit big-endian counter.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
pub(super) unsafe fn ctr_apply(k: &X86Aes, ctr: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes512Ctr);
    super::ctr_segments(ctr, io, |c, seg| {
        // SAFETY: same features as this function (closures inherit them).
        unsafe { by_rounds!(k, ctr_seg(&k.enc, c, seg)) }
    });
}

/// CTR over a segment in which the low 64 bits of the counter do not wrap
/// (lanes past the end of a masked tail may wrap; they are never stored).
#[target_feature(enable = "aes,avx2,vaes,avx512f,avx512bw,avx512vl")]
unsafe fn ctr_seg<const R: usize>(keys: &[__m128i; 15], c0: u128, mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = _mm512_broadcast_i32x4(super::aesni::bswap_mask());
    // Lane l counts c0 + l; every zmm step adds 4 to each lane.
    let mut ctr = _mm512_add_epi64(
        _mm512_broadcast_i32x4(ctr_le(c0)),
        _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0),
    );
    let four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
    let mut i = 0;
    while n - i >= 4 * WIDE {
        let mut b = [_mm512_setzero_si512(); WIDE];
        for x in b.iter_mut() {
            *x = _mm512_xor_si512(_mm512_shuffle_epi8(ctr, bswap), rk[0]);
            ctr = _mm512_add_epi64(ctr, four);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, *key);
            }
            order!(b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: blocks i..i+4*WIDE lie inside both regions; each zmm is
            // read just before the same position is written. The data XOR
            // rides in the last round key.
            unsafe {
                let p = 16 * (i + 4 * j);
                let d = _mm512_xor_si512(load(src.add(p)), rk[R]);
                store(dst.add(p), _mm512_aesenclast_epi128(*x, d));
            }
        }
        i += 4 * WIDE;
    }
    while i < n {
        let m = (n - i).min(4);
        let mut x = _mm512_xor_si512(_mm512_shuffle_epi8(ctr, bswap), rk[0]);
        ctr = _mm512_add_epi64(ctr, four);
        for key in &rk[1..R] {
            x = _mm512_aesenc_epi128(x, *key);
        }
        // SAFETY: blocks i..i+m lie inside both regions; read before written.
        unsafe {
            let d = _mm512_xor_si512(load_part(src.add(16 * i), m), rk[R]);
            store_part(dst.add(16 * i), _mm512_aesenclast_epi128(x, d), m);
        }
        i += m;
    }
}
