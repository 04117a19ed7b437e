//! Key sizes and the FIPS 197 key schedule.
//!
//! The schedule here is the generic one, in the byte order of FIPS 197; each
//! backend converts it into its own layout (bitsliced planes, `__m128i`
//! registers, ...). The S-box is computed, not looked up, so that key
//! expansion is constant-time as well: a table indexed by key bytes would
//! leak the key through the cache.

use zeroize::Zeroize;

use crate::error::{Error, Result};

/// AES block size in bytes.
pub const BLOCK_LEN: usize = 16;

/// One AES block.
pub type Block = [u8; BLOCK_LEN];

/// The most rounds any key size uses (AES-256).
pub const MAX_ROUNDS: usize = 14;

/// The three AES key sizes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KeySize {
    /// 128-bit key, 10 rounds.
    Aes128,
    /// 192-bit key, 12 rounds.
    Aes192,
    /// 256-bit key, 14 rounds.
    Aes256,
}

/// `Ok` if `key` has one of the lengths a mode takes (`allowed`, in bytes),
/// else [`Error::InvalidKeyLength`].
pub(crate) fn check_key_len(key: &[u8], allowed: &[usize]) -> Result<()> {
    if allowed.contains(&key.len()) {
        Ok(())
    } else {
        Err(Error::InvalidKeyLength { len: key.len() })
    }
}

impl KeySize {
    /// The key size for a key of `len` bytes.
    pub fn from_len(len: usize) -> Result<Self> {
        match len {
            16 => Ok(KeySize::Aes128),
            24 => Ok(KeySize::Aes192),
            32 => Ok(KeySize::Aes256),
            _ => Err(Error::InvalidKeyLength { len }),
        }
    }

    /// Key length in bytes.
    pub const fn bytes(self) -> usize {
        match self {
            KeySize::Aes128 => 16,
            KeySize::Aes192 => 24,
            KeySize::Aes256 => 32,
        }
    }

    /// Key length in bits.
    pub const fn bits(self) -> usize {
        self.bytes() * 8
    }

    /// Number of rounds (10, 12 or 14).
    pub const fn rounds(self) -> usize {
        match self {
            KeySize::Aes128 => 10,
            KeySize::Aes192 => 12,
            KeySize::Aes256 => 14,
        }
    }
}

/// Encryption round keys in FIPS 197 byte order: `rk[0]` is the whitening
/// key, `rk[rounds]` the last round key. Zeroized on drop.
#[derive(Clone)]
pub(crate) struct RoundKeys {
    pub(crate) rk: [Block; MAX_ROUNDS + 1],
    pub(crate) size: KeySize,
}

impl Drop for RoundKeys {
    fn drop(&mut self) {
        self.rk.zeroize();
    }
}

impl RoundKeys {
    /// Expands `key` (16, 24 or 32 bytes) per FIPS 197 section 5.2.
    pub(crate) fn expand(key: &[u8]) -> Result<Self> {
        let size = KeySize::from_len(key.len())?;
        let nk = key.len() / 4;
        let nr = size.rounds();
        let total = 4 * (nr + 1);
        let mut w = [[0u8; 4]; 4 * (MAX_ROUNDS + 1)];
        for (i, word) in key.chunks_exact(4).enumerate() {
            w[i].copy_from_slice(word);
        }
        let mut rcon = 1u8;
        for i in nk..total {
            let mut t = w[i - 1];
            if i % nk == 0 {
                t = [sbox(t[1]) ^ rcon, sbox(t[2]), sbox(t[3]), sbox(t[0])];
                rcon = xtime(rcon);
            } else if nk > 6 && i % nk == 4 {
                t = [sbox(t[0]), sbox(t[1]), sbox(t[2]), sbox(t[3])];
            }
            for j in 0..4 {
                w[i][j] = w[i - nk][j] ^ t[j];
            }
        }
        let mut rk = [[0u8; BLOCK_LEN]; MAX_ROUNDS + 1];
        for (r, out) in rk.iter_mut().enumerate().take(nr + 1) {
            for c in 0..4 {
                out[4 * c..4 * c + 4].copy_from_slice(&w[4 * r + c]);
            }
        }
        w.zeroize();
        Ok(RoundKeys { rk, size })
    }

    /// Number of rounds.
    pub(crate) fn rounds(&self) -> usize {
        self.size.rounds()
    }
}

/// The FIPS 197 encryption round keys of a key, as bytes, for backends that
/// live outside this crate (the CUDA crate) and lay the schedule out
/// themselves; they share this one constant-time expansion. Zeroized on drop.
/// Not part of the supported API.
#[doc(hidden)]
pub struct ExpandedKey(RoundKeys);

