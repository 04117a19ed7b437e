//! VAES kernels for ECB, CBC and CTR, one source for both widths: ymm
//! (two blocks per register, AVX2) and zmm (four blocks, AVX-512), through
//! [`Vector`].
//!
//! Schedule: the bulk loops keep eight registers in flight (16 blocks on
//! ymm, 32 on zmm) in round-major order ([`Vector::order`]), all round keys
//! broadcast once per call. On AVX-512 the keys and eight states fit the 32
//! registers; with AVX2's 16, LLVM re-reads most keys as memory operands of
//! VAESENC, which costs nothing here (the loads are not the bottleneck).
//! Tails run one register at a time, the last one masked, so no scalar loop.
//!
//! Where the cycles go (Zen 3/4/5, uops.info): two VAES instructions issue
//! per cycle (FP0, FP1) with a latency of four, so eight registers cover
//! the latency; the port bound is `R / (2 BLOCKS)` cycles per block
//! (AES-128: 2.5 on ymm, 1.25 on zmm). VPSHUFB and the shifts run on FP1
//! and FP2, so the CTR loop makes its counters with VPADDD (any pipe)
//! instead of a byte swap per register.
//! CBC encryption is one latency-bound chain whatever the width: it is the
//! 128-bit chain of `aesni.rs`; many messages go through `cbc_multi.rs`.
//!
//! Intel Golden Cove: VAESENC on ymm issues on ports 0 and 1, on zmm on
//! port 0 only, so both widths do 64 bytes of rounds per cycle; the other
//! ops per register go to port 5 and the load and store ports.
//! Measured on Zen 3 (ymm, 3.21 GHz: bound 20.5 GB/s for AES-128, 14.7
//! for AES-256), 16 KiB and 1 MiB on 2026-11-29: ECB 19.1-19.4 and
//! 13.8-13.9 GB/s (0.93-0.95 of it), CTR 18.9-19.0 and 13.6-13.7 (0.92-0.93),
//! CBC decryption 18.8-19.1 and 13.5-13.6 (0.92-0.93). zmm not measured
//! here. Measurements: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::aesni::{cbc_decrypt_small, cbc_enc, ecb_small};
use super::key::X86Aes;
use super::vector::{prefetch_step, vaes_entries, Vector, PREFETCH_MIN};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::key::{Block, KeySize};

/// Registers in flight in the bulk loops.
const WIDE: usize = 8;

/// ECB calls below this many blocks take the 128-bit kernel: for up to 15
/// blocks, broadcasting the schedule into wide registers costs more than the
/// wider rounds save (measured at 64 bytes: 0.75-0.81x RustCrypto through the
/// wide path, 1.0x through the 128-bit one; at 128 bytes 0.82-0.86x and
/// 1.0x).
const SMALL_ECB: usize = 16;

/// The same for CBC decryption, whose wide path gains sooner (its 128-bit
/// kernel is one eight-block batch deep). zmm, against RustCrypto: 64 bytes
/// 0.70-0.80x wide, 1.04-1.05x narrow; 128 bytes 0.96-0.97x and 1.0x;
/// 192 bytes 1.13-1.24x wide, 1.0-1.02x narrow.
const SMALL_CBC_DEC: usize = 9;

/// The trace counter of this width: `narrow` for ymm, `wide` for zmm.
#[inline(always)]
fn kernel<V: Vector>(narrow: Kernel, wide: Kernel) -> Kernel {
    if V::BLOCKS == 2 {
        narrow
    } else {
        wide
    }
}

