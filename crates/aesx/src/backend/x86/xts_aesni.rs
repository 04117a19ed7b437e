//! XTS kernels on 128-bit lanes (AES-NI + PCLMULQDQ).
//!
//! Port model (uops.info; measured where marked):
//!
//! | core | AESENC | PCLMULQDQ | PSHUFD, PSRAD, PSLLQ | PADDQ, PAND, PXOR |
//! | --- | --- | --- | --- | --- |
//! | Zen 3, Zen 4 | FP0, FP1, lat. 4 | the AES pipes (Zen 3, measured: one per 8 AESENC costs 11%) | FP1, FP2 | FP0-FP3 |
//! | Golden Cove | p0, p1, lat. 3 | p5 | p1, p5 (p0, p1 shifts) | p0, p1, p5 |
//!
//! Eight blocks are in flight per iteration (two AES ops per cycle, latency
//! 3-4). The next iteration's tweaks are made while this iteration's rounds
//! occupy the AES pipes, one after each of rounds 1..=8, in one of two
//! ways picked per core by `Schedule::clmul_beside_aes` (CPUID's vendor,
//! family and model, `backend::schedule`; `AESX_SCHEDULE` forces one):
//! - Zen and unknown cores: a chain `T_{j+1} = T_j * x` of PADDQ, PAND,
//!   PXOR and one PSRAD per tweak, the sign bits it needs doubled along by
//!   PADDD from one PSHUFD per iteration: 9 shift/shuffle ops per eight
//!   tweaks where [`mul_x`] takes 24, and those run on FP1, an AES pipe.
//! - Intel, AES-128: a jump `T_{j+8} = T_j * x^8` ([`mul_x8`], one
//!   PCLMULQDQ on port 5 and three others). AES-256's 14 rounds hide the
//!   chain, so it keeps it on every core.
//!
//! The last-round XOR with the tweak is folded into the last round key
//! (`AESENCLAST(s, rk ^ T) = AESENCLAST(s, rk) ^ T`; likewise AESDECLAST).
//! Registers (16 xmm): eight states and the round key of the moment; the
//! tweaks spill and are memory operands of the first and last XOR. The
//! wider kernels (VAES) call these for their tails. Compiled in SSE and in
//! VEX encodings (three operands: no register copies for the tweak XORs).
//! Measurements: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::aesni::aes_round;
use super::key::X86Aes;
use super::vector::ONES_THEN_ZEROS;
use crate::backend::kernels::cpu;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::xts::{mul_x as mul_x_u128, mul_x_pow};
use crate::backend::schedule::Schedule;
use crate::key::{Block, KeySize};

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
    // PADDQ, not PSLLQ: the shift units are on an AES pipe (FP1) on Zen.
    _mm_xor_si128(_mm_add_epi64(t, t), carry)
}