impl ExpandedKey {
    /// Expands `key` (16, 24 or 32 bytes).
    pub fn new(key: &[u8]) -> Result<Self> {
        RoundKeys::expand(key).map(ExpandedKey)
    }

    /// Number of rounds (10, 12 or 14).
    pub fn rounds(&self) -> usize {
        self.0.rounds()
    }

    /// The `rounds() + 1` round keys, whitening key first.
    pub fn round_keys(&self) -> &[Block] {
        &self.0.rk[..=self.0.rounds()]
    }
}

/// Multiplication by x in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1, branch-free.
#[inline]
pub(crate) const fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0x1b & 0u8.wrapping_sub(a >> 7))
}

/// Multiplication in GF(2^8), branch-free and table-free.
#[inline]
pub(crate) const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        p ^= a & 0u8.wrapping_sub(b & 1);
        a = xtime(a);
        b >>= 1;
        i += 1;
    }
    p
}

/// Multiplicative inverse in GF(2^8) as x^254 (0 maps to 0), constant-time.
#[inline]
pub(crate) const fn gf_inv(x: u8) -> u8 {
    let x2 = gf_mul(x, x);
    let x3 = gf_mul(x2, x);
    let x6 = gf_mul(x3, x3);
    let x12 = gf_mul(x6, x6);
    let x15 = gf_mul(x12, x3);
    let x30 = gf_mul(x15, x15);
    let x60 = gf_mul(x30, x30);
    let x120 = gf_mul(x60, x60);
    let x240 = gf_mul(x120, x120);
    let x252 = gf_mul(x240, x12);
    gf_mul(x252, x2)
}

/// The AES S-box, computed (inverse then affine map) rather than looked up.
#[inline]
pub(crate) const fn sbox(x: u8) -> u8 {
    let b = gf_inv(x);
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
}

/// The inverse S-box: inverse affine map, then inversion.
// Only tests use it now (the reference for the bitsliced circuits).
#[cfg_attr(not(test), allow(dead_code))]
#[inline]
pub(crate) const fn inv_sbox(x: u8) -> u8 {
    let b = x.rotate_left(1) ^ x.rotate_left(3) ^ x.rotate_left(6) ^ 0x05;
    gf_inv(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_known_values() {
        assert_eq!(sbox(0x00), 0x63);
        assert_eq!(sbox(0x01), 0x7c);
        assert_eq!(sbox(0x53), 0xed);
        assert_eq!(sbox(0xff), 0x16);
        for x in 0..=255u8 {
            assert_eq!(inv_sbox(sbox(x)), x);
        }
    }

    #[test]
    fn fips197_key_expansion() {
        // FIPS 197 appendix A.1: last round key of the AES-128 example.
        let key = [
            0x2b, 0x7e, 0x15, 0x16, 0x28, 0xae, 0xd2, 0xa6, 0xab, 0xf7, 0x15, 0x88, 0x09, 0xcf,
            0x4f, 0x3c,
        ];
        let rk = RoundKeys::expand(&key).unwrap();
        assert_eq!(
            rk.rk[10],
            [
                0xd0, 0x14, 0xf9, 0xa8, 0xc9, 0xee, 0x25, 0x89, 0xe1, 0x3f, 0x0c, 0xc8, 0xb6, 0x63,
                0x0c, 0xa6
            ]
        );
        // A.3: AES-256, last word of the schedule.
        let key256: [u8; 32] = core::array::from_fn(|i| {
            [
                0x60, 0x3d, 0xeb, 0x10, 0x15, 0xca, 0x71, 0xbe, 0x2b, 0x73, 0xae, 0xf0, 0x85, 0x7d,
                0x77, 0x81, 0x1f, 0x35, 0x2c, 0x07, 0x3b, 0x61, 0x08, 0xd7, 0x2d, 0x98, 0x10, 0xa3,
                0x09, 0x14, 0xdf, 0xf4,
            ][i]
        });
        let rk = RoundKeys::expand(&key256).unwrap();
        assert_eq!(rk.rk[14][12..], [0x70, 0x6c, 0x63, 0x1e]);
    }

    #[test]
    fn bad_key_lengths() {
        for len in [0, 1, 15, 17, 23, 25, 31, 33, 64] {
            assert!(matches!(
                RoundKeys::expand(&vec![0u8; len]),
                Err(Error::InvalidKeyLength { .. })
            ));
        }
    }
}
