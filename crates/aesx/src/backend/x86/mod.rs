//! x86-64 backends: AES-NI (128-bit lanes), VAES on ymm with AVX2, VAES on
//! zmm with AVX-512.
//!
//! An [`X86Aes`] holds its [`Level`], and each level holds the CPU feature
//! token of its tier (`backend::kernels::cpu`), which only run-time detection can
//! make. Each dispatch below matches on the level and calls a
//! `#[target_feature]` kernel with the token of that tier in hand: that
//! token is the `SAFETY` argument of every such call. The key ([`key`]) has
//! fields private to this module and its kernel files, and it can only be
//! built from a token, so no code in the crate can make a key of a tier the
//! CPU lacks. The kernel files import the key from there, not from here:
//! this file sits above them, dispatching into them.

use super::kernels::family::Family;
use super::kernels::inout::InOut;
use super::kernels::polyval::PolyvalKernels;
use super::kernels::siv::{gcm_siv_open_generic, gcm_siv_seal_generic, SivKernels, SIV_NONCE_LEN};
use super::kernels::BlockKernels;
use crate::error::Result;
use crate::key::{Block, KeySize, RoundKeys};

mod aesni;
mod cbc_mac;
mod cbc_multi;
mod ctr_runs;
#[cfg(test)]
mod emu512;
mod gcm;
mod gcm_aesni;
#[cfg(test)]
mod gcm_tests;
mod gcm_vaes;
mod ghash_clmul;
mod key;
pub(crate) mod polyval;
pub(crate) mod siv;
mod vaes;
pub(crate) mod vector;
mod xts;
mod xts_aesni;
mod xts_vaes;

pub(crate) use self::key::{Level, X86Aes};

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
