//! AES-NI kernels on 128-bit lanes.
//!
//! Port model (uops.info's tables; one schedule serves all three cores):
//!
//! | core | AESENC/AESDEC | PSHUFB | PADDD, PXOR |
//! | --- | --- | --- | --- |
//! | Zen 3, Zen 4 | FP0, FP1, latency 4 | FP1, FP2 | FP0-FP3 |
//! | Golden Cove | p0, p1, latency 3 | p1, p5 | p0, p1, p5 |
//!
//! Two AES ops issue per cycle on each, so ECB, CTR and CBC decryption are
//! bound by the AES pipes: 5 cycles per block for AES-128, 7 for AES-256.
//! Eight independent blocks fill them (latency 4 x 2 pipes on Zen, with no
//! slack; 3 x 2 on Golden Cove); the bulk loops keep eight or twelve
//! ([`WIDE`]), in round-major order ([`order`]). Kernels are generic over
//! the round count `R` so that the round loops unroll and each round key
//! is one register for the batch. Per block the loops add at most three
//! ops besides the rounds (the first key XOR, the data or chaining XOR,
//! and in CTR one PADDD that makes the counter block); none of them is a
//! PSHUFB, which would take an AES pipe's slot (FP1, p1). Each block's
//! last AES op is followed by its store before the next block's
//! ([`after_store`]).
//!
//! Measured on Zen 3 (3.21 GHz, from the AESENC latency chain; bound
//! 10.27 GB/s for AES-128, 7.34 for AES-256) at 16 KiB and 1 MiB: ECB
//! 10.0-10.1 and 7.25-7.3 GB/s (0.98-0.99 of it, [`WIDE`] blocks a batch);
//! CTR 9.7-9.8 and 7.0-7.1 (0.95-0.96, eight a batch); CBC decryption
//! 10.0-10.1 and 7.2-7.3.
//!
//! CBC encryption is one chain of `R` AES ops per block (the next plaintext
//! and the first round key ride in the last round key): 40/56 cycles per
//! block on Zen, 30/42 on Golden Cove. It is also the kernel the VAES
//! levels use: a wider register cannot shorten a chain. Measurements:
//! docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::key::X86Aes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::{Block, KeySize};

/// Blocks in flight in the ECB loop and AES-192/256 CBC decryption: twelve,
/// then one batch of eight for what is left. Eight fill the two AES pipes
/// exactly (latency 4 x 2 on Zen, 3 x 2 on Golden Cove), with no slack for
/// the loads, first key XOR and stores around each batch: ECB ran at 0.95
/// (AES-128) and 0.98 (AES-256) of the AES port bound on Zen 3, twelve at
/// 1.00 of it (a hand loop of each width in a C harness; in Rust ECB
/// +2.2-3.6%, AES-256 CBC decryption +4.6%). Twelve states and a round key
/// fit the sixteen registers; where a loop needs more live values (CTR's
/// counter blocks, AES-128 CBC decryption's chaining values) it spilled
/// and lost 3-9%, and those stay at eight.
const WIDE: usize = 12;
/// The batch of the other loops, and ECB's and CBC decryption's last one.
const NARROW: usize = 8;

/// ECB-encrypts whole blocks.
///
/// # Safety
/// The CPU must support AES-NI and SSE4.1 (guaranteed by holding an `X86Aes`).
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn encrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::AesniEcbEnc);
    // SAFETY: same features as this function.
    unsafe {
        match k.size {
            KeySize::Aes128 => ecb::<10, false>(&k.enc, io),
            KeySize::Aes192 => ecb::<12, false>(&k.enc, io),
            KeySize::Aes256 => ecb::<14, false>(&k.enc, io),
        }
    }
}

/// ECB-decrypts whole blocks.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn decrypt_blocks(k: &X86Aes, io: InOut<'_>) {
    trace::hit(Kernel::AesniEcbDec);
    // SAFETY: same features as this function.
    unsafe {
        match k.size {
            KeySize::Aes128 => ecb::<10, true>(&k.dec, io),
            KeySize::Aes192 => ecb::<12, true>(&k.dec, io),
            KeySize::Aes256 => ecb::<14, true>(&k.dec, io),
        }
    }
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
    unsafe {
        match k.size {
            KeySize::Aes128 => ecb::<10, DEC>(keys, io),
            KeySize::Aes192 => ecb::<12, DEC>(keys, io),
            KeySize::Aes256 => ecb::<14, DEC>(keys, io),
        }
    }
}

