//! AES-NI kernels on 128-bit lanes.
//!
//! Zen 5 (measured) issues two AESENC per cycle with a latency of four
//! cycles, so eight independent blocks must be in flight to fill the pipes;
//! the bulk loops keep eight. Kernels are generic over the round count `R` so that the
//! round loops unroll and the round keys stay in registers or become memory
//! operands of AESENC, never re-indexed at run time.
//!
//! The CBC-encryption kernel here is also the one the VAES levels use: one
//! chain is latency-bound and a wider register cannot shorten it.
//!
//! Where the cycles go. Per 64 bytes (four blocks) of AES-128; AES-256 has
//! 56 AES ops where these have 40:
//!
//! | kernel | AES ops | other vector ops | bound |
//! | --- | --- | --- | --- |
//! | ECB | 40 | 4 XOR (first round key) | 20 cycles, the AES ports |
//! | CTR | 40 | 4 PSHUFB, 4 PADDQ, 8 XOR | 20 cycles, the AES ports |
//! | CBC decryption | 40 | 8 XOR | 20 cycles, the AES ports |
//! | CBC encryption | 40, one chain | 4 XOR, off the chain | 40 x AES latency |
//!
//! Intel Golden Cove (Sapphire/Emerald Rapids class) runs AESENC on ports
//! 0 and 1 with a latency of three cycles and the other vector ops on 0, 1
//! and 5; Zen 4/5 runs AESENC on two of its four vector pipes with a
//! latency of four. Either way two AES ops issue per cycle, so the other
//! ops fit beside them (at most 16 per 20 cycles) and ECB, CTR and CBC
//! decryption are bound by the AES ports: the ECB rate of the tier is the
//! bound `aesx bench` divides by. CBC encryption puts the next plaintext
//! and the first round key into the last round key, so its chain is the
//! AES rounds alone: 30 cycles per block on Golden Cove (1/6 of the ECB
//! rate), 40 on Zen. Measured (2026-11-26, Intel Xeon family 6 model 167,
//! about 4 GHz, one `aesx bench --isa aesni` run, 16 KiB / 1 MiB): ECB
//! 13.1 / 12.8 GB/s (AES-128) and 9.3 / 9.2 (AES-256), level with OpenSSL
//! at the same bound (0.99-1.02x); CTR 12.9 (0.98 of the bound, 1.12-1.14x
//! the best peer) and 9.2 (1.06-1.08x); CBC decryption 12.7-12.8 and
//! 9.0-9.2 (0.97-0.99 of the bound, 0.98-0.99x AWS-LC, which is at the
//! bound too); CBC encryption 1.9-2.2 and 1.55 GB/s (0.15-0.17 of the
//! bound, the chain's 1/6; 1.07-1.10x the peers, whose chains carry the
//! plaintext XOR: 11 and 15 ops per block where these have 10 and 14).

use core::arch::x86_64::*;

use super::X86Aes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::Block;

/// Blocks in flight in the bulk loops.
const WIDE: usize = 8;

/// ECB-encrypts whole blocks.
///
/// # Safety
/// The CPU must support AES-NI and SSE4.1 (guaranteed by holding an `X86Aes`).
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn encrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::AesniEcbEnc);
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<false>(&k.enc, io)) }
}

/// ECB-decrypts whole blocks.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn decrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::AesniEcbDec);
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<true>(&k.dec, io)) }
}

/// ECB over a few blocks with 128-bit loads and stores, for the VAES
/// kernels' small calls: broadcasting every round key into wide registers
/// and masked partial loads/stores cost far more than the rounds for one to
/// three blocks (and a masked store defeats store-to-load forwarding when the
/// caller chains calls in place). No trace counter: the calling kernel has
/// recorded itself.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn ecb_small<const DEC: bool>(k: &X86Aes, io: InOut<'_>) {
    let keys = if DEC { &k.dec } else { &k.enc };
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, ecb::<DEC>(keys, io)) }
}

