//! The per-message parts of AES-GCM-SIV and XAES-256-GCM on x86: the
//! GCM-SIV one-shot, a key schedule for derived keys, and the GCM-SIV
//! counter mode, one source over [`Vector`] for the three tiers.
//!
//! The one-shot ([`gcm_siv`]) is one `#[target_feature]` function per tier
//! and key size: the derivation (the 4 or 6 nonce blocks in one interleaved
//! AES pass), the schedule of the derived key, POLYVAL (`polyval.rs`'s
//! [`gcm_siv_hash`]), the tag and the counter mode, with the derived keys
//! in a local array that is wiped on the way out. Nothing is allocated,
//! moved or dispatched per piece, and the schedule, which depends only on
//! the derivation, runs beside the hash in the out-of-order window.
//!
//! The schedule takes SubWord from AESENCLAST (see [`expand`]), not
//! AESKEYGENASSIST, whose latency would put ~10 cycles per round key on
//! the way to the tag.
//!
//! The GCM-SIV counter block is the tag with its top bit set; its first
//! 32-bit word counts, little-endian, modulo 2^32. Kept as it is in the
//! register, the block needs no byte swap: PADDD on the first word of each
//! lane is the whole increment, and it wraps exactly as RFC 8452 says.
//! Up to eight blocks go through one interleaved xmm pass on every tier
//! (`ctr_short`); longer texts through [`ctr`] on the tier's width.
//!
//! Opening a long message runs the counter mode and the hash of the
//! plaintext in one loop (`open_long`); sealing cannot, as its counter
//! starts from the hash.
//!
//! A short message is latency: nonce to derived blocks, the hash of the
//! length block and the tag are one dependent chain; the schedule meets the
//! tag near its last round. Cycle counts: docs/BENCHMARKS.md.
//!
//! Port model of a long message, per 16-byte block (uops.info; the Zen 3
//! multiplier measured with a probe, see `polyval.rs`), `aesni` tier:
//!
//! | core | AES ops | POLYVAL products | seal (hash, then CTR) | open (one loop) |
//! | --- | --- | --- | --- | --- |
//! | Zen 3, Zen 4 | FP0/FP1, two a cycle, latency 4 | the same two pipes, two cycles each; ~3.25 (Karatsuba) | 6.5 + 5 / 7 cycles | (R + 6.5) / 2: 8.25 / 10.25 |
//! | Golden Cove | p0/p1, two a cycle, latency 3 | p5, one a cycle; ~3.4 | 3.4 + 5 / 7 | 5 / 7 (AES) |
//!
//! (AES-128 / AES-256, R = 10 / 14.) Measured fractions of it: Zen 3
//! (3.21 GHz, 1 MiB) seal AES-128 12.1 cycles per block, 0.95; open
//! 11.2 and 12.9, 0.74 and 0.79. Golden Cove (~4.0 GHz, 16 KiB) seal 8.6
//! and 10.6, 0.98; open 8.1 and 9.4, 0.62 and 0.74 of the AES bound: there
//! the loop's ~185 vector operations per eight blocks on ports 0, 1 and 5
//! bound it first (0.95 of that). The wide tiers run the same loop on ymm
//! and zmm: half and a quarter of these per block where the pipes take
//! whole registers (Zen 4 splits zmm in two).

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::ghash_clmul::{X86HKey, POWERS};
use super::key::{Level, X86Aes};
use super::polyval::{
    gcm_siv_hash, is_small, karatsuba, lengths, powers, reduce, Acc, KAcc, Table, MAX,
};
use super::vector::{middle_rounds, vaes_entries, Vector};
use crate::backend::kernels::cpu::Aesni;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::siv::SIV_NONCE_LEN as NONCE_LEN;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::{wipe, BlockKernels};
use crate::backend::schedule::Schedule;
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, RoundKeys, BLOCK_LEN, MAX_ROUNDS};

