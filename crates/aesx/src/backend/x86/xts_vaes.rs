//! XTS kernels for both VAES widths from one source (ymm with AVX2, zmm with
//! AVX-512), through [`Vector`], in the manner of Linux's `aes-xts-avx`.
//!
//! Schedule: `W` registers of `BLOCKS` blocks each per iteration (sixteen
//! blocks on ymm, sixteen on zmm), in round-major order ([`Vector::order`]
//! after each round). Tweak register `tw[j]` holds the tweaks
//! of blocks `BLOCKS j .. BLOCKS (j + 1)` of the iteration; the next
//! iteration's are `tw[j] * x^(BLOCKS W)` lane by lane, which is a byte
//! shift of each 128-bit lane (`BLOCKS W` is a multiple of 8) with the bytes
//! that leave bit 127 folded back by one carry-less multiply by 0x87: four
//! instructions per register, independent of each other, overlapped with
//! the rounds. The first tweak registers come straight from `T` with
//! per-qword variable shifts (`T * x^(BLOCKS j + lane)`), so a data unit
//! starts without a serial chain of doublings. Input whitening is one
//! three-way XOR (data, tweak, round key 0; two XORs on AVX2), and the
//! output whitening rides in the last round key: `AESENCLAST(s, rk ^ T) =
//! AESENCLAST(s, rk) ^ T` (likewise AESDECLAST). What is left after the bulk
//! loop runs whole registers with the tweak registers already made, then
//! (zmm) one byte-masked register; the next tweak is read out of its lane.
//! On ymm, calls of fewer than sixteen blocks and an odd last block go to
//! the 128-bit kernel instead (AMD's VPMASKMOVQ store is slow).
//!
//! Registers: on zmm (32 registers) all round keys, the states and the
//! tweaks stay in registers; on ymm (16) the eight states and the round
//! key of the moment do, and some tweaks spill (memory operands of the
//! whitening XORs).
//!
//! Zen 3 (VAESENC ymm two per cycle, latency 4): eight registers in flight
//! fill the two pipes, four fill half. Until 2026-11-29 the ymm loop kept
//! four with no barrier, and LLVM ran two registers through all their
//! rounds, then the other two: 0.58-0.63 of the port bound. With eight in
//! round-major order: AES-128 14.0 GB/s at 1 MiB (0.72 of the bound, +11
//! to +14%), AES-256 10.9 (0.79, +31%); four in round-major order gave
//! +7% and +25%. The rest of the gap is the tweak update's carry-less
//! multiply (one per register, on the AES pipes) and the whitening. The
//! zmm loop takes the same barrier (its four registers were interleaved
//! two by two as well); that was not measured (no AVX-512 on this Zen 3).
//!
//! The sector kernel keeps the data key's round keys across sectors and
//! encrypts the sector numbers `BLOCKS W` at a time with the tweak key.
//! Ports: AES-128 costs 10 block-rounds per block and on Zen the CLMUL of
//! the tweak update shares the AES pipes; on Golden Cove zmm VAESENC takes
//! port 0 and the tweak updates and XORs fit on port 5, so the loop is
//! AES-bound. Ciphertext stealing is two dependent AES in registers
//! (`xts_aesni::steal_first`, `steal_finish`), the first issued before the
//! bulk call for units under 2 KiB. Measurements: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::key::X86Aes;
use super::vector::{prefetch_step, vaes_entries, Vector, PREFETCH_MIN};
use super::xts_aesni;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::{Block, KeySize};

/// Registers in flight per iteration on ymm and on zmm.
const YMM_W: usize = 8;
const ZMM_W: usize = 4;

/// Registers in flight per iteration on this width.
#[inline(always)]
const fn width<V: Vector>() -> usize {
    if V::REGS >= 32 {
        ZMM_W
    } else {
        YMM_W
    }
}

/// The trace counter of this width and direction.
#[inline(always)]
fn kernel<V: Vector>(enc: bool) -> Kernel {
    match (V::BLOCKS == 2, enc) {
        (true, true) => Kernel::Vaes256XtsEnc,
        (true, false) => Kernel::Vaes256XtsDec,
        (false, true) => Kernel::Vaes512XtsEnc,
        (false, false) => Kernel::Vaes512XtsDec,
    }
}

