//! ECB: each block on its own. Only for interoperability and as a building
//! block; it leaks equal plaintext blocks.

use super::block::Aes;
use super::padding::{pad, unpad, Padding};
use crate::backend::{with_engine, Backend, BlockKernels, InOut};
use crate::error::{Error, Result};
use crate::key::BLOCK_LEN;

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
        let total = padding.padded_len(src.len());
        if padding == Padding::None && !src.len().is_multiple_of(BLOCK_LEN) {
            return Err(Error::NotBlockAligned { len: src.len() });
        }
        if dst.len() < total {
            return Err(Error::OutputTooSmall {
                needed: total,
                got: dst.len(),
            });
        }
        let whole = src.len() - src.len() % BLOCK_LEN;
        let io = InOut::new(&src[..whole], &mut dst[..whole])?;
        with_engine!(&self.aes.engine, k => k.encrypt_blocks(io));
        if padding == Padding::Pkcs7 {
            let mut last = [0u8; BLOCK_LEN];
            let rem = src.len() - whole;
            last[..rem].copy_from_slice(&src[whole..]);
            pad(&mut last, rem)?;
            self.aes.encrypt_blocks(&mut last)?;
            dst[whole..total].copy_from_slice(&last);
        }
        Ok(total)
    }

    /// Decrypts `src` into `dst` (at least `src.len()` bytes); returns the
    /// plaintext length after removing padding.
    pub fn decrypt(&self, src: &[u8], dst: &mut [u8], padding: Padding) -> Result<usize> {
        if !src.len().is_multiple_of(BLOCK_LEN) {
            return Err(Error::NotBlockAligned { len: src.len() });
        }
        if dst.len() < src.len() {
            return Err(Error::OutputTooSmall {
                needed: src.len(),
                got: dst.len(),
            });
        }
        let out = &mut dst[..src.len()];
        self.aes.decrypt_blocks_to(src, out)?;
        match padding {
            Padding::None => Ok(src.len()),
            Padding::Pkcs7 => unpad(out).inspect_err(|_| out.fill(0)),
        }
    }

    /// Encrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn encrypt_vec(&self, src: &[u8], padding: Padding) -> Result<alloc::vec::Vec<u8>> {
        let mut out = alloc::vec![0u8; padding.padded_len(src.len())];
        let n = self.encrypt(src, &mut out, padding)?;
        out.truncate(n);
        Ok(out)
    }

    /// Decrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn decrypt_vec(&self, src: &[u8], padding: Padding) -> Result<alloc::vec::Vec<u8>> {
        let mut out = alloc::vec![0u8; src.len()];
        let n = self.decrypt(src, &mut out, padding)?;
        out.truncate(n);
        Ok(out)
    }
}

impl From<Aes> for Ecb {
    fn from(aes: Aes) -> Self {
        Ecb { aes }
    }
}
