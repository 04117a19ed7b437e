//! AES-GCM (SP 800-38D); the full notes are on [`Gcm`].

use core::fmt;

use super::block::{debug_keyed, Aes};
use super::tag::{self, AeadIo, Tag};
use crate::backend::engine::GcmEngine;
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, BLOCK_LEN};
use zeroize::Zeroize;

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// The full tag length (and the default).
pub(crate) const TAG_LEN: usize = 16;

/// The longest plaintext GCM allows: 2^36 - 32 bytes (2^39 - 256 bits).
pub(crate) const MAX_PLAINTEXT_LEN: u64 = (1 << 36) - 32;

/// The longest AAD GCM allows: 2^61 - 1 bytes (less than 2^64 bits).
pub(crate) const MAX_AAD_LEN: u64 = (1 << 61) - 1;

/// Tag lengths SP 800-38D permits (4 and 8 only for special applications).
pub(crate) const ALLOWED_TAG_LENS: [usize; 7] = [16, 15, 14, 13, 12, 8, 4];

/// AES-GCM with one key: seal and open many messages.
///
/// AES-GCM (NIST SP 800-38D): authenticated encryption with associated data.
///
/// [`Gcm`] holds the expanded AES key and the GHASH key H = E_K(0^128) with its
/// precomputed powers (both zeroized on drop). One-shot `seal`/`open` calls
/// work in place or out of place, with the tag appended or detached; `open`
/// compares tags in constant time and, when they differ, zeroes the output
/// before returning [`Error::AuthenticationFailed`], so no unauthenticated
/// plaintext ever leaves it.
///
/// Incremental encryption ([`GcmEncryptor`](crate::GcmEncryptor)) takes AAD, then data in pieces of
/// any size, then yields the tag. Incremental decryption lives in [`hazmat`](crate::hazmat):
/// it has to hand out plaintext before it can check the tag.
///
/// Limits (SP 800-38D section 5.2.1.1) are enforced as errors: plaintext at
/// most 2^36 - 32 bytes, AAD at most 2^61 - 1 bytes, a non-empty IV, and tags
/// of 16, 15, 14, 13, 12, 8 or 4 bytes. A 12-byte IV is used directly
/// (J0 = IV || 0^31 || 1); any other length goes through GHASH. The counter
/// is incremented with inc32 (its last 32 bits wrap modulo 2^32), which is
/// what makes non-96-bit IVs interoperable.
///
/// ```
/// use aesx::Gcm;
///
/// let gcm = Gcm::new(&[7u8; 32]).unwrap();
/// let nonce = [1u8; 12];
/// let sealed = gcm.seal(&nonce, b"header", b"secret message").unwrap();
/// assert_eq!(sealed.len(), 14 + 16);
/// let opened = gcm.open(&nonce, b"header", &sealed).unwrap();
/// assert_eq!(opened, b"secret message");
///
/// // Any change is caught, and nothing is released.
/// let mut forged = sealed.clone();
/// forged[0] ^= 1;
/// assert!(gcm.open(&nonce, b"header", &forged).is_err());
/// ```
#[derive(Clone)]
pub struct Gcm {
    pub(super) engine: GcmEngine,
    backend: Backend,
    size: KeySize,
    pub(super) tag_len: usize,
    /// Threads one large call may use (1: the calling thread alone).
    threads: u8,
}

impl fmt::Debug for Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_keyed(f, "Gcm", self.backend, self.size)
            .field("tag_len", &self.tag_len)
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

impl Gcm {
    /// The longest (and default) tag, in bytes.
    pub const TAG_LEN: usize = TAG_LEN;
    /// The tag lengths SP 800-38D allows, longest first.
    pub const TAG_LENS: [usize; 7] = ALLOWED_TAG_LENS;
    /// The longest plaintext one message may have: 2^36 - 32 bytes.
    pub const MAX_PLAINTEXT_LEN: u64 = MAX_PLAINTEXT_LEN;
    /// The longest associated data one message may have: 2^61 - 1 bytes.
    pub const MAX_AAD_LEN: u64 = MAX_AAD_LEN;