/// The reduction constant 0x87 in the low qword of every lane.
#[inline(always)]
fn poly<V: Vector>(v: V) -> V::V {
    v.set_u64x2(0, 0x87)
}

/// Lanes `t * x^(base + lane)` for `base + BLOCKS - 1 <= 56`: per-qword
/// variable shifts; the bits that leave the low qword carry into the high
/// one (a byte shift), those that leave bit 127 come back times 0x87 (at
/// most 56 bits, so the product stays in the low qword).
#[inline(always)]
fn tweak_lanes<V: Vector>(v: V, t: __m128i, base: u64) -> V::V {
    let b = v.broadcast(t);
    // base + lane in both qwords of each lane.
    let left = v.add64(v.set_u64x2(base, base), v.shuffle32::<0x44>(v.lane_index()));
    let right = v.sub64(v.set_u64x2(64, 64), left);
    let top = v.srlv64(b, right);
    let reduced = v.clmul::<0x01>(top, poly(v));
    v.xor3(v.sllv64(b, left), reduced, v.bslli::<8>(top))
}

/// `x * x^(8 BYTES)` per lane, `REST = 16 - BYTES`, `1 <= BYTES <= 7`.
#[inline(always)]
fn mul_x8n<V: Vector, const BYTES: i32, const REST: i32>(v: V, x: V::V) -> V::V {
    let top = v.bsrli::<REST>(x);
    v.xor(v.bslli::<BYTES>(x), v.clmul::<0x00>(top, poly(v)))
}

/// The tweak registers' jump from one iteration to the next.
#[inline(always)]
fn next_tweaks<V: Vector, const W: usize>(v: V, x: V::V) -> V::V {
    match V::BLOCKS * W {
        8 => mul_x8n::<V, 1, 15>(v, x),
        16 => mul_x8n::<V, 2, 14>(v, x),
        24 => mul_x8n::<V, 3, 13>(v, x),
        _ => mul_x8n::<V, 4, 12>(v, x),
    }
}

/// Whitens, runs the `R` rounds and unwhitens one register.
#[inline(always)]
fn cipher<V: Vector, const R: usize, const ENC: bool>(
    v: V,
    rk: &[V::V; 15],
    p: V::V,
    t: V::V,
) -> V::V {
    let mut b = v.xor3(p, t, rk[0]);
    for k in &rk[1..R] {
        b = v.round(!ENC, b, *k);
    }
    v.last(!ENC, b, v.xor(rk[R], t))
}

