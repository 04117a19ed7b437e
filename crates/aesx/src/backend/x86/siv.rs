//! The per-message parts of AES-GCM-SIV and XAES-256-GCM on x86: a key
//! schedule from AESKEYGENASSIST (keys change with every nonce, so the
//! portable schedule would dominate short messages) and the GCM-SIV
//! counter mode, one source over [`Vector`] for the three tiers.
//!
//! The GCM-SIV counter block is the tag with its top bit set; its first
//! 32-bit word counts, little-endian, modulo 2^32. Kept as it is in the
//! register, the block needs no byte swap: PADDD on the first word of each
//! lane is the whole increment, and it wraps exactly as RFC 8452 says.

use core::arch::x86_64::*;

use zeroize::Zeroize;

use super::ghash_clmul::{X86HKey, POWERS};
use super::polyval::powers;
use super::vector::{vaes_entries, Vector};
use super::{Level, X86Aes};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::BlockKernels;
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, MAX_ROUNDS};

/// Expands a 16- or 32-byte key (the only sizes GCM-SIV and XAES derive)
/// on the tier of `like`; other lengths are an error.
pub(crate) fn expand_key(like: &X86Aes, key: &[u8]) -> Result<X86Aes> {
    let level = like.level;
    let size = KeySize::from_len(key.len())?;
    if size == KeySize::Aes192 {
        return Err(Error::InvalidKeyLength { len: key.len() });
    }
    // SAFETY: every level's token proves AES-NI and SSE4.1; `key` is 16 or
    // 32 bytes as `schedule` reads.
    Ok(unsafe { schedule(level.aesni(), key, size, level) })
}

/// One step of the AES-128 schedule (and the even steps of AES-256):
/// `k` XOR its 4- 8- and 12-byte shifts, XOR the broadcast word `t`.
#[inline(always)]
unsafe fn mix(k: __m128i, t: __m128i) -> __m128i {
    // SAFETY: SSE2 only, baseline on x86-64.
    unsafe {
        let k = _mm_xor_si128(k, _mm_slli_si128::<4>(k));
        let k = _mm_xor_si128(k, _mm_slli_si128::<8>(k));
        _mm_xor_si128(k, t)
    }
}

macro_rules! step128 {
    ($k:expr, $rcon:literal) => {
        mix(
            $k,
            _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>($k)),
        )
    };
}

/// Round keys 2i and 2i + 1 of AES-256 (i = 1..=6; key 14 is the caller's).
macro_rules! step256 {
    ($enc:ident, $i:literal, $rcon:literal) => {
        $enc[2 * $i] = mix(
            $enc[2 * $i - 2],
            _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>($enc[2 * $i - 1])),
        );
        $enc[2 * $i + 1] = mix(
            $enc[2 * $i - 1],
            _mm_shuffle_epi32::<0xaa>(_mm_aeskeygenassist_si128::<0>($enc[2 * $i])),
        );
    };
}

#[target_feature(enable = "aes,sse4.1")]
unsafe fn schedule(_: super::cpu::Aesni, key: &[u8], size: KeySize, level: Level) -> X86Aes {
    let mut enc = [_mm_setzero_si128(); MAX_ROUNDS + 1];
    // SAFETY: `key` holds 16 bytes (AES-128) or 32 (AES-256) as read
    // below; loadu has no alignment need. The rest is AES-NI/SSE, which
    // this function enables.
    unsafe {
        enc[0] = _mm_loadu_si128(key.as_ptr().cast());
        if size == KeySize::Aes128 {
            enc[1] = step128!(enc[0], 0x01);
            enc[2] = step128!(enc[1], 0x02);
            enc[3] = step128!(enc[2], 0x04);
            enc[4] = step128!(enc[3], 0x08);
            enc[5] = step128!(enc[4], 0x10);
            enc[6] = step128!(enc[5], 0x20);
            enc[7] = step128!(enc[6], 0x40);
            enc[8] = step128!(enc[7], 0x80);
            enc[9] = step128!(enc[8], 0x1b);
            enc[10] = step128!(enc[9], 0x36);
        } else {
            enc[1] = _mm_loadu_si128(key.as_ptr().add(16).cast());
            step256!(enc, 1, 0x01);
            step256!(enc, 2, 0x02);
            step256!(enc, 3, 0x04);
            step256!(enc, 4, 0x08);
            step256!(enc, 5, 0x10);
            step256!(enc, 6, 0x20);
            enc[14] = mix(
                enc[12],
                _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<0x40>(enc[13])),
            );
        }
    }
    // Derived keys only ever encrypt (GCM-SIV's CTR and tag, XAES's GCM),
    // so the 13 AESIMC and the 240-byte table of decryption keys are
    // skipped; `SivKernels::message_key` says so to its callers.
    X86Aes {
        enc,
        dec: [_mm_setzero_si128(); MAX_ROUNDS + 1],
        rounds: size.rounds(),
        level,
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

/// XORs the GCM-SIV keystream for `tag` into `io` (any length).
pub(crate) fn ctr32le(k: &X86Aes, tag: &Block, io: InOut<'_>) {
    // SAFETY: the matched level's token proves the features its kernel
    // enables.
    unsafe {
        match k.level {
            Level::Aesni(t) => {
                trace::hit(Kernel::AesniCtr32le);
                by_rounds!(k, ctr_aesni::<8>(t, &k.enc, tag, io))
            }
            Level::Vaes256(t) => {
                trace::hit(Kernel::Vaes256Ctr32le);
                by_rounds!(k, ctr_vaes256::<8>(t, &k.enc, tag, io))
            }
            Level::Vaes512(t) => {
                trace::hit(Kernel::Vaes512Ctr32le);
                by_rounds!(k, ctr_vaes512::<8>(t, &k.enc, tag, io))
            }
        }
    }
}

vaes_entries! {
    fn ctr_aesni / ctr_vaes256 / ctr_vaes512 <const R: usize, const W: usize>
        (keys: &[__m128i; MAX_ROUNDS + 1], tag: &Block, io: InOut<'_>) = ctr;
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
    let rk = v.broadcast_keys::<R>(keys);
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
}
