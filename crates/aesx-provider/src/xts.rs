//! AES-XTS contexts with the semantics of OpenSSL 3's `cipher_aes_xts.c`:
//! the key is the two AES keys concatenated (32 or 64 bytes), a key whose
//! halves are equal is refused for encryption (OpenSSL's default provider
//! accepts it for decryption), the 16-byte IV is the tweak, and every update
//! is one whole data unit of 16 bytes to 2^20 blocks under that same tweak
//! (ciphertext stealing for a partial last block); the final adds nothing.

use aesx::{ct_eq, Aes, Backend, Block, Xts, BLOCK_LEN};

use crate::block::{Fail, Io};
use crate::counter::count_bytes;

/// IEEE 1619-2018's limit: 2^20 blocks per data unit.
pub const MAX_DATA_UNIT: usize = BLOCK_LEN << 20;

/// The largest data unit [`ShortUnits`] takes: eight blocks, the width of
/// the block kernels' main loop (beyond it aesx's XTS kernel is faster).
const SHORT_MAX: usize = 8 * BLOCK_LEN;

/// Data units of one to eight whole blocks, done here from aesx's block
/// calls with the tweak enciphered once per IV: OpenSSL keeps one IV for
/// every update until it is set again, and for short units the tweak's
/// encryption and the XTS kernels' set-up are most of the cost.
#[derive(Clone)]
struct ShortUnits {
    data: Aes,
    tweak: Aes,
    /// `E_K2(iv)` of the current IV, once computed.
    t: Option<Block>,
}

impl ShortUnits {
    /// One data unit of `len` bytes (whole blocks, at most [`SHORT_MAX`]).
    fn crypt(&mut self, iv: &Block, enc: bool, io: Io<'_>, len: usize) {
        let tweak = &self.tweak;
        let t = *self.t.get_or_insert_with(|| {
            let mut t = *iv;
            tweak.encrypt_block(&mut t);
            t
        });
        let mut tweaks = [0u128; SHORT_MAX / BLOCK_LEN];
        let mut buf = [0u8; SHORT_MAX];
        let input = match &io {
            Io::Split { src, .. } => &src[..len],
            Io::InPlace(b) => &b[..len],
        };
        let mut x = u128::from_le_bytes(t);
        for ((tw, b), p) in tweaks
            .iter_mut()
            .zip(buf.chunks_exact_mut(BLOCK_LEN))
            .zip(input.chunks_exact(BLOCK_LEN))
        {
            *tw = x;
            b.copy_from_slice(&(le(p) ^ x).to_le_bytes());
            // x * alpha in GF(2^128), IEEE 1619's little-endian order.
            x = (x << 1) ^ ((((x as i128) >> 127) as u128) & 0x87);
        }
        let data = &mut buf[..len];
        if let Some(one) = data
            .first_chunk_mut::<BLOCK_LEN>()
            .filter(|_| len == BLOCK_LEN)
        {
            if enc {
                self.data.encrypt_block(one);
            } else {
                self.data.decrypt_block(one);
            }
        } else {
            // Whole blocks by the caller's check: these cannot fail.
            let r = if enc {
                self.data.encrypt_blocks(data)
            } else {
                self.data.decrypt_blocks(data)
            };
            debug_assert!(r.is_ok());
        }
        let out = match io {
            Io::Split { dst, .. } => &mut dst[..len],
            Io::InPlace(b) => &mut b[..len],
        };
        for ((o, b), tw) in out
            .chunks_exact_mut(BLOCK_LEN)
            .zip(buf.chunks_exact(BLOCK_LEN))
            .zip(tweaks)
        {
            o.copy_from_slice(&(le(b) ^ tw).to_le_bytes());
        }
    }
}

/// A 16-byte block as a little-endian integer.
#[inline(always)]
fn le(b: &[u8]) -> u128 {
    u128::from_le_bytes(b.try_into().expect("a 16-byte block"))
}

/// One XTS operation as OpenSSL's `PROV_AES_XTS_CTX` holds it.
#[derive(Clone)]
pub struct XtsCtx {
    /// Both keys: 32 (XTS-AES-128) or 64 (XTS-AES-256) bytes.
    pub keylen: usize,
    enc: bool,
    key: Option<Xts>,
    iv: [u8; BLOCK_LEN],
    oiv: [u8; BLOCK_LEN],
    iv_set: bool,
    backend: Backend,
    /// The path for units of one to eight blocks (with the key).
    short: Option<ShortUnits>,
}

impl XtsCtx {
    pub fn new(keylen: usize, backend: Backend) -> Self {
        XtsCtx {
            keylen,
            enc: true,
            key: None,
            iv: [0; BLOCK_LEN],
            oiv: [0; BLOCK_LEN],
            iv_set: false,
            backend,
            short: None,
        }
    }

