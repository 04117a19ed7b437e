//! The block-cipher shape of the engine: the family's key itself, for ECB,
//! CBC, CTR, the MACs, key wrap and GCM-SIV. Each method is one match whose
//! arms call the family's kernel.

use super::{Engine, GcmEngine};
use crate::backend::kernels::gcm::GcmKey;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::mac::MacKernels;
use crate::backend::kernels::siv::{SivKernels, SIV_NONCE_LEN};
use crate::backend::kernels::{wipe, BlockKernels};
use crate::error::Result;
use crate::key::{Block, KeySize};

impl Engine {
    /// Encrypts one block in place.
    #[inline]
    pub(crate) fn encrypt_block(&self, block: &mut Block) {
        match self {
            Engine::Soft(k) => k.encrypt_block(block),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.encrypt_block(block),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.encrypt_block(block),
        }
    }

    /// Decrypts one block in place.
    #[inline]
    pub(crate) fn decrypt_block(&self, block: &mut Block) {
        match self {
            Engine::Soft(k) => k.decrypt_block(block),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.decrypt_block(block),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.decrypt_block(block),
        }
    }

    /// ECB encryption of whole blocks.
    #[inline]
    pub(crate) fn encrypt_blocks(&self, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.encrypt_blocks(io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.encrypt_blocks(io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.encrypt_blocks(io),
        }
    }

    /// ECB decryption of whole blocks.
    #[inline]
    pub(crate) fn decrypt_blocks(&self, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.decrypt_blocks(io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.decrypt_blocks(io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.decrypt_blocks(io),
        }
    }

    /// CBC encryption of whole blocks, continuing the chain in `iv`.
    #[inline]
    pub(crate) fn cbc_encrypt(&self, iv: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.cbc_encrypt(iv, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.cbc_encrypt(iv, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.cbc_encrypt(iv, io),
        }
    }

    /// CBC decryption of whole blocks, continuing the chain in `iv`.
    #[inline]
    pub(crate) fn cbc_decrypt(&self, iv: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.cbc_decrypt(iv, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.cbc_decrypt(iv, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.cbc_decrypt(iv, io),
        }
    }

    /// CTR over whole blocks from the 128-bit counter block `ctr`, which advances.
    #[inline]
    pub(crate) fn ctr_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.ctr_apply(ctr, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.ctr_apply(ctr, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.ctr_apply(ctr, io),
        }
    }

    /// CBC-MAC of whole blocks of `data` into `state`.
    #[inline]
    pub(crate) fn cbc_mac(&self, state: &mut Block, data: &[u8]) {
        match self {
            Engine::Soft(k) => k.cbc_mac(state, data),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.cbc_mac(state, data),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.cbc_mac(state, data),
        }
    }

    /// CCM encryption of whole blocks: MAC of the plaintext into `mac`, CTR from `ctr`.
    #[inline]
    pub(crate) fn ccm_encrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.ccm_encrypt(mac, ctr, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.ccm_encrypt(mac, ctr, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.ccm_encrypt(mac, ctr, io),
        }
    }

    /// CCM decryption of whole blocks: CTR from `ctr`, MAC of the plaintext into `mac`.
    #[inline]
    pub(crate) fn ccm_decrypt(&self, mac: &mut Block, ctr: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.ccm_decrypt(mac, ctr, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.ccm_decrypt(mac, ctr, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.ccm_decrypt(mac, ctr, io),
        }
    }

    /// Key wrap's W over the semiblocks `r` with the integrity register `a`.
    #[inline]
    pub(crate) fn kw_wrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        match self {
            Engine::Soft(k) => k.kw_wrap(a, r),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.kw_wrap(a, r),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.kw_wrap(a, r),
        }
    }

    /// Key wrap's W^-1 over the semiblocks `r` with the integrity register `a`.
    #[inline]
    pub(crate) fn kw_unwrap(&self, a: &mut [u8; 8], r: &mut [u8]) {
        match self {
            Engine::Soft(k) => k.kw_unwrap(a, r),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.kw_unwrap(a, r),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.kw_unwrap(a, r),
        }
    }

    /// Seals one GCM-SIV message under this key-generating key; returns the tag.
    #[inline]
    pub(crate) fn gcm_siv_seal(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
    ) -> Result<Block> {
        match self {
            Engine::Soft(k) => k.gcm_siv_seal(size, nonce, aad, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.gcm_siv_seal(size, nonce, aad, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.gcm_siv_seal(size, nonce, aad, io),
        }
    }

    /// Opens one GCM-SIV message with the received `tag` as the counter; returns the tag of the plaintext written (the caller compares).
    #[inline]
    pub(crate) fn gcm_siv_open(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
        tag: &Block,
    ) -> Result<Block> {
        match self {
            Engine::Soft(k) => k.gcm_siv_open(size, nonce, aad, io, tag),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.gcm_siv_open(size, nonce, aad, io, tag),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.gcm_siv_open(size, nonce, aad, io, tag),
        }
    }

    /// One XAES-256-GCM message: the message key from the two derived
    /// blocks `kx` (wiped here), its GHASH key for `blocks` blocks in all,
    /// then the one-shot GCM kernel from `j0`; returns the full tag.
    pub(crate) fn gcm_with_message_key(
        &self,
        kx: &mut [u8; 32],
        blocks: usize,
        encrypt: bool,
        j0: &Block,
        aad: &[u8],
        io: InOut<'_>,
    ) -> Result<Block> {
        match self {
            Engine::Soft(k) => message_gcm(k, kx, blocks, encrypt, j0, aad, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => message_gcm(k, kx, blocks, encrypt, j0, aad, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => message_gcm(k, kx, blocks, encrypt, j0, aad, io),
        }
    }

    /// Derives H (and its powers) for this AES key.
    pub(crate) fn with_ghash(self) -> GcmEngine {
        match self {
            Engine::Soft(k) => Engine::Soft(GcmKey::new(k)),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => Engine::X86(GcmKey::new(k)),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => Engine::Aarch64(GcmKey::new(k)),
        }
    }
}

/// [`Engine::gcm_with_message_key`] on one family's key type: the derived
/// key is that type too, so it never passes through the `Engine` enum.
#[inline(always)]
fn message_gcm<K: SivKernels>(
    k: &K,
    kx: &mut [u8; 32],
    blocks: usize,
    encrypt: bool,
    j0: &Block,
    aad: &[u8],
    io: InOut<'_>,
) -> Result<Block> {
    let aes = k.message_key(kx);
    wipe([kx], [0; 32]);
    let aes = aes?;
    let h = aes.message_ghash_key(blocks);
    Ok(aes.gcm_oneshot(&h, encrypt, j0, aad, io))
}
