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
//! decryption hashes the current step's input. Steps start on counters
//! that are multiples of eight, so a step's counter blocks are its first
//! one XOR 0..7 with the first round key added once ([`StepCounters`]:
//! one vector instruction per block instead of three); the first step
//! drops the states before the call's first counter. The tail's counter
//! blocks are kept byte-reversed so that `paddd` on the low dword is inc32
//! (wraps modulo 2^32, no carry into the IV). The kernel is generic over
//! the round count so the round loops unroll and every round key is a
//! memory operand.
//!
//! Registers (16 xmm): eight AES states, the three product accumulators,
//! a round key / temporary; the eight ciphertext blocks to hash, H^8..H^1
//! and their half-sums live on the stack and are memory operands of
//! PCLMULQDQ. Compiled in SSE encodings, and for AES-128 also in VEX
//! encodings where the CPU has AVX ([`vex`]).
//!
//! Two paths, chosen by [`Schedule`] (CPUID; `AESX_SCHEDULE` forces one):
//! - Intel (PCLMULQDQ on a port of its own): the step above, one reduction
//!   per step. Golden Cove: AESENC on ports 0 and 1, PCLMULQDQ on port 5,
//!   about 22 vector uops per block on three ports, 0.68 of the AES bound
//!   at best.
//! - Zen and generic, AES-128 only: pairs of steps share one reduction
//!   (H^16..H^9 for the first step's products, H^8..H^1 for the second's),
//!   and a barrier over the states and the three accumulators
//!   ([`order_w`]) keeps each product between its two AES rounds (without
//!   it LLVM hoists all 26 multiplies of the unrolled AES-128 step ahead of
//!   the rounds). The first step of a pair multiplies block 0, which
//!   carries the GHASH state (the reduction that ended the pair before),
//!   last: every later sum XORs into the accumulators after it, so taking
//!   it first kept the step's sums (and the scheduler entries they hold)
//!   waiting on that reduction (last: 2-3% faster on Zen 3). AES-192 and
//!   AES-256 take the Intel loop on every core: they have AES work enough
//!   to hide the second reduction, and the pairs measured 4-8% slower
//!   there (with block 0 last; 0-4% before). The Intel loop itself with
//!   block 0 last measured 4-12% slower for AES-256 on Zen 3.
//!
//! Zen 3 (measured on an EPYC, family 25 model 1, with a standalone probe):
//! AESENC latency 4, two per cycle; PCLMULQDQ latency 4, one per two
//! cycles alone (any immediate, register or memory operand). Beside eight
//! AES chains each PCLMULQDQ also takes an AES pipe slot: per eight AESENC
//! (4 cycles alone), 1, 2, 3, 4 independent multiplies take 4.5, 5.1-5.4,
//! 6.7, 8.0-8.6 cycles. PSHUFB and PSHUFD share the AES pipes in part (four
//! per eight AESENC: +16-25% and +11%), not the multiplier. A synthetic
//! AES-128 step (80 AES, 26 independent multiplies) takes 62 cycles (40
//! for the AES alone); with the accumulating XORs, half-sums and operand
//! loads of a real step, 77. So on Zen 3 the multiplier, not the AES
//! pipes, bounds AES-128 GCM: 3.125 multiplies per block with pairs, about
//! 6.3 cycles per block at best against ECB's 5. Measured: 10.6 cycles per
//! block (4.85 GB/s at 1 MiB, 3.21 GHz; the one-reduction step was 11.8,
//! 4.1 GB/s), 0.49 of the AES-NI ECB rate and 0.6 of that multiplier
//! bound. Zen 4 has the same arrangement in AMD's and uops.info's tables
//! (AESENC and PCLMULQDQ on FP0/FP1); not measured here.
//!
//! One-shot messages ([`gcm_oneshot`]) take the last one to eight blocks,
//! the partial one included, through the AES rounds together with E_K(J0)
//! and hash them with the length block under one reduction (the AAD too
//! when the message is a single group), where a generic tail would be four
//! dependent steps. Measurements and the forms tried: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::ghash_clmul::{
    self, bswap_mask, ghash8, half_sum, length_block, load_padded, Wide, WideK, X86HKey, POWERS,
};
use super::key::X86Aes;
use super::vector::{order_acc_xmm, order_xmm as order, prefetch_step, PREFETCH_MIN};
use crate::backend::kernels::cpu;
use crate::backend::kernels::gcm::{blocks_to_aligned, inc32};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::schedule::Schedule;
use crate::key::{Block, KeySize, BLOCK_LEN};
use zeroize::Zeroize;

