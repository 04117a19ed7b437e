//! AES-XTS contexts with the semantics of OpenSSL 3's `cipher_aes_xts.c`:
//! the key is the two AES keys concatenated (32 or 64 bytes), a key whose
//! halves are equal is refused for encryption (OpenSSL's default provider
//! accepts it for decryption), the 16-byte IV is the tweak, and every update
//! is one whole data unit of 16 bytes to 2^20 blocks under that same tweak
//! (ciphertext stealing for a partial last block); the final adds nothing.

use aesx::{ct_eq, Backend, Xts, BLOCK_LEN};

use crate::block::{Fail, Io};
use crate::count_bytes;

/// IEEE 1619-2018's limit: 2^20 blocks per data unit.
pub const MAX_DATA_UNIT: usize = BLOCK_LEN << 20;

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
}
