//! AES-CCM contexts with the semantics of OpenSSL 3's
//! `ciphercommon_ccm.c`: the nonce length (`ivlen`, 7 to 13 bytes, the
//! length field taking the rest of 15; 7 until set) and the tag length (4
//! to 16, even; 12 until set) are set before the key and IV; the message
//! length is declared by an update with neither input nor output (or by
//! the data update itself); the AAD comes in one update; the data in one
//! update, which decrypting checks the tag set beforehand and fails on a
//! mismatch (the final adds nothing and always succeeds). The tag of an
//! encryption is read once. The TLS 1.2 CCM record path (`tlsaad`,
//! `tlsivfixed`) is here too.
//!
//! Deliberate difference: a second non-empty AAD update is refused
//! (OpenSSL 3.0 folds it in a way that is no CCM of the concatenation).

use aesx::{Backend, Ccm};
use zeroize::Zeroize;

use crate::block::{Fail, Io};
use crate::counter::count_bytes;
use crate::gcm::{TLS_AAD_LEN, TLS_EXPLICIT_IV, TLS_FIXED_IV};

/// The IV length the algorithms report (96 bits); a context's is 7 until
/// `ivlen` is set, as OpenSSL's.
pub const IV_REPORTED: usize = 12;

/// One CCM operation as OpenSSL's `PROV_CCM_CTX` holds it.
#[derive(Clone)]
pub struct CcmCtx {
    pub keylen: usize,
    enc: bool,
    /// The size of the length field: 2 to 8 (the nonce is 15 - l bytes).
    l: usize,
    /// The tag length.
    m: usize,
    key_bytes: [u8; 32],
    key_set: bool,
    /// The key expanded for tag length `m`, built when first needed.
    ccm: Option<Ccm>,
    iv: [u8; 15],
    iv_set: bool,
    tag: [u8; 16],
    tag_set: bool,
    /// The declared message length.
    len: Option<usize>,
    aad: Vec<u8>,
    tls_aad: Option<[u8; TLS_AAD_LEN]>,
    tls_aad_pad: usize,
    backend: Backend,
}

impl Drop for CcmCtx {
    fn drop(&mut self) {
        self.key_bytes.zeroize();
        self.tag.zeroize();
    }
}

impl CcmCtx {
    pub fn new(keylen: usize, backend: Backend) -> Self {
        CcmCtx {
            keylen,
            enc: true,
            l: 8,
            m: 12,
            key_bytes: [0; 32],
            key_set: false,
            ccm: None,
            iv: [0; 15],
            iv_set: false,
            tag: [0; 16],
            tag_set: false,
            len: None,
            aad: Vec::new(),
            tls_aad: None,
            tls_aad_pad: 0,
            backend,
        }
    }

    /// The nonce length: 15 - L.
    pub fn ivlen(&self) -> usize {
        15 - self.l
    }

    pub fn taglen(&self) -> usize {
        self.m
    }

    pub fn iv(&self) -> &[u8] {
        &self.iv[..self.ivlen()]
    }

    pub fn tls_aad_pad(&self) -> usize {
        self.tls_aad_pad
    }