/// Blocks per step.
const STEP: usize = 8;

/// [`order`] that also holds the GHASH accumulators `w` at this point of
/// the stream (one barrier, [`order_acc_xmm`]): the products issued before
/// it stay before the next round and those after it stay after the last one
/// (LLVM otherwise gathers all the products of a step in one block ahead of
/// the rounds, when the round loop is unrolled).
#[inline(always)]
fn order_w(b: &mut [__m128i; STEP], w: &mut WideK) {
    let (lo, mid, hi) = w.parts_mut();
    let mut acc = [*lo, *mid, *hi];
    order_acc_xmm(b, &mut acc);
    [*lo, *mid, *hi] = acc;
}

/// Encrypts the first `m` of `b` (all rounds, blocks interleaved): the
/// first 2, 4, 6 or `N` of them, at least `m`, so that the rounds unroll in
/// round-major order (a loop over `m` lanes per round stayed rolled); the
/// states past `m` go through the rounds too and are not read.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt_n<const R: usize, const N: usize>(rk: &[__m128i; 15], b: &mut [__m128i; N], m: usize) {
    match m {
        0..=2 => encrypt_first::<R, N, 2>(rk, b),
        3..=4 => encrypt_first::<R, N, 4>(rk, b),
        5..=6 => encrypt_first::<R, N, 6>(rk, b),
        _ => encrypt_first::<R, N, N>(rk, b),
    }
}

/// Encrypts the first `C` of `b` (`C <= N`), interleaved.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn encrypt_first<const R: usize, const N: usize, const C: usize>(
    rk: &[__m128i; 15],
    b: &mut [__m128i; N],
) {
    let mut v: [__m128i; C] = core::array::from_fn(|j| _mm_xor_si128(b[j], rk[0]));
    for key in &rk[1..R] {
        for x in v.iter_mut() {
            *x = _mm_aesenc_si128(*x, *key);
        }
        order(&mut v);
    }
    for (x, y) in b.iter_mut().zip(v) {
        *x = _mm_aesenclast_si128(y, rk[R]);
    }
}