    /// AES-GCM with `key` (16, 24 or 32 bytes) on the preferred backend
    /// ([`Backend::preferred`]), 16-byte tags.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// AES-GCM with `key` on the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        let aes = Aes::with_backend(key, backend)?;
        Ok(Gcm {
            backend,
            size: aes.key_size(),
            engine: aes.engine.with_ghash(),
            tag_len: TAG_LEN,
            threads: 1,
        })
    }

    /// The same key with tags of `tag_len` bytes (16, 15, 14, 13, 12, 8 or 4)
    /// for sealing and opening.
    pub fn with_tag_len(mut self, tag_len: usize) -> Result<Self> {
        check_tag_len(tag_len)?;
        self.tag_len = tag_len;
        Ok(self)
    }

    /// The same key with every seal and open of a message of at least
    /// [`MIN_SEGMENT`](crate::parallel::MIN_SEGMENT) bytes per extra thread
    /// split over up to `threads` threads (the calling thread and scoped
    /// ones); shorter messages run on the calling thread alone. Output and
    /// tag are the bytes one thread gives, and `open` still releases no
    /// plaintext before the tag over the whole message has been checked.
    /// 0 and 1 mean one thread; more than
    /// [`MAX_THREADS`](crate::parallel::MAX_THREADS) are held to it. See
    /// [`parallel`](crate::parallel).
    ///
    /// ```
    /// use aesx::Gcm;
    ///
    /// let one = Gcm::new(&[7u8; 16]).unwrap();
    /// let two = one.clone().with_threads(2);
    /// let msg = vec![0x5a; 1 << 20];
    /// assert_eq!(two.seal(&[1; 12], b"", &msg).unwrap(), one.seal(&[1; 12], b"", &msg).unwrap());
    /// ```
    #[cfg(feature = "std")]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = super::parallel::clamp_threads(threads);
        self
    }

    /// Threads one large call may use (see [`Gcm::with_threads`]).
    pub fn threads(&self) -> usize {
        usize::from(self.threads)
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The AES key size.
    pub fn key_size(&self) -> KeySize {
        self.size
    }

    /// The tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        <Self as AeadIo>::seal_in_place_detached(self, nonce, aad, buf)
    }

    /// Encrypts `pt` into `ct` (equal lengths) and returns the tag.
    pub fn seal_to_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        pt: &[u8],
        ct: &mut [u8],
    ) -> Result<Tag> {
        <Self as AeadIo>::seal_to_detached(self, nonce, aad, pt, ct)
    }

    /// Encrypts `pt` into `out` as ciphertext followed by the tag; `out` must
    /// hold at least `pt.len() + tag_len()` bytes. Returns the bytes written.
    pub fn seal_to(&self, nonce: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize> {
        let total = pt
            .len()
            .checked_add(self.tag_len)
            .ok_or(Error::MessageTooLong)?;
        if out.len() < total {
            return Err(Error::OutputTooSmall {
                needed: total,
                got: out.len(),
            });
        }
        let (ct, rest) = out.split_at_mut(pt.len());
        let tag = self.seal_io(nonce, aad, InOut::new(pt, ct)?)?;
        rest[..self.tag_len].copy_from_slice(tag.as_bytes());
        Ok(total)
    }

    /// Encrypts the vector in place and appends the tag.
    #[cfg(feature = "std")]
    pub fn seal_in_place_append_tag(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let tag = self.seal_in_place_detached(nonce, aad, buf)?;
        buf.extend_from_slice(tag.as_bytes());
        Ok(())
    }

    /// Returns ciphertext followed by the tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        self.check_lengths(aad.len(), pt.len())?;
        let mut out = alloc::vec![0u8; pt.len() + self.tag_len];
        self.seal_to(nonce, aad, pt, &mut out)?;
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

    /// Verifies `tag` and decrypts `ct` into `pt` (equal lengths). On failure
    /// `pt` is zeroed and [`Error::AuthenticationFailed`] returned.
    pub fn open_to_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        pt: &mut [u8],
    ) -> Result<()> {
        <Self as AeadIo>::open_to_detached(self, nonce, aad, ct, tag, pt)
    }

    /// Opens ciphertext-followed-by-tag in place and returns the plaintext,
    /// a prefix of `buf`. On failure all of `buf` is zeroed.
    pub fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8]> {
        if buf.len() < self.tag_len {
            return tag::release(Err(Error::AuthenticationFailed), buf);
        }
        let ct_len = buf.len() - self.tag_len;
        let mut tag = [0u8; TAG_LEN];
        tag[..self.tag_len].copy_from_slice(&buf[ct_len..]);
        let r = self.open_io(
            nonce,
            aad,
            InOut::in_place(&mut buf[..ct_len]),
            &tag[..self.tag_len],
        );
        tag::release(r, buf)?;
        Ok(&mut buf[..ct_len])
    }

    /// Opens ciphertext-followed-by-tag into `out`, which must hold at least
    /// `ct_and_tag.len() - tag_len()` bytes; returns the plaintext length.
    /// On failure `out` is zeroed.
    pub fn open_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct_and_tag: &[u8],
        out: &mut [u8],
    ) -> Result<usize> {
        if ct_and_tag.len() < self.tag_len {
            return tag::release(Err(Error::AuthenticationFailed), out);
        }
        let ct_len = ct_and_tag.len() - self.tag_len;
        if out.len() < ct_len {
            return Err(Error::OutputTooSmall {
                needed: ct_len,
                got: out.len(),
            });
        }
        let (ct, tag) = ct_and_tag.split_at(ct_len);
        let r = self.open_io(nonce, aad, InOut::new(ct, &mut out[..ct_len])?, tag);
        tag::release(r, out)?;
        Ok(ct_len)
    }

    /// Opens ciphertext-followed-by-tag and returns the plaintext.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        if ct_and_tag.len() < self.tag_len {
            return Err(Error::AuthenticationFailed);
        }
        let mut out = alloc::vec![0u8; ct_and_tag.len() - self.tag_len];
        self.open_to(nonce, aad, ct_and_tag, &mut out)?;
        Ok(out)
    }

    fn check_tag(&self, tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        Ok(())
    }

    fn check_lengths(&self, aad: usize, data: usize) -> Result<()> {
        if data as u64 > MAX_PLAINTEXT_LEN {
            return Err(Error::MessageTooLong);
        }
        if aad as u64 > MAX_AAD_LEN {
            return Err(Error::AadTooLong);
        }
        Ok(())
    }

    /// The backend's sum of `data` as little-endian 64-bit words (ESP).
    pub(crate) fn word_sum(&self, data: &[u8]) -> u128 {
        self.engine.word_sum(data)
    }

    /// One message through the backend's fused one-shot kernel; returns the
    /// computed tag (for decryption, the caller compares it). Lengths must
    /// have been checked.
    pub(crate) fn oneshot(
        &self,
        nonce: &[u8],
        aad: &[u8],
        io: InOut<'_>,
        encrypt: bool,
    ) -> Result<Tag> {
        // J0 from any IV but a 12-byte one is a GHASH of it under H: wiped.
        let mut j0 = j0_of(self, nonce)?;
        let tag = self.oneshot_from_j0(&j0, aad, io, encrypt);
        j0.zeroize();
        Ok(tag)
    }

    /// [`Gcm::oneshot`] from the pre-counter block `j0`: split over the
    /// key's threads when the message is long enough, else the backend's
    /// fused kernel on this thread.
    fn oneshot_from_j0(&self, j0: &Block, aad: &[u8], io: InOut<'_>, encrypt: bool) -> Tag {
        #[cfg(feature = "std")]
        {
            let parts = super::parallel::segments(io.len(), BLOCK_LEN, self.threads());
            if parts > 1 {
                let (engine, tag_len) = (&self.engine, self.tag_len);
                return super::parallel::gcm(engine, tag_len, parts, j0, aad, io, encrypt);
            }
        }
        Tag::truncated(self.engine.gcm_oneshot(encrypt, j0, aad, io), self.tag_len)
    }
}