/// `t * x^8`: a byte shift left, and the byte shifted out folded back as
/// its carry-less product with 0x87 (one PCLMULQDQ; at most 15 bits). Four
/// instructions, one of them on the carry-less multiplier, where
/// [`mul_x`] takes five on the vector ALU ports.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn mul_x8(t: __m128i) -> __m128i {
    let top = _mm_srli_si128::<15>(t);
    _mm_xor_si128(
        _mm_slli_si128::<1>(t),
        _mm_clmulepi64_si128::<0x00>(top, _mm_set_epi64x(0, 0x87)),
    )
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
///
/// Compiled twice through its entry points: in legacy SSE encodings
/// ([`run`]) and in VEX encodings ([`run_vex`], for CPUs with AVX, whose
/// token it takes: with three operands the XORs with the tweaks need no
/// register copies). `#[inline(always)]` makes each copy take its entry
/// point's features.
///
/// # Safety
/// Only inlined into a function that enables AES-NI, SSE4.1 and PCLMULQDQ.
#[inline(always)]
unsafe fn run_body<const R: usize, const ENC: bool, const JUMP: bool>(
    k: &X86Aes,
    tweak: &mut Block,
    mut io: InOut<'_>,
) {
    // SAFETY: the entry point this inlines into enables AES-NI, SSE4.1
    // and PCLMULQDQ, every intrinsic's features; each memory access is
    // justified where it is made.
    unsafe {
        let n = io.blocks();
        let (src, dst) = (io.src_ptr(), io.dst_ptr());
        let rk = if ENC { &k.enc } else { &k.dec };
        let first = rk[0];
        let last = rk[R];
        // `tweak` is 16 readable bytes; loadu needs no alignment.
        let mut t = _mm_loadu_si128(tweak.as_ptr().cast());
        let mut i = 0;
        if n >= W {
            let mut tw = [t; W];
            for j in 1..W {
                tw[j] = mul_x(tw[j - 1]);
            }
            while i + W <= n {
                let mut b = [_mm_setzero_si128(); W];
                for j in 0..W {
                    // Block i + j < n lies inside the input.
                    let p = _mm_loadu_si128(src.add(16 * (i + j)).cast());
                    b[j] = _mm_xor_si128(p, _mm_xor_si128(tw[j], first));
                }
                // The next iteration's tweaks, one after each of rounds
                // 1..=8 (R - 1 >= 9 rounds), so the ALU work is spread
                // between the AES rounds in program order: a jump by x^8
                // from this iteration's (`JUMP`) or a doubling of the one
                // before.
                let mut next = [_mm_setzero_si128(); W];
                let mut cur = tw[W - 1];
                // The chain's sign bits (127 and 63, the tops of dwords
                // 0 and 2 after the shuffle of `mul_x`), doubled with
                // the tweak by PADDD: step k reads bits 127-k and 63-k
                // of this tweak, which the reduction (bits 0-7 and 64)
                // cannot reach within eight steps. One shuffle and
                // eight shifts per iteration where `mul_x` has sixteen
                // and eight: those share FP1 with AESENC on Zen.
                let mut signs = _mm_shuffle_epi32::<0x13>(cur);
                let poly = _mm_set_epi32(0, 1, 0, 0x87);
                for (r, key) in rk[1..R].iter().enumerate() {
                    for x in b.iter_mut() {
                        *x = aes_round(!ENC, false, *x, *key);
                    }
                    order(&mut b);
                    if r < W {
                        if JUMP {
                            next[r] = mul_x8(tw[r]);
                        } else {
                            let carry = _mm_and_si128(_mm_srai_epi32::<31>(signs), poly);
                            // Through an empty `asm!`: LLVM otherwise
                            // folds the doublings into PSLLD by k from the
                            // first, a shift on FP1 (an AES pipe on Zen)
                            // where PADDD may take any of the four.
                            let mut s = [_mm_add_epi32(signs, signs)];
                            order(&mut s);
                            signs = s[0];
                            cur = _mm_xor_si128(_mm_add_epi64(cur, cur), carry);
                            next[r] = cur;
                        }
                    }
                }
                for j in 0..W {
                    b[j] = aes_round(!ENC, true, b[j], _mm_xor_si128(last, tw[j]));
                    // Block i + j < n lies inside the output; its input
                    // was read above, so in place is fine.
                    _mm_storeu_si128(dst.add(16 * (i + j)).cast(), b[j]);
                }
                tw = next;
                i += W;
            }
            t = tw[0];
        }
        while i < n {
            // Block i < n lies inside both regions; read first.
            let p = _mm_loadu_si128(src.add(16 * i).cast());
            let mut b = _mm_xor_si128(p, _mm_xor_si128(t, first));
            for key in &rk[1..R] {
                b = aes_round(!ENC, false, b, *key);
            }
            b = aes_round(!ENC, true, b, _mm_xor_si128(last, t));
            // Block i < n of the output.
            _mm_storeu_si128(dst.add(16 * i).cast(), b);
            t = mul_x(t);
            i += 1;
        }
        // `tweak` is 16 writable bytes.
        _mm_storeu_si128(tweak.as_mut_ptr().cast(), t);
    }
}

/// [`run_body`] in SSE encodings.
///
/// # Safety
/// AES-NI, SSE4.1 and PCLMULQDQ.
#[target_feature(enable = "aes,sse4.1,pclmulqdq")]
unsafe fn run<const R: usize, const ENC: bool, const JUMP: bool>(
    k: &X86Aes,
    tweak: &mut Block,
    io: InOut<'_>,
) {
    // SAFETY: this function enables the body's features.
    unsafe { run_body::<R, ENC, JUMP>(k, tweak, io) }
}

