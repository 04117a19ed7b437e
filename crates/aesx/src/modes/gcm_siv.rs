//! AES-GCM-SIV (RFC 8452); the notes are on [`GcmSiv`].

use core::fmt;

use super::block::{debug_keyed, Aes};
use super::tag::{self, AeadIo, Tag};
use crate::backend::kernels::siv::SIV_NONCE_LEN as NONCE_LEN;
use crate::backend::kernels::wipe;
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{check_key_len, Block, KeySize, BLOCK_LEN};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// Tag length of AES-GCM-SIV.
const TAG_LEN: usize = 16;
/// RFC 8452's limit on plaintext and on associated data: 2^36 bytes.
const MAX_LEN: u64 = 1 << 36;

/// AES-GCM-SIV with one key (RFC 8452): nonce-misuse-resistant AEAD.
///
/// Each message derives its own POLYVAL key and AES key from the
/// key-generating key and the 12-byte nonce; the tag is the AES encryption
/// of POLYVAL over the associated data, the plaintext and their lengths,
/// and it doubles as the initial counter of the CTR pass. Repeating a nonce
/// reveals only whether two messages (with their associated data) were
/// equal.
///
/// Keys are 16 or 32 bytes (RFC 8452), or 24 bytes as OpenSSL and pyca
/// take them (the RFC's derivation with a 24-byte message-encryption key:
/// five derived blocks instead of four or six); nonces 12 bytes; tags 16
/// bytes. Plaintext and
/// associated data are each at most 2^36 bytes ([`Error::MessageTooLong`],
/// [`Error::AadTooLong`]). `open` compares tags in constant time and zeroes
/// its output before returning [`Error::AuthenticationFailed`].
///
/// ```
/// use aesx::GcmSiv;
///
/// let siv = GcmSiv::new(&[7u8; 16]).unwrap();
/// let nonce = [1u8; 12];
/// let sealed = siv.seal(&nonce, b"header", b"secret").unwrap();
/// assert_eq!(siv.open(&nonce, b"header", &sealed).unwrap(), b"secret");
/// let mut forged = sealed.clone();
/// forged[0] ^= 1;
/// assert!(siv.open(&nonce, b"header", &forged).is_err());
/// ```
#[derive(Clone)]
pub struct GcmSiv {
    pub(super) aes: Aes,
    /// Threads one large call may use (1: the calling thread alone).
    threads: u8,
}

impl fmt::Debug for GcmSiv {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        debug_keyed(f, "GcmSiv", self.backend(), self.key_size())
            .field("threads", &self.threads)
            .finish_non_exhaustive()
    }
}

/// AES-GCM-SIV with `aes` as the key-generating key (any AES key size),
/// on its backend, one thread.
impl From<Aes> for GcmSiv {
    fn from(aes: Aes) -> Self {
        GcmSiv { aes, threads: 1 }
    }
}

impl GcmSiv {
    /// The nonce length in bytes.
    pub const NONCE_LEN: usize = NONCE_LEN;
    /// The tag length in bytes.
    pub const TAG_LEN: usize = TAG_LEN;
    /// The longest plaintext (and the longest associated data): 2^36 bytes.
    pub const MAX_LEN: u64 = MAX_LEN;

    /// AES-GCM-SIV with `key` (16, 24 or 32 bytes) on the fastest backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// AES-GCM-SIV with `key` on the named backend; an error if it is
    /// unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[16, 24, 32])?;
        Ok(GcmSiv {
            aes: Aes::with_backend(key, backend)?,
            threads: 1,
        })
    }

    /// The same key with every seal and open of a message of at least
    /// [`MIN_SEGMENT`](crate::parallel::MIN_SEGMENT) bytes per extra thread
    /// split over up to `threads` threads; shorter messages run on the
    /// calling thread alone. Sealing hashes the segments on their threads
    /// (POLYVAL sums combined with powers of H), then encrypts them from
    /// counters past the tag; opening decrypts and hashes each segment on
    /// its thread. Output and tag are the bytes one thread gives, and
    /// `open` still releases no plaintext before the tag over the whole
    /// message has been checked. 0 and 1 mean one thread; more than
    /// [`MAX_THREADS`](crate::parallel::MAX_THREADS) are held to it. See
    /// [`parallel`](crate::parallel).
    ///
    /// ```
    /// use aesx::GcmSiv;
    ///
    /// let one = GcmSiv::new(&[7u8; 16]).unwrap();
    /// let two = one.clone().with_threads(2);
    /// let msg = vec![0x5a; 1 << 20];
    /// assert_eq!(two.seal(&[1; 12], b"", &msg).unwrap(), one.seal(&[1; 12], b"", &msg).unwrap());
    /// ```
    #[cfg(feature = "std")]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = super::parallel::clamp_threads(threads);
        self
    }

    /// Threads one large call may use (see [`GcmSiv::with_threads`]).
    pub fn threads(&self) -> usize {
        usize::from(self.threads)
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// The key size (128, 192 or 256 bits).
    pub fn key_size(&self) -> KeySize {
        self.aes.key_size()
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        <Self as AeadIo>::seal_in_place_detached(self, nonce, aad, buf)
    }

    /// Returns ciphertext followed by the 16-byte tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        let nonce = check_nonce(nonce)?;
        check_lengths(aad.len(), pt.len())?;
        let mut out = alloc::vec![0u8; pt.len() + TAG_LEN];
        let (ct, tag_out) = out.split_at_mut(pt.len());
        let tag = self.oneshot(nonce, aad, InOut::new(pt, ct)?, None)?;
        tag_out.copy_from_slice(&tag);
        Ok(out)
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

    /// Verifies `tag` and decrypts `ct` into `pt` (equal lengths), without
    /// a copy of `ct` first. On failure `pt` is zeroed and
    /// [`Error::AuthenticationFailed`] returned.
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

    /// Opens ciphertext followed by the tag and returns the plaintext.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        check_nonce(nonce)?;
        if ct_and_tag.len() < TAG_LEN {
            return Err(Error::AuthenticationFailed);
        }
        let (ct, tag) = ct_and_tag.split_at(ct_and_tag.len() - TAG_LEN);
        check_lengths(aad.len(), ct.len())?;
        let mut out = alloc::vec![0u8; ct.len()];
        self.open_to_detached(nonce, aad, ct, tag, &mut out)?;
        Ok(out)
    }
}

