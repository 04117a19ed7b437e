//! AES key wrap, KW (RFC 3394) and KWP (RFC 5649), as SP 800-38F; the notes
//! are on [`KeyWrap`].

use zeroize::Zeroize;

use super::block::Aes;
use super::tag;
use crate::backend::{Backend, InOut};
use crate::ct::ct_eq;
use crate::error::{Error, Result};
use crate::key::{KeySize, BLOCK_LEN};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// KW's default initial value (RFC 3394 section 2.2.3.1).
const KW_IV: [u8; 8] = [0xa6; 8];

/// KWP's constant high half of the alternative initial value (RFC 5649
/// section 3); the low half is the message length.
const KWP_ICV: [u8; 4] = [0xa6, 0x59, 0x59, 0xa6];

/// The longest KWP input: its length must fit the 32-bit MLI.
const KWP_MAX: u64 = u32::MAX as u64;

/// AES key wrap with one key-encryption key: KW (RFC 3394) and KWP with
/// padding (RFC 5649), the SP 800-38F algorithms.
///
/// KW wraps key data of a multiple of 8 bytes, at least 16; KWP wraps any
/// length from 1 byte to 2^32 - 1 bytes. Unwrapping checks the integrity
/// value (and for KWP the length and the zero padding) in constant time,
/// with one error for every kind of mismatch,
/// [`Error::AuthenticationFailed`], and returns no data on failure.
/// Lengths that no wrapping can produce are refused with
/// [`Error::InvalidWrapLength`] before any AES call.
///
/// ```
/// use aesx::KeyWrap;
///
/// let kek = KeyWrap::new(&[0x42u8; 16]).unwrap();
/// let wrapped = kek.wrap(&[7u8; 32]).unwrap();
/// assert_eq!(wrapped.len(), 40);
/// assert_eq!(kek.unwrap(&wrapped).unwrap(), [7u8; 32]);
///
/// let padded = kek.wrap_pad(b"any length").unwrap();
/// assert_eq!(padded.len(), 24);
/// assert_eq!(kek.unwrap_pad(&padded).unwrap(), b"any length");
/// ```
// `Debug` prints no key material: `Aes`'s own shows only backend and size.
#[derive(Clone, Debug)]
pub struct KeyWrap {
    aes: Aes,
}

