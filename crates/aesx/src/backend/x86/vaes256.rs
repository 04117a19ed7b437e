//! VAES kernels on 256-bit ymm registers (two blocks each) with AVX2.
//!
//! Zen 5 (measured) issues two ymm VAES instructions per cycle (four
//! block-rounds, half of what zmm gets) with a latency of four cycles: eight
//! ymm must be in flight; the bulk loops keep eight (16 blocks).
//! AVX2 has only 16 vector registers, so the round keys are broadcast once
//! per call and most are re-read as memory operands of VAESENC (loads are not
//! the bottleneck). Tails use qword-masked loads and stores (VPMASKMOVQ).

use core::arch::x86_64::*;

use super::aesni::ctr_le;
use super::X86Aes;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::Block;

/// ymm registers in flight in the bulk loops (2 blocks each).
const WIDE: usize = 8;

/// Keeps the eight registers of a bulk loop in round-major order, as in
/// `aesni.rs`: with 16 ymm registers LLVM otherwise runs a few registers
/// through all their rounds first, and the dependent chains clog the AES
/// scheduler queue. An empty `asm!` over all eight states after each round
/// is a barrier between rounds that costs no instruction.
macro_rules! order {
    ($b:expr) => {{
        let b: &mut [__m256i; WIDE] = &mut $b;
        // SAFETY: an empty template: no instruction, no memory access.
        unsafe {
            core::arch::asm!(
                "/* {0} {1} {2} {3} {4} {5} {6} {7} */",
                inout(ymm_reg) b[0],
                inout(ymm_reg) b[1],
                inout(ymm_reg) b[2],
                inout(ymm_reg) b[3],
                inout(ymm_reg) b[4],
                inout(ymm_reg) b[5],
                inout(ymm_reg) b[6],
                inout(ymm_reg) b[7],
                options(pure, nomem, nostack, preserves_flags)
            )
        };
    }};
}

macro_rules! round {
    ($dec:expr, $b:expr, $k:expr) => {
        if $dec {
            _mm256_aesdec_epi128($b, $k)
        } else {
            _mm256_aesenc_epi128($b, $k)
        }
    };
}
macro_rules! last {
    ($dec:expr, $b:expr, $k:expr) => {
        if $dec {
            _mm256_aesdeclast_epi128($b, $k)
        } else {
            _mm256_aesenclast_epi128($b, $k)
        }
    };
}

#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn load(p: *const u8) -> __m256i {
    // SAFETY: the caller passes a pointer to 32 readable bytes.
    unsafe { _mm256_loadu_si256(p.cast()) }
}

#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn store(p: *mut u8, v: __m256i) {
    // SAFETY: the caller passes a pointer to 32 writable bytes.
    unsafe { _mm256_storeu_si256(p.cast(), v) }
}

/// Qword mask covering the first `blocks` (1..=2) blocks of a ymm.
#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
fn mask(blocks: usize) -> __m256i {
    let hi = if blocks > 1 { -1 } else { 0 };
    _mm256_set_epi64x(hi, hi, -1, -1)
}

/// Loads the first `blocks` blocks at `p`, zeros elsewhere.
#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn load_part(p: *const u8, blocks: usize) -> __m256i {
    // SAFETY: the caller passes `blocks` * 16 readable bytes; masked-off
    // qwords are not accessed (VPMASKMOVQ suppresses their faults).
    unsafe { _mm256_maskload_epi64(p.cast(), mask(blocks)) }
}

/// Stores the first `blocks` blocks of `v` at `p`.
#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn store_part(p: *mut u8, v: __m256i, blocks: usize) {
    // SAFETY: the caller passes `blocks` * 16 writable bytes; masked-off
    // qwords are not written.
    unsafe { _mm256_maskstore_epi64(p.cast(), mask(blocks), v) }
}