/// Keeps the eight blocks of a bulk loop in round-major order. Left alone,
/// LLVM schedules a pair of blocks through all their rounds before the
/// next pair (to save registers: SSE has 16); those dependent chains fill
/// the AES scheduler queue, the out-of-order core can no longer overlap the
/// other blocks, and AES-256 loses about 10%. An empty `asm!` that takes and
/// returns all eight states after each round ([`super::vector::order_xmm`])
/// is a barrier between rounds that costs no instruction.
use super::vector::order_xmm as order;

/// Pins each block's last round and store in block order (see there).
use super::vector::after_store_xmm as after_store;

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
    if n >= NARROW {
        // SAFETY: `src`/`dst` hold n blocks, equal or disjoint (`InOut`).
        unsafe {
            i = ecb_bulk::<R, DEC, WIDE>(keys, src, dst, n, i);
            i = ecb_bulk::<R, DEC, NARROW>(keys, src, dst, n, i);
        }
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
        // SAFETY: block i lies inside the output; its input was read first.
        unsafe { store(dst.add(16 * i), aes_round(DEC, true, x, keys[R])) };
        i += 1;
    }
}

/// The bulk part of [`ecb`]: batches of `W` blocks from block `i` while
/// `W` are left; returns the first block not done.
///
/// # Safety
/// `src` and `dst` valid for `16 * n` bytes (equal or disjoint).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ecb_bulk<const R: usize, const DEC: bool, const W: usize>(
    keys: &[__m128i; 15],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    mut i: usize,
) -> usize {
    let rk = *keys;
    while n - i >= W {
        let mut b = [_mm_setzero_si128(); W];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+W lie inside the input (i + W <= n).
            *x = _mm_xor_si128(unsafe { load(src.add(16 * (i + j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = aes_round(DEC, false, *x, *key);
            }
            order(&mut b);
        }
        for j in 0..W {
            // SAFETY: blocks i..i+W lie inside the output; all were read
            // before this first store.
            unsafe { store(dst.add(16 * (i + j)), aes_round(DEC, true, b[j], rk[R])) };
            if j + 1 < W {
                after_store(&mut b[j + 1]);
            }
        }
        i += W;
    }
    i
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
    unsafe {
        match k.size {
            KeySize::Aes128 => block1::<10, false>(&k.enc, b),
            KeySize::Aes192 => block1::<12, false>(&k.enc, b),
            KeySize::Aes256 => block1::<14, false>(&k.enc, b),
        }
    }
}

/// Decrypts one block in place, as [`encrypt_block`].
#[inline]
pub(crate) fn decrypt_block(k: &X86Aes, b: &mut Block) {
    // SAFETY: every X86Aes level implies AES-NI and SSE4.1.
    unsafe {
        match k.size {
            KeySize::Aes128 => block1::<10, true>(&k.dec, b),
            KeySize::Aes192 => block1::<12, true>(&k.dec, b),
            KeySize::Aes256 => block1::<14, true>(&k.dec, b),
        }
    }
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
    unsafe {
        match k.size {
            KeySize::Aes128 => cbc_dec::<10>(&k.dec, iv, io),
            KeySize::Aes192 => cbc_dec::<12>(&k.dec, iv, io),
            KeySize::Aes256 => cbc_dec::<14>(&k.dec, iv, io),
        }
    }
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
    // SAFETY: `src`/`dst` hold n blocks, equal or disjoint (`InOut`).
    unsafe {
        // AES-128 stays eight wide: twelve states and the twelve ciphertext
        // blocks of the chaining XOR spill, and its ten rounds lost 5-9%
        // that way on Zen 3 (AES-256 gained 4.6%).
        if R != 10 {
            (i, prev) = cbc_dec_bulk::<R, WIDE>(&rk, src, dst, n, i, prev);
        }
        (i, prev) = cbc_dec_bulk::<R, NARROW>(&rk, src, dst, n, i, prev);
    }
    while i < n {
        // SAFETY: block i lies inside both regions.
        let c = unsafe { load(src.add(16 * i)) };
        let mut x = _mm_xor_si128(c, rk[0]);
        for key in &rk[1..R] {
            x = _mm_aesdec_si128(x, *key);
        }
        let out = _mm_aesdeclast_si128(x, _mm_xor_si128(rk[R], prev));
        // SAFETY: block i lies inside the output; its input was read first.
        unsafe { store(dst.add(16 * i), out) };
        prev = c;
        i += 1;
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { store(iv.as_mut_ptr(), last_ct) };
}

/// The bulk part of [`cbc_dec`]: batches of `W` blocks from block `i`
/// while `W` are left, `prev` the ciphertext block before block `i`;
/// returns the first block not done and the ciphertext block before it.
///
/// # Safety
/// `src` and `dst` valid for `16 * n` bytes (equal or disjoint).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn cbc_dec_bulk<const R: usize, const W: usize>(
    rk: &[__m128i; 15],
    src: *const u8,
    dst: *mut u8,
    n: usize,
    mut i: usize,
    mut prev: __m128i,
) -> (usize, __m128i) {
    while n - i >= W {
        let mut c = [_mm_setzero_si128(); W];
        for (j, x) in c.iter_mut().enumerate() {
            // SAFETY: blocks i..i+W lie inside the input.
            *x = unsafe { load(src.add(16 * (i + j))) };
        }
        let mut b = [_mm_setzero_si128(); W];
        for j in 0..W {
            b[j] = _mm_xor_si128(c[j], rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = _mm_aesdec_si128(*x, *key);
            }
            order(&mut b);
        }
        for j in 0..W {
            // The chaining XOR: after the last round for AES-128, in the
            // last round key for AES-192/256, each the faster on Zen 3
            // (AES-128 3-5% at 16 KiB and 1 MiB, AES-256 1%).
            let p = if j == 0 { prev } else { c[j - 1] };
            let out = if R == 10 {
                _mm_xor_si128(_mm_aesdeclast_si128(b[j], rk[R]), p)
            } else {
                _mm_aesdeclast_si128(b[j], _mm_xor_si128(rk[R], p))
            };
            // SAFETY: inside the output; all W blocks were read above.
            unsafe { store(dst.add(16 * (i + j)), out) };
            if j + 1 < W {
                after_store(&mut b[j + 1]);
            }
        }
        prev = c[W - 1];
        i += W;
    }
    (i, prev)
}

/// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn cbc_encrypt(k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(Kernel::AesniCbcEnc);
    // SAFETY: same features as this function.
    unsafe {
        match k.size {
            KeySize::Aes128 => cbc_enc::<10>(&k.enc, iv, io),
            KeySize::Aes192 => cbc_enc::<12>(&k.enc, iv, io),
            KeySize::Aes256 => cbc_enc::<14>(&k.enc, iv, io),
        }
    }
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
    // SAFETY: same features as this function.
    unsafe {
        match k.size {
            KeySize::Aes128 => ctr_rounds::<10>(&k.enc, ctr, io),
            KeySize::Aes192 => ctr_rounds::<12>(&k.enc, ctr, io),
            KeySize::Aes256 => ctr_rounds::<14>(&k.enc, ctr, io),
        }
    }
}

/// [`ctr_apply`] for `R` rounds. The round dispatch stays outside the
/// segment loop, so each round count has a loop of its own: matched inside
/// it, every call paid for loading and spilling all 15 round keys (64-byte
/// CTR 18% slower on Zen 3).
#[inline]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ctr_rounds<const R: usize>(keys: &[__m128i; 15], ctr: &mut Block, io: InOut<'_>) {
    super::ctr_runs::ctr_segments(ctr, io, |c, seg| {
        // SAFETY: same features as this function (closures inherit them).
        unsafe { ctr_seg::<R>(keys, c, seg) }
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
///
/// The bulk loop makes its eight counter blocks without PSHUFB: while the
/// last byte of the counter does not carry inside the batch (31 batches in
/// 32), block `j` is the big-endian block plus `j` added to that byte (one
/// PADDD on the top 32-bit lane, where byte 15 is the most significant).
/// PSHUFB runs on two of the four vector pipes on Zen 3/4, one of them an
/// AES pipe, and on Golden Cove's ports 1 and 5, port 1 an AES port: eight
/// byte swaps per batch took AES slots. A batch whose last byte carries
/// swaps as before.
///
/// The last round takes the plain last round key and the data is XORed
/// into its result (as CBC decryption does for AES-128): folded into
/// the key, the data's load and PXOR sat on the way into AESENCLAST, and
/// CTR at 16 KiB and 1 MiB ran 1.3-2.4% slower on Zen 3 (AES-128 and
/// AES-256). Keeping the counter blocks in memory, first round key
/// included, with their last words written by integer stores a batch
/// ahead (AWS-LC's way) gained nothing here and lost 3-5% at 64 and
/// 1500 bytes. Those memory counter blocks do make room for twelve states
/// a batch, as ECB runs; tried on Zen 3 (2026-11-29, A/B best of six at
/// 1500 B, 16 KiB and 1 MiB), AES-128 lost 2-9% and AES-256 moved -1.6
/// to +2%, with the blocks written one batch ahead or two.
// Not inlined: folded into `ctr_apply` with its three round counts, the
// single-block tail loop got a worse register allocation (64-byte CTR-128
// 3.17 -> 2.74 GB/s on Zen 3); on its own it runs at 3.25.
#[inline(never)]
#[target_feature(enable = "aes,sse4.1")]
unsafe fn ctr_seg<const R: usize>(keys: &[__m128i; 15], c0: u128, mut io: InOut<'_>) {
    let rk = *keys;
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bswap = bswap_mask();
    let one = _mm_set_epi64x(0, 1);
    let mut ctr = ctr_le(c0);
    let mut i = 0;
    if n >= NARROW {
        // Block j's increment in the byte order of the block: `j` in byte 15.
        let inc: [__m128i; NARROW] =
            core::array::from_fn(|j| _mm_set_epi32((j as i32) << 24, 0, 0, 0));
        let step_le = _mm_set_epi64x(0, NARROW as i64);
        let step_be = _mm_set_epi32((NARROW as i32) << 24, 0, 0, 0);
        // The counter as the block (big-endian) and its last byte.
        let mut be = _mm_shuffle_epi8(ctr, bswap);
        let mut last = c0 as u8;
        while n - i >= NARROW {
            let mut b = [_mm_setzero_si128(); NARROW];
            if usize::from(last) + NARROW - 1 <= 0xff {
                for (x, d) in b.iter_mut().zip(inc.iter()) {
                    *x = _mm_xor_si128(_mm_add_epi32(be, *d), rk[0]);
                }
            } else {
                let mut c = ctr;
                for x in b.iter_mut() {
                    *x = _mm_xor_si128(_mm_shuffle_epi8(c, bswap), rk[0]);
                    c = _mm_add_epi64(c, one);
                }
            }
            ctr = _mm_add_epi64(ctr, step_le);
            be = if usize::from(last) + NARROW <= 0xff {
                _mm_add_epi32(be, step_be)
            } else {
                _mm_shuffle_epi8(ctr, bswap)
            };
            last = last.wrapping_add(NARROW as u8);
            for key in &rk[1..R] {
                for x in b.iter_mut() {
                    *x = _mm_aesenc_si128(*x, *key);
                }
                order(&mut b);
            }
            for j in 0..NARROW {
                // SAFETY: blocks i..i+NARROW lie inside both regions; each block is
                // read just before the same position is written.
                unsafe {
                    let d = load(src.add(16 * (i + j)));
                    store(
                        dst.add(16 * (i + j)),
                        _mm_xor_si128(_mm_aesenclast_si128(b[j], rk[R]), d),
                    );
                }
                if j + 1 < NARROW {
                    after_store(&mut b[j + 1]);
                }
            }
            i += NARROW;
        }
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

#[cfg(test)]
mod tests {
    use super::super::key::Level;
    use super::*;
    use crate::backend::kernels::cpu;
    use crate::key::RoundKeys;

    /// CTR against one block encryption per counter value, from starting
    /// counters whose last byte carries at every position of a batch (the
    /// bulk loop's PADDD path and its PSHUFB fallback), and whose low 64
    /// bits and whole 128 bits wrap inside the call.
    #[test]
    fn ctr_matches_block_encryption_across_carries() {
        let Some(t) = cpu::features().aesni else {
            return;
        };
        for key in [&[0x5au8; 16][..], &[0xa5u8; 24][..], &[0x3cu8; 32][..]] {
            let k = X86Aes::new(Level::Aesni(t), &RoundKeys::expand(key).unwrap());
            let starts = (0xe8u128..=0xff)
                .chain([0, 0x1_00, 0xffff_fff8, u64::MAX as u128 - 20])
                .chain([u128::MAX - 3, (7u128 << 64) | 0xf9]);
            for start in starts {
                for n in [1usize, 7, 8, 9, 16, 17, 40, 67] {
                    let data: Vec<u8> = (0..16 * n).map(|i| (i * 13 + 1) as u8).collect();
                    let mut want = data.clone();
                    for (j, chunk) in want.chunks_mut(16).enumerate() {
                        let mut ks = start.wrapping_add(j as u128).to_be_bytes();
                        encrypt_block(&k, &mut ks);
                        chunk.iter_mut().zip(ks).for_each(|(d, s)| *d ^= s);
                    }
                    let mut got = data.clone();
                    let mut ctr = start.to_be_bytes();
                    // SAFETY: `t` proves AES-NI and SSE4.1.
                    unsafe { ctr_apply(&k, &mut ctr, InOut::in_place(&mut got)) };
                    assert_eq!(got, want, "start {start:#x}, {n} blocks");
                    assert_eq!(ctr, start.wrapping_add(n as u128).to_be_bytes());
                }
            }
        }
    }
}