/// Rounds 1..=R on eight blocks that already hold the first round key.
#[inline]
#[target_feature(enable = "aes,sse2")]
fn rounds8<const R: usize>(rk: &[__m128i; 15], b: &mut [__m128i; STEP]) {
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

/// AES on eight blocks that already hold the first round key (from
/// [`StepCounters`]), with the GHASH of eight byte-reversed ciphertext
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

/// The Zen path's [`encrypt8_ghash`]: adds the eight products to `w` and
/// leaves them unreduced, so that two steps share one reduction; each
/// product is held between the two AES rounds around it ([`order_w`]).
/// `FIRST`: `w` is empty and `y` (the GHASH state) is added to `x[0]`;
/// otherwise `y` is not read.
// `r` is the round number; it also picks the product woven after it.
#[allow(clippy::needless_range_loop)]
#[inline]
#[target_feature(enable = "aes,sse2,pclmulqdq")]
fn encrypt8_ghash_zen<const R: usize, const FIRST: bool>(
    rk: &[__m128i; 15],
    b: &mut [__m128i; STEP],
    x: &[__m128i; STEP],
    pw: &[__m128i; STEP],
    pk: &[__m128i; STEP],
    y: __m128i,
    mut w: WideK,
) -> WideK {
    for r in 1..R {
        for v in b.iter_mut() {
            *v = _mm_aesenc_si128(*v, rk[r]);
        }
        let j = r - 1;
        if j < STEP {
            // The first step takes block 0 (with the GHASH state, the
            // reduction that ends the step before) last.
            let i = if FIRST { (j + 1) % STEP } else { j };
            let a = if FIRST && i == 0 {
                _mm_xor_si128(x[0], y)
            } else {
                x[i]
            };
            if FIRST && j == 0 {
                // `w` is still the known zero: no barrier, so the first
                // product's XORs into it fold away.
                order(b);
            } else {
                order_w(b, &mut w);
            }
            w.mul_add(a, pw[i], pk[i]);
        } else {
            order(b);
        }
    }
    for v in b.iter_mut() {
        *v = _mm_aesenclast_si128(*v, rk[R]);
    }
    w
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
    unsafe {
        match (k.size, zen_path()) {
            (KeySize::Aes128, false) => crypt_any::<10, ENCRYPT, false>(&k.enc, hk, acc, ctr, io),
            (KeySize::Aes128, true) => crypt_any::<10, ENCRYPT, true>(&k.enc, hk, acc, ctr, io),
            (KeySize::Aes192, _) => crypt_any::<12, ENCRYPT, false>(&k.enc, hk, acc, ctr, io),
            (KeySize::Aes256, _) => crypt_any::<14, ENCRYPT, false>(&k.enc, hk, acc, ctr, io),
        }
    }
    inc32(ctr, n as u32);
}

/// Whether the Zen path runs: where PCLMULQDQ shares the AES pipes (Zen,
/// and the generic schedule); Intel's own-port schedule keeps the
/// one-reduction-per-step loop.
#[inline]
fn zen_path() -> bool {
    !Schedule::current().clmul_beside_aes()
}

/// The counter blocks of the main loop's steps, each step's first counter
/// a multiple of eight, with the first round key already added. Inside
/// such a step the eight counters differ from the first only in its three
/// low bits, so block `j` is the first one XOR `j`: one XOR per block,
/// where the generic form (add to a byte-reversed counter, swap it to block
/// order, add the round key) takes three on the same three vector ports as
/// the AES rounds and the carry-less products. Between steps the first
/// counter moves by eight in its last byte (an add in block byte order)
/// unless that byte wraps, once every 32 steps, when it is rebuilt from
/// the 32-bit count (which wraps modulo 2^32 like inc32). The counter is
/// public (it comes from the IV), so the branch leaks nothing.
struct StepCounters {
    /// The next step's first counter block, in block byte order.
    x: __m128i,
    /// Its 32-bit counter.
    ctr32: u32,
}

impl StepCounters {
    /// Steps from counter block `ctr`, whose counter must be a multiple
    /// of eight.
    #[inline]
    #[target_feature(enable = "sse2")]
    fn new(ctr: &Block) -> StepCounters {
        debug_assert_eq!(blocks_to_aligned(ctr, STEP), 0);
        StepCounters {
            // SAFETY: 16 readable bytes.
            x: unsafe { _mm_loadu_si128(ctr.as_ptr().cast()) },
            ctr32: u32::from_be_bytes([ctr[12], ctr[13], ctr[14], ctr[15]]),
        }
    }

    /// The next step's eight counter blocks XOR the first round key `rk0`.
    #[inline]
    #[target_feature(enable = "sse4.1")]
    fn next(&mut self, rk0: __m128i) -> [__m128i; STEP] {
        let w = _mm_xor_si128(self.x, rk0);
        let mut b = [w; STEP];
        for (j, v) in b.iter_mut().enumerate().skip(1) {
            // `j` in the block's last byte (the top byte of the last
            // little-endian dword).
            *v = _mm_xor_si128(w, _mm_set_epi32((j as i32) << 24, 0, 0, 0));
        }
        self.ctr32 = self.ctr32.wrapping_add(STEP as u32);
        self.x = if self.ctr32 & 0xff != 0 {
            _mm_add_epi32(self.x, _mm_set_epi32((STEP as i32) << 24, 0, 0, 0))
        } else {
            _mm_insert_epi32::<3>(self.x, self.ctr32.swap_bytes() as i32)
        };
        b
    }
}

/// Encrypts or decrypts `m` (1..=8) blocks from counter block `c`
/// (byte-reversed) and hashes their ciphertext into `y` under one
/// reduction: the tail of [`crypt`].
///
/// # Safety
/// `s` and `d` must be valid for `16 * m` bytes (the same or not
/// overlapping); the CPU must have the features below.
#[inline]
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
unsafe fn group<const R: usize, const ENCRYPT: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    mut c: __m128i,
    y: __m128i,
    s: *const u8,
    d: *mut u8,
    m: usize,
) -> __m128i {
    debug_assert!((1..=STEP).contains(&m));
    let bs = bswap_mask();
    let mut b = [_mm_setzero_si128(); STEP];
    for x in b.iter_mut().take(m) {
        *x = _mm_shuffle_epi8(c, bs);
        c = _mm_add_epi32(c, _mm_set_epi32(0, 0, 0, 1));
    }
    let mut data = [_mm_setzero_si128(); STEP];
    // SAFETY: blocks 0..m are inside both buffers, as the caller
    // guarantees; each is loaded before its position is stored; key loads
    // read whole powers inside the key.
    unsafe {
        for (j, v) in data.iter_mut().enumerate().take(m) {
            *v = _mm_loadu_si128(s.add(16 * j).cast());
        }
        encrypt_n::<R, STEP>(rk, &mut b, m);
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
        w.reduce()
    }
}

