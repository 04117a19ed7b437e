//! PKCS#7 padding (RFC 5652 section 6.3) for ECB and CBC.

use crate::error::{Error, Result};
use crate::key::BLOCK_LEN;

/// How ECB and CBC treat a message that is not a whole number of blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Padding {
    /// No padding: the input must be a whole number of blocks.
    #[default]
    None,
    /// PKCS#7: 1 to 16 bytes each holding the pad length; always added.
    Pkcs7,
}

impl Padding {
    /// Ciphertext length for a `msg_len`-byte plaintext.
    pub fn padded_len(self, msg_len: usize) -> usize {
        match self {
            Padding::None => msg_len,
            Padding::Pkcs7 => (msg_len / BLOCK_LEN + 1) * BLOCK_LEN,
        }
    }
}

/// ECB's and CBC's padded encryption of `src` into `dst`: the whole blocks
/// through `blocks` (input, output), then with PKCS#7 the padded last block
/// through it too. Returns the ciphertext length.
pub(crate) fn encrypt_padded(
    src: &[u8],
    dst: &mut [u8],
    padding: Padding,
    mut blocks: impl FnMut(&[u8], &mut [u8]) -> Result<()>,
) -> Result<usize> {
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
    blocks(&src[..whole], &mut dst[..whole])?;
    if padding == Padding::Pkcs7 {
        let mut last = [0u8; BLOCK_LEN];
        let rem = src.len() - whole;
        last[..rem].copy_from_slice(&src[whole..]);
        pad(&mut last, rem)?;
        blocks(&last, &mut dst[whole..total])?;
    }
    Ok(total)
}

/// ECB's and CBC's padded decryption of `src` into `dst` (at least as
/// long) through `blocks`; returns the plaintext length. On bad padding the
/// output is zeroed.
pub(crate) fn decrypt_padded(
    src: &[u8],
    dst: &mut [u8],
    padding: Padding,
    blocks: impl FnOnce(&[u8], &mut [u8]) -> Result<()>,
) -> Result<usize> {
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
    blocks(src, out)?;
    match padding {
        Padding::None => Ok(src.len()),
        Padding::Pkcs7 => unpad(out).inspect_err(|_| out.fill(0)),
    }
}

/// Writes PKCS#7 padding after `msg_len` bytes of `buf`; returns the padded
/// length. `buf` must have room for it.
pub(crate) fn pad(buf: &mut [u8], msg_len: usize) -> Result<usize> {
    let total = Padding::Pkcs7.padded_len(msg_len);
    if buf.len() < total || msg_len > buf.len() {
        return Err(Error::OutputTooSmall {
            needed: total,
            got: buf.len(),
        });
    }
    let p = (total - msg_len) as u8;
    buf[msg_len..total].fill(p);
    Ok(total)
}

/// Checks PKCS#7 padding on the last block of `data` without branching on
/// the padding bytes (a padding oracle must not learn where the check
/// failed); returns the unpadded length.
pub(crate) fn unpad(data: &[u8]) -> Result<usize> {
    if data.is_empty() || !data.len().is_multiple_of(BLOCK_LEN) {
        return Err(Error::BadPadding);
    }
    let last: &[u8] = &data[data.len() - BLOCK_LEN..];
    let p = last[BLOCK_LEN - 1];
    // bad = (p == 0) | (p > 16) | any of the last p bytes != p
    let mut bad = ct_is_zero(p) | ct_lt(16, p);
    for (i, &b) in last.iter().enumerate() {
        // Byte i (counted from the end, 1-based) is padding when idx <= p.
        let idx = (BLOCK_LEN - i) as u8;
        let in_pad = !ct_lt(p, idx) & 1; // idx <= p
        bad |= in_pad & !ct_is_zero(b ^ p) & 1;
    }
    if bad != 0 {
        return Err(Error::BadPadding);
    }
    Ok(data.len() - p as usize)
}

/// 1 if `x == 0`, else 0, without a branch.
#[inline]
fn ct_is_zero(x: u8) -> u8 {
    (((x as u16).wrapping_sub(1)) >> 8) as u8 & 1
}

/// 1 if `a < b`, else 0, without a branch.
#[inline]
fn ct_lt(a: u8, b: u8) -> u8 {
    (((a as u16).wrapping_sub(b as u16)) >> 8) as u8 & 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pad_unpad_round_trip() {
        for len in 0..48 {
            let mut buf = [0xaau8; 64];
            let total = pad(&mut buf, len).unwrap();
            assert_eq!(total % 16, 0);
            assert!(total > len && total - len <= 16);
            assert_eq!(unpad(&buf[..total]).unwrap(), len);
        }
    }

    #[test]
    fn bad_padding_rejected() {
        let mut b = [0u8; 16];
        assert_eq!(unpad(&b), Err(Error::BadPadding));
        b[15] = 17;
        assert_eq!(unpad(&b), Err(Error::BadPadding));
        b[15] = 2;
        b[14] = 3;
        assert_eq!(unpad(&b), Err(Error::BadPadding));
        b[14] = 2;
        assert_eq!(unpad(&b), Ok(14));
        b = [16; 16];
        assert_eq!(unpad(&b), Ok(0));
        b[0] = 15;
        assert_eq!(unpad(&b), Err(Error::BadPadding));
        assert_eq!(unpad(&[]), Err(Error::BadPadding));
        assert_eq!(unpad(&[1u8; 15]), Err(Error::BadPadding));
    }
}