/// Round keys `0..=R` broadcast to all both lanes.
#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
fn broadcast<const R: usize>(keys: &[__m128i; 15]) -> [__m256i; 15] {
    let mut rk = [_mm256_setzero_si256(); 15];
    for (z, k) in rk.iter_mut().zip(keys.iter()).take(R + 1) {
        *z = _mm256_broadcastsi128_si256(*k);
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
/// The CPU must support VAES and AVX2 (guaranteed by holding an
/// `X86Aes` of level `Vaes256`).
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) unsafe fn encrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::Vaes256EcbEnc);
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
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) unsafe fn decrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::Vaes256EcbDec);
    if io.blocks() < SMALL_ECB {
        // SAFETY: VAES levels include AES-NI and SSE4.1.
        return unsafe { super::aesni::ecb_small::<true>(k, io) };
    }
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<true>(&k.dec, io)) }
}

#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn ecb<const R: usize, const DEC: bool>(keys: &[__m128i; 15], mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let mut i = 0;
    while n - i >= 2 * WIDE {
        let mut b = [_mm256_setzero_si256(); WIDE];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+4*WIDE lie inside the input.
            *x = _mm256_xor_si256(unsafe { load(src.add(16 * (i + 2 * j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = round!(DEC, *x, *key);
            }
            order!(b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: inside the output; every block was read above.
            unsafe { store(dst.add(16 * (i + 2 * j)), last!(DEC, *x, rk[R])) };
        }
        i += 2 * WIDE;
    }
    // Up to 15 blocks: one ymm at a time (independent, so they overlap in
    // the out-of-order window), the last one masked.
    while i < n {
        let m = (n - i).min(2);
        // SAFETY: blocks i..i+m lie inside the input.
        let mut x = _mm256_xor_si256(unsafe { load_part(src.add(16 * i), m) }, rk[0]);
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
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) unsafe fn cbc_decrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes256CbcDec);
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, cbc_dec(&k.dec, iv, io)) }
}

/// The blocks preceding those of `cur`: lane 0 of `cur` moved up one lane,
/// and lane 1 of `prev` (the block before `cur`'s first) in lane 0.
#[inline]
#[target_feature(enable = "aes,avx2,vaes")]
fn preceding(cur: __m256i, prev: __m256i) -> __m256i {
    _mm256_permute2x128_si256::<0x21>(prev, cur)
}