/// [`unit`] with this width's registers in flight ([`width`]).
///
/// # Safety
/// As [`unit`].
#[inline(always)]
unsafe fn unit_w<V: Vector, const R: usize, const ENC: bool>(
    v: V,
    rk: &[V::V; 15],
    t: __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> __m128i {
    // SAFETY: the caller's contract is `unit`'s.
    unsafe {
        if width::<V>() == ZMM_W {
            unit::<V, R, ENC, ZMM_W>(v, rk, t, src, dst, n)
        } else {
            unit::<V, R, ENC, YMM_W>(v, rk, t, src, dst, n)
        }
    }
}

/// XTS over `n` blocks from `src` to `dst` starting at the encrypted tweak
/// `t`; returns the tweak of block `n`.
///
/// # Safety
/// `src` must be readable and `dst` writable for `16 * n` bytes, either the
/// same pointer or disjoint regions.
#[inline(always)]
unsafe fn unit<V: Vector, const R: usize, const ENC: bool, const W: usize>(
    v: V,
    rk: &[V::V; 15],
    t: __m128i,
    src: *const u8,
    dst: *mut u8,
    n: usize,
) -> __m128i {
    let bl = V::BLOCKS;
    let pf = 16 * n >= PREFETCH_MIN;
    let mut tw = [v.zero(); W];
    for (j, x) in tw.iter_mut().enumerate() {
        *x = tweak_lanes(v, t, (bl * j) as u64);
    }
    let mut i = 0;
    while i + bl * W <= n {
        prefetch_step(
            pf,
            src.wrapping_add(16 * i),
            dst.wrapping_add(16 * i),
            16 * bl * W,
        );
        let mut b = [v.zero(); W];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i + bl j .. i + bl (j + 1) < n lie in the input.
            let p = unsafe { v.load(src.add(16 * (i + bl * j))) };
            *x = v.xor3(p, tw[j], rk[0]);
        }
        for k in &rk[1..R] {
            for x in b.iter_mut() {
                *x = v.round(!ENC, *x, *k);
            }
            v.order(&mut b);
        }
        for j in 0..W {
            let c = v.last(!ENC, b[j], v.xor(rk[R], tw[j]));
            // SAFETY: the same blocks lie inside the output and were read
            // above, so in place is fine.
            unsafe { v.store(dst.add(16 * (i + bl * j)), c) };
            tw[j] = next_tweaks::<V, W>(v, tw[j]);
        }
        i += bl * W;
    }
    // Fewer than bl W blocks are left: up to W - 1 whole registers, then
    // 0..bl blocks under a mask.
    let mut q = 0;
    while i + bl <= n {
        // SAFETY: blocks i..i + bl <= n lie inside both regions; read first.
        unsafe {
            let p = v.load(src.add(16 * i));
            v.store(dst.add(16 * i), cipher::<V, R, ENC>(v, rk, p, tw[q]));
        }
        q += 1;
        i += bl;
    }
    let cur = tw[q];
    let rem = n - i;
    if rem > 0 {
        // SAFETY: the `rem` blocks left lie inside both regions; the rest of
        // the register is neither read nor written.
        unsafe {
            let p = v.load_blocks(src.add(16 * i), rem);
            v.store_blocks(dst.add(16 * i), cipher::<V, R, ENC>(v, rk, p, cur), rem);
        }
    }
    v.block(cur, rem)
}