/// Expands a derived message key on the tier of `like`: 16 or 32 bytes
/// here (GCM-SIV, XAES), 24 through the general schedule (AES-192-GCM-SIV,
/// which runs the generic one-shot); other lengths are an error.
pub(crate) fn expand_key(like: &X86Aes, key: &[u8]) -> Result<X86Aes> {
    let level = like.level;
    let size = KeySize::from_len(key.len())?;
    if size == KeySize::Aes192 {
        return Ok(X86Aes::new(level, &RoundKeys::expand(key)?));
    }
    // SAFETY: every level's token proves AES-NI and SSE4.1; `key` is 16 or
    // 32 bytes as `schedule` reads.
    Ok(unsafe { schedule(level.aesni(), key, size, level) })
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn schedule(x1: Aesni, key: &[u8], size: KeySize, level: Level) -> X86Aes {
    let mut enc = [x1.zero(); MAX_ROUNDS + 1];
    // SAFETY: `key` holds 16 bytes (AES-128) or 32 (AES-256) as read
    // below; unaligned loads.
    unsafe {
        let k0 = x1.load(key.as_ptr());
        if size == KeySize::Aes128 {
            expand::<10>(x1, k0, k0, &mut enc);
        } else {
            expand::<14>(x1, k0, x1.load(key.as_ptr().add(16)), &mut enc);
        }
    }
    // Derived keys only ever encrypt (GCM-SIV's CTR and tag, XAES's GCM),
    // so the 13 AESIMC and the 240-byte table of decryption keys are
    // skipped; `SivKernels::message_key` says so to its callers.
    X86Aes {
        enc,
        dec: [x1.zero(); MAX_ROUNDS + 1],
        size,
        level,
    }
}

/// `k` XOR its 4-, 8- and 12-byte shifts: word i becomes w0 ^ .. ^ wi, the
/// running XOR of the FIPS 197 schedule.
#[inline(always)]
fn mix(x1: Aesni, k: __m128i) -> __m128i {
    let k = x1.xor(k, x1.bslli::<4>(k));
    x1.xor(k, x1.bslli::<8>(k))
}

/// The AES-128 (`R` = 10: `k0`) or AES-256 (`R` = 14: `k0 || k1`) key
/// schedule into `rk[0..=R]`.
///
/// SubWord comes from AESENCLAST on a register whose four words are equal
/// (ShiftRows then moves nothing), as in BoringSSL's
/// `aes_hw_set_encrypt_key_alt`: a PSHUFB puts RotWord(w3) in every word and
/// the round key of AESENCLAST adds Rcon. Each key is then PSHUFB,
/// AESENCLAST and one XOR after the one before (about 5 cycles; `mix` runs
/// beside them), where AESKEYGENASSIST, microcoded on recent Intel cores,
/// costs several times that: 10 keys are ~50 cycles, 14 ~70.
#[inline(always)]
fn expand<const R: usize>(x1: Aesni, k0: __m128i, k1: __m128i, rk: &mut [__m128i; MAX_ROUNDS + 1]) {
    // Bytes 13, 14, 15, 12 (RotWord of w3) into every word.
    let rot = x1.set_u64x2(0x0c0f_0e0d_0c0f_0e0d, 0x0c0f_0e0d_0c0f_0e0d);
    // SubWord(RotWord(w3)) ^ Rcon in every word.
    let sub_rot = |k: __m128i, rcon: u64| {
        let rcon = x1.set_u64x2(rcon * 0x1_0000_0001, rcon * 0x1_0000_0001);
        x1.aesenclast(x1.shuffle_bytes(k, rot), rcon)
    };
    // SubWord(w3) in every word, without RotWord or Rcon (AES-256's odd
    // keys).
    let sub = |k: __m128i| x1.aesenclast(x1.shuffle32::<0xff>(k), x1.zero());
    // Written out, not looped: the chain must stay in registers (a loop
    // that LLVM keeps rolled goes through `rk` in memory at each step).
    let (mut a, mut b) = (k0, k1);
    rk[0] = a;
    if R == 10 {
        // Key i from key i - 1 and Rcon_i.
        let mut next = |i: usize, rcon: u64| {
            a = x1.xor(mix(x1, a), sub_rot(a, rcon));
            rk[i] = a;
        };
        next(1, 0x01);
        next(2, 0x02);
        next(3, 0x04);
        next(4, 0x08);
        next(5, 0x10);
        next(6, 0x20);
        next(7, 0x40);
        next(8, 0x80);
        next(9, 0x1b);
        next(10, 0x36);
    } else {
        rk[1] = b;
        // Keys 2i and 2i + 1 from the two before and Rcon_i.
        let mut next = |i: usize, rcon: u64| {
            a = x1.xor(mix(x1, a), sub_rot(b, rcon));
            rk[2 * i] = a;
            b = x1.xor(mix(x1, b), sub(a));
            rk[2 * i + 1] = b;
        };
        next(1, 0x01);
        next(2, 0x02);
        next(3, 0x04);
        next(4, 0x08);
        next(5, 0x10);
        next(6, 0x20);
        rk[14] = x1.xor(mix(x1, a), sub_rot(b, 0x40));
    }
}

/// The GHASH key of `k` (H = E_K(0), kept as H·y, and its powers; see
/// `ghash_clmul`), with the powers computed by doubling: a key derived per
/// message (XAES) cannot wait for thirty-one dependent products. Only
/// H^1..H^`blocks` are computed (the rest stay zero): a message hashing
/// `blocks` blocks in all never uses more, and a 64-byte one then needs two
/// doubling rounds instead of five.
pub(crate) fn ghash_key(k: &X86Aes, blocks: usize) -> X86HKey {
    let mut h = [0u8; 16];
    k.encrypt_blocks(InOut::in_place(&mut h));
    let hv = u128::from_be_bytes(h);
    h.zeroize();
    // H·y; a carry out of y^127 is reduced with a mask (H is secret).
    const G: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;
    let k1 = (hv << 1) ^ (G & 0u128.wrapping_sub(hv >> 127));
    let mut key = X86HKey { pow: [0; POWERS] };
    // SAFETY: every level's token proves PCLMULQDQ; u128 and __m128i have
    // the same size and the register image of a u128 is its little-endian
    // bytes, which is how X86HKey stores it.
    unsafe {
        let tab = powers::<POWERS>(
            k.level,
            _mm_loadu_si128((&k1 as *const u128).cast()),
            blocks.clamp(1, POWERS),
        );
        for (p, t) in key.pow.iter_mut().zip(tab.iter()) {
            _mm_storeu_si128((p as *mut u128).cast(), *t);
        }
    }
    key
}

/// One GCM-SIV message on the key-generating key `k` of `size`: with
/// `open` `None`, seals `io` and returns the tag; with the received tag,
/// decrypts `io` (its counter) and returns the tag of the plaintext written.
pub(crate) fn gcm_siv(
    k: &X86Aes,
    size: KeySize,
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    io: InOut<'_>,
    open: Option<&Block>,
) -> Result<Block> {
    debug_assert_eq!(k.size, size);
    let keys = &k.enc;
    // SAFETY: the matched level's token proves the features its kernel
    // enables; `io` carries its own guarantees.
    unsafe {
        Ok(match k.level {
            Level::Aesni(t) => {
                trace::hit(Kernel::AesniPolyval);
                trace::hit(Kernel::AesniCtr32le);
                match size {
                    KeySize::Aes128 => siv_aesni::<10, 8>(t, keys, nonce, aad, io, open),
                    KeySize::Aes256 => siv_aesni::<14, 8>(t, keys, nonce, aad, io, open),
                    KeySize::Aes192 => return Err(Error::InvalidKeyLength { len: 24 }),
                }
            }
            Level::Vaes256(t) => {
                trace::hit(Kernel::Vaes256Polyval);
                trace::hit(Kernel::Vaes256Ctr32le);
                match size {
                    KeySize::Aes128 => siv_vaes256::<10, 8>(t, keys, nonce, aad, io, open),
                    KeySize::Aes256 => siv_vaes256::<14, 8>(t, keys, nonce, aad, io, open),
                    KeySize::Aes192 => return Err(Error::InvalidKeyLength { len: 24 }),
                }
            }
            Level::Vaes512(t) => {
                trace::hit(Kernel::Vaes512Polyval);
                trace::hit(Kernel::Vaes512Ctr32le);
                match size {
                    KeySize::Aes128 => siv_vaes512::<10, 4>(t, keys, nonce, aad, io, open),
                    KeySize::Aes256 => siv_vaes512::<14, 4>(t, keys, nonce, aad, io, open),
                    KeySize::Aes192 => return Err(Error::InvalidKeyLength { len: 24 }),
                }
            }
        })
    }
}

/// The GCM-SIV counter mode of the derived key `k` (any key size) from the
/// counter block `ctr`: a segment of a call split over threads, whose
/// counter starts past the tag.
pub(crate) fn ctr32le(k: &X86Aes, ctr: &Block, io: InOut<'_>) {
    let keys = &k.enc;
    trace::hit(match k.level {
        Level::Aesni(_) => Kernel::AesniCtr32le,
        Level::Vaes256(_) => Kernel::Vaes256Ctr32le,
        Level::Vaes512(_) => Kernel::Vaes512Ctr32le,
    });
    // SAFETY: the matched level's token proves the features its kernel
    // enables; `ctr` is 16 readable bytes; `io` carries its own guarantees.
    unsafe {
        match (k.level, k.size) {
            (Level::Aesni(t), KeySize::Aes128) => ctr_aesni::<10>(t, keys, ctr, io),
            (Level::Aesni(t), KeySize::Aes192) => ctr_aesni::<12>(t, keys, ctr, io),
            (Level::Aesni(t), KeySize::Aes256) => ctr_aesni::<14>(t, keys, ctr, io),
            (Level::Vaes256(t), KeySize::Aes128) => ctr_vaes256::<10>(t, keys, ctr, io),
            (Level::Vaes256(t), KeySize::Aes192) => ctr_vaes256::<12>(t, keys, ctr, io),
            (Level::Vaes256(t), KeySize::Aes256) => ctr_vaes256::<14>(t, keys, ctr, io),
            (Level::Vaes512(t), KeySize::Aes128) => ctr_vaes512::<10>(t, keys, ctr, io),
            (Level::Vaes512(t), KeySize::Aes192) => ctr_vaes512::<12>(t, keys, ctr, io),
            (Level::Vaes512(t), KeySize::Aes256) => ctr_vaes512::<14>(t, keys, ctr, io),
        }
    }
}

vaes_entries! {
    fn ctr_aesni / ctr_vaes256 / ctr_vaes512 <const R: usize>
        (keys: &[__m128i; MAX_ROUNDS + 1], ctr: &Block, io: InOut<'_>) = ctr_from;
}

/// [`ctr_any`] from a counter block in memory.
///
/// # Safety
/// `ctr` is 16 readable bytes; otherwise the token and `io`'s own
/// guarantees.
#[inline(always)]
pub(super) unsafe fn ctr_from<V: Vector, const R: usize>(
    v: V,
    keys: &[__m128i; MAX_ROUNDS + 1],
    ctr: &Block,
    io: InOut<'_>,
) {
    // SAFETY: as the function's contract.
    unsafe { ctr_any::<V, R>(v, keys, v.xmm().load(ctr.as_ptr()), io) }
}

vaes_entries! {
    fn siv_aesni / siv_vaes256 / siv_vaes512 <const R: usize, const P: usize>
        (
            keys: &[__m128i; MAX_ROUNDS + 1],
            nonce: &[u8; NONCE_LEN],
            aad: &[u8],
            io: InOut<'_>,
            open: Option<&Block>,
        ) -> Block = oneshot;
}

/// The GCM-SIV one-shot for `R` rounds (10: AES-128, 14: AES-256), POLYVAL
/// with `P` registers per group: derivation, schedule, hash, tag and CTR
/// in one function, the derived keys in registers and wiped on the way out.
///
/// # Safety
/// None beyond the token and `io`'s own guarantees (`unsafe` for the entry
/// points' sake).
#[inline(always)]
pub(super) unsafe fn oneshot<V: Vector, const R: usize, const P: usize>(
    v: V,
    keys: &[__m128i; MAX_ROUNDS + 1],
    nonce: &[u8; NONCE_LEN],
    aad: &[u8],
    mut io: InOut<'_>,
    open: Option<&Block>,
) -> Block {
    let x1 = v.xmm();
    // The nonce in bytes 0..12 from two integer loads: a 16-byte load of a
    // padded copy would wait for the copy's two stores (a failed store
    // forward, at the head of the whole chain).
    let (n0, n1) = nonce.split_at(8);
    let nb = x1.set_u64x2(
        u32::from_le_bytes(n1.try_into().unwrap_or_default()).into(),
        u64::from_le_bytes(n0.try_into().unwrap_or_default()),
    );
    let mut rk = [x1.zero(); MAX_ROUNDS + 1];
    let mut h = derive::<R>(x1, keys, nb, &mut rk);
    let len = io.len();
    let tag = match open {
        None => {
            // SAFETY: `io` reads `len` bytes at `src_ptr`; nothing is
            // written before the hash is done.
            let s = unsafe { gcm_siv_hash::<V, P>(v, h, aad, io.src_ptr(), len) };
            let tag = tag::<R>(x1, &rk, s, nb);
            // SAFETY: `io` holds `len` bytes in each region, equal or
            // disjoint; the hash has read its input.
            unsafe { ctr_any::<V, R>(v, &rk, tag, io) };
            tag
        }
        Some(received) => {
            let dst = io.dst_ptr();
            // SAFETY: `received` is 16 readable bytes; `io` as the entry's
            // contract; then `dst` holds the `len` bytes of plaintext that
            // the counter mode wrote, readable as the output of a
            // `&mut [u8]`.
            unsafe {
                let t = x1.load(received.as_ptr());
                let s = if is_small(aad.len(), len) {
                    ctr_any::<V, R>(v, &rk, t, io);
                    gcm_siv_hash::<V, P>(v, h, aad, dst, len)
                } else if karatsuba::<V>() && !Schedule::current().clmul_beside_aes() {
                    open_long::<V, R, P, true>(v, &rk, h, t, aad, io)
                } else {
                    open_long::<V, R, P, false>(v, &rk, h, t, aad, io)
                };
                tag::<R>(x1, &rk, s, nb)
            }
        }
    };
    let zero = x1.zero();
    wipe(rk[..=R].iter_mut(), zero);
    wipe([&mut h], zero);
    let mut out = [0u8; 16];
    // SAFETY: `out` is 16 writable bytes.
    unsafe { x1.store(out.as_mut_ptr(), tag) };
    out
}

/// The GCM-SIV counter mode over `io` from the tag `t`: up to eight blocks
/// in one interleaved pass on xmm (a short message's CTR, where a loop's
/// setup and the wide registers' key broadcasts cost more than they save),
/// longer ones by [`ctr`] on the tier's width.
///
/// # Safety
/// None beyond the token and `io`'s own guarantees.
#[inline(always)]
unsafe fn ctr_any<V: Vector, const R: usize>(
    v: V,
    rk: &[__m128i; MAX_ROUNDS + 1],
    t: __m128i,
    mut io: InOut<'_>,
) {
    let x1 = v.xmm();
    let len = io.len();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    // SAFETY: as the contracts of `ctr_short` (`len` bytes at `src`, `dst`,
    // at most 16 W of them) and `ctr`.
    unsafe {
        match len.div_ceil(16) {
            0 => {}
            1 => ctr_short::<R, 1>(x1, rk, t, src, dst, len),
            2 => ctr_short::<R, 2>(x1, rk, t, src, dst, len),
            3 | 4 => ctr_short::<R, 4>(x1, rk, t, src, dst, len),
            5..=8 => ctr_short::<R, 8>(x1, rk, t, src, dst, len),
            _ => {
                let mut tag = [0u8; 16];
                x1.store(tag.as_mut_ptr(), t);
                ctr::<V, R, 8>(v, rk, &tag, io);
            }
        }
    }
}

/// `W` counter blocks from the tag `t` through `R` rounds in one
/// interleaved pass, XORed into the `len` (<= 16 W) bytes at `src`,
/// written to `dst`.
///
/// # Safety
/// `src` readable and `dst` writable for `len` bytes, the same or disjoint.
#[inline(always)]
unsafe fn ctr_short<const R: usize, const W: usize>(
    x1: Aesni,
    rk: &[__m128i; MAX_ROUNDS + 1],
    t: __m128i,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) {
    let base = x1.or(t, x1.set_u64x2(0x8000_0000 << 32, 0));
    let mut b = [x1.zero(); W];
    for (j, x) in b.iter_mut().enumerate() {
        *x = x1.xor(x1.add32(base, x1.set_u64x2(0, j as u64)), rk[0]);
    }
    for key in &rk[1..R] {
        for x in b.iter_mut() {
            *x = x1.aesenc(*x, *key);
        }
        // Round-major (64-byte seals 1.7-3.2% faster on Zen 3).
        x1.order(&mut b);
    }
    // SAFETY: whole blocks at `at` with at + 16 <= len, or the last partial
    // one through the local `tail`; each block is read before it is written.
    unsafe {
        for (j, x) in b.iter().enumerate() {
            let at = 16 * j;
            if at + 16 <= len {
                let d = x1.load(src.add(at));
                x1.store(dst.add(at), x1.aesenclast(*x, x1.xor(rk[R], d)));
            } else if at < len {
                let mut tail = [0u8; 16];
                x1.store(tail.as_mut_ptr(), x1.aesenclast(*x, rk[R]));
                for (k, ks) in tail.iter().enumerate().take(len - at) {
                    *dst.add(at + k) = *src.add(at + k) ^ ks;
                }
                wipe([&mut tail], [0; 16]);
            }
        }
    }
}

/// Decrypts a long message and returns the hash of its plaintext (AAD,
/// text and lengths), in one pass: while the counter blocks of a group of
/// `P` registers go through the rounds, the plaintext of the group before
/// is multiplied by H^g..H^1 (g = `P` · `V::BLOCKS`, at most 16), one
/// reduction per group ([`open_group`]; AWS-LC's `aes128gcmsiv_dec` does
/// the same); sealing cannot do this, as its counter starts from the hash.
/// The rest of the text (less than a group) is decrypted, then hashed,
/// after the loop. `KARA`: Karatsuba products (see [`open_group`]).
///
/// # Safety
/// None beyond the token and `io`'s own guarantees.
#[inline(always)]
unsafe fn open_long<V: Vector, const R: usize, const P: usize, const KARA: bool>(
    v: V,
    rk: &[__m128i; MAX_ROUNDS + 1],
    h: __m128i,
    t: __m128i,
    aad: &[u8],
    mut io: InOut<'_>,
) -> __m128i {
    let x1 = v.xmm();
    let l = V::BLOCKS;
    let g = P * l;
    let len = io.len();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let tw = len / BLOCK_LEN;
    let groups = tw / g;
    // The groups' g powers, all that the rest takes as well.
    let table = Table::new(v, h, g, g);
    let mut acc = table.aad::<V, P>(v, x1.zero(), aad);
    let mut keys = v.broadcast_keys::<R>(rk);
    let base = x1.or(t, x1.set_u64x2(0x8000_0000 << 32, 0));
    let mut ctr = v.add32(v.broadcast(base), v.lane_index());
    // SAFETY: the table holds MAX >= g blocks, of which the last `have` >= g
    // are powers (and their Karatsuba halves); the groups cover bytes
    // 0 .. 16 g groups <= 16 tw <= len of `src` and `dst`.
    unsafe {
        // The powers of the group and their Karatsuba halves, loaded where
        // they are used (memory operands of the multiplies): held in
        // registers, they would crowd out the AES states on xmm.
        let pw = table.tab.as_ptr().cast::<u8>().add(16 * (MAX - g));
        let pk = table.kar.as_ptr().cast::<u8>().add(16 * (MAX - g));
        if groups > 0 {
            open_group::<V, R, P, KARA, false>(v, &keys, &mut ctr, src, dst, 0, pw, pk, &mut acc);
        }
        for k in 1..groups {
            open_group::<V, R, P, KARA, true>(
                v,
                &keys,
                &mut ctr,
                src,
                dst,
                16 * g * k,
                pw,
                pk,
                &mut acc,
            );
        }
        let done = 16 * g * groups;
        if groups > 0 {
            acc = table.blocks::<V, P>(v, acc, dst.add(done - 16 * g), g);
        }
        let (_, rest) = io.split_at(done);
        let t = x1.add32(t, x1.set_u64x2(0, (g * groups) as u64));
        ctr_any::<V, R>(v, rk, t, rest);
        acc = table.blocks::<V, P>(v, acc, dst.add(done), tw - g * groups);
        let lens = lengths(x1, aad.len(), len);
        let s = table.finish::<V, P>(v, acc, dst.add(16 * tw), len % BLOCK_LEN, lens);
        // The derived round keys, broadcast to the register width.
        wipe(keys[..=R].iter_mut(), v.zero());
        s
    }
}

/// One group of [`open_long`] at byte `at`: the counter mode of its `P`
/// registers from `ctr`, and (`HASH`) the plaintext of the group before
/// (at `at - 16 g` in `dst`) multiplied by the powers at `pw` (`pk`: their
/// Karatsuba halves), one register after each of the first rounds and the
/// one that takes `acc` after the last, reduced into `acc`.
///
/// Ports. On Intel (Golden Cove) PCLMULQDQ has port 5 to itself and the
/// AES ports bind: the hash is nearly free beside the rounds, and
/// Karatsuba's extra shuffle, XOR and load per block cost more than the
/// product they save (~4%), so the `intel` schedule multiplies schoolbook.
/// On Zen the multiplier shares the AES pipes (a product holds one for two
/// cycles, measured on Zen 3), so the products add to the rounds: per
/// block 10 or 14 AES ops and 3.4 products (Karatsuba, `KARA`, under `zen`
/// and `generic`: three, the schoolbook register that takes the state and
/// the reduction's share; schoolbook takes 4.4), about 8.4 and 10.4 cycles
/// per block on two pipes. Measured on Zen 3 (3.21 GHz) at 1 MiB on xmm:
/// AES-128 4.57 GB/s, 11.2 cycles per block, 0.75 of that bound; AES-256
/// 3.98 GB/s, 12.9 cycles, 0.81. Karatsuba was 2.4-4.7% faster than
/// schoolbook there on xmm and level on ymm.
///
/// The products are pinned between the rounds with the states
/// ([`Acc::order_with`]); left to LLVM, they all sank below the last round
/// and the round loop stayed rolled (pinned and written out: Zen 3 xmm
/// 14-17% faster, ymm 9-17%).
///
/// # Safety
/// `src` readable and `dst` writable for the group's bytes, and `dst`
/// readable for the group before when `HASH`; `pw` and `pk` readable for
/// `P` registers.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn open_group<
    V: Vector,
    const R: usize,
    const P: usize,
    const KARA: bool,
    const HASH: bool,
>(
    v: V,
    keys: &[V::V; MAX_ROUNDS + 1],
    ctr: &mut V::V,
    src: *const u8,
    dst: *mut u8,
    at: usize,
    pw: *const u8,
    pk: *const u8,
    acc: &mut __m128i,
) {
    let l = V::BLOCKS;
    let step = v.set_u64x2(0, l as u64);
    let mut b = [v.zero(); P];
    for x in b.iter_mut() {
        *x = v.xor(*ctr, keys[0]);
        *ctr = v.add32(*ctr, step);
    }
    // SAFETY: register r of the group before lies at `prev + 16 l r`, inside
    // `dst` (this function's contract), as do the powers at `pw`/`pk`.
    unsafe {
        let prev = dst.wrapping_add(at).wrapping_sub(16 * l * P);
        let x = |r: usize| v.load(prev.add(16 * l * r));
        let hs = |r: usize| v.load(pw.add(16 * l * r));
        let ks = |r: usize| v.load(pk.add(16 * l * r));
        let mut s = Acc::zero(v);
        let mut sk = KAcc::zero(v);
        middle_rounds!(r < R => {
            for x in b.iter_mut() {
                *x = v.aesenc(*x, keys[r]);
            }
            v.order(&mut b);
            if HASH && r < P {
                // Pinned after this round with the states: left to LLVM,
                // the products all sink below the last round.
                if KARA {
                    sk.mul_add(v, x(r), hs(r), ks(r));
                    sk.order_with(v, &mut b);
                } else {
                    s.mul_add(v, x(r), hs(r));
                    s.order_with(v, &mut b);
                }
            }
        });
        if HASH {
            let x0 = v.xor(x(0), v.zext(*acc));
            let (lo, hi) = if KARA {
                sk.fold_with(v, x0, hs(0))
            } else {
                s.mul_add(v, x0, hs(0));
                s.fold(v)
            };
            *acc = reduce(v.xmm(), lo, hi);
        }
        for (j, x) in b.iter().enumerate() {
            let p = at + 16 * l * j;
            let d = v.load(src.add(p));
            v.store(dst.add(p), v.aesenclast(*x, v.xor(keys[R], d)));
        }
    }
}

/// The message keys (RFC 8452 section 4): block i = AES(K, le32(i) ||
/// nonce) for i < 4 (AES-128) or 6, all in one interleaved pass; the first
/// 8 bytes of blocks 0, 1 are the POLYVAL key (returned), of the rest the
/// AES key, expanded into `rk`. `nb` is the nonce in bytes 0..12.
#[inline(always)]
fn derive<const R: usize>(
    x1: Aesni,
    keys: &[__m128i; MAX_ROUNDS + 1],
    nb: __m128i,
    rk: &mut [__m128i; MAX_ROUNDS + 1],
) -> __m128i {
    let n = if R == 10 { 4 } else { 6 };
    let base = x1.bslli::<4>(nb);
    let mut b = [x1.zero(); 6];
    for (i, x) in b.iter_mut().enumerate().take(n) {
        *x = x1.xor(x1.add32(base, x1.set_u64x2(0, i as u64)), keys[0]);
    }
    for key in &keys[1..R] {
        for x in b.iter_mut().take(n) {
            *x = x1.aesenc(*x, *key);
        }
    }
    for x in b.iter_mut().take(n) {
        *x = x1.aesenclast(*x, keys[R]);
    }
    let h = x1.unpacklo64(b[0], b[1]);
    expand::<R>(x1, x1.unpacklo64(b[2], b[3]), x1.unpacklo64(b[4], b[5]), rk);
    let zero = x1.zero();
    wipe(b.iter_mut(), zero);
    h
}

/// The tag: AES of the hash `s` with the nonce `nb` XORed in and the top
/// bit cleared.
#[inline(always)]
fn tag<const R: usize>(
    x1: Aesni,
    rk: &[__m128i; MAX_ROUNDS + 1],
    s: __m128i,
    nb: __m128i,
) -> __m128i {
    let top = x1.set_u64x2(0x7fff_ffff_ffff_ffff, u64::MAX);
    let mut x = x1.xor(x1.and(x1.xor(s, nb), top), rk[0]);
    for key in &rk[1..R] {
        x = x1.aesenc(x, *key);
    }
    x1.aesenclast(x, rk[R])
}

/// `W` registers of counter blocks in flight, `R` rounds.
///
/// # Safety
/// None beyond the token and `io`'s own guarantees (`unsafe` for the entry
/// points' sake).
#[inline(always)]
unsafe fn ctr<V: Vector, const R: usize, const W: usize>(
    v: V,
    keys: &[__m128i; MAX_ROUNDS + 1],
    tag: &Block,
    mut io: InOut<'_>,
) {
    let l = V::BLOCKS;
    let len = io.len();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let x1 = v.xmm();
    let mut rk = v.broadcast_keys::<R>(keys);
    // SAFETY: `tag` is 16 readable bytes.
    let tag = unsafe { x1.load(tag.as_ptr()) };
    let base = x1.or(tag, x1.set_u64x2(0x8000_0000 << 32, 0));
    let mut ctr = v.add32(v.broadcast(base), v.lane_index());
    let step = v.set_u64x2(0, l as u64);
    // SAFETY: every load and store below covers bytes i..i + 16·l with
    // i + 16·l <= len (whole registers) or goes through the local `tail`
    // array; each output block is written only after the same input block
    // is read, so in-place use is fine.
    unsafe {
        let mut i = 0;
        while len - i >= 16 * l * W {
            let mut b = [v.zero(); W];
            for x in b.iter_mut() {
                *x = v.xor(ctr, rk[0]);
                ctr = v.add32(ctr, step);
            }
            for key in &rk[1..R] {
                for x in b.iter_mut() {
                    *x = v.aesenc(*x, *key);
                }
                // Round-major: left alone, LLVM runs the registers through
                // their rounds one after another, and on xmm (16 registers)
                // AES-256 then runs about 6% slower.
                v.order(&mut b);
            }
            for (j, x) in b.iter().enumerate() {
                let at = i + 16 * l * j;
                let d = v.load(src.add(at));
                v.store(dst.add(at), v.aesenclast(*x, v.xor(rk[R], d)));
            }
            i += 16 * l * W;
        }
        while i < len {
            let mut x = v.xor(ctr, rk[0]);
            ctr = v.add32(ctr, step);
            for key in &rk[1..R] {
                x = v.aesenc(x, *key);
            }
            x = v.aesenclast(x, rk[R]);
            if len - i >= 16 * l {
                v.store(dst.add(i), v.xor(x, v.load(src.add(i))));
                i += 16 * l;
            } else {
                let mut tail = [0u8; 64];
                v.store(tail.as_mut_ptr(), x);
                for (t, ks) in tail.iter().enumerate().take(len - i) {
                    *dst.add(i + t) = *src.add(i + t) ^ ks;
                }
                core::ptr::write_volatile(&mut tail, [0u8; 64]);
                i = len;
            }
        }
    }
    // The round keys (derived per message), broadcast to the register
    // width.
    wipe(rk[..=R].iter_mut(), v.zero());
}