#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn cbc_dec<const R: usize>(keys: &[__m128i; 15], iv: &mut Block, mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: n >= 1 blocks of input, read before anything is written.
    let last_ct = unsafe { _mm_loadu_si128(src.add(16 * (n - 1)).cast()) };
    // Only lane 1 of `prev` is ever used: the block before the next batch.
    // SAFETY: `iv` is 16 readable bytes.
    let mut prev = _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
    let mut i = 0;
    // With 16 ymm registers, keeping each register's preceding blocks from
    // the loads until AESDECLAST would spill. Instead the ciphertext is read
    // again after the rounds, storing the registers last to first: the
    // preceding blocks of register j (blocks 2j-1 and 2j) are still intact
    // in memory when register j is stored, even in place.
    while n - i >= 2 * WIDE {
        let mut b = [_mm256_setzero_si256(); WIDE];
        for (j, v) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+2*WIDE lie inside the input.
            *v = _mm256_xor_si256(unsafe { load(src.add(16 * (i + 2 * j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for v in b.iter_mut() {
                *v = _mm256_aesdec_epi128(*v, *key);
            }
            order!(b);
        }
        // SAFETY (loads and stores below): all inside the batch's blocks
        // i..i+2*WIDE of input and output; every load reads blocks that no
        // store of this batch has yet written (the stores go downwards).
        let next_prev = unsafe { load(src.add(16 * (i + 2 * WIDE - 2))) };
        for j in (1..WIDE).rev() {
            let p = unsafe { load(src.add(16 * (i + 2 * j) - 16)) };
            let out = _mm256_aesdeclast_epi128(b[j], _mm256_xor_si256(p, rk[R]));
            unsafe { store(dst.add(16 * (i + 2 * j)), out) };
        }
        let p0 = preceding(unsafe { load(src.add(16 * i)) }, prev);
        let out = _mm256_aesdeclast_epi128(b[0], _mm256_xor_si256(p0, rk[R]));
        unsafe { store(dst.add(16 * i), out) };
        prev = next_prev;
        i += 2 * WIDE;
    }
    while i < n {
        let m = (n - i).min(2);
        // SAFETY: blocks i..i+m lie inside the input.
        let c = unsafe { load_part(src.add(16 * i), m) };
        let x = _mm256_xor_si256(preceding(c, prev), rk[R]);
        prev = c;
        let mut b = _mm256_xor_si256(c, rk[0]);
        for key in &rk[1..R] {
            b = _mm256_aesdec_epi128(b, *key);
        }
        // SAFETY: blocks i..i+m lie inside the output and were read above.
        unsafe { store_part(dst.add(16 * i), _mm256_aesdeclast_epi128(b, x), m) };
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
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) unsafe fn cbc_encrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes256CbcEnc);
    use super::aesni::cbc_enc;
    // SAFETY: AES-NI and SSE4.1 are implied by this function's features.
    unsafe { by_rounds!(k, cbc_enc(&k.enc, iv, io)) }
}

/// CTR over whole blocks with a 128-bit big-endian counter.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,avx2,vaes")]
pub(super) unsafe fn ctr_apply(k: &X86Aes, ctr: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::Vaes256Ctr);
    super::ctr_segments(ctr, io, |c, seg| {
        // SAFETY: same features as this function (closures inherit them).
        unsafe { by_rounds!(k, ctr_seg(&k.enc, c, seg)) }
    });
}

/// CTR over a segment in which the low 64 bits of the counter do not wrap
/// (lanes past the end of a masked tail may wrap; they are never stored).
#[target_feature(enable = "aes,avx2,vaes")]
unsafe fn ctr_seg<const R: usize>(keys: &[__m128i; 15], c0: u128, mut io: InOut<'_>) {
    let rk = broadcast::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = _mm256_broadcastsi128_si256(super::aesni::bswap_mask());
    // Lane l counts c0 + l; every ymm step adds 2 to each lane.
    let mut ctr = _mm256_add_epi64(
        _mm256_broadcastsi128_si256(ctr_le(c0)),
        _mm256_set_epi64x(0, 1, 0, 0),
    );
    let two = _mm256_set_epi64x(0, 2, 0, 2);
    let mut i = 0;
    while n - i >= 2 * WIDE {
        let mut b = [_mm256_setzero_si256(); WIDE];
        for x in b.iter_mut() {
            *x = _mm256_xor_si256(_mm256_shuffle_epi8(ctr, bswap), rk[0]);
            ctr = _mm256_add_epi64(ctr, two);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, *key);
            }
            order!(b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: blocks i..i+4*WIDE lie inside both regions; each ymm is
            // read just before the same position is written. The data XOR
            // rides in the last round key.
            unsafe {
                let p = 16 * (i + 2 * j);
                let d = _mm256_xor_si256(load(src.add(p)), rk[R]);
                store(dst.add(p), _mm256_aesenclast_epi128(*x, d));
            }
        }
        i += 2 * WIDE;
    }
    while i < n {
        let m = (n - i).min(2);
        let mut x = _mm256_xor_si256(_mm256_shuffle_epi8(ctr, bswap), rk[0]);
        ctr = _mm256_add_epi64(ctr, two);
        for key in &rk[1..R] {
            x = _mm256_aesenc_epi128(x, *key);
        }
        // SAFETY: blocks i..i+m lie inside both regions; read before written.
        unsafe {
            let d = _mm256_xor_si256(load_part(src.add(16 * i), m), rk[R]);
            store_part(dst.add(16 * i), _mm256_aesenclast_epi128(x, d), m);
        }
        i += m;
    }
}