/// Keeps the eight blocks of a bulk loop in round-major order. Left alone,
/// LLVM schedules a pair of blocks through all their rounds before the
/// next pair (to save registers: SSE has 16); those dependent chains fill
/// the AES scheduler queue, the out-of-order core can no longer overlap the
/// other blocks, and AES-256 loses about 10%. An empty `asm!` that takes and
/// returns all eight states after each round ([`super::vector::order_xmm`])
/// is a barrier between rounds that costs no instruction.
use super::vector::order_xmm as order;

/// The AES round instruction of direction `dec` (AESDEC* with the
/// equivalent-inverse schedule) and kind `last` (AES*LAST) on one block.
/// Kernels pass constants, so the choice folds away.
#[inline]
#[target_feature(enable = "aes")]
pub(super) fn aes_round(dec: bool, last: bool, b: __m128i, k: __m128i) -> __m128i {
    match (dec, last) {
        (false, false) => _mm_aesenc_si128(b, k),
        (false, true) => _mm_aesenclast_si128(b, k),
        (true, false) => _mm_aesdec_si128(b, k),
        (true, true) => _mm_aesdeclast_si128(b, k),
    }
}

#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn load(p: *const u8) -> __m128i {
    // SAFETY: the caller passes a pointer to 16 readable bytes.
    unsafe { _mm_loadu_si128(p.cast()) }
}

#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn store(p: *mut u8, v: __m128i) {
    // SAFETY: the caller passes a pointer to 16 writable bytes.
    unsafe { _mm_storeu_si128(p.cast(), v) }
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn ecb<const R: usize, const DEC: bool>(keys: &[__m128i; 15], mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let mut i = 0;
    if n >= WIDE {
        // SAFETY: as below; n >= WIDE blocks.
        unsafe { ecb_bulk::<R, DEC>(keys, src, dst, n) };
        i = n / WIDE * WIDE;
    }
    // The few-block path (one block per call in block mode) reads the round
    // keys in place: copying the 240-byte schedule first, as the bulk loop
    // does, cost more than the ten rounds of one block.
    while i < n {
        // SAFETY: block i lies inside both regions.
        let mut x = _mm_xor_si128(unsafe { load(src.add(16 * i)) }, keys[0]);
        for key in &keys[1..R] {
            x = aes_round(DEC, false, x, *key);
        }
        // SAFETY: as above; the block was read first.
        unsafe { store(dst.add(16 * i), aes_round(DEC, true, x, keys[R])) };
        i += 1;
    }
}

