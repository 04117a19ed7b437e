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

/// The one-shot AEADs that run over an [`InOut`] (GCM, CCM, XAES-256-GCM):
/// what `open_in_place_detached!` and the RustCrypto traits call.
pub(crate) trait AeadIo {
    /// Encrypts `io` (in place or out of place) and returns the tag.
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag>;

    /// Decrypts `io` and checks `tag` in constant time; on
    /// [`Error::AuthenticationFailed`] the caller zeroes the output
    /// ([`release`]).
    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()>;
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

/// The public `open_in_place_detached` of the one-shot AEADs (GCM, CCM,
/// GCM-SIV, XAES-256-GCM), written once over the mode's own `$open`, which
/// decrypts in place and checks the tag; a mismatch zeroes `buf`. `$open`
/// takes the buffer as an `InOut` (`io`), or as the slice itself (`slice`:
/// GCM-SIV reads its plaintext back to recompute the tag).
macro_rules! open_in_place_detached {
    ($(#[$doc:meta])* io $open:ident) => {
        $crate::modes::tag::open_in_place_detached!(
            $(#[$doc])* buf => $open($crate::backend::InOut::in_place(buf))
        );
    };
    ($(#[$doc:meta])* slice $open:ident) => {
        $crate::modes::tag::open_in_place_detached!($(#[$doc])* buf => $open(&mut *buf));
    };
    ($(#[$doc:meta])* $buf:ident => $open:ident($arg:expr)) => {
        $(#[$doc])*
        pub fn open_in_place_detached(
            &self,
            nonce: &[u8],
            aad: &[u8],
            $buf: &mut [u8],
            tag: &[u8],
        ) -> $crate::error::Result<()> {
            let r = self.$open(nonce, aad, $arg, tag);
            $crate::modes::tag::release(r, $buf)
        }
    };
}
pub(crate) use open_in_place_detached;
