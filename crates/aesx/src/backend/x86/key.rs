//! The x86 key: [`X86Aes`], its round keys in registers, and its [`Level`],
//! the instruction tier it runs on with the CPU feature token that proves
//! it. Every kernel file takes these; the dispatch in `mod.rs` matches on
//! the level.

use core::arch::x86_64::*;

use crate::backend::kernels::cpu;
use crate::backend::kernels::vector_keys::inverse_keys;
use crate::backend::kernels::wipe;
use crate::key::{KeySize, RoundKeys, MAX_ROUNDS};

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

/// Round keys in `__m128i` registers for the x86 backends.
///
/// `enc[0..=rounds]` are the encryption round keys; `dec[0..=rounds]` the
/// keys of the equivalent inverse cipher (FIPS 197 section 5.3.5) in the
/// order AESDEC consumes them: `dec[0] = enc[rounds]`, `dec[i] =
/// InvMixColumns(enc[rounds - i])`, `dec[rounds] = enc[0]`.
///
/// The fields are private to the x86 module and its kernel files: outside them a key
/// is made only by [`X86Aes::new`], from detection's token.
#[derive(Clone)]
pub(crate) struct X86Aes {
    pub(super) enc: [__m128i; MAX_ROUNDS + 1],
    pub(super) dec: [__m128i; MAX_ROUNDS + 1],
    /// The key size, which picks the round count `R` (10, 12, 14) of the
    /// kernels: each entry point matches on it once, exhaustively.
    pub(super) size: KeySize,
    pub(super) level: Level,
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
    pub(super) fn from_enc(enc: [__m128i; MAX_ROUNDS + 1], size: KeySize, level: Level) -> Self {
        let dec = inverse_keys(&enc, size.rounds(), |k| _mm_aesimc_si128(k));
        X86Aes {
            enc,
            dec,
            size,
            level,
        }
    }

    /// The number of rounds (10, 12 or 14).
    pub(super) fn rounds(&self) -> usize {
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