/// The eight-wide part of [`ecb`]: blocks `0..n / WIDE * WIDE`.
///
/// # Safety
/// `src` and `dst` valid for `16 * n` bytes (equal or disjoint).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ecb_bulk<const R: usize, const DEC: bool>(
    keys: &[__m128i; 15],
    src: *const u8,
    dst: *mut u8,
    n: usize,
) {
    let rk = *keys;
    let mut i = 0;
    while n - i >= WIDE {
        let mut b = [_mm_setzero_si128(); WIDE];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+WIDE lie inside the input (i + WIDE <= n).
            *x = _mm_xor_si128(unsafe { load(src.add(16 * (i + j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = aes_round(DEC, false, *x, *key);
            }
            order(&mut b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: as for the loads; every block was read before any store.
            unsafe { store(dst.add(16 * (i + j)), aes_round(DEC, true, *x, rk[R])) };
        }
        i += WIDE;
    }
}

/// One block in place, the block-mode call path (`Aes::encrypt_block`) of
/// every level: a VAES register buys nothing for one block. It skips the
/// level match, the `InOut` and the block loop of [`encrypt_blocks`]; what is
/// left per call is a `match` on the rounds (inlined into the caller) and
/// one direct call to [`block1`]. No trace counter (the counted ECB kernels
/// are the bulk ones).
#[inline]
pub(crate) fn encrypt_block(k: &X86Aes, b: &mut Block) {
    // SAFETY: every X86Aes level implies AES-NI and SSE4.1, confirmed by
    // detection before the key could be built.
    unsafe { by_rounds!(k, block1::<false>(&k.enc, b)) }
}

/// Decrypts one block in place, as [`encrypt_block`].
#[inline]
pub(crate) fn decrypt_block(k: &X86Aes, b: &mut Block) {
    // SAFETY: as in encrypt_block.
    unsafe { by_rounds!(k, block1::<true>(&k.dec, b)) }
}

/// The one-block kernel: the round keys are memory operands read in place.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
unsafe fn block1<const R: usize, const DEC: bool>(keys: &[__m128i; 15], b: &mut Block) {
    // SAFETY: `b` is 16 readable and writable bytes.
    unsafe {
        let mut x = _mm_xor_si128(load(b.as_ptr()), keys[0]);
        for key in &keys[1..R] {
            x = aes_round(DEC, false, x, *key);
        }
        store(b.as_mut_ptr(), aes_round(DEC, true, x, keys[R]));
    }
}

/// CBC-decrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn cbc_decrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::AesniCbcDec);
    // SAFETY: same features as this function.
    unsafe { cbc_decrypt_small(k, iv, io) }
}

/// [`cbc_decrypt`] for the short calls of the VAES levels: no trace
/// counter, the calling kernel has recorded itself.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn cbc_decrypt_small(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, cbc_dec(&k.dec, iv, io)) }
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn cbc_dec<const R: usize>(keys: &[__m128i; 15], iv: &mut Block, mut io: InOut<'_>) {
    let rk = *keys;
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: n >= 1 blocks of input; read before anything is written.
    let last_ct = unsafe { load(src.add(16 * (n - 1))) };
    // SAFETY: `iv` is 16 readable bytes.
    let mut prev = unsafe { load(iv.as_ptr()) };
    let mut i = 0;
    while n - i >= WIDE {
        let mut c = [_mm_setzero_si128(); WIDE];
        for (j, x) in c.iter_mut().enumerate() {
            // SAFETY: blocks i..i+WIDE lie inside the input.
            *x = unsafe { load(src.add(16 * (i + j))) };
        }
        let mut b = [_mm_setzero_si128(); WIDE];
        for j in 0..WIDE {
            b[j] = _mm_xor_si128(c[j], rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = _mm_aesdec_si128(*x, *key);
            }
            order(&mut b);
        }
        for j in 0..WIDE {
            // The chaining XOR rides in the last round key.
            let p = if j == 0 { prev } else { c[j - 1] };
            let out = _mm_aesdeclast_si128(b[j], _mm_xor_si128(rk[R], p));
            // SAFETY: inside the output; all WIDE blocks were read above.
            unsafe { store(dst.add(16 * (i + j)), out) };
        }
        prev = c[WIDE - 1];
        i += WIDE;
    }
    while i < n {
        // SAFETY: block i lies inside both regions.
        let c = unsafe { load(src.add(16 * i)) };
        let mut x = _mm_xor_si128(c, rk[0]);
        for key in &rk[1..R] {
            x = _mm_aesdec_si128(x, *key);
        }
        let out = _mm_aesdeclast_si128(x, _mm_xor_si128(rk[R], prev));
        // SAFETY: as above; the block was read first.
        unsafe { store(dst.add(16 * i), out) };
        prev = c;
        i += 1;
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { store(iv.as_mut_ptr(), last_ct) };
}

/// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn cbc_encrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::AesniCbcEnc);
    // SAFETY: same features as this function.
    unsafe { by_rounds!(k, cbc_enc(&k.enc, iv, io)) }
}

/// The serial CBC chain, shared by every x86 level.
///
/// # Safety
/// AES-NI and SSE4.1 (or the VEX forms, when inlined into an AVX caller).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn cbc_enc<const R: usize>(
    keys: &[__m128i; 15],
    iv: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: `iv` is 16 readable bytes; block i < n lies inside the input
    // and is read before block i of the output is written (`chain` takes
    // input i + 1 before it hands out output i).
    unsafe {
        let c = chain::<R>(
            keys,
            load(iv.as_ptr()),
            n,
            |i| load(src.add(16 * i)),
            |i, c| store(dst.add(16 * i), c),
        );
        store(iv.as_mut_ptr(), c);
    }
}

/// The CBC chain over `n >= 1` blocks from the chaining value `s0`: block
/// `i`'s input is `input(i)` (taken in order), its output goes to
/// `output(i, c)`, and the last output is returned. CBC encryption, CBC-MAC
/// and CCM's MAC (`cbc_mac.rs`) are this chain.
///
/// The chain is `R` dependent AES instructions per block and nothing else:
/// the next input block and the first round key are folded into the key of
/// AESENCLAST (`aesenclast(s, k_R ^ k_0 ^ p') = c ^ k_0 ^ p'`, the next
/// block's state after its first AddRoundKey), and the output is recovered
/// off the chain by one more XOR (dead code where `output` drops it).
///
/// # Safety
/// AES-NI and SSE4.1 in the caller (this inlines into it).
#[inline(always)]
pub(super) unsafe fn chain<const R: usize>(
    keys: &[__m128i; 15],
    s0: __m128i,
    n: usize,
    mut input: impl FnMut(usize) -> __m128i,
    mut output: impl FnMut(usize, __m128i),
) -> __m128i {
    let rk = *keys;
    // SAFETY: AES-NI and SSE2, as the caller guarantees.
    unsafe {
        let last_k0 = _mm_xor_si128(rk[R], rk[0]);
        let mut s = _mm_xor_si128(_mm_xor_si128(s0, rk[0]), input(0));
        for i in 1..n {
            for key in &rk[1..R] {
                s = _mm_aesenc_si128(s, *key);
            }
            let p = _mm_xor_si128(input(i), last_k0);
            s = _mm_aesenclast_si128(s, p);
            // s = c_{i-1} ^ k_0 ^ p_i; p = k_R ^ k_0 ^ p_i.
            output(i - 1, _mm_xor_si128(_mm_xor_si128(s, p), rk[R]));
        }
        for key in &rk[1..R] {
            s = _mm_aesenc_si128(s, *key);
        }
        let c = _mm_aesenclast_si128(s, rk[R]);
        output(n - 1, c);
        c
    }
}

/// CTR over whole blocks with a 128-bit big-endian counter.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn ctr_apply(k: &X86Aes, ctr: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::AesniCtr);
    super::ctr_segments(ctr, io, |c, seg| {
        // SAFETY: same features as this function (closures inherit them).
        unsafe { by_rounds!(k, ctr_seg(&k.enc, c, seg)) }
    });
}

/// Byte reversal of a 128-bit lane: the counter is kept little-endian in the
/// register (low 64 bits in lane 0, where PADDQ adds) and swapped to the
/// big-endian block per use.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn bswap_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// The counter value `c` as a little-endian 128-bit lane.
#[inline]
#[target_feature(enable = "aes,sse4.1")]
pub(super) fn ctr_le(c: u128) -> __m128i {
    _mm_set_epi64x((c >> 64) as u64 as i64, c as u64 as i64)
}

/// CTR over a segment in which the low 64 bits of the counter do not wrap.
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ctr_seg<const R: usize>(keys: &[__m128i; 15], c0: u128, mut io: InOut<'_>) {
    let rk = *keys;
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = bswap_mask();
    let one = _mm_set_epi64x(0, 1);
    let mut ctr = ctr_le(c0);
    let mut i = 0;
    while n - i >= WIDE {
        let mut b = [_mm_setzero_si128(); WIDE];
        for x in b.iter_mut() {
            *x = _mm_xor_si128(_mm_shuffle_epi8(ctr, bswap), rk[0]);
            ctr = _mm_add_epi64(ctr, one);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = _mm_aesenc_si128(*x, *key);
            }
            order(&mut b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: blocks i..i+WIDE lie inside both regions; each block is
            // read just before the same position is written.
            unsafe {
                let d = load(src.add(16 * (i + j)));
                store(
                    dst.add(16 * (i + j)),
                    _mm_aesenclast_si128(*x, _mm_xor_si128(rk[R], d)),
                );
            }
        }
        i += WIDE;
    }
    while i < n {
        let mut x = _mm_xor_si128(_mm_shuffle_epi8(ctr, bswap), rk[0]);
        ctr = _mm_add_epi64(ctr, one);
        for key in &rk[1..R] {
            x = _mm_aesenc_si128(x, *key);
        }
        // SAFETY: block i lies inside both regions; read before written.
        unsafe {
            let d = load(src.add(16 * i));
            store(
                dst.add(16 * i),
                _mm_aesenclast_si128(x, _mm_xor_si128(rk[R], d)),
            );
        }
        i += 1;
    }
}