vaes_entries! {
    pub(super) fn xts_256 / xts_512 <const ENC: bool>
        (k: &X86Aes, tweak: &mut Block, io: InOut<'_>) = xts;
}
vaes_entries! {
    pub(super) fn sectors_256 / sectors_512 <const ENC: bool>
        (k: &X86Aes, tk: &X86Aes, size: usize, first: u128, io: InOut<'_>) = sectors;
}

/// XTS over whole blocks from the encrypted tweak `tweak`, which is
/// advanced past the last block.
///
/// # Safety
/// Only with the features of `v`: from the `#[target_feature]` entry points
/// above (or `emu512.rs`'s tests, whose width needs only AES-NI).
#[inline(always)]
pub(super) unsafe fn xts<V: Vector, const ENC: bool>(
    v: V,
    k: &X86Aes,
    tweak: &mut Block,
    io: InOut<'_>,
) {
    trace::hit(kernel::<V>(ENC));
    match k.size {
        KeySize::Aes128 => run::<10, V, ENC>(v, k, tweak, io),
        KeySize::Aes192 => run::<12, V, ENC>(v, k, tweak, io),
        KeySize::Aes256 => run::<14, V, ENC>(v, k, tweak, io),
    }
}

#[inline(always)]
fn run<const R: usize, V: Vector, const ENC: bool>(
    v: V,
    k: &X86Aes,
    tweak: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    // On ymm, short calls and the odd last block go to the 128-bit kernel: setting up
    // the wide tweaks costs more than it saves for a few blocks, and AMD's
    // VPMASKMOVQ store is slow. zmm has cheap byte-masked stores.
    let narrow = V::REGS < 32;
    // On zmm, a call of fewer than one register of blocks also goes to the
    // 128-bit kernel: broadcasting the round keys and making the first
    // tweak registers cost more than the one masked register they would
    // serve.
    if (narrow && n < V::BLOCKS * width::<V>()) || n < V::BLOCKS {
        // SAFETY: the VAES tiers include AES-NI, SSE4.1 and PCLMULQDQ.
        return unsafe { xts_aesni::blocks::<ENC>(k, tweak, io) };
    }
    let rk = v.broadcast_keys::<R>(if ENC { &k.enc } else { &k.dec });
    // SAFETY: `tweak` is 16 readable bytes.
    let t = unsafe { _mm_loadu_si128(tweak.as_ptr().cast()) };
    let wide = if narrow { n - n % V::BLOCKS } else { n };
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: the InOut holds 16 n >= 16 wide bytes in each region, equal
    // or disjoint.
    let next = unsafe { unit_w::<V, R, ENC>(v, &rk, t, src, dst, wide) };
    // SAFETY: `tweak` is 16 writable bytes.
    unsafe { _mm_storeu_si128(tweak.as_mut_ptr().cast(), next) };
    if wide < n {
        let (_, rest) = io.split_at(16 * wide);
        // SAFETY: the VAES tiers include AES-NI, SSE4.1 and PCLMULQDQ;
        // `rest` is the InOut's remaining blocks.
        unsafe { xts_aesni::blocks::<ENC>(k, tweak, rest) };
    }
}

/// Sectors of `size` bytes (a non-zero multiple of 16 dividing `io.len()`)
/// numbered from `first`; the sector numbers do not wrap (the mode checks),
/// and `tk` has `k`'s key size (one XTS key).
///
/// # Safety
/// Only with the features of `v`: from the `#[target_feature]` entry points
/// above (or `emu512.rs`'s tests, whose width needs only AES-NI).
#[inline(always)]
pub(super) unsafe fn sectors<V: Vector, const ENC: bool>(
    v: V,
    k: &X86Aes,
    tk: &X86Aes,
    size: usize,
    first: u128,
    io: InOut<'_>,
) {
    trace::hit(kernel::<V>(ENC));
    match k.size {
        KeySize::Aes128 => run_sectors::<10, V, ENC>(v, k, tk, size, first, io),
        KeySize::Aes192 => run_sectors::<12, V, ENC>(v, k, tk, size, first, io),
        KeySize::Aes256 => run_sectors::<14, V, ENC>(v, k, tk, size, first, io),
    }
}

/// Sector numbers encrypted together: one register of the batch per
/// register in flight.
const SECTOR_BATCH: usize = 16;

#[inline(always)]
fn run_sectors<const R: usize, V: Vector, const ENC: bool>(
    v: V,
    k: &X86Aes,
    tk: &X86Aes,
    size: usize,
    first: u128,
    mut io: InOut<'_>,
) {
    let rk = v.broadcast_keys::<R>(if ENC { &k.enc } else { &k.dec });
    let tk_rk = v.broadcast_keys::<R>(&tk.enc);
    let count = io.len() / size;
    let blocks = size / 16;
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let per = SECTOR_BATCH / V::BLOCKS;
    let mut tweaks = [0u8; 16 * SECTOR_BATCH];
    let mut s = 0;
    while s < count {
        let m = (count - s).min(SECTOR_BATCH);
        for (j, t) in tweaks.chunks_exact_mut(16).enumerate() {
            // Unused slots (j >= m) are encrypted too and then ignored.
            t.copy_from_slice(&first.wrapping_add((s + j) as u128).to_le_bytes());
        }
        let mut e = [v.zero(); 8];
        for (j, x) in e.iter_mut().take(per).enumerate() {
            // SAFETY: register j of the batch lies inside `tweaks`.
            *x = v.xor(
                unsafe { v.load(tweaks.as_ptr().add(V::BYTES * j)) },
                tk_rk[0],
            );
        }
        for key in &tk_rk[1..R] {
            for x in e.iter_mut().take(per) {
                *x = v.aesenc(*x, *key);
            }
        }
        for (j, x) in e.iter().take(per).enumerate() {
            // SAFETY: register j of the batch lies inside `tweaks`.
            unsafe {
                v.store(
                    tweaks.as_mut_ptr().add(V::BYTES * j),
                    v.aesenclast(*x, tk_rk[R]),
                )
            };
        }
        for j in 0..m {
            let off = (s + j) * size;
            // SAFETY: 16 j + 16 <= 16 SECTOR_BATCH bytes of `tweaks`; sector
            // s + j < count lies inside both regions (`off + size <= len`).
            unsafe {
                let t = _mm_loadu_si128(tweaks.as_ptr().add(16 * j).cast());
                unit_w::<V, R, ENC>(v, &rk, t, src.add(off), dst.add(off), blocks);
            }
        }
        s += m;
    }
    // The encrypted tweaks are the whitening secrets of these sectors.
    tweaks.zeroize();
}
