//! CBC (SP 800-38A section 6.2), with optional PKCS#7 padding.

use super::block::{check_blocks, Aes};
use super::padding::{decrypt_padded, encrypt_padded, Padding};
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// AES in CBC mode.
///
/// The one-shot methods take the IV and a whole message. For streaming, the
/// `*_chained` methods take whole blocks and update the IV in place, so that
/// consecutive calls continue one chain.
#[derive(Clone, Debug)]
pub struct Cbc {
    aes: Aes,
}

fn iv_block(iv: &[u8]) -> Result<Block> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        expected: BLOCK_LEN,
        got: iv.len(),
    })
}

impl Cbc {
    /// CBC with `key` on the preferred backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Aes::new(key).map(Cbc::from)
    }

    /// CBC with `key` on the named backend.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        Aes::with_backend(key, backend).map(Cbc::from)
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }
}

impl From<Aes> for Cbc {
    fn from(aes: Aes) -> Self {
        Cbc { aes }
    }
}

impl Cbc {
    /// Encrypts whole blocks in place, continuing the chain in `iv`.
    pub fn encrypt_chained(&self, iv: &mut Block, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        self.aes.engine.cbc_encrypt(iv, InOut::in_place(buf));
        Ok(())
    }

    /// Decrypts whole blocks in place, continuing the chain in `iv`.
    pub fn decrypt_chained(&self, iv: &mut Block, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        self.aes.engine.cbc_decrypt(iv, InOut::in_place(buf));
        Ok(())
    }

    /// Encrypts whole blocks from `src` to `dst`, continuing the chain in `iv`.
    pub fn encrypt_chained_to(&self, iv: &mut Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        self.aes.engine.cbc_encrypt(iv, io);
        Ok(())
    }

    /// Decrypts whole blocks from `src` to `dst`, continuing the chain in `iv`.
    pub fn decrypt_chained_to(&self, iv: &mut Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        self.aes.engine.cbc_decrypt(iv, io);
        Ok(())
    }

    /// Encrypts a message in place without padding (whole blocks).
    pub fn encrypt_in_place(&self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let mut iv = iv_block(iv)?;
        self.encrypt_chained(&mut iv, buf)
    }

    /// Decrypts a message in place without padding (whole blocks).
    pub fn decrypt_in_place(&self, iv: &[u8], buf: &mut [u8]) -> Result<()> {
        let mut iv = iv_block(iv)?;
        self.decrypt_chained(&mut iv, buf)
    }

    /// Encrypts `src` into `dst`; returns the ciphertext length
    /// (`padding.padded_len(src.len())`, which `dst` must hold).
    pub fn encrypt(
        &self,
        iv: &[u8],
        src: &[u8],
        dst: &mut [u8],
        padding: Padding,
    ) -> Result<usize> {
        let mut chain = iv_block(iv)?;
        encrypt_padded(src, dst, padding, |src, dst| {
            self.encrypt_chained_to(&mut chain, src, dst)
        })
    }

    /// Decrypts `src` into `dst` (at least `src.len()` bytes); returns the
    /// plaintext length after removing padding. On bad padding the output is
    /// zeroed.
    pub fn decrypt(
        &self,
        iv: &[u8],
        src: &[u8],
        dst: &mut [u8],
        padding: Padding,
    ) -> Result<usize> {
        let mut chain = iv_block(iv)?;
        decrypt_padded(src, dst, padding, |src, dst| {
            self.decrypt_chained_to(&mut chain, src, dst)
        })
    }

    /// Encrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn encrypt_vec(
        &self,
        iv: &[u8],
        src: &[u8],
        padding: Padding,
    ) -> Result<alloc::vec::Vec<u8>> {
        super::output_vec(padding.padded_len(src.len()), |out| {
            self.encrypt(iv, src, out, padding)
        })
    }

    /// Decrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn decrypt_vec(
        &self,
        iv: &[u8],
        src: &[u8],
        padding: Padding,
    ) -> Result<alloc::vec::Vec<u8>> {
        super::output_vec(src.len(), |out| self.decrypt(iv, src, out, padding))
    }
}