    /// `ccm_init`.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.enc = enc;
        if let Some(iv) = iv {
            if iv.len() != self.ivlen() {
                return Err(Fail::InvalidIvLength);
            }
            self.iv[..iv.len()].copy_from_slice(iv);
            self.iv_set = true;
        }
        if let Some(key) = key {
            if key.len() != self.keylen {
                return Err(Fail::InvalidKeyLength);
            }
            self.key_bytes[..key.len()].copy_from_slice(key);
            self.key_set = true;
            self.ccm = None;
            self.len = None;
            self.aad.clear();
        }
        Ok(())
    }

    /// The `tag` parameter: its length sets the tag length (4..16, even);
    /// its bytes, when given, the tag a decryption is checked against.
    pub fn set_tag(&mut self, len: usize, tag: Option<&[u8]>) -> Result<(), Fail> {
        if !len.is_multiple_of(2) || !(4..=16).contains(&len) {
            return Err(Fail::Unsupported);
        }
        if let Some(tag) = tag {
            if self.enc {
                return Err(Fail::Unsupported);
            }
            self.tag[..len].copy_from_slice(tag);
            self.tag_set = true;
        }
        if self.m != len {
            self.ccm = None;
        }
        self.m = len;
        Ok(())
    }

    /// The `ivlen` parameter: 7..13.
    pub fn set_ivlen(&mut self, n: usize) -> Result<(), Fail> {
        let l = 15usize.checked_sub(n).ok_or(Fail::InvalidIvLength)?;
        if !(2..=8).contains(&l) {
            return Err(Fail::InvalidIvLength);
        }
        self.l = l;
        Ok(())
    }

    /// The tag of the encryption just done (`n` must be the tag length);
    /// once read, a new IV, length and message are needed.
    pub fn get_tag(&mut self, n: usize) -> Result<&[u8], Fail> {
        if !self.enc || !self.tag_set || n != self.m {
            return Err(Fail::Unsupported);
        }
        self.tag_set = false;
        self.iv_set = false;
        self.len = None;
        Ok(&self.tag[..n])
    }

    /// `tlsaad`: the record's AAD (13 bytes); answers the tag length.
    pub fn tls_set_aad(&mut self, aad: &[u8]) -> Result<usize, Fail> {
        let mut buf: [u8; TLS_AAD_LEN] = aad.try_into().map_err(|_| Fail::Unsupported)?;
        let declared = usize::from(u16::from_be_bytes([buf[11], buf[12]]));
        let overhead = TLS_EXPLICIT_IV + if self.enc { 0 } else { self.m };
        let payload = declared.checked_sub(overhead).ok_or(Fail::Unsupported)?;
        buf[11..].copy_from_slice(&(payload as u16).to_be_bytes());
        self.tls_aad = Some(buf);
        self.tls_aad_pad = self.m;
        Ok(self.m)
    }

    /// `tlsivfixed`: exactly the 4-byte fixed part of the nonce.
    pub fn tls_set_fixed(&mut self, fixed: &[u8]) -> Result<(), Fail> {
        if fixed.len() != TLS_FIXED_IV {
            return Err(Fail::InvalidIvLength);
        }
        self.iv[..TLS_FIXED_IV].copy_from_slice(fixed);
        Ok(())
    }

    pub fn tls_pending(&self) -> bool {
        self.tls_aad.is_some()
    }

    /// Whether a final succeeds: it adds nothing, given a key and no TLS
    /// record pending.
    pub fn final_ok(&self) -> bool {
        self.key_set && self.tls_aad.is_none()
    }

    /// Declares the message length (an update with no input and no
    /// output), which the length field must be able to hold.
    pub fn set_len(&mut self, len: usize) -> Result<(), Fail> {
        if !self.key_set || !self.iv_set {
            return Err(Fail::NoKeySet);
        }
        if self.l < 8 && (len as u64) >> (8 * self.l) != 0 {
            return Err(Fail::Unsupported);
        }
        self.len = Some(len);
        self.aad.clear();
        Ok(())
    }

    /// The AAD (one update with no output buffer; the length first).
    pub fn aad(&mut self, aad: &[u8]) -> Result<(), Fail> {
        if !self.key_set || !self.iv_set {
            return Err(Fail::NoKeySet);
        }
        if aad.is_empty() {
            return Ok(());
        }
        if self.len.is_none() || !self.aad.is_empty() {
            return Err(Fail::Unsupported);
        }
        self.aad.extend_from_slice(aad);
        Ok(())
    }

    fn keyed(&mut self) -> Result<&Ccm, Fail> {
        if self.ccm.is_none() {
            let ccm = Ccm::with_backend(&self.key_bytes[..self.keylen], self.m, self.backend)
                .map_err(|_| Fail::InvalidKeyLength)?;
            self.ccm = Some(ccm);
        }
        self.ccm.as_ref().ok_or(Fail::NoKeySet)
    }

    /// The data, in one update of exactly the declared length (declaring
    /// it if not yet): encrypting computes the tag; decrypting checks the
    /// tag set before (the output is zeroed on a mismatch).
    pub fn crypt(&mut self, io: Io<'_>, len: usize) -> Result<(), Fail> {
        if !self.key_set || !self.iv_set {
            return Err(Fail::NoKeySet);
        }
        if self.len.is_none() {
            self.set_len(len)?;
        }
        if self.len != Some(len) || (!self.enc && !self.tag_set) {
            return Err(Fail::Unsupported);
        }
        let buf: &mut [u8] = match io {
            Io::Split { src, dst } => {
                dst[..len].copy_from_slice(&src[..len]);
                &mut dst[..len]
            }
            Io::InPlace(buf) => &mut buf[..len],
        };
        let (ivlen, m, enc) = (self.ivlen(), self.m, self.enc);
        let nonce = self.iv;
        let aad = core::mem::take(&mut self.aad);
        let tag = self.tag;
        let ccm = self.keyed()?;
        let r = if enc {
            ccm.seal_in_place_detached(&nonce[..ivlen], &aad, buf)
                .map(|t| Some(t.as_bytes()[..m].to_vec()))
        } else {
            ccm.open_in_place_detached(&nonce[..ivlen], &aad, buf, &tag[..m])
                .map(|()| None)
        };
        count_bytes(len + aad.len());
        match r {
            Ok(Some(t)) => {
                self.tag[..m].copy_from_slice(&t);
                self.tag_set = true;
                Ok(())
            }
            Ok(None) => {
                self.iv_set = false;
                self.tag_set = false;
                self.len = None;
                Ok(())
            }
            Err(_) => Err(Fail::BadDecrypt),
        }
    }

    /// One TLS 1.2 CCM record in place (`ccm_tls_cipher`): explicit nonce
    /// (the record's sequence number when sealing), payload, tag. Returns
    /// the output length.
    pub fn tls_record(&mut self, rec: &mut [u8]) -> Result<usize, Fail> {
        let Some(aad) = self.tls_aad else {
            return Err(Fail::Unsupported);
        };
        if !self.key_set {
            return Err(Fail::NoKeySet);
        }
        let m = self.m;
        if rec.len() < TLS_EXPLICIT_IV + m || self.ivlen() != TLS_FIXED_IV + TLS_EXPLICIT_IV {
            return Err(Fail::Unsupported);
        }
        if self.enc {
            rec[..TLS_EXPLICIT_IV].copy_from_slice(&aad[..TLS_EXPLICIT_IV]);
        }
        self.iv[TLS_FIXED_IV..TLS_FIXED_IV + TLS_EXPLICIT_IV]
            .copy_from_slice(&rec[..TLS_EXPLICIT_IV]);
        let nonce = self.iv;
        let enc = self.enc;
        let body = &mut rec[TLS_EXPLICIT_IV..];
        let (payload, tag) = body.split_at_mut(body.len() - m);
        let ccm = self.keyed()?;
        let n = TLS_FIXED_IV + TLS_EXPLICIT_IV;
        if enc {
            let t = ccm
                .seal_in_place_detached(&nonce[..n], &aad, payload)
                .map_err(|_| Fail::Unsupported)?;
            tag.copy_from_slice(&t.as_bytes()[..m]);
        } else {
            ccm.open_in_place_detached(&nonce[..n], &aad, payload, tag)
                .map_err(|_| Fail::BadDecrypt)?;
        }
        let len = payload.len();
        count_bytes(len + TLS_AAD_LEN);
        Ok(if enc { rec.len() } else { len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openssl_order_seals_and_opens() {
        let key = [9u8; 16];
        let nonce = [1u8; 13];
        let mut e = CcmCtx::new(16, Backend::Soft);
        assert_eq!(e.ivlen(), 7);
        e.set_ivlen(13).unwrap();
        e.set_tag(16, None).unwrap();
        e.init(Some(&key), Some(&nonce), true).unwrap();
        e.set_len(5).unwrap();
        e.aad(b"head").unwrap();
        assert_eq!(e.aad(b"more"), Err(Fail::Unsupported));
        let mut data = *b"hello";
        e.crypt(Io::InPlace(&mut data), 5).unwrap();
        let tag = e.get_tag(16).unwrap().to_vec();
        assert_eq!(e.get_tag(16), Err(Fail::Unsupported), "read once");
        let want = Ccm::with_backend(&key, 16, Backend::Soft)
            .unwrap()
            .seal(&nonce, b"head", b"hello")
            .unwrap();
        assert_eq!([&data[..], &tag[..]].concat(), want);

        let mut d = CcmCtx::new(16, Backend::Soft);
        d.set_ivlen(13).unwrap();
        d.init(None, None, false).unwrap();
        d.set_tag(16, Some(&tag)).unwrap();
        d.init(Some(&key), Some(&nonce), false).unwrap();
        d.set_len(5).unwrap();
        d.aad(b"head").unwrap();
        let mut ct = data;
        d.crypt(Io::InPlace(&mut ct), 5).unwrap();
        assert_eq!(&ct, b"hello");
        // A forged tag fails in the update and zeroes the output.
        let mut bad = tag.clone();
        bad[0] ^= 1;
        d.set_tag(16, Some(&bad)).unwrap();
        d.init(None, Some(&nonce), false).unwrap();
        d.set_len(5).unwrap();
        d.aad(b"head").unwrap();
        let mut ct = data;
        assert_eq!(d.crypt(Io::InPlace(&mut ct), 5), Err(Fail::BadDecrypt));
        assert_eq!(ct, [0u8; 5]);
    }

    #[test]
    fn lengths_are_checked() {
        let mut c = CcmCtx::new(16, Backend::Soft);
        assert_eq!(c.set_ivlen(6), Err(Fail::InvalidIvLength));
        assert_eq!(c.set_ivlen(14), Err(Fail::InvalidIvLength));
        assert_eq!(c.set_tag(5, None), Err(Fail::Unsupported));
        assert_eq!(c.set_tag(18, None), Err(Fail::Unsupported));
        assert_eq!(c.set_tag(2, None), Err(Fail::Unsupported));
        assert_eq!(
            c.init(None, Some(&[0u8; 12]), true),
            Err(Fail::InvalidIvLength)
        );
        c.set_ivlen(13).unwrap();
        c.init(Some(&[0u8; 16]), Some(&[0u8; 13]), true).unwrap();
        assert_eq!(c.set_len(1 << 16), Err(Fail::Unsupported), "L = 2");
        c.set_len(3).unwrap();
        assert_eq!(
            c.crypt(Io::InPlace(&mut [0u8; 4]), 4),
            Err(Fail::Unsupported)
        );
        assert_eq!(c.get_tag(12), Err(Fail::Unsupported), "no message sealed");
        let mut d = CcmCtx::new(16, Backend::Soft);
        d.init(Some(&[0u8; 16]), Some(&[0u8; 7]), false).unwrap();
        assert_eq!(
            d.crypt(Io::InPlace(&mut [0u8; 4]), 4),
            Err(Fail::Unsupported),
            "no tag"
        );
    }
}
