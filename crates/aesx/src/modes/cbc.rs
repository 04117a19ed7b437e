//! CBC (SP 800-38A section 6.2), with optional PKCS#7 padding.

use super::block::{check_blocks, Aes};
use super::padding::{pad, unpad, Padding};
use crate::backend::{with_engine, Backend, BlockKernels, InOut};
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

    /// Encrypts whole blocks in place, continuing the chain in `iv`.
    pub fn encrypt_chained(&self, iv: &mut Block, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        with_engine!(&self.aes.engine, k => k.cbc_encrypt(iv, InOut::in_place(buf)));
        Ok(())
    }

    /// Decrypts whole blocks in place, continuing the chain in `iv`.
    pub fn decrypt_chained(&self, iv: &mut Block, buf: &mut [u8]) -> Result<()> {
        check_blocks(buf.len())?;
        with_engine!(&self.aes.engine, k => k.cbc_decrypt(iv, InOut::in_place(buf)));
        Ok(())
    }

    /// Encrypts whole blocks from `src` to `dst`, continuing the chain in `iv`.
    pub fn encrypt_chained_to(&self, iv: &mut Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        with_engine!(&self.aes.engine, k => k.cbc_encrypt(iv, io));
        Ok(())
    }

    /// Decrypts whole blocks from `src` to `dst`, continuing the chain in `iv`.
    pub fn decrypt_chained_to(&self, iv: &mut Block, src: &[u8], dst: &mut [u8]) -> Result<()> {
        let io = InOut::new(src, dst)?;
        check_blocks(io.len())?;
        with_engine!(&self.aes.engine, k => k.cbc_decrypt(iv, io));
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
        if padding == Padding::None && !src.len().is_multiple_of(BLOCK_LEN) {
            return Err(Error::NotBlockAligned { len: src.len() });
        }
        let total = padding.padded_len(src.len());
        if dst.len() < total {
            return Err(Error::OutputTooSmall {
                needed: total,
                got: dst.len(),
            });
        }
        let whole = src.len() - src.len() % BLOCK_LEN;
        self.encrypt_chained_to(&mut chain, &src[..whole], &mut dst[..whole])?;
        if padding == Padding::Pkcs7 {
            let mut last = [0u8; BLOCK_LEN];
            let rem = src.len() - whole;
            last[..rem].copy_from_slice(&src[whole..]);
            pad(&mut last, rem)?;
            self.encrypt_chained(&mut chain, &mut last)?;
            dst[whole..total].copy_from_slice(&last);
        }
        Ok(total)
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
        self.decrypt_chained_to(&mut chain, src, out)?;
        match padding {
            Padding::None => Ok(src.len()),
            Padding::Pkcs7 => unpad(out).inspect_err(|_| out.fill(0)),
        }
    }

    /// Encrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn encrypt_vec(
        &self,
        iv: &[u8],
        src: &[u8],
        padding: Padding,
    ) -> Result<alloc::vec::Vec<u8>> {
        let mut out = alloc::vec![0u8; padding.padded_len(src.len())];
        let n = self.encrypt(iv, src, &mut out, padding)?;
        out.truncate(n);
        Ok(out)
    }

    /// Decrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn decrypt_vec(
        &self,
        iv: &[u8],
        src: &[u8],
        padding: Padding,
    ) -> Result<alloc::vec::Vec<u8>> {
        let mut out = alloc::vec![0u8; src.len()];
        let n = self.decrypt(iv, src, &mut out, padding)?;
        out.truncate(n);
        Ok(out)
    }
}

impl From<Aes> for Cbc {
    fn from(aes: Aes) -> Self {
        Cbc { aes }
    }
}
