//! ECB: each block on its own. Only for interoperability and as a building
//! block; it leaks equal plaintext blocks.

use super::block::Aes;
use super::padding::{decrypt_padded, encrypt_padded, Padding};
use crate::backend::{Backend, InOut};
use crate::error::Result;

/// AES in ECB mode, with optional PKCS#7 padding.
#[derive(Clone, Debug)]
pub struct Ecb {
    aes: Aes,
}

impl Ecb {
    /// ECB with `key` on the preferred backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Aes::new(key).map(Ecb::from)
    }

    /// ECB with `key` on the named backend.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        Aes::with_backend(key, backend).map(Ecb::from)
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }
}

impl From<Aes> for Ecb {
    fn from(aes: Aes) -> Self {
        Ecb { aes }
    }
}

impl Ecb {
    /// Encrypts whole blocks in place (no padding).
    pub fn encrypt_in_place(&self, buf: &mut [u8]) -> Result<()> {
        self.aes.encrypt_blocks(buf)
    }

    /// Decrypts whole blocks in place (no padding).
    pub fn decrypt_in_place(&self, buf: &mut [u8]) -> Result<()> {
        self.aes.decrypt_blocks(buf)
    }

    /// Encrypts `src` into `dst`; returns the ciphertext length
    /// (`padding.padded_len(src.len())`, which `dst` must hold).
    pub fn encrypt(&self, src: &[u8], dst: &mut [u8], padding: Padding) -> Result<usize> {
        encrypt_padded(src, dst, padding, |src, dst| {
            let io = InOut::new(src, dst)?;
            self.aes.engine.encrypt_blocks(io);
            Ok(())
        })
    }

    /// Decrypts `src` into `dst` (at least `src.len()` bytes); returns the
    /// plaintext length after removing padding.
    pub fn decrypt(&self, src: &[u8], dst: &mut [u8], padding: Padding) -> Result<usize> {
        decrypt_padded(src, dst, padding, |src, out| {
            self.aes.decrypt_blocks_to(src, out)
        })
    }

    /// Encrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn encrypt_vec(&self, src: &[u8], padding: Padding) -> Result<alloc::vec::Vec<u8>> {
        super::output_vec(padding.padded_len(src.len()), |out| {
            self.encrypt(src, out, padding)
        })
    }

    /// Decrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn decrypt_vec(&self, src: &[u8], padding: Padding) -> Result<alloc::vec::Vec<u8>> {
        super::output_vec(src.len(), |out| self.decrypt(src, out, padding))
    }
}