    /// `aes_xts_init`: a new tweak and/or key pair.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.enc = enc;
        if let Some(iv) = iv {
            if iv.len() != BLOCK_LEN {
                return Err(Fail::InvalidIvLength);
            }
            self.iv.copy_from_slice(iv);
            self.oiv.copy_from_slice(iv);
            self.iv_set = true;
            if let Some(s) = &mut self.short {
                s.t = None;
            }
        }
        if let Some(key) = key {
            if key.len() != self.keylen {
                return Err(Fail::InvalidKeyLength);
            }
            let (k1, k2) = key.split_at(key.len() / 2);
            if enc && ct_eq(k1, k2) {
                // XTS_DUPLICATED_KEYS (Rogaway 2004; IEEE 1619-2018 5.1).
                return Err(Fail::InvalidKeyLength);
            }
            let aes = |k| Aes::with_backend(k, self.backend).map_err(|_| Fail::InvalidKeyLength);
            self.short = Some(ShortUnits {
                data: aes(k1)?,
                tweak: aes(k2)?,
                t: None,
            });
            self.key =
                Some(Xts::with_backend(key, self.backend).map_err(|_| Fail::InvalidKeyLength)?);
        }
        Ok(())
    }

    /// The tweak as given (`iv`) and as running (`updated-iv`: the same,
    /// since every update restarts from it).
    pub fn iv(&self) -> &[u8] {
        &self.oiv
    }

    pub fn updated_iv(&self) -> &[u8] {
        &self.iv
    }

    /// `aes_xts_cipher`: one data unit of `len` bytes (16 to 2^24).
    pub fn crypt(&mut self, io: Io<'_>, len: usize) -> Result<(), Fail> {
        let Some(xts) = &self.key else {
            return Err(Fail::NoKeySet);
        };
        if !self.iv_set || !(BLOCK_LEN..=MAX_DATA_UNIT).contains(&len) {
            return Err(Fail::Unsupported);
        }
        if len.is_multiple_of(BLOCK_LEN) && len <= SHORT_MAX {
            if let Some(s) = &mut self.short {
                s.crypt(&self.iv, self.enc, io, len);
                count_bytes(len);
                return Ok(());
            }
        }
        let tweak = self.iv;
        let r = match io {
            Io::Split { src, dst } if self.enc => {
                xts.encrypt_to(&tweak, &src[..len], &mut dst[..len])
            }
            Io::Split { src, dst } => xts.decrypt_to(&tweak, &src[..len], &mut dst[..len]),
            Io::InPlace(buf) if self.enc => xts.encrypt(&tweak, &mut buf[..len]),
            Io::InPlace(buf) => xts.decrypt(&tweak, &mut buf[..len]),
        };
        r.map_err(|_| Fail::Unsupported)?;
        count_bytes(len);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_refusals_and_equal_halves() {
        let mut key = [0u8; 32];
        key[..16].fill(1);
        key[16..].fill(2);
        let mut c = XtsCtx::new(32, Backend::Soft);
        assert_eq!(
            c.crypt(Io::InPlace(&mut [0u8; 16]), 16),
            Err(Fail::NoKeySet)
        );
        c.init(Some(&key), None, true).unwrap();
        assert_eq!(
            c.crypt(Io::InPlace(&mut [0u8; 16]), 16),
            Err(Fail::Unsupported),
            "no IV"
        );
        assert_eq!(
            c.init(None, Some(&[0u8; 12]), true),
            Err(Fail::InvalidIvLength)
        );
        c.init(None, Some(&[3u8; 16]), true).unwrap();
        assert_eq!(
            c.crypt(Io::InPlace(&mut [0u8; 15]), 15),
            Err(Fail::Unsupported)
        );
        let xts = Xts::with_backend(&key, Backend::Soft).unwrap();
        let mut want = [9u8; 37];
        xts.encrypt(&[3u8; 16], &mut want).unwrap();
        // Each update is a data unit under the same tweak.
        for _ in 0..2 {
            let mut got = [9u8; 37];
            c.crypt(Io::InPlace(&mut got), 37).unwrap();
            assert_eq!(got, want);
        }
        assert_eq!(c.updated_iv(), &[3u8; 16]);
        let same = [5u8; 64];
        let mut c = XtsCtx::new(64, Backend::Soft);
        assert_eq!(c.init(Some(&same), None, true), Err(Fail::InvalidKeyLength));
        c.init(Some(&same), Some(&[0u8; 16]), false).unwrap();
        c.crypt(Io::InPlace(&mut [0u8; 16]), 16).unwrap();
        assert_eq!(
            c.init(Some(&[0u8; 32]), None, false),
            Err(Fail::InvalidKeyLength)
        );
    }

    /// The short-unit path gives aesx's XTS for every whole-block length
    /// it takes, both ways, split and in place, across IV and key changes.
    #[test]
    fn short_units_match_aesx() {
        let mut key = [0u8; 64];
        for (i, k) in key.iter_mut().enumerate() {
            *k = i as u8;
        }
        for backend in Backend::available() {
            for keylen in [32, 64] {
                let key = &key[..keylen];
                let xts = Xts::with_backend(key, Backend::Soft).unwrap();
                for enc in [true, false] {
                    let mut c = XtsCtx::new(keylen, backend);
                    c.init(Some(key), None, enc).unwrap();
                    for round in 0..3u8 {
                        let iv = [round.wrapping_mul(0x55) ^ 0x80; 16];
                        c.init(None, Some(&iv), enc).unwrap();
                        for len in (BLOCK_LEN..=SHORT_MAX).step_by(BLOCK_LEN) {
                            let src: Vec<u8> = (0..len).map(|j| (j as u8) ^ round).collect();
                            let mut want = src.clone();
                            if enc {
                                xts.encrypt(&iv, &mut want).unwrap();
                            } else {
                                xts.decrypt(&iv, &mut want).unwrap();
                            }
                            let mut got = vec![0u8; len];
                            c.crypt(
                                Io::Split {
                                    src: &src,
                                    dst: &mut got,
                                },
                                len,
                            )
                            .unwrap();
                            assert_eq!(got, want, "{backend} split {len} {enc}");
                            let mut got = src.clone();
                            c.crypt(Io::InPlace(&mut got), len).unwrap();
                            assert_eq!(got, want, "{backend} in place {len} {enc}");
                        }
                    }
                }
            }
        }
    }
}