impl AeadIo for Gcm {
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag> {
        self.check_lengths(aad.len(), io.len())?;
        self.oneshot(nonce, aad, io, true)
    }

    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        self.check_tag(tag)?;
        self.check_lengths(aad.len(), io.len())?;
        tag::check(self.oneshot(nonce, aad, io, false)?.as_bytes(), tag)
    }

    fn tag_bytes(&self) -> usize {
        self.tag_len
    }
}

fn check_tag_len(tag_len: usize) -> Result<()> {
    if ALLOWED_TAG_LENS.contains(&tag_len) {
        Ok(())
    } else {
        Err(Error::InvalidTagLength { len: tag_len })
    }
}

/// The pre-counter block J0 (SP 800-38D section 7.1, step 2).
pub(super) fn j0_of(gcm: &Gcm, nonce: &[u8]) -> Result<Block> {
    if nonce.is_empty() {
        return Err(Error::EmptyNonce);
    }
    let mut j0 = [0u8; BLOCK_LEN];
    if nonce.len() == 12 {
        j0[..12].copy_from_slice(nonce);
        j0[15] = 1;
    } else {
        // J0 = GHASH(IV || 0^(s+64) || [len(IV)]_64).
        let bits = (nonce.len() as u64)
            .checked_mul(8)
            .ok_or(Error::InvalidIvLength {
                expected: 12,
                got: nonce.len(),
            })?;
        let whole = nonce.len() - nonce.len() % BLOCK_LEN;
        let mut last = [0u8; BLOCK_LEN];
        last[..nonce.len() - whole].copy_from_slice(&nonce[whole..]);
        let mut len_block = [0u8; BLOCK_LEN];
        len_block[8..].copy_from_slice(&bits.to_be_bytes());
        gcm.engine.ghash_update(&mut j0, &nonce[..whole]);
        if whole != nonce.len() {
            gcm.engine.ghash_update(&mut j0, &last);
        }
        gcm.engine.ghash_update(&mut j0, &len_block);
    }
    Ok(j0)
}

#[cfg(test)]
mod tests {
    use crate::backend::kernels::gcm::inc32;

    #[test]
    fn inc32_wraps_without_carry() {
        let mut c = [0xffu8; 16];
        inc32(&mut c, 1);
        assert_eq!(c[..12], [0xff; 12]);
        assert_eq!(c[12..], [0; 4]);
    }
}
