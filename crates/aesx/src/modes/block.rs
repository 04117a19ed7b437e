//! The block cipher itself: one key, one backend, whole blocks.

use core::fmt;

use crate::backend::{Backend, Engine, InOut};
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
        self.engine.encrypt_block(block)
    }

    /// Decrypts one block in place.
    #[inline]
    pub fn decrypt_block(&self, block: &mut Block) {
        self.engine.decrypt_block(block)
    }

    /// Encrypts whole blocks in place; the length must be a multiple of 16.
    pub fn encrypt_blocks(&self, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        self.engine.encrypt_blocks(InOut::in_place(buf));
        Ok(())
    }

    /// Decrypts whole blocks in place; the length must be a multiple of 16.
    pub fn decrypt_blocks(&self, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        self.engine.decrypt_blocks(InOut::in_place(buf));
        Ok(())
    }

    /// Encrypts whole blocks from `src` into `dst` (equal lengths).
    pub fn encrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        self.engine.encrypt_blocks(io);
        Ok(())
    }

    /// Decrypts whole blocks from `src` into `dst` (equal lengths).
    pub fn decrypt_blocks_to(&self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        self.engine.decrypt_blocks(io);
        Ok(())
    }
}

impl fmt::Debug for Aes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_keyed(f, "Aes", self.backend, self.size).finish_non_exhaustive()
    }
}

/// The `Debug` of a keyed type, started: its name, backend and key size.
/// Never key material: the caller adds only public fields and finishes.
pub(crate) fn debug_keyed<'a, 'b>(
    f: &'a mut fmt::Formatter<'b>,
    name: &str,
    backend: Backend,
    size: KeySize,
) -> fmt::DebugStruct<'a, 'b> {
    let mut d = f.debug_struct(name);
    d.field("backend", &backend).field("key_size", &size);
    d
}

/// The `Debug` of a mode whose state beyond its key is secret (subkeys,
/// keystream, counter): the key's public side only.
pub(crate) fn debug_over_aes(f: &mut fmt::Formatter<'_>, name: &str, aes: &Aes) -> fmt::Result {
    f.debug_struct(name)
        .field("aes", aes)
        .finish_non_exhaustive()
}

pub(crate) fn check_blocks(len: usize) -> Result<()> {
    if len.is_multiple_of(BLOCK_LEN) {
        Ok(())
    } else {
        Err(Error::NotBlockAligned { len })
    }
}
