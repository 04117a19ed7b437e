//! Tags: the [`Tag`] the AEADs return, and the one way a mode checks what
//! it received against what it computed (AEAD tags, CMAC tags, key wrap
//! integrity values) and releases or wipes its output: the comparison runs
//! in constant time, and a mismatch zeroes the output before
//! [`Error::AuthenticationFailed`] is returned, so no unauthenticated
//! plaintext ever leaves a mode.

use core::fmt;

use zeroize::Zeroize;

use crate::backend::InOut;
use crate::ct::ct_eq;
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// An authentication tag of 4 to 16 bytes.
///
/// Tags are public values; comparing them is done in constant time anyway
/// (see [`Tag::verify`]), since a timing leak in verification lets a forger
/// find a valid tag byte by byte.
#[derive(Clone, Copy)]
pub struct Tag {
    pub(super) bytes: Block,
    pub(super) len: u8,
}

impl Tag {
    /// A full 16-byte tag (for the other AEADs of the crate).
    pub(crate) fn full(bytes: Block) -> Tag {
        Tag {
            bytes,
            len: BLOCK_LEN as u8,
        }
    }

    /// The tag bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Tag length in bytes.
    #[allow(clippy::len_without_is_empty)] // a tag is never empty
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Constant-time comparison with `other` (false if the lengths differ).
    pub fn verify(&self, other: &[u8]) -> bool {
        ct_eq(self.as_bytes(), other)
    }

    /// The first `len` bytes of a full-length tag block (for the other AEAD
    /// modes: CCM).
    pub(crate) fn truncated(bytes: Block, len: usize) -> Tag {
        debug_assert!(len <= BLOCK_LEN);
        Tag {
            bytes,
            len: len as u8,
        }
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        ct_eq(self.as_bytes(), other.as_bytes())
    }
}

impl Eq for Tag {}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tag(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// The one-shot AEADs that run over an [`InOut`] (GCM, CCM, GCM-SIV,
/// XAES-256-GCM): each gives `seal_io`, `open_io` and its tag length; the
/// detached calls every one of them offers are written once here, and the
/// public methods of the same names forward to them.
pub(crate) trait AeadIo {
    /// Encrypts `io` (in place or out of place) and returns the tag.
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag>;

    /// Decrypts `io` and checks `tag` in constant time; on
    /// [`Error::AuthenticationFailed`] the caller zeroes the output
    /// ([`release`]).
    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()>;

    /// The length of this key's tags.
    fn tag_bytes(&self) -> usize;

    /// Encrypts `buf` in place and returns the tag.
    #[inline]
    fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        self.seal_io(nonce, aad, InOut::in_place(buf))
    }

    /// Encrypts `pt` into `ct` (equal lengths) and returns the tag.
    #[inline]
    fn seal_to_detached(&self, nonce: &[u8], aad: &[u8], pt: &[u8], ct: &mut [u8]) -> Result<Tag> {
        self.seal_io(nonce, aad, InOut::new(pt, ct)?)
    }

    /// Verifies `tag` and decrypts `buf` in place; on a mismatch `buf` is
    /// zeroed.
    #[inline]
    fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        let r = self.open_io(nonce, aad, InOut::in_place(buf), tag);
        release(r, buf)
    }

    /// Verifies `tag` and decrypts `ct` into `pt` (equal lengths); on a
    /// mismatch `pt` is zeroed. The tag length is checked first, as
    /// `open_io` would, so that it is the error reported ahead of unequal
    /// buffer lengths.
    #[inline]
    fn open_to_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        pt: &mut [u8],
    ) -> Result<()> {
        if tag.len() != self.tag_bytes() {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        let r = self.open_io(nonce, aad, InOut::new(ct, pt)?, tag);
        release(r, pt)
    }
}

/// `Ok` if `computed` equals `received` (compared in constant time; unequal
/// lengths are unequal), else [`Error::AuthenticationFailed`].
#[inline]
pub(crate) fn check(computed: &[u8], received: &[u8]) -> Result<()> {
    if ct_eq(computed, received) {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed)
    }
}

/// The result of a decryption that wrote `out`, with `out` zeroed when the
/// check failed. Other errors (lengths, nonces) come before any output is
/// written and leave `out` as it was.
#[inline]
pub(crate) fn release<T>(r: Result<T>, out: &mut [u8]) -> Result<T> {
    if matches!(r, Err(Error::AuthenticationFailed)) {
        out.zeroize();
    }
    r
}
