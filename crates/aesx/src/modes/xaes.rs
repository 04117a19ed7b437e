//! XAES-256-GCM (c2sp.org/XAES-256-GCM); the notes are on [`Xaes256Gcm`].

use core::fmt;

use zeroize::Zeroizing;

use super::block::Aes;
use super::cmac::subkey;
use super::gcm::Gcm;
use super::tag::{self, AeadIo, Tag};
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{check_key_len, Block, KeySize, BLOCK_LEN};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// Nonce length of XAES-256-GCM.
const NONCE_LEN: usize = 24;
/// Tag length.
const TAG_LEN: usize = 16;

/// XAES-256-GCM with one key: AES-256-GCM with 192-bit nonces, safe to draw
/// at random for practically unlimited messages under one key.
///
/// Each message derives a fresh AES-256 key from the first 12 bytes of the
/// nonce (SP 800-108 counter-mode KDF with CMAC; both derived blocks come
/// from one AES call), then runs AES-256-GCM with the last 12 bytes as the
/// nonce. The key is 32 bytes, the nonce 24, the tag 16. Limits and
/// failure behaviour are those of [`Gcm`](crate::Gcm): `open` compares in
/// constant time and zeroes its output on failure.
///
/// [`Gcm`]: crate::Gcm
///
/// ```
/// use aesx::Xaes256Gcm;
///
/// let xaes = Xaes256Gcm::new(&[7u8; 32]).unwrap();
/// let nonce = [1u8; 24]; // random is fine
/// let sealed = xaes.seal(&nonce, b"header", b"secret").unwrap();
/// assert_eq!(xaes.open(&nonce, b"header", &sealed).unwrap(), b"secret");
/// ```
#[derive(Clone)]
pub struct Xaes256Gcm {
    aes: Aes,
    /// The CMAC subkey K1 = dbl(AES(K, 0^128)).
    k1: Zeroizing<Block>,
}

impl fmt::Debug for Xaes256Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Xaes256Gcm")
            .field("backend", &self.backend())
            .finish_non_exhaustive()
    }
}

impl Xaes256Gcm {
    /// The nonce length in bytes.
    pub const NONCE_LEN: usize = NONCE_LEN;
    /// The tag length in bytes.
    pub const TAG_LEN: usize = TAG_LEN;

    /// XAES-256-GCM with a 32-byte `key` on the fastest backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// XAES-256-GCM with `key` on the named backend; an error if it is
    /// unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[KeySize::Aes256.bytes()])?;
        let aes = Aes::with_backend(key, backend)?;
        let k1 = Zeroizing::new(subkey(&aes));
        Ok(Xaes256Gcm { aes, k1 })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        <Self as AeadIo>::seal_in_place_detached(self, nonce, aad, buf)
    }

    /// Returns ciphertext followed by the 16-byte tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        check(nonce, aad.len(), pt.len())?;
        let mut out = alloc::vec![0u8; pt.len() + TAG_LEN];
        let (ct, tag) = out.split_at_mut(pt.len());
        tag.copy_from_slice(self.seal_io(nonce, aad, InOut::new(pt, ct)?)?.as_bytes());
        Ok(out)
    }

    /// Verifies `tag` and decrypts `buf` in place. On failure `buf` is zeroed
    /// and [`Error::AuthenticationFailed`] returned.
    pub fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        <Self as AeadIo>::open_in_place_detached(self, nonce, aad, buf, tag)
    }

    /// Opens ciphertext followed by the tag and returns the plaintext.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        let len = ct_and_tag.len().saturating_sub(TAG_LEN);
        check(nonce, aad.len(), len)?;
        if ct_and_tag.len() < TAG_LEN {
            return Err(Error::AuthenticationFailed);
        }
        let (ct, tag) = ct_and_tag.split_at(len);
        super::output_vec(len, |out| {
            let r = self.open_io(nonce, aad, InOut::new(ct, out)?, tag);
            tag::release(r, out).map(|()| len)
        })
    }

    /// One message: its AES-256-GCM key Kx = AES(K, M1 ^ K1) || AES(K, M2 ^
    /// K1) with Mi = 00 0i 'X' 00 || N[..12], in one two-block call, then
    /// that key's GCM one-shot from `j0` with the GHASH powers a message of
    /// `aad` and `io` uses; returns the full tag.
    fn crypt(
        &self,
        n: &[u8; 12],
        encrypt: bool,
        j0: &Block,
        aad: &[u8],
        io: InOut<'_>,
    ) -> Result<Block> {
        let mut kx = [0u8; 2 * BLOCK_LEN];
        for (i, m) in kx.chunks_exact_mut(BLOCK_LEN).enumerate() {
            m[..4].copy_from_slice(&[0, i as u8 + 1, b'X', 0]);
            m[4..].copy_from_slice(n);
            for (x, k) in m.iter_mut().zip(self.k1.iter()) {
                *x ^= k;
            }
        }
        let engine = &self.aes.engine;
        engine.encrypt_blocks(InOut::in_place(&mut kx));
        let blocks = aad
            .len()
            .div_ceil(BLOCK_LEN)
            .saturating_add(io.len().div_ceil(BLOCK_LEN))
            .saturating_add(1);
        engine.gcm_with_message_key(&mut kx, blocks, encrypt, j0, aad, io)
    }
}

impl AeadIo for Xaes256Gcm {
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag> {
        let (n, j0) = check(nonce, aad.len(), io.len())?;
        Ok(Tag::full(self.crypt(n, true, &j0, aad, io)?))
    }

    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        let (n, j0) = check(nonce, aad.len(), io.len())?;
        if tag.len() != TAG_LEN {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        tag::check(&self.crypt(n, false, &j0, aad, io)?, tag)
    }

    fn tag_bytes(&self) -> usize {
        TAG_LEN
    }
}

/// Checks the nonce and the GCM limits; returns the KDF half of the nonce
/// and the GCM pre-counter block J0 = N[12..] || 0^31 || 1.
fn check(nonce: &[u8], aad: usize, data: usize) -> Result<(&[u8; 12], Block)> {
    if nonce.len() != NONCE_LEN {
        return Err(Error::InvalidIvLength {
            expected: NONCE_LEN,
            got: nonce.len(),
        });
    }
    if data as u64 > Gcm::MAX_PLAINTEXT_LEN {
        return Err(Error::MessageTooLong);
    }
    if aad as u64 > Gcm::MAX_AAD_LEN {
        return Err(Error::AadTooLong);
    }
    let (n, rest) = nonce.split_at(12);
    let mut j0 = [0u8; BLOCK_LEN];
    j0[..12].copy_from_slice(rest);
    j0[15] = 1;
    Ok((n.try_into().map_err(|_| Error::InvalidState)?, j0))
}