/// The encoding [`crypt_any`] runs [`crypt_body`] in for `R` rounds: VEX
/// (three operands, unaligned memory operands) where the CPU has AVX, for
/// AES-128 only. Measured on Zen 3 (3.2 GHz, best of three, A/B): AES-128
/// decryption 1.3-2.2% faster at 16 KiB and 1 MiB, encryption level (-1.3
/// to +0.6%); the `intel` path forced there, AES-128 +0.7 to +2.7%.
/// AES-192 and AES-256 in VEX were 1-5% slower (decryption most), so they
/// keep SSE. On a Golden Cove Xeon this GCM kernel in VEX measured no
/// different (docs/BENCHMARKS.md), so one choice serves both. The
/// one-shot's own code (the last group, J0) stays SSE: a VEX copy of it
/// gained 2-3% on 64-byte decryption only.
#[inline]
fn vex<const R: usize>() -> Option<cpu::Avx2> {
    if R == 10 {
        cpu::features().avx2
    } else {
        None
    }
}

/// [`crypt_body`] in the encoding [`vex`] picks.
///
/// # Safety
/// The CPU must support AES-NI, PCLMULQDQ, SSE4.1 and SSSE3.
#[inline]
unsafe fn crypt_any<const R: usize, const ENCRYPT: bool, const ZEN: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    acc: &mut Block,
    ctr: &Block,
    io: InOut<'_>,
) {
    // SAFETY: the caller's features; the AVX2 token proves AVX.
    unsafe {
        match vex::<R>() {
            Some(avx) => crypt_vex::<R, ENCRYPT, ZEN>(avx, rk, hk, acc, ctr, io),
            None => crypt::<R, ENCRYPT, ZEN>(rk, hk, acc, ctr, io),
        }
    }
}

/// [`crypt_body`] in SSE encodings.
///
/// # Safety
/// As [`crypt_any`].
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
unsafe fn crypt<const R: usize, const ENCRYPT: bool, const ZEN: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    acc: &mut Block,
    ctr: &Block,
    io: InOut<'_>,
) {
    // SAFETY: this function enables the body's features.
    unsafe { crypt_body::<R, ENCRYPT, ZEN>(rk, hk, acc, ctr, io) }
}

/// [`crypt_body`] in VEX encodings.
///
/// # Safety
/// As [`crypt_any`].
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3,avx")]
unsafe fn crypt_vex<const R: usize, const ENCRYPT: bool, const ZEN: bool>(
    _avx: cpu::Avx2,
    rk: &[__m128i; 15],
    hk: &X86HKey,
    acc: &mut Block,
    ctr: &Block,
    io: InOut<'_>,
) {
    // SAFETY: this function enables the body's features.
    unsafe { crypt_body::<R, ENCRYPT, ZEN>(rk, hk, acc, ctr, io) }
}

