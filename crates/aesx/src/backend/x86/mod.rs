//! x86-64 backends: AES-NI (128-bit lanes), VAES on ymm with AVX2, VAES on
//! zmm with AVX-512.
//!
//! An [`X86Aes`] holds its [`Level`], and each level holds the CPU feature
//! token of its tier (`backend::kernels::cpu`), which only run-time detection can
//! make. Each dispatch below matches on the level and calls a
//! `#[target_feature]` kernel with the token of that tier in hand: that
//! token is the `SAFETY` argument of every such call. The key's fields are
//! private to this module and its kernel files, and it can only be built
//! from a token, so no code in the crate can make a key of a tier the CPU
//! lacks.

use core::arch::x86_64::*;

use super::kernels::cpu;
use super::kernels::family::Family;
use super::kernels::inout::InOut;
use super::kernels::polyval::PolyvalKernels;
use super::kernels::siv::{gcm_siv_open_generic, gcm_siv_seal_generic, SivKernels, SIV_NONCE_LEN};
use super::kernels::vector_keys::inverse_keys;
use super::kernels::wipe;
use super::kernels::BlockKernels;
use crate::error::Result;
use crate::key::{Block, KeySize, RoundKeys, MAX_ROUNDS};

mod aesni;
mod cbc_mac;
mod cbc_multi;
#[cfg(test)]
mod emu512;
mod gcm;
mod gcm_aesni;
#[cfg(test)]
mod gcm_tests;
mod gcm_vaes;
mod ghash_clmul;
pub(crate) mod polyval;
pub(crate) mod siv;
mod vaes;
pub(crate) mod vector;
mod xts;
mod xts_aesni;
mod xts_vaes;

/// Which x86 instruction tier a key runs on, with the token that proves
/// the CPU has it (tokens are zero-sized: this is one byte).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// AES-NI + SSE4.1 + PCLMULQDQ.
    Aesni(cpu::Aesni),
    /// VAES + VPCLMULQDQ + AVX2.
    Vaes256(cpu::Vaes256),
    /// VAES + VPCLMULQDQ + AVX-512 F/BW/VL.
    Vaes512(cpu::Vaes512),
}

impl Level {
    /// AES-NI and SSE4.1, which every level includes.
    pub(crate) fn aesni(self) -> cpu::Aesni {
        match self {
            Level::Aesni(t) => t,
            Level::Vaes256(t) => t.aesni(),
            Level::Vaes512(t) => t.aesni(),
        }
    }

    /// The level of the family's tier `tier` (0 AES-NI, 1 VAES-256, 2
    /// VAES-512), if the CPU has it.
    pub(crate) fn detect(tier: u8) -> Option<Level> {
        let f = cpu::features();
        match tier {
            0 => f.aesni.map(Level::Aesni),
            1 => f.vaes256.map(Level::Vaes256),
            2 => f.vaes512.map(Level::Vaes512),
            _ => None,
        }
    }
}

impl SivKernels for X86Aes {
    type Polyval = polyval::X86PolyvalKey;

    fn message_key(&self, key: &[u8]) -> Result<Self> {
        siv::expand_key(self, key)
    }

    fn polyval_key(&self, h: &Block, blocks: usize) -> polyval::X86PolyvalKey {
        polyval::X86PolyvalKey::new(self.level, h, blocks)
    }

    fn message_ghash_key(&self, blocks: usize) -> Self::HKey {
        siv::ghash_key(self, blocks)
    }

    fn ctr32le(&self, ctr: &Block, io: InOut<'_>) {
        siv::ctr32le(self, ctr, io)
    }

    fn gcm_siv_seal(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
    ) -> Result<Block> {
        if size == KeySize::Aes192 {
            // The fused one-shot is written for AES-128 and AES-256.
            return gcm_siv_seal_generic(self, size, nonce, aad, io);
        }
        siv::gcm_siv(self, size, nonce, aad, io, None)
    }

    fn gcm_siv_open(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
        tag: &Block,
    ) -> Result<Block> {
        if size == KeySize::Aes192 {
            return gcm_siv_open_generic(self, size, nonce, aad, io, tag);
        }
        siv::gcm_siv(self, size, nonce, aad, io, Some(tag))
    }
}

impl PolyvalKernels for polyval::X86PolyvalKey {
    fn update_blocks(&self, acc: &mut Block, data: &[u8]) {
        self.update(acc, data)
    }
}

impl Family for X86Aes {
    fn with_tier(tier: u8, rk: &RoundKeys) -> Option<Self> {
        Some(X86Aes::new(Level::detect(tier)?, rk))
    }

    fn runs(tier: u8) -> bool {
        Level::detect(tier).is_some()
    }
}

/// Round keys in `__m128i` registers for the x86 backends.
///
/// `enc[0..=rounds]` are the encryption round keys; `dec[0..=rounds]` the
/// keys of the equivalent inverse cipher (FIPS 197 section 5.3.5) in the
/// order AESDEC consumes them: `dec[0] = enc[rounds]`, `dec[i] =
/// InvMixColumns(enc[rounds - i])`, `dec[rounds] = enc[0]`.
///
/// The fields are private: outside this module and its kernel files a key
/// is made only by [`X86Aes::new`], from detection's token.
#[derive(Clone)]
pub(crate) struct X86Aes {
    enc: [__m128i; MAX_ROUNDS + 1],
    dec: [__m128i; MAX_ROUNDS + 1],
    /// The key size, which picks the round count `R` (10, 12, 14) of the
    /// kernels: each entry point matches on it once, exhaustively.
    size: KeySize,
    level: Level,
}