vaes_entries! {
    pub(super) fn encrypt_blocks_256 / encrypt_blocks_512 <> (k: &X86Aes, io: InOut<'_>)
        = encrypt_blocks;
}
vaes_entries! {
    pub(super) fn decrypt_blocks_256 / decrypt_blocks_512 <> (k: &X86Aes, io: InOut<'_>)
        = decrypt_blocks;
}
vaes_entries! {
    pub(super) fn cbc_encrypt_256 / cbc_encrypt_512 <>
        (k: &X86Aes, iv: &mut Block, io: InOut<'_>) = cbc_encrypt;
}
vaes_entries! {
    pub(super) fn cbc_decrypt_256 / cbc_decrypt_512 <>
        (k: &X86Aes, iv: &mut Block, io: InOut<'_>) = cbc_decrypt;
}
vaes_entries! {
    pub(super) fn ctr_apply_256 / ctr_apply_512 <>
        (k: &X86Aes, ctr: &mut Block, io: InOut<'_>) = ctr_apply;
}

/// ECB-encrypts whole blocks.
///
/// # Safety
/// As [`ecb_blocks`].
#[inline(always)]
pub(super) unsafe fn encrypt_blocks<V: Vector>(v: V, k: &X86Aes, io: InOut<'_>) {
    // SAFETY: the caller upholds `ecb_blocks`'s contract, the same as this one.
    unsafe { ecb_blocks::<V, false>(v, k, io) }
}

/// ECB-decrypts whole blocks.
///
/// # Safety
/// As [`ecb_blocks`].
#[inline(always)]
pub(super) unsafe fn decrypt_blocks<V: Vector>(v: V, k: &X86Aes, io: InOut<'_>) {
    // SAFETY: the caller upholds `ecb_blocks`'s contract, the same as this one.
    unsafe { ecb_blocks::<V, true>(v, k, io) }
}

/// ECB over whole blocks, decrypting if `DEC`: short calls on the 128-bit
/// kernel, the rest here.
///
/// # Safety
/// Only through the `#[target_feature]` entry points above (the token
/// proves the features; this is `unsafe` because it calls the 128-bit
/// kernel).
#[inline(always)]
unsafe fn ecb_blocks<V: Vector, const DEC: bool>(v: V, k: &X86Aes, io: InOut<'_>) {
    trace::hit(if DEC {
        kernel::<V>(Kernel::Vaes256EcbDec, Kernel::Vaes512EcbDec)
    } else {
        kernel::<V>(Kernel::Vaes256EcbEnc, Kernel::Vaes512EcbEnc)
    });
    if io.blocks() < SMALL_ECB {
        // SAFETY: the VAES tiers include AES-NI and SSE4.1.
        return unsafe { ecb_small::<DEC>(k, io) };
    }
    match k.size {
        KeySize::Aes128 => ecb::<10, V, DEC>(v, if DEC { &k.dec } else { &k.enc }, io),
        KeySize::Aes192 => ecb::<12, V, DEC>(v, if DEC { &k.dec } else { &k.enc }, io),
        KeySize::Aes256 => ecb::<14, V, DEC>(v, if DEC { &k.dec } else { &k.enc }, io),
    }
}

#[inline(always)]
fn ecb<const R: usize, V: Vector, const DEC: bool>(v: V, keys: &[__m128i; 15], mut io: InOut<'_>) {
    let rk = v.broadcast_keys::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let step = V::BLOCKS * WIDE;
    let pf = 16 * n >= PREFETCH_MIN;
    let mut i = 0;
    while n - i >= step {
        prefetch_step(
            pf,
            src.wrapping_add(16 * i),
            dst.wrapping_add(16 * i),
            16 * step,
        );
        let mut b = [v.zero(); WIDE];
        for (j, x) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i + step lie inside the input.
            *x = v.xor(unsafe { v.load(src.add(16 * (i + V::BLOCKS * j))) }, rk[0]);
        }
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = v.round(DEC, *x, *key);
            }
            v.order(&mut b);
        }
        for (j, x) in b.iter().enumerate() {
            // SAFETY: inside the output; every block was read above.
            unsafe { v.store(dst.add(16 * (i + V::BLOCKS * j)), v.last(DEC, *x, rk[R])) };
        }
        i += step;
    }
    // Fewer than `step` blocks: one register at a time (independent, so they
    // overlap in the out-of-order window), the last one masked.
    while i < n {
        let m = (n - i).min(V::BLOCKS);
        // SAFETY: blocks i..i + m lie inside the input.
        let mut x = v.xor(unsafe { v.load_blocks(src.add(16 * i), m) }, rk[0]);
        for key in &rk[1..R] {
            x = v.round(DEC, x, *key);
        }
        // SAFETY: blocks i..i + m lie inside the output and were read above.
        unsafe { v.store_blocks(dst.add(16 * i), v.last(DEC, x, rk[R]), m) };
        i += m;
    }
}

/// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// One chain is latency-bound, and a wider register cannot shorten it, so
/// this is the 128-bit chain of `aesni.rs` compiled with this tier's (VEX)
/// encoding.
///
/// # Safety
/// As [`encrypt_blocks`].
#[inline(always)]
unsafe fn cbc_encrypt<V: Vector>(_: V, k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(kernel::<V>(Kernel::Vaes256CbcEnc, Kernel::Vaes512CbcEnc));
    // SAFETY: the VAES tiers include AES-NI and SSE4.1.
    unsafe {
        match k.size {
            KeySize::Aes128 => cbc_enc::<10>(&k.enc, iv, io),
            KeySize::Aes192 => cbc_enc::<12>(&k.enc, iv, io),
            KeySize::Aes256 => cbc_enc::<14>(&k.enc, iv, io),
        }
    }
}

/// CBC-decrypts whole blocks; `iv` becomes the last ciphertext block.
///
/// # Safety
/// As [`encrypt_blocks`].
#[inline(always)]
pub(super) unsafe fn cbc_decrypt<V: Vector>(v: V, k: &X86Aes, iv: &mut Block, io: InOut<'_>) {
    trace::hit(kernel::<V>(Kernel::Vaes256CbcDec, Kernel::Vaes512CbcDec));
    if io.blocks() < SMALL_CBC_DEC {
        // SAFETY: the VAES tiers include AES-NI and SSE4.1.
        return unsafe { cbc_decrypt_small(k, iv, io) };
    }
    match k.size {
        KeySize::Aes128 => cbc_dec::<10, V>(v, &k.dec, iv, io),
        KeySize::Aes192 => cbc_dec::<12, V>(v, &k.dec, iv, io),
        KeySize::Aes256 => cbc_dec::<14, V>(v, &k.dec, iv, io),
    }
}

#[inline(always)]
fn cbc_dec<const R: usize, V: Vector>(
    v: V,
    keys: &[__m128i; 15],
    iv: &mut Block,
    mut io: InOut<'_>,
) {
    let rk = v.broadcast_keys::<R>(keys);
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let bl = V::BLOCKS;
    let step = bl * WIDE;
    let pf = 16 * n >= PREFETCH_MIN;
    // SAFETY: n >= 1 blocks of input, read before anything is written.
    let last_ct = unsafe { _mm_loadu_si128(src.add(16 * (n - 1)).cast()) };
    // Only the last lane of `prev` is ever used: the block before the next
    // register's first.
    // SAFETY: `iv` is 16 readable bytes.
    let mut prev = v.broadcast(unsafe { _mm_loadu_si128(iv.as_ptr().cast()) });
    let mut i = 0;
    while n - i >= step {
        prefetch_step(
            pf,
            src.wrapping_add(16 * i),
            dst.wrapping_add(16 * i),
            16 * step,
        );
        let mut b = [v.zero(); WIDE];
        if V::REGS >= 32 {
            // Enough registers to keep every register's preceding blocks
            // (with the chaining XOR riding in the last round key) from the
            // loads to AESDECLAST.
            let mut x = [v.zero(); WIDE];
            for j in 0..WIDE {
                // SAFETY: blocks i..i + step lie inside the input.
                let c = unsafe { v.load(src.add(16 * (i + bl * j))) };
                b[j] = v.xor(c, rk[0]);
                x[j] = v.xor(v.shift_in(c, prev), rk[R]);
                prev = c;
            }
            for key in &rk[1..R] {
                for s in b.iter_mut() {
                    *s = v.aesdec(*s, *key);
                }
                v.order(&mut b);
            }
            for j in 0..WIDE {
                // SAFETY: inside the output; the whole batch was read above.
                unsafe { v.store(dst.add(16 * (i + bl * j)), v.aesdeclast(b[j], x[j])) };
            }
        } else {
            // With 16 registers, keeping the preceding blocks would spill.
            // Instead the ciphertext is read again after the rounds, storing
            // the registers last to first: the preceding blocks of register
            // j are still intact in memory when it is stored, even in place.
            for (j, s) in b.iter_mut().enumerate() {
                // SAFETY: blocks i..i + step lie inside the input.
                *s = v.xor(unsafe { v.load(src.add(16 * (i + bl * j))) }, rk[0]);
            }
            for key in &rk[1..R] {
                for s in b.iter_mut() {
                    *s = v.aesdec(*s, *key);
                }
                v.order(&mut b);
            }
            // SAFETY: (this load and those below) all inside the batch's blocks
            // i..i + step of input and output; every load reads blocks that
            // no store of this batch has yet written (the stores go down).
            // This one reads the batch's last register, not yet stored.
            let next_prev = unsafe { v.load(src.add(16 * (i + step - bl))) };
            for j in (1..WIDE).rev() {
                // SAFETY: inside the batch's input; register j - 1's last
                // block, not yet overwritten (the stores go down).
                let p = unsafe { v.load(src.add(16 * (i + bl * j) - 16)) };
                let out = v.aesdeclast(b[j], v.xor(p, rk[R]));
                // SAFETY: register j of the batch's output, whose input
                // was read before the rounds.
                unsafe { v.store(dst.add(16 * (i + bl * j)), out) };
            }
            // SAFETY: the batch's first input register, not yet overwritten.
            let p0 = v.shift_in(unsafe { v.load(src.add(16 * i)) }, prev);
            let out = v.aesdeclast(b[0], v.xor(p0, rk[R]));
            // SAFETY: the batch's first output register; all its inputs
            // were read.
            unsafe { v.store(dst.add(16 * i), out) };
            prev = next_prev;
        }
        i += step;
    }
    while i < n {
        let m = (n - i).min(bl);
        // SAFETY: blocks i..i + m lie inside the input.
        let c = unsafe { v.load_blocks(src.add(16 * i), m) };
        let x = v.xor(v.shift_in(c, prev), rk[R]);
        prev = c;
        let mut b = v.xor(c, rk[0]);
        for key in &rk[1..R] {
            b = v.aesdec(b, *key);
        }
        // SAFETY: blocks i..i + m lie inside the output and were read above.
        unsafe { v.store_blocks(dst.add(16 * i), v.aesdeclast(b, x), m) };
        i += m;
    }
    // SAFETY: `iv` is 16 writable bytes.
    unsafe { _mm_storeu_si128(iv.as_mut_ptr().cast(), last_ct) };
}

/// CTR over whole blocks with a 128-bit big-endian counter.
///
/// # Safety
/// As [`encrypt_blocks`].
#[inline(always)]
pub(super) unsafe fn ctr_apply<V: Vector>(v: V, k: &X86Aes, ctr: &mut Block, io: InOut<'_>) {
    trace::hit(kernel::<V>(Kernel::Vaes256Ctr, Kernel::Vaes512Ctr));
    // The round dispatch stays outside the segment loop, so each round
    // count has a loop of its own (see `aesni::ctr_rounds`).
    match k.size {
        KeySize::Aes128 => ctr_rounds::<10, V>(v, &k.enc, ctr, io),
        KeySize::Aes192 => ctr_rounds::<12, V>(v, &k.enc, ctr, io),
        KeySize::Aes256 => ctr_rounds::<14, V>(v, &k.enc, ctr, io),
    }
}

/// [`ctr_apply`] for `R` rounds. Not `ctr_segments`: its closure would be
/// compiled without this tier's features, and the kernel inlined into it
/// would make calls.
#[inline(always)]
fn ctr_rounds<const R: usize, V: Vector>(
    v: V,
    keys: &[__m128i; 15],
    ctr: &mut Block,
    io: InOut<'_>,
) {
    let mut c = u128::from_be_bytes(*ctr);
    let mut rest = io;
    while rest.blocks() > 0 {
        let m = super::ctr_runs::ctr_run(c, rest.blocks());
        let (now, later) = rest.split_at(m * 16);
        ctr_seg::<R, V>(v, keys, c, now);
        c = c.wrapping_add(m as u128);
        rest = later;
    }
    *ctr = c.to_be_bytes();
}

/// CTR over a segment in which the low 64 bits of the counter do not wrap
/// (lanes past the end of a masked tail may wrap; they are never stored).
///
/// The bulk loop makes its counter registers without VPSHUFB while the last
/// byte of the counter does not carry inside the step (15 steps in 16 on
/// ymm, 7 in 8 on zmm): each register is the big-endian counter block with
/// its offset added to byte 15 (one VPADDD, byte 15 being the top of the
/// last 32-bit lane). VPSHUFB shares an AES pipe on Zen 3/4 (FP1) and on
/// Golden Cove (port 1). A step whose last byte carries swaps as before.
#[inline(always)]
fn ctr_seg<const R: usize, V: Vector>(v: V, keys: &[__m128i; 15], c0: u128, mut io: InOut<'_>) {
    let rk = v.broadcast_keys::<R>(keys);
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // The counter is kept little-endian in each lane (the low qword where
    // the 64-bit add works) and byte-reversed to the big-endian block per use.
    let bswap = v.set_u64x2(0x0001_0203_0405_0607, 0x0809_0a0b_0c0d_0e0f);
    // Lane l counts c0 + l; every register step adds BLOCKS to each lane.
    let c0_le = v.set_u64x2((c0 >> 64) as u64, c0 as u64);
    let mut ctr = v.add64(c0_le, v.lane_index());
    let inc = v.set_u64x2(0, V::BLOCKS as u64);
    let step = V::BLOCKS * WIDE;
    let pf = 16 * n >= PREFETCH_MIN;
    // The same counters as blocks: lane l of `be` is the block of c0 + l
    // (the byte swap of `ctr`), register j of a step adds BLOCKS * j to
    // byte 15, and a step adds `step` (< 256).
    let mut be = v.shuffle_bytes(ctr, bswap);
    let inc_be: [V::V; WIDE] =
        core::array::from_fn(|j| v.set_u64x2(((V::BLOCKS * j) as u64) << 56, 0));
    let step_be = v.set_u64x2((step as u64) << 56, 0);
    let step_le = v.set_u64x2(0, step as u64);
    let mut last = c0 as u8;
    let mut i = 0;
    while n - i >= step {
        prefetch_step(
            pf,
            src.wrapping_add(16 * i),
            dst.wrapping_add(16 * i),
            16 * step,
        );
        let mut b = [v.zero(); WIDE];
        if usize::from(last) + step - 1 <= 0xff {
            for (x, d) in b.iter_mut().zip(inc_be.iter()) {
                *x = v.xor(v.add32(be, *d), rk[0]);
            }
        } else {
            let mut c = ctr;
            for x in b.iter_mut() {
                *x = v.xor(v.shuffle_bytes(c, bswap), rk[0]);
                c = v.add64(c, inc);
            }
        }
        ctr = v.add64(ctr, step_le);
        be = if usize::from(last) + step + V::BLOCKS - 1 <= 0xff {
            v.add32(be, step_be)
        } else {
            v.shuffle_bytes(ctr, bswap)
        };
        last = last.wrapping_add(step as u8);
        for key in &rk[1..R] {
            for x in b.iter_mut() {
                *x = v.aesenc(*x, *key);
            }
            v.order(&mut b);
        }
        for (j, x) in b.iter().enumerate() {
            let p = 16 * (i + V::BLOCKS * j);
            // SAFETY: blocks i..i + step lie inside both regions; each
            // register is read just before the same position is written. The
            // data XOR rides in the last round key.
            unsafe {
                let d = v.xor(v.load(src.add(p)), rk[R]);
                v.store(dst.add(p), v.aesenclast(*x, d));
            }
        }
        i += step;
    }
    while i < n {
        let m = (n - i).min(V::BLOCKS);
        let mut x = v.xor(v.shuffle_bytes(ctr, bswap), rk[0]);
        ctr = v.add64(ctr, inc);
        for key in &rk[1..R] {
            x = v.aesenc(x, *key);
        }
        // SAFETY: blocks i..i + m lie inside both regions; read before written.
        unsafe {
            let d = v.xor(v.load_blocks(src.add(16 * i), m), rk[R]);
            v.store_blocks(dst.add(16 * i), v.aesenclast(x, d), m);
        }
        i += m;
    }
}
