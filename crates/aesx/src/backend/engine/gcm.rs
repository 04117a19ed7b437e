//! The GCM shape of the engine: each family's key with its GHASH key.
//! Each method is one match whose arms call the family's kernel.

use super::Engine;
use crate::backend::kernels::family::WithGhash;
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::BlockKernels;
use crate::key::Block;

/// A GCM key on its backend.
pub(crate) type GcmEngine = Engine<WithGhash>;

impl GcmEngine {
    /// ECB encryption of whole blocks under the AES key (E_K(J0), a tail's
    /// keystream block, H).
    #[inline]
    pub(crate) fn encrypt_blocks(&self, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.aes.encrypt_blocks(io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.encrypt_blocks(io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.encrypt_blocks(io),
        }
    }

    /// `acc = (acc ^ X1)·H ...` over the whole blocks of `data`.
    #[inline]
    pub(crate) fn ghash_update(&self, acc: &mut Block, data: &[u8]) {
        match self {
            Engine::Soft(k) => k.aes.ghash_update(&k.h, acc, data),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.ghash_update(&k.h, acc, data),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.ghash_update(&k.h, acc, data),
        }
    }

    /// Encrypts whole blocks (CTR32 from `ctr`) and hashes the ciphertext
    /// into `acc`.
    #[inline]
    pub(crate) fn gcm_encrypt(&self, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.aes.gcm_encrypt(&k.h, ctr, acc, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.gcm_encrypt(&k.h, ctr, acc, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.gcm_encrypt(&k.h, ctr, acc, io),
        }
    }

    /// Hashes whole ciphertext blocks into `acc` and decrypts them (CTR32
    /// from `ctr`).
    #[inline]
    pub(crate) fn gcm_decrypt(&self, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.aes.gcm_decrypt(&k.h, ctr, acc, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.gcm_decrypt(&k.h, ctr, acc, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.gcm_decrypt(&k.h, ctr, acc, io),
        }
    }

    /// A whole message through the family's fused one-shot kernel; returns
    /// the full tag E_K(J0) ^ S. Lengths are the caller's to check.
    #[inline]
    pub(crate) fn gcm_oneshot(
        &self,
        encrypt: bool,
        j0: &Block,
        aad: &[u8],
        io: InOut<'_>,
    ) -> Block {
        match self {
            Engine::Soft(k) => k.aes.gcm_oneshot(&k.h, encrypt, j0, aad, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.gcm_oneshot(&k.h, encrypt, j0, aad, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.gcm_oneshot(&k.h, encrypt, j0, aad, io),
        }
    }

    /// The sum of `data` as little-endian 64-bit words (ESP's checksum).
    #[inline]
    pub(crate) fn word_sum(&self, data: &[u8]) -> u128 {
        match self {
            Engine::Soft(k) => k.aes.word_sum(data),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.aes.word_sum(data),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.aes.word_sum(data),
        }
    }
}
