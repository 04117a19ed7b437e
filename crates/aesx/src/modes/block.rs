//! The block cipher itself: one key, one backend, whole blocks.

use crate::backend::{with_engine, Backend, BlockKernels, Engine, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, RoundKeys, BLOCK_LEN};

/// An AES key expanded for one backend. Round keys are zeroized on drop.
///
/// This is also the raw block mode: [`Aes::encrypt_blocks`] on many blocks is
/// ECB without padding.
#[derive(Clone)]
pub struct Aes {
    pub(crate) engine: Engine,
    backend: Backend,
    size: KeySize,
}

impl Aes {
    /// Expands `key` (16, 24 or 32 bytes) for the preferred backend
    /// ([`Backend::preferred`]).
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// Expands `key` for the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        let rk = RoundKeys::expand(key)?;
        let engine = Engine::new(backend, &rk)?;
        Ok(Aes {
            engine,
            backend,
            size: rk.size,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The key size.
    pub fn key_size(&self) -> KeySize {
        self.size
    }

    /// Encrypts one block in place.
    // Inline, so that the engine and round-count matches fold into the
    // caller's loop and one block costs one direct call (x86).
    #[inline]
    pub fn encrypt_block(&self, block: &mut Block) {
        match &self.engine {
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => crate::backend::x86::encrypt_block(k, block),
            engine => with_engine!(engine, k => k.encrypt_blocks(InOut::in_place(block))),
        }
    }

    /// Decrypts one block in place.
    #[inline]
    pub fn decrypt_block(&self, block: &mut Block) {
        match &self.engine {
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => crate::backend::x86::decrypt_block(k, block),
            engine => with_engine!(engine, k => k.decrypt_blocks(InOut::in_place(block))),
        }
    }

    /// Encrypts whole blocks in place; the length must be a multiple of 16.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        with_engine!(&self.engine, k => k.encrypt_blocks(InOut::in_place(buf)));
        Ok(())
    }

    /// Decrypts whole blocks in place; the length must be a multiple of 16.
    pub fn decrypt_blocks(&self, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        with_engine!(&self.engine, k => k.decrypt_blocks(InOut::in_place(buf)));
        Ok(())
    }

    /// Encrypts whole blocks from `src` into `dst` (equal lengths).
    pub fn encrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        with_engine!(&self.engine, k => k.encrypt_blocks(io));
        Ok(())
    }

    /// Decrypts whole blocks from `src` into `dst` (equal lengths).
    pub fn decrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        with_engine!(&self.engine, k => k.decrypt_blocks(io));
        Ok(())
    }
}

impl core::fmt::Debug for Aes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print key material.
        f.debug_struct("Aes")
            .field("backend", &self.backend)
            .field("key_size", &self.size)
            .finish_non_exhaustive()
    }
}

pub(crate) fn check_blocks(len: usize) -> Result<()> {
    if len.is_multiple_of(BLOCK_LEN) {
        Ok(())
    } else {
        Err(Error::NotBlockAligned { len })
    }
}