impl X86Aes {
    /// Builds the key for `level`, whose token proves the CPU has it.
    pub(crate) fn new(level: Level, rk: &RoundKeys) -> Self {
        let aesni = level.aesni();
        // SAFETY: `aesni`, the token every level holds, proves AES-NI and
        // SSE4.1, which `expand` enables.
        unsafe { Self::expand(aesni, rk, level) }
    }

    #[target_feature(enable = "aes,sse4.1")]
    unsafe fn expand(_: cpu::Aesni, rk: &RoundKeys, level: Level) -> Self {
        let mut enc = [_mm_setzero_si128(); MAX_ROUNDS + 1];
        for (e, k) in enc.iter_mut().zip(rk.rk.iter()).take(rk.rounds() + 1) {
            // SAFETY: `k` is 16 readable bytes; loadu has no alignment need.
            *e = unsafe { _mm_loadu_si128(k.as_ptr().cast()) };
        }
        Self::from_enc(enc, rk.size, level)
    }

    /// The key from its encryption round keys (the decryption keys follow).
    #[target_feature(enable = "aes,sse4.1")]
    fn from_enc(enc: [__m128i; MAX_ROUNDS + 1], size: KeySize, level: Level) -> Self {
        let dec = inverse_keys(&enc, size.rounds(), |k| _mm_aesimc_si128(k));
        X86Aes {
            enc,
            dec,
            size,
            level,
        }
    }

    /// The number of rounds (10, 12 or 14).
    fn rounds(&self) -> usize {
        self.size.rounds()
    }
}

impl Drop for X86Aes {
    fn drop(&mut self) {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let zero = unsafe { _mm_setzero_si128() };
        wipe(self.enc.iter_mut().chain(self.dec.iter_mut()), zero);
    }
}

/// Splits a CTR call at the points where the low 64 bits of the counter
/// wrap, so that kernels can count in 64-bit lanes: `seg(c, io)` gets a run
/// of blocks starting at counter `c` whose low half never wraps inside it.
/// `ctr` advances by the number of blocks, modulo 2^128.
#[inline]
fn ctr_segments(ctr: &mut Block, io: InOut<'_>, mut seg: impl FnMut(u128, InOut<'_>)) {
    let mut c = u128::from_be_bytes(*ctr);
    let mut rest = io;
    while rest.blocks() > 0 {
        let m = ctr_run(c, rest.blocks());
        let (now, later) = rest.split_at(m * 16);
        seg(c, now);
        c = c.wrapping_add(m as u128);
        rest = later;
    }
    *ctr = c.to_be_bytes();
}

/// How many of `blocks` blocks from counter `c` run before the low 64 bits
/// of the counter wrap (at least one).
#[inline(always)]
fn ctr_run(c: u128, blocks: usize) -> usize {
    // Blocks left before the low half wraps: 2^64 - low (never zero).
    let room = (u64::MAX - c as u64) as u128 + 1;
    (blocks as u128).min(room) as usize
}

impl BlockKernels for X86Aes {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        match self.level {
            // SAFETY: the AES-NI token proves AES-NI and SSE4.1.
            Level::Aesni(_) => unsafe { aesni::encrypt_blocks(self, io) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { vaes::encrypt_blocks_256(t, self, io) },
            // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { vaes::encrypt_blocks_512(t, self, io) },
        }
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        match self.level {
            // SAFETY: the AES-NI token proves AES-NI and SSE4.1.
            Level::Aesni(_) => unsafe { aesni::decrypt_blocks(self, io) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { vaes::decrypt_blocks_256(t, self, io) },
            // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { vaes::decrypt_blocks_512(t, self, io) },
        }
    }

    // One block is one AES-NI call at every level: no tier dispatch.
    #[inline]
    fn encrypt_block(&self, block: &mut Block) {
        aesni::encrypt_block(self, block)
    }

    #[inline]
    fn decrypt_block(&self, block: &mut Block) {
        aesni::decrypt_block(self, block)
    }

    fn cbc_encrypt(&self, iv: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: the AES-NI token proves AES-NI and SSE4.1.
            Level::Aesni(_) => unsafe { aesni::cbc_encrypt(self, iv, io) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { vaes::cbc_encrypt_256(t, self, iv, io) },
            // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { vaes::cbc_encrypt_512(t, self, iv, io) },
        }
    }

    fn cbc_decrypt(&self, iv: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: the AES-NI token proves AES-NI and SSE4.1.
            Level::Aesni(_) => unsafe { aesni::cbc_decrypt(self, iv, io) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { vaes::cbc_decrypt_256(t, self, iv, io) },
            // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { vaes::cbc_decrypt_512(t, self, iv, io) },
        }
    }

    fn ctr_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: the AES-NI token proves AES-NI and SSE4.1.
            Level::Aesni(_) => unsafe { aesni::ctr_apply(self, ctr, io) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { vaes::ctr_apply_256(t, self, ctr, io) },
            // SAFETY: the VAES-512 token proves VAES and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { vaes::ctr_apply_512(t, self, ctr, io) },
        }
    }
}
