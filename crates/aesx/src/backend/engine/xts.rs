//! The XTS shape of the engine: each family's data and tweak keys. Each
//! method is one match whose arms call the family's kernel.

use super::Engine;
use crate::backend::kernels::family::XtsPair;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::xts::{XtsKernels, XtsKeys};
use crate::backend::kernels::BlockKernels;
use crate::backend::list::Backend;
use crate::error::{Error, Result};
use crate::key::{Block, RoundKeys};

/// An XTS key on its backend.
pub(crate) type XtsEngine = Engine<XtsPair>;

impl XtsEngine {
    /// Expands the data key `k1` and the tweak key `k2` for `backend`.
    pub(crate) fn pair(backend: Backend, k1: &RoundKeys, k2: &RoundKeys) -> Result<Self> {
        let tier = backend.row().tier;
        let pair = match Engine::new(backend, k1)? {
            Engine::Soft(data) => XtsKeys::new(data, tier, k2).map(Engine::Soft),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(data) => XtsKeys::new(data, tier, k2).map(Engine::X86),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(data) => XtsKeys::new(data, tier, k2).map(Engine::Aarch64),
        };
        pair.ok_or(Error::BackendUnavailable(backend))
    }

    /// `T = E_K2(tweak)`, in place.
    #[inline]
    pub(crate) fn encrypt_tweak(&self, tweak: &mut Block) {
        match self {
            Engine::Soft(k) => k.tweak.encrypt_block(tweak),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.tweak.encrypt_block(tweak),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.tweak.encrypt_block(tweak),
        }
    }

    /// Whole blocks from the encrypted tweak `T`, which advances.
    #[inline]
    pub(crate) fn encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_encrypt(tweak, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_encrypt(tweak, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_encrypt(tweak, io),
        }
    }

    /// Whole blocks from the encrypted tweak `T`, which advances.
    #[inline]
    pub(crate) fn decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_decrypt(tweak, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_decrypt(tweak, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_decrypt(tweak, io),
        }
    }

    /// A data unit that is not whole blocks, ciphertext stealing included.
    #[inline]
    pub(crate) fn encrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_encrypt_stealing(tweak, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_encrypt_stealing(tweak, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_encrypt_stealing(tweak, io),
        }
    }

    /// A data unit that is not whole blocks, ciphertext stealing included.
    #[inline]
    pub(crate) fn decrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_decrypt_stealing(tweak, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_decrypt_stealing(tweak, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_decrypt_stealing(tweak, io),
        }
    }

    /// Consecutive data units of `sector_size` bytes, the first numbered
    /// `first`.
    #[inline]
    pub(crate) fn encrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_encrypt_sectors(&k.tweak, sector_size, first, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_encrypt_sectors(&k.tweak, sector_size, first, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_encrypt_sectors(&k.tweak, sector_size, first, io),
        }
    }

    /// Consecutive data units of `sector_size` bytes, the first numbered
    /// `first`.
    #[inline]
    pub(crate) fn decrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        match self {
            Engine::Soft(k) => k.data.xts_decrypt_sectors(&k.tweak, sector_size, first, io),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => k.data.xts_decrypt_sectors(&k.tweak, sector_size, first, io),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => k.data.xts_decrypt_sectors(&k.tweak, sector_size, first, io),
        }
    }
}