/// The kernel, generic over the number of rounds so the round loops unroll
/// and every round key is a memory operand of AESENC. Whole steps start on
/// counters that are multiples of eight ([`StepCounters`]); the first step
/// starts at or before the call's first counter and drops the states
/// before it, and the blocks after the last whole step go through
/// [`group`].
///
/// # Safety
/// Only inlined into a function that enables AES-NI, PCLMULQDQ, SSE4.1
/// and SSSE3 ([`crypt`], [`crypt_vex`]).
// Block `j` of a step indexes several arrays at once.
#[allow(clippy::needless_range_loop)]
#[inline(always)]
unsafe fn crypt_body<const R: usize, const ENCRYPT: bool, const ZEN: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    acc: &mut Block,
    ctr: &Block,
    mut io: InOut<'_>,
) {
    // Two steps per reduction where that pays: AES-128 on the Zen path
    // (AES-192 and AES-256 have AES work enough to cover the second
    // reduction; there the pairs measured 0-4% slower).
    let pairs = ZEN && R == 10;
    let n = io.blocks();
    let pf = 16 * n >= PREFETCH_MIN;
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    // SAFETY: the entry points enable SSSE3 (and SSE2).
    let bs = unsafe { bswap_mask() };
    // The counter block of block `i`, byte-reversed.
    // SAFETY: `ctr` is 16 readable bytes; SSSE3 and SSE2 are enabled.
    let c0 = unsafe { _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bs) };
    // SAFETY: SSE2 is enabled.
    let counter = |i: usize| unsafe { _mm_add_epi32(c0, _mm_set_epi32(0, 0, 0, i as u32 as i32)) };
    // SAFETY: blocks i..i+m with i + m <= n are inside both buffers of
    // 16 * n bytes; each block is loaded before its position is stored.
    // Key loads read whole powers inside the key.
    unsafe {
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs);
        let mut i = 0;
        let lead = blocks_to_aligned(ctr, STEP);
        if n >= lead + STEP {
            // The first step starts on the multiple of eight at or before
            // the first counter: its states `0..skip` run counters before
            // this call's and are dropped, states `skip..` take blocks
            // `0..lead` (a whole step when `skip` is 0).
            let skip = (STEP - lead) % STEP;
            let first = STEP - skip;
            let mut start = *ctr;
            inc32(&mut start, skip.wrapping_neg() as u32);
            let mut steps = StepCounters::new(&start);
            let mut pw = [_mm_setzero_si128(); STEP];
            let mut pk = [_mm_setzero_si128(); STEP];
            for j in 0..STEP {
                pw[j] = _mm_loadu_si128(hk.ptr(POWERS - STEP + j).cast());
                pk[j] = half_sum(pw[j]);
            }
            // The Zen path's pairs of steps: H^16..H^9 for the first.
            let mut pwh = [_mm_setzero_si128(); STEP];
            let mut pkh = [_mm_setzero_si128(); STEP];
            if pairs {
                for j in 0..STEP {
                    pwh[j] = _mm_loadu_si128(hk.ptr(POWERS - 2 * STEP + j).cast());
                    pkh[j] = half_sum(pwh[j]);
                }
            }
            // Byte-reversed blocks of the first step to hash, zero in the
            // dropped states, with the GHASH state added to the first
            // real one: its power H^(8 - skip) is the one a group of
            // `first` blocks gives it.
            let mut x = [_mm_setzero_si128(); STEP];
            let mut b = steps.next(rk[0]);
            if ENCRYPT {
                // GHASH woven into the AES rounds of the step after: one
                // step in flight.
                rounds8::<R>(rk, &mut b);
                for j in skip..STEP {
                    let (s, d) = (src.add(16 * (j - skip)), dst.add(16 * (j - skip)));
                    let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.cast()));
                    _mm_storeu_si128(d.cast(), v);
                    x[j] = _mm_shuffle_epi8(v, bs);
                }
                x[skip] = _mm_xor_si128(x[skip], y);
                y = _mm_setzero_si128();
                i = first;
                // Zen: two steps per reduction (the last odd step below).
                while pairs && i + 2 * STEP <= n {
                    let (s, d) = (src.add(16 * i), dst.add(16 * i));
                    prefetch_step(pf, s, d, 32 * STEP);
                    let mut b = steps.next(rk[0]);
                    let w =
                        encrypt8_ghash_zen::<R, true>(rk, &mut b, &x, &pwh, &pkh, y, WideK::zero());
                    for j in 0..STEP {
                        let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.add(16 * j).cast()));
                        _mm_storeu_si128(d.add(16 * j).cast(), v);
                        x[j] = _mm_shuffle_epi8(v, bs);
                    }
                    let (s, d) = (s.add(16 * STEP), d.add(16 * STEP));
                    let mut b = steps.next(rk[0]);
                    y = encrypt8_ghash_zen::<R, false>(rk, &mut b, &x, &pw, &pk, y, w).reduce();
                    for j in 0..STEP {
                        let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.add(16 * j).cast()));
                        _mm_storeu_si128(d.add(16 * j).cast(), v);
                        x[j] = _mm_shuffle_epi8(v, bs);
                    }
                    i += 2 * STEP;
                }
                while i + STEP <= n {
                    let (s, d) = (src.add(16 * i), dst.add(16 * i));
                    prefetch_step(pf, s, d, 16 * STEP);
                    let mut b = steps.next(rk[0]);
                    y = encrypt8_ghash::<R>(rk, &mut b, &x, &pw, &pk, y);
                    for j in 0..STEP {
                        let v = _mm_xor_si128(b[j], _mm_loadu_si128(s.add(16 * j).cast()));
                        _mm_storeu_si128(d.add(16 * j).cast(), v);
                        x[j] = _mm_shuffle_epi8(v, bs);
                    }
                    i += STEP;
                }
                y = ghash8(&x, &pw, &pk, y);
            } else {
                for j in skip..STEP {
                    let s = src.add(16 * (j - skip));
                    x[j] = _mm_shuffle_epi8(_mm_loadu_si128(s.cast()), bs);
                }
                x[skip] = _mm_xor_si128(x[skip], y);
                y = encrypt8_ghash::<R>(rk, &mut b, &x, &pw, &pk, _mm_setzero_si128());
                for j in skip..STEP {
                    let (s, d) = (src.add(16 * (j - skip)), dst.add(16 * (j - skip)));
                    _mm_storeu_si128(d.cast(), _mm_xor_si128(b[j], _mm_loadu_si128(s.cast())));
                }
                i = first;
                // Zen: two steps per reduction (the last odd step below).
                while pairs && i + 2 * STEP <= n {
                    let (s, d) = (src.add(16 * i), dst.add(16 * i));
                    prefetch_step(pf, s, d, 32 * STEP);
                    for j in 0..STEP {
                        x[j] = _mm_shuffle_epi8(_mm_loadu_si128(s.add(16 * j).cast()), bs);
                    }
                    let mut b = steps.next(rk[0]);
                    let w =
                        encrypt8_ghash_zen::<R, true>(rk, &mut b, &x, &pwh, &pkh, y, WideK::zero());
                    for j in 0..STEP {
                        let ct = _mm_loadu_si128(s.add(16 * j).cast());
                        _mm_storeu_si128(d.add(16 * j).cast(), _mm_xor_si128(b[j], ct));
                    }
                    let (s, d) = (s.add(16 * STEP), d.add(16 * STEP));
                    for j in 0..STEP {
                        x[j] = _mm_shuffle_epi8(_mm_loadu_si128(s.add(16 * j).cast()), bs);
                    }
                    let mut b = steps.next(rk[0]);
                    y = encrypt8_ghash_zen::<R, false>(rk, &mut b, &x, &pw, &pk, y, w).reduce();
                    for j in 0..STEP {
                        let ct = _mm_loadu_si128(s.add(16 * j).cast());
                        _mm_storeu_si128(d.add(16 * j).cast(), _mm_xor_si128(b[j], ct));
                    }
                    i += 2 * STEP;
                }
                while i + STEP <= n {
                    let (s, d) = (src.add(16 * i), dst.add(16 * i));
                    prefetch_step(pf, s, d, 16 * STEP);
                    for j in 0..STEP {
                        x[j] = _mm_shuffle_epi8(_mm_loadu_si128(s.add(16 * j).cast()), bs);
                    }
                    let mut b = steps.next(rk[0]);
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
        }
        while i < n {
            let m = (n - i).min(STEP);
            y = group::<R, ENCRYPT>(rk, hk, counter(i), y, src.add(16 * i), dst.add(16 * i), m);
            i += m;
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bs));
    }
}