/// [`run_body`] in VEX encodings; the AVX2 token proves AVX.
///
/// # Safety
/// AES-NI, SSE4.1 and PCLMULQDQ.
#[target_feature(enable = "aes,sse4.1,pclmulqdq,avx")]
unsafe fn run_vex<const R: usize, const ENC: bool, const JUMP: bool>(
    _avx: cpu::Avx2,
    k: &X86Aes,
    tweak: &mut Block,
    io: InOut<'_>,
) {
    // SAFETY: this function enables the body's features.
    unsafe { run_body::<R, ENC, JUMP>(k, tweak, io) }
}

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
    // SAFETY: the caller guarantees AES-NI, SSE4.1 and PCLMULQDQ.
    unsafe {
        match k.size {
            KeySize::Aes128 => blocks_r::<10, ENC>(k, tweak, io),
            KeySize::Aes192 => blocks_r::<12, ENC>(k, tweak, io),
            KeySize::Aes256 => blocks_r::<14, ENC>(k, tweak, io),
        }
    }
}

/// [`blocks`] for `R` rounds: picks the tweak schedule and the encoding.
///
/// # Safety
/// As [`xts`].
unsafe fn blocks_r<const R: usize, const ENC: bool>(k: &X86Aes, tweak: &mut Block, io: InOut<'_>) {
    // The jump where the multiplier has a port of its own and the AES
    // rounds are too few to hide the doublings (AES-128; whole iterations
    // only). AES-256's 14 rounds hide the chain on every core.
    let jump = R == 10 && io.blocks() >= W && Schedule::current().clmul_beside_aes();
    // The caller guarantees AES-NI, SSE4.1 and PCLMULQDQ, all `run` needs.
    match (cpu::features().avx2, jump) {
        // SAFETY: the caller's AES-NI, SSE4.1 and PCLMULQDQ; the AVX2 token
        // proves AVX.
        (Some(avx), true) => unsafe { run_vex::<R, ENC, true>(avx, k, tweak, io) },
        // SAFETY: the caller's AES-NI, SSE4.1 and PCLMULQDQ; the AVX2 token
        // proves AVX.
        (Some(avx), false) => unsafe { run_vex::<R, ENC, false>(avx, k, tweak, io) },
        // SAFETY: the caller's AES-NI, SSE4.1 and PCLMULQDQ.
        (None, true) => unsafe { run::<R, ENC, true>(k, tweak, io) },
        // SAFETY: the caller's AES-NI, SSE4.1 and PCLMULQDQ.
        (None, false) => unsafe { run::<R, ENC, false>(k, tweak, io) },
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
    unsafe {
        match k.size {
            KeySize::Aes128 => steal_first_r::<10, ENC>(k, t, tail, out),
            KeySize::Aes192 => steal_first_r::<12, ENC>(k, t, tail, out),
            KeySize::Aes256 => steal_first_r::<14, ENC>(k, t, tail, out),
        }
    };
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
    unsafe {
        match k.size {
            KeySize::Aes128 => steal_finish_r::<10, ENC>(k, tweak, first, tail),
            KeySize::Aes192 => steal_finish_r::<12, ENC>(k, tweak, first, tail),
            KeySize::Aes256 => steal_finish_r::<14, ENC>(k, tweak, first, tail),
        }
    }
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
        match tk.size {
            KeySize::Aes128 => encrypt8::<10>(tk, blocks),
            KeySize::Aes192 => encrypt8::<12>(tk, blocks),
            KeySize::Aes256 => encrypt8::<14>(tk, blocks),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::RoundKeys;

    #[test]
    fn mul_x8_is_eight_doublings() {
        let Some(_t) = cpu::features().aesni else {
            return;
        };
        for seed in 0u8..64 {
            let b: Block = core::array::from_fn(|i| (i as u8).wrapping_mul(seed ^ 0x5b) ^ seed);
            // SAFETY: `_t` proves SSE2 and PCLMULQDQ; 16-byte loads and
            // stores of locals.
            let (got, want) = unsafe {
                let t = _mm_loadu_si128(b.as_ptr().cast());
                let mut d = t;
                for _ in 0..8 {
                    d = mul_x(d);
                }
                let (mut g, mut w) = ([0u8; 16], [0u8; 16]);
                _mm_storeu_si128(g.as_mut_ptr().cast(), mul_x8(t));
                _mm_storeu_si128(w.as_mut_ptr().cast(), d);
                (g, w)
            };
            assert_eq!(got, want, "seed {seed}");
        }
    }

    /// The kernel of one direction, schedule and encoding (`avx`: VEX).
    ///
    /// # Safety
    /// AES-NI, SSE4.1 and PCLMULQDQ.
    unsafe fn variant<const R: usize>(
        k: &X86Aes,
        enc: bool,
        jump: bool,
        avx: Option<cpu::Avx2>,
        tw: &mut Block,
        io: InOut<'_>,
    ) {
        // SAFETY: the caller's AES-NI, SSE4.1 and PCLMULQDQ; in the `Some`
        // arms the AVX2 token proves AVX for `run_vex`.
        unsafe {
            match (avx, enc, jump) {
                (None, true, true) => run::<R, true, true>(k, tw, io),
                (None, true, false) => run::<R, true, false>(k, tw, io),
                (None, false, true) => run::<R, false, true>(k, tw, io),
                (None, false, false) => run::<R, false, false>(k, tw, io),
                (Some(a), true, true) => run_vex::<R, true, true>(a, k, tw, io),
                (Some(a), true, false) => run_vex::<R, true, false>(a, k, tw, io),
                (Some(a), false, true) => run_vex::<R, false, true>(a, k, tw, io),
                (Some(a), false, false) => run_vex::<R, false, false>(a, k, tw, io),
            }
        }
    }

    /// Both tweak schedules, in both encodings, give the same blocks and
    /// the same final tweak (CPUID picks one per core, so the other runs
    /// here, and under `Schedule::force` in the integration tests).
    #[test]
    fn tweak_schedules_agree() {
        let Some(t) = cpu::features().aesni else {
            return;
        };
        let avx = cpu::features().avx2;
        for key in [&[0x3cu8; 16][..], &[0xc3u8; 32][..]] {
            let k = X86Aes::new(
                super::super::key::Level::Aesni(t),
                &RoundKeys::expand(key).unwrap(),
            );
            for n in [8usize, 9, 15, 16, 17, 31, 64, 100] {
                let data: Vec<u8> = (0..16 * n).map(|i| (i * 31 + 7) as u8).collect();
                let mut outs = Vec::new();
                for enc in [true, false] {
                    for jump in [true, false] {
                        for vex in [false, true] {
                            if vex && avx.is_none() {
                                continue;
                            }
                            let mut tw = [0x81u8; 16];
                            let mut buf = data.clone();
                            let io = InOut::in_place(&mut buf);
                            let avx = if vex { avx } else { None };
                            // SAFETY: `t` proves AES-NI, SSE4.1 and
                            // PCLMULQDQ; `avx` is `Some` when `vex`.
                            unsafe {
                                match k.size {
                                    KeySize::Aes128 => {
                                        variant::<10>(&k, enc, jump, avx, &mut tw, io)
                                    }
                                    KeySize::Aes192 => {
                                        variant::<12>(&k, enc, jump, avx, &mut tw, io)
                                    }
                                    KeySize::Aes256 => {
                                        variant::<14>(&k, enc, jump, avx, &mut tw, io)
                                    }
                                }
                            }
                            outs.push(((enc, jump, vex), buf, tw));
                        }
                    }
                }
                for (what, buf, tw) in &outs {
                    let (first_buf, first_tw) = outs
                        .iter()
                        .find(|(w, _, _)| w.0 == what.0)
                        .map(|(_, b, t)| (b, t))
                        .unwrap();
                    assert_eq!((buf, tw), (first_buf, first_tw), "{what:?}, {n} blocks");
                }
            }
        }
    }
}