impl KeyWrap {
    /// Key wrap with the key-encryption key `key` (16, 24 or 32 bytes) on
    /// the preferred backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Ok(KeyWrap {
            aes: Aes::new(key)?,
        })
    }

    /// Key wrap on the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        Ok(KeyWrap {
            aes: Aes::with_backend(key, backend)?,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// The AES key size of the key-encryption key.
    pub fn key_size(&self) -> KeySize {
        self.aes.key_size()
    }

    /// KW-wraps `key_data` (a multiple of 8 bytes, at least 16): 8 bytes
    /// longer than the input.
    #[cfg(feature = "std")]
    pub fn wrap(&self, key_data: &[u8]) -> Result<Vec<u8>> {
        let len = key_data.len().saturating_add(8);
        super::output_vec(len, |out| self.wrap_to(key_data, out))
    }

    /// KW-unwraps `wrapped` (a multiple of 8 bytes, at least 24).
    #[cfg(feature = "std")]
    pub fn unwrap(&self, wrapped: &[u8]) -> Result<Vec<u8>> {
        let len = wrapped.len().saturating_sub(8);
        super::output_vec(len, |out| self.unwrap_to(wrapped, out))
    }

    /// KWP-wraps `key_data` (1 to 2^32 - 1 bytes): the input zero-padded to
    /// a multiple of 8, plus 8 bytes.
    #[cfg(feature = "std")]
    pub fn wrap_pad(&self, key_data: &[u8]) -> Result<Vec<u8>> {
        let len = key_data.len().div_ceil(8) * 8 + 8;
        super::output_vec(len, |out| self.wrap_pad_to(key_data, out))
    }

    /// KWP-unwraps `wrapped` (a multiple of 8 bytes, at least 16).
    #[cfg(feature = "std")]
    pub fn unwrap_pad(&self, wrapped: &[u8]) -> Result<Vec<u8>> {
        let len = wrapped.len().saturating_sub(8);
        super::output_vec(len, |out| self.unwrap_pad_to(wrapped, out))
    }

    /// [`wrap`](Self::wrap) into `out` (at least `key_data.len() + 8`
    /// bytes), without allocating; returns the length written.
    pub fn wrap_to(&self, key_data: &[u8], out: &mut [u8]) -> Result<usize> {
        let len = key_data.len();
        if len < 16 || !len.is_multiple_of(8) {
            return Err(Error::InvalidWrapLength { len });
        }
        let out = room(out, len + 8)?;
        out[8..].copy_from_slice(key_data);
        self.w(KW_IV, out);
        Ok(len + 8)
    }

    /// [`unwrap`](Self::unwrap) into `out` (at least `wrapped.len() - 8`
    /// bytes), without allocating; returns the length written. On failure
    /// `out` is zeroed.
    pub fn unwrap_to(&self, wrapped: &[u8], out: &mut [u8]) -> Result<usize> {
        let len = wrapped.len();
        if len < 24 || !len.is_multiple_of(8) {
            return Err(Error::InvalidWrapLength { len });
        }
        let out = room(out, len - 8)?;
        let a = self.w_inv(wrapped, out);
        tag::release(tag::check(&a, &KW_IV), out)?;
        Ok(len - 8)
    }

    /// [`wrap_pad`](Self::wrap_pad) into `out` (at least the input length
    /// rounded up to a multiple of 8, plus 8), without allocating; returns
    /// the length written.
    pub fn wrap_pad_to(&self, key_data: &[u8], out: &mut [u8]) -> Result<usize> {
        let len = key_data.len();
        if len == 0 || len as u64 > KWP_MAX {
            return Err(Error::InvalidWrapLength { len });
        }
        let padded = len.div_ceil(8) * 8;
        let out = room(out, padded + 8)?;
        let mut aiv = [0u8; 8];
        aiv[..4].copy_from_slice(&KWP_ICV);
        aiv[4..].copy_from_slice(&(len as u32).to_be_bytes());
        out[8..8 + len].copy_from_slice(key_data);
        out[8 + len..].fill(0);
        if padded == 8 {
            // One semiblock of data: a single AES block, no W.
            out[..8].copy_from_slice(&aiv);
            self.aes.engine.encrypt_blocks(InOut::in_place(out));
        } else {
            self.w(aiv, out);
        }
        Ok(padded + 8)
    }

    /// [`unwrap_pad`](Self::unwrap_pad) into `out` (at least
    /// `wrapped.len() - 8` bytes: the padded data lands there first),
    /// without allocating; returns the unpadded length. On failure `out` is
    /// zeroed.
    pub fn unwrap_pad_to(&self, wrapped: &[u8], out: &mut [u8]) -> Result<usize> {
        let len = wrapped.len();
        if len < 16 || !len.is_multiple_of(8) || (len - 8) as u64 > KWP_MAX + 1 {
            return Err(Error::InvalidWrapLength { len });
        }
        let padded = len - 8;
        let out = room(out, padded)?;
        let a = if len == BLOCK_LEN {
            let mut b = [0u8; BLOCK_LEN];
            b.copy_from_slice(wrapped);
            self.aes.engine.decrypt_blocks(InOut::in_place(&mut b));
            out.copy_from_slice(&b[8..]);
            let a: [u8; 8] = [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
            b.zeroize();
            a
        } else {
            self.w_inv(wrapped, out)
        };
        let mli = u32::from_be_bytes([a[4], a[5], a[6], a[7]]) as u64;
        // Every check folds into one flag without a data-dependent branch:
        // which one failed is not told, nor when.
        let mut bad = u64::from(!ct_eq(&a[..4], &KWP_ICV));
        // 8 * (n - 1) < MLI <= 8 * n, as differences that borrow when false.
        let above_low = (padded as u64 - 8).wrapping_sub(mli) >> 63;
        let above_high = (padded as u64).wrapping_sub(mli) >> 63;
        bad |= (above_low ^ 1) | above_high;
        // Bytes at and after MLI must be zero (only the last 7 can be
        // padding).
        let mut pad = 0u8;
        for (i, &x) in out.iter().enumerate().skip(padded - 7) {
            let beyond = (mli.wrapping_sub(i as u64 + 1) >> 63) as u8; // i >= MLI
            pad |= x & 0u8.wrapping_sub(beyond);
        }
        bad |= u64::from(core::hint::black_box(pad) != 0);
        if core::hint::black_box(bad) != 0 {
            out.zeroize();
            return Err(Error::AuthenticationFailed);
        }
        Ok(mli as usize)
    }

    /// W over `buf` = (room for A) || R_1 .. R_n in place, starting from
    /// the initial value `a`.
    fn w(&self, mut a: [u8; 8], buf: &mut [u8]) {
        let (head, r) = buf.split_at_mut(8);
        self.aes.engine.kw_wrap(&mut a, r);
        head.copy_from_slice(&a);
    }

    /// W^-1 of `wrapped` = C_0 .. C_n: R_1 .. R_n into `out` (exactly
    /// `wrapped.len() - 8` bytes), A returned.
    fn w_inv(&self, wrapped: &[u8], out: &mut [u8]) -> [u8; 8] {
        let (c0, rest) = wrapped.split_at(8);
        let mut a = [0u8; 8];
        a.copy_from_slice(c0);
        out.copy_from_slice(rest);
        self.aes.engine.kw_unwrap(&mut a, out);
        a
    }
}

/// The first `need` bytes of `out`, or [`Error::OutputTooSmall`].
fn room(out: &mut [u8], need: usize) -> Result<&mut [u8]> {
    let got = out.len();
    out.get_mut(..need)
        .ok_or(Error::OutputTooSmall { needed: need, got })
}