/// A whole GCM message in one call on the AES-NI tier; returns the full
/// 16-byte tag (the caller truncates and compares).
///
/// Whole eight-block steps go through [`gcm_crypt`]'s stitched loop. The
/// last one to eight blocks (a partial block included) and E_K(J0) go
/// through the AES rounds together, and their GHASH products and the length
/// block's share one reduction. A message of at most eight blocks whose AAD
/// fits in the key's powers as well is hashed with a single reduction, AAD
/// included. So a short message costs one AES pass and one reduction,
/// where encrypting the tail, hashing it, hashing the length block and
/// encrypting J0 one after another cost four dependent steps.
///
/// # Safety
/// The CPU must support AES-NI, PCLMULQDQ, SSSE3 and SSE4.1 (holding any
/// `X86Aes`).
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
pub(super) unsafe fn gcm_oneshot<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    io: InOut<'_>,
) -> Block {
    trace::hit(if ENCRYPT {
        Kernel::AesniGcmEnc
    } else {
        Kernel::AesniGcmDec
    });
    // SAFETY: the caller guarantees the CPU features.
    unsafe {
        match (k.size, zen_path()) {
            (KeySize::Aes128, false) => oneshot::<10, ENCRYPT, false>(&k.enc, hk, j0, aad, io),
            (KeySize::Aes128, true) => oneshot::<10, ENCRYPT, true>(&k.enc, hk, j0, aad, io),
            (KeySize::Aes192, _) => oneshot::<12, ENCRYPT, false>(&k.enc, hk, j0, aad, io),
            (KeySize::Aes256, _) => oneshot::<14, ENCRYPT, false>(&k.enc, hk, j0, aad, io),
        }
    }
}