impl GcmSiv {
    /// One message on the backend's one-shot, or split over threads (see
    /// [`GcmSiv::with_threads`]): with `received` `None`, seals `io` and
    /// returns the tag; with the received tag, decrypts `io` and returns
    /// the tag of the plaintext written (the caller compares). Lengths
    /// must have been checked.
    fn oneshot(
        &self,
        nonce: &[u8; NONCE_LEN],
        aad: &[u8],
        io: InOut<'_>,
        received: Option<&Block>,
    ) -> Result<Block> {
        let size = self.key_size();
        #[cfg(feature = "std")]
        {
            let parts = super::parallel::segments(io.len(), BLOCK_LEN, self.threads());
            if parts > 1 {
                let engine = &self.aes.engine;
                return super::parallel::gcm_siv(engine, size, parts, nonce, aad, io, received);
            }
        }
        match received {
            None => self.aes.engine.gcm_siv_seal(size, nonce, aad, io),
            Some(tag) => self.aes.engine.gcm_siv_open(size, nonce, aad, io, tag),
        }
    }
}

impl AeadIo for GcmSiv {
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag> {
        let nonce = check_nonce(nonce)?;
        check_lengths(aad.len(), io.len())?;
        Ok(Tag::full(self.oneshot(nonce, aad, io, None)?))
    }

    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        let nonce = check_nonce(nonce)?;
        let want = check_tag(tag)?;
        check_lengths(aad.len(), io.len())?;
        let mut got = self.oneshot(nonce, aad, io, Some(&want))?;
        let r = tag::check(&got, &want);
        wipe([&mut got], [0; BLOCK_LEN]);
        r
    }

    fn tag_bytes(&self) -> usize {
        TAG_LEN
    }
}

fn check_nonce(nonce: &[u8]) -> Result<&[u8; NONCE_LEN]> {
    nonce.try_into().map_err(|_| Error::InvalidIvLength {
        expected: NONCE_LEN,
        got: nonce.len(),
    })
}

fn check_tag(tag: &[u8]) -> Result<Block> {
    tag.try_into()
        .map_err(|_| Error::InvalidTagLength { len: tag.len() })
}

fn check_lengths(aad: usize, data: usize) -> Result<()> {
    if data as u64 > MAX_LEN {
        return Err(Error::MessageTooLong);
    }
    if aad as u64 > MAX_LEN {
        return Err(Error::AadTooLong);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    fn pattern(len: usize, seed: u8) -> Vec<u8> {
        (0..len)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    /// The kernel's open with any received tag: the decrypted bytes and the
    /// tag recomputed over them (no check, nothing zeroed).
    fn open_raw(
        b: Backend,
        key: &[u8],
        aad: &[u8],
        data: &[u8],
        tag: &Block,
        in_place: bool,
    ) -> (Vec<u8>, Block) {
        let siv = GcmSiv::with_backend(key, b).unwrap();
        let size = siv.key_size();
        let mut buf = if in_place {
            data.to_vec()
        } else {
            std::vec![0x33; data.len()]
        };
        let io = if in_place {
            InOut::in_place(&mut buf)
        } else {
            InOut::new(data, &mut buf).unwrap()
        };
        let got = siv
            .aes
            .engine
            .gcm_siv_open(size, &[9; NONCE_LEN], aad, io, tag)
            .unwrap();
        (buf, got)
    }

    /// Opening counts from the received tag, whatever it is: counter words
    /// that wrap mod 2^32 early in the text, on every path of every
    /// backend's open (short messages; long ones with their first blocks,
    /// whole groups and rest), against the portable backend. Sealing cannot
    /// pick its tag, so this is where the wrap is reached at every length.
    #[test]
    fn open_counts_from_any_tag_as_the_portable_backend_does() {
        let backends: Vec<Backend> = Backend::ALL
            .into_iter()
            .filter(|b| b.is_available() && *b != Backend::Soft)
            .collect();
        for key_len in [16, 32] {
            let key = pattern(key_len, 1);
            for len in [
                0, 15, 16, 100, 223, 224, 225, 240, 256, 300, 513, 1500, 4099,
            ] {
                let data = pattern(len, 2);
                for (aad_len, word) in [
                    (0, 0u32),
                    (5, 1),
                    (16, 7),
                    (37, 9),
                    (0, 15),
                    (3, 17),
                    (0, 0xffff_fff0),
                    (21, 0xffff_fff9),
                    (0, 0xffff_fffe),
                    (64, 0xffff_ffff),
                ] {
                    let aad = pattern(aad_len, 3);
                    let mut tag = [0xa5u8; 16];
                    tag[..4].copy_from_slice(&word.to_le_bytes());
                    let want = open_raw(Backend::Soft, &key, &aad, &data, &tag, true);
                    for &b in &backends {
                        for in_place in [true, false] {
                            assert!(
                                open_raw(b, &key, &aad, &data, &tag, in_place) == want,
                                "{b} key {key_len} len {len} aad {aad_len} counter {word:#x}"
                            );
                        }
                    }
                }
            }
        }
    }
}