/// [`gcm_oneshot`] for `R` rounds; its whole steps go through
/// [`crypt_any`] (in VEX encodings for AES-128 where the CPU has AVX).
///
/// # Safety
/// As [`crypt_any`].
// Block `j` of the last group indexes several arrays at once.
#[allow(clippy::needless_range_loop)]
#[target_feature(enable = "aes,pclmulqdq,sse4.1,ssse3")]
unsafe fn oneshot<const R: usize, const ENCRYPT: bool, const ZEN: bool>(
    rk: &[__m128i; 15],
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    mut io: InOut<'_>,
) -> Block {
    let len = io.len();
    let db = len.div_ceil(BLOCK_LEN);
    // The last group: 1..=8 blocks (none for an empty message), after
    // `main` blocks for `crypt`. When that holds a whole step, `main` is
    // the blocks before the first counter that is a multiple of eight and
    // then whole steps, so that `crypt` needs no group of its own at the end.
    let mut first = *j0;
    inc32(&mut first, 1);
    let lead = blocks_to_aligned(&first, STEP);
    let last = if db > lead + STEP {
        db - lead - (db - lead - 1) / STEP * STEP
    } else {
        db - db.saturating_sub(1) / STEP * STEP
    };
    let main = db - last;
    let ab = aad.len().div_ceil(BLOCK_LEN);
    let fold_aad = main == 0 && ab + last < POWERS;
    let bs = bswap_mask();
    // SAFETY: every load and store below stays inside `aad`, the key's
    // powers, or the first `len` bytes of the two buffers (the last block
    // through a local copy); each block is loaded before its position is
    // stored.
    unsafe {
        let j0v = _mm_loadu_si128(j0.as_ptr().cast());
        let mut w = Wide::zero();
        // Power index of the next product; `y` is added to the first one.
        let mut pos = POWERS - (last + 1);
        let mut y = _mm_setzero_si128();
        if fold_aad {
            pos -= ab;
            for q in 0..ab {
                let n = (aad.len() - BLOCK_LEN * q).min(BLOCK_LEN);
                let x = _mm_shuffle_epi8(load_padded(aad.as_ptr().add(BLOCK_LEN * q), n), bs);
                w.mul_add(x, _mm_loadu_si128(hk.ptr(pos).cast()));
                pos += 1;
            }
        } else {
            let mut acc = [0u8; BLOCK_LEN];
            let whole = aad.len() - aad.len() % BLOCK_LEN;
            ghash_clmul::ghash_update(hk, &mut acc, &aad[..whole]);
            if whole < aad.len() {
                let mut pad = [0u8; BLOCK_LEN];
                pad[..aad.len() - whole].copy_from_slice(&aad[whole..]);
                ghash_clmul::ghash_update(hk, &mut acc, &pad);
            }
            if main > 0 {
                crypt_any::<R, ENCRYPT, ZEN>(
                    rk,
                    hk,
                    &mut acc,
                    &first,
                    io.reborrow().split_at(16 * main).0,
                );
            }
            y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs);
        }

        // The last group's counters, then J0 for the tag.
        let mut b = [_mm_setzero_si128(); STEP + 1];
        let mut c = _mm_add_epi32(
            _mm_shuffle_epi8(j0v, bs),
            _mm_set_epi32(0, 0, 0, (1 + main) as u32 as i32),
        );
        for x in b.iter_mut().take(last) {
            *x = _mm_shuffle_epi8(c, bs);
            c = _mm_add_epi32(c, _mm_set_epi32(0, 0, 0, 1));
        }
        b[last] = j0v;
        let s = io.src_ptr().add(16 * main);
        let d = io.dst_ptr().add(16 * main);
        let tail = len - 16 * main - 16 * last.saturating_sub(1);
        let mut data = [_mm_setzero_si128(); STEP];
        for j in 0..last {
            data[j] = if j + 1 == last {
                load_padded(s.add(16 * j), tail)
            } else {
                _mm_loadu_si128(s.add(16 * j).cast())
            };
        }
        encrypt_n::<R, { STEP + 1 }>(rk, &mut b, last + 1);
        for j in 0..last {
            let mut out = _mm_xor_si128(b[j], data[j]);
            if j + 1 == last {
                // The partial block: its bytes only, and zero padding for
                // GHASH of the ciphertext.
                let mut buf = [0u8; BLOCK_LEN];
                _mm_storeu_si128(buf.as_mut_ptr().cast(), out);
                core::ptr::copy_nonoverlapping(buf.as_ptr(), d.add(16 * j), tail);
                buf[tail..].fill(0);
                out = _mm_loadu_si128(buf.as_ptr().cast());
                buf.zeroize();
            } else {
                _mm_storeu_si128(d.add(16 * j).cast(), out);
            }
            let mut x = _mm_shuffle_epi8(if ENCRYPT { out } else { data[j] }, bs);
            if j == 0 {
                x = _mm_xor_si128(x, y);
            }
            w.mul_add(x, _mm_loadu_si128(hk.ptr(pos).cast()));
            pos += 1;
        }
        let mut x = length_block(aad.len(), len);
        if last == 0 {
            x = _mm_xor_si128(x, y);
        }
        w.mul_add(x, _mm_loadu_si128(hk.ptr(pos).cast()));
        let tag = _mm_xor_si128(_mm_shuffle_epi8(w.reduce(), bs), b[last]);
        let mut out = [0u8; BLOCK_LEN];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::key::Level;
    use super::*;
    use crate::backend::kernels::cpu;
    use crate::key::RoundKeys;

    /// The kernel of one direction and path, in SSE or (with `vex`) VEX
    /// encodings, as `(tag input, output)`.
    ///
    /// # Safety
    /// AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
    unsafe fn run<const R: usize>(
        k: &X86Aes,
        hk: &X86HKey,
        (enc, zen, vex): (bool, bool, Option<cpu::Avx2>),
        ctr: &Block,
        data: &[u8],
    ) -> (Block, Vec<u8>) {
        let mut acc = [0x5au8; 16];
        let mut out = data.to_vec();
        let io = InOut::in_place(&mut out);
        let (rk, a) = (&k.enc, &mut acc);
        // SAFETY: the caller's CPU features; the AVX2 token proves AVX.
        unsafe {
            match (enc, zen, vex) {
                (true, true, None) => crypt::<R, true, true>(rk, hk, a, ctr, io),
                (true, false, None) => crypt::<R, true, false>(rk, hk, a, ctr, io),
                (false, true, None) => crypt::<R, false, true>(rk, hk, a, ctr, io),
                (false, false, None) => crypt::<R, false, false>(rk, hk, a, ctr, io),
                (true, true, Some(t)) => crypt_vex::<R, true, true>(t, rk, hk, a, ctr, io),
                (true, false, Some(t)) => crypt_vex::<R, true, false>(t, rk, hk, a, ctr, io),
                (false, true, Some(t)) => crypt_vex::<R, false, true>(t, rk, hk, a, ctr, io),
                (false, false, Some(t)) => crypt_vex::<R, false, false>(t, rk, hk, a, ctr, io),
            }
        }
        (acc, out)
    }

    /// The Zen path (two steps per reduction) and the Intel path, each in
    /// SSE and (where the CPU has AVX) VEX encodings, give the same output
    /// and GHASH state at every step count and counter offset around the
    /// pairs, in both directions (CPUID and the key size run one of them
    /// on a given core, so the others run here).
    #[test]
    fn zen_and_intel_paths_agree() {
        let Some(t) = cpu::features().aesni else {
            return;
        };
        for key in [&[0x3cu8; 16][..], &[0x71u8; 24][..], &[0xc3u8; 32][..]] {
            let k = X86Aes::new(Level::Aesni(t), &RoundKeys::expand(key).unwrap());
            // SAFETY: `t` proves AES-NI, PCLMULQDQ, SSSE3 and SSE4.1.
            let hk = unsafe { ghash_clmul::hkey(&k) };
            for n in [
                1usize, 8, 15, 16, 17, 23, 24, 31, 32, 33, 40, 47, 48, 49, 100, 257,
            ] {
                let data: Vec<u8> = (0..16 * n).map(|i| (i * 29 + 3) as u8).collect();
                for low in [0u8, 1, 5, 7, 8, 0xf9, 0xff] {
                    let mut ctr = [0x11u8; 16];
                    ctr[12..].copy_from_slice(&[0xff, 0xff, 0xff, low]);
                    for enc in [true, false] {
                        // SAFETY: as above.
                        let go = |zen, vex| unsafe {
                            match k.size {
                                KeySize::Aes128 => run::<10>(&k, &hk, (enc, zen, vex), &ctr, &data),
                                KeySize::Aes192 => run::<12>(&k, &hk, (enc, zen, vex), &ctr, &data),
                                KeySize::Aes256 => run::<14>(&k, &hk, (enc, zen, vex), &ctr, &data),
                            }
                        };
                        let want = go(false, None);
                        let what = format!("key {} n {n} low {low} enc {enc}", key.len());
                        assert_eq!(go(true, None), want, "zen, {what}");
                        if let Some(avx) = cpu::features().avx2 {
                            assert_eq!(go(false, Some(avx)), want, "vex, {what}");
                            assert_eq!(go(true, Some(avx)), want, "zen vex, {what}");
                        }
                    }
                }
            }
        }
    }
}
