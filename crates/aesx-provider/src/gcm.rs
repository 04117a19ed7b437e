//! AES-GCM contexts with the semantics of OpenSSL 3's
//! `ciphercommon_gcm.c`: the IV is buffered at init and applied at the
//! first update; AAD is an update with no output buffer; the tag is read
//! after an encrypting final and must be set (1 to 16 bytes) before a
//! decrypting final, which compares that many bytes; after a final the
//! context refuses more data until a new IV is given. The TLS 1.2 record
//! path (`tlsaad`, `tlsivfixed`, `tlsivgen`, `tlsivinv`) is in `gcm/tls.rs`.

use aesx::hazmat::GcmStreamHazmat;
use aesx::{ct_eq, Backend, Gcm};
use zeroize::Zeroize;

use crate::block::{Fail, Io};
use crate::counter::count_bytes;

mod tls;
pub use tls::{TLS_AAD_LEN, TLS_EXPLICIT_IV, TLS_FIXED_IV, TLS_TAG};

/// OpenSSL's `GCM_IV_MAX_SIZE` (1024 bits).
pub const IV_MAX: usize = 128;
/// The default IV length.
pub const IV_DEFAULT: usize = 12;
/// `GCM_TAG_MAX_SIZE`.
pub const TAG_MAX: usize = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IvState {
    Uninitialised,
    Buffered,
    Copied,
    Finished,
}

/// One GCM operation as OpenSSL's `PROV_GCM_CTX` holds it.
#[derive(Clone)]
pub struct GcmCtx {
    pub keylen: usize,
    ivlen: usize,
    iv: [u8; IV_MAX],
    iv_state: IvState,
    enc: bool,
    /// The key and the running message: started under a placeholder nonce
    /// when the key is set, restarted under the IV when data begins.
    stream: Option<GcmStreamHazmat>,
    /// The key as given, so that setting the same key again (applications
    /// and `openssl speed` do, per message) skips the expansion.
    key_bytes: [u8; 32],
    /// None: OpenSSL's `UNINITIALISED_SIZET` (no tag set or computed).
    taglen: Option<usize>,
    tag: [u8; TAG_MAX],
    backend: Backend,
    /// The IV's invocation field is counted or taken from records
    /// (`iv_gen` in OpenSSL: set by `tlsivfixed`).
    iv_gen: bool,
    /// Whether the IV (or its invocation field) was drawn at random here
    /// (`iv-generated`, reported from OpenSSL 3.6 on).
    pub(crate) iv_random: bool,
    /// The AAD of the next TLS 1.2 record (its length field corrected for
    /// the explicit nonce and tag), set by `tlsaad`: the next update is
    /// that whole record, in place.
    tls_aad: Option<[u8; TLS_AAD_LEN]>,
    /// What `tlsaad` answered (`tlsaadpad`): the tag length, or 0.
    tls_aad_pad: usize,
    /// Records encrypted under this key (refused once it would wrap).
    tls_enc_records: u64,
}

impl Drop for GcmCtx {
    fn drop(&mut self) {
        self.key_bytes.zeroize();
        self.tag.zeroize();
    }
}

impl GcmCtx {
    pub fn new(keylen: usize, backend: Backend) -> Self {
        GcmCtx {
            keylen,
            ivlen: IV_DEFAULT,
            iv: [0; IV_MAX],
            iv_state: IvState::Uninitialised,
            enc: true,
            stream: None,
            key_bytes: [0; 32],
            taglen: None,
            tag: [0; TAG_MAX],
            backend,
            iv_gen: false,
            iv_random: false,
            tls_aad: None,
            tls_aad_pad: 0,
            tls_enc_records: 0,
        }
    }

    /// `gcm_init`: a new IV (buffered) and/or key; the tag state stays.
    pub fn init(&mut self, key: Option<&[u8]>, iv: Option<&[u8]>, enc: bool) -> Result<(), Fail> {
        self.enc = enc;
        if let Some(iv) = iv {
            if iv.is_empty() || iv.len() > IV_MAX {
                return Err(Fail::InvalidIvLength);
            }
            self.ivlen = iv.len();
            self.iv[..iv.len()].copy_from_slice(iv);
            self.iv_state = IvState::Buffered;
            self.iv_random = false;
        }
        if let Some(key) = key {
            if key.len() != self.keylen {
                return Err(Fail::InvalidKeyLength);
            }
            let same = self.stream.is_some() && ct_eq(&self.key_bytes[..key.len()], key);
            if !same {
                let gcm =
                    Gcm::with_backend(key, self.backend).map_err(|_| Fail::InvalidKeyLength)?;
                let placeholder = [0u8; IV_DEFAULT];
                let s =
                    GcmStreamHazmat::new(&gcm, &placeholder).map_err(|_| Fail::InvalidKeyLength)?;
                self.stream = Some(s);
                self.key_bytes[..key.len()].copy_from_slice(key);
            }
            self.tls_enc_records = 0;
            if self.iv_state == IvState::Copied {
                // A new key in the middle of a message: OpenSSL 3.0 goes on
                // from a zeroed GCM state (counter 0, the keystream of any
                // other message so reset); refuse until a new IV instead.
                self.iv_state = IvState::Finished;
            }
        }
        Ok(())
    }

    pub fn ivlen(&self) -> usize {
        self.ivlen
    }

    /// The `ivlen` parameter: 1 to 128 bytes.
    pub fn set_ivlen(&mut self, n: usize) -> Result<(), Fail> {
        if n == 0 || n > IV_MAX {
            return Err(Fail::InvalidIvLength);
        }
        self.ivlen = n;
        Ok(())
    }

    /// The `taglen` parameter: the tag set or computed, else 16.
    pub fn taglen(&self) -> usize {
        self.taglen.unwrap_or(TAG_MAX)
    }

    /// The IV (`iv` and `updated-iv`), once one was given.
    pub fn iv(&self) -> Option<&[u8]> {
        (self.iv_state != IvState::Uninitialised).then_some(&self.iv[..self.ivlen])
    }

    /// The first `n` bytes of the tag of the last encryption.
    pub fn get_tag(&self, n: usize) -> Result<&[u8], Fail> {
        if n == 0 || n > TAG_MAX || !self.enc || self.taglen.is_none() {
            return Err(Fail::Unsupported);
        }
        Ok(&self.tag[..n])
    }

    /// The tag a decryption will be checked against (1 to 16 bytes).
    pub fn set_tag(&mut self, tag: &[u8]) -> Result<(), Fail> {
        if tag.is_empty() || tag.len() > TAG_MAX || self.enc {
            return Err(Fail::Unsupported);
        }
        self.tag[..tag.len()].copy_from_slice(tag);
        self.taglen = Some(tag.len());
        Ok(())
    }

    /// The running message, started from the buffered IV if need be.
    fn stream(&mut self) -> Result<&mut GcmStreamHazmat, Fail> {
        if self.stream.is_none() {
            return Err(Fail::NoKeySet);
        }
        if self.iv_state == IvState::Uninitialised {
            // OpenSSL's gcm_iv_generate: an encryption with no IV gets a
            // random one of at least 96 bits (readable as `iv` afterwards).
            if !self.enc || self.ivlen < IV_DEFAULT {
                return Err(Fail::Unsupported);
            }
            getrandom::fill(&mut self.iv[..self.ivlen]).map_err(|_| Fail::Unsupported)?;
            self.iv_state = IvState::Buffered;
            self.iv_random = true;
        }
        let Some(stream) = self.stream.as_mut() else {
            return Err(Fail::NoKeySet);
        };
        match self.iv_state {
            IvState::Uninitialised | IvState::Finished => return Err(Fail::Unsupported),
            IvState::Buffered => {
                stream
                    .restart(&self.iv[..self.ivlen])
                    .map_err(|_| Fail::InvalidIvLength)?;
                self.iv_state = IvState::Copied;
            }
            IvState::Copied => {}
        }
        Ok(stream)
    }

    /// More associated data (an update with no output buffer).
    pub fn aad(&mut self, aad: &[u8]) -> Result<(), Fail> {
        if self.tls_aad.is_some() {
            return self.tls_abandon();
        }
        self.stream()?.aad(aad).map_err(|_| Fail::Unsupported)?;
        count_bytes(aad.len());
        Ok(())
    }

    /// More data: `io` holds `len` input bytes and room for as many.
    pub fn crypt(&mut self, io: Io<'_>, len: usize) -> Result<(), Fail> {
        if self.tls_aad.is_some() {
            // A TLS record must be given in place (see `tls_record`).
            return self.tls_abandon();
        }
        let enc = self.enc;
        let s = self.stream()?;
        let r = match io {
            Io::Split { src, dst } if enc => s.encrypt_to(src, &mut dst[..len]),
            Io::Split { src, dst } => s.decrypt_to(src, &mut dst[..len]),
            Io::InPlace(buf) if enc => s.encrypt_in_place(&mut buf[..len]),
            Io::InPlace(buf) => s.decrypt_in_place(&mut buf[..len]),
        };
        r.map_err(|_| Fail::Unsupported)?;
        count_bytes(len);
        Ok(())
    }

    /// The final: computes the tag (encrypting) or checks the one set
    /// (decrypting); the IV is spent either way it succeeds.
    pub fn finalize(&mut self) -> Result<(), Fail> {
        if self.tls_aad.is_some() {
            // A TLS record is one in-place update; a final is not one.
            return self.tls_abandon();
        }
        let enc = self.enc;
        if !enc && self.taglen.is_none() {
            // Checked before the IV is applied, as OpenSSL does.
            if self.stream.is_none()
                || matches!(self.iv_state, IvState::Uninitialised | IvState::Finished)
            {
                return Err(Fail::Unsupported);
            }
            return Err(Fail::BadDecrypt);
        }
        let computed = self.stream()?.tag();
        if enc {
            self.tag.copy_from_slice(computed.as_bytes());
            self.taglen = Some(TAG_MAX);
        } else {
            let n = self.taglen.unwrap_or(TAG_MAX);
            if !ct_eq(&computed.as_bytes()[..n], &self.tag[..n]) {
                return Err(Fail::BadDecrypt);
            }
        }
        self.iv_state = IvState::Finished;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(key: &[u8], iv: &[u8], enc: bool) -> GcmCtx {
        let mut c = GcmCtx::new(key.len(), Backend::Soft);
        c.init(Some(key), Some(iv), enc).unwrap();
        c
    }

    #[test]
    fn seal_then_open_with_short_tags_and_failures() {
        let key = [1u8; 16];
        let iv = [2u8; 12];
        let mut e = ctx(&key, &iv, true);
        assert_eq!(e.get_tag(16), Err(Fail::Unsupported), "no tag before final");
        e.aad(b"head").unwrap();
        e.aad(b"er").unwrap();
        let mut ct = *b"some plaintext";
        e.crypt(Io::InPlace(&mut ct), 14).unwrap();
        assert_eq!(e.aad(b"late"), Err(Fail::Unsupported));
        e.finalize().unwrap();
        let tag = e.get_tag(16).unwrap().to_vec();
        assert_eq!(
            e.crypt(Io::InPlace(&mut [0u8; 1]), 1),
            Err(Fail::Unsupported),
            "IV spent"
        );
        let gcm = Gcm::with_backend(&key, Backend::Soft).unwrap();
        let mut want = *b"some plaintext";
        let t = gcm
            .seal_in_place_detached(&iv, b"header", &mut want)
            .unwrap();
        assert_eq!((&ct, tag.as_slice()), (&want, t.as_bytes()));

        for n in [16usize, 12, 1] {
            let mut d = ctx(&key, &iv, false);
            assert_eq!(d.get_tag(16), Err(Fail::Unsupported));
            d.aad(b"header").unwrap();
            let mut pt = ct;
            d.crypt(Io::InPlace(&mut pt), 14).unwrap();
            let mut dup = d.clone();
            assert_eq!(d.finalize(), Err(Fail::BadDecrypt), "tag not set");
            d.set_tag(&tag[..n]).unwrap();
            d.finalize().unwrap();
            assert_eq!(&pt, b"some plaintext");
            let mut bad = tag.clone();
            bad[n - 1] ^= 1;
            dup.set_tag(&bad[..n]).unwrap();
            assert_eq!(dup.finalize(), Err(Fail::BadDecrypt));
        }
        let mut d = ctx(&key, &iv, false);
        assert_eq!(d.set_tag(&[0u8; 17]), Err(Fail::Unsupported));
        assert_eq!(d.set_tag(&[]), Err(Fail::Unsupported));
        let mut e = ctx(&key, &iv, true);
        assert_eq!(e.set_tag(&[0u8; 16]), Err(Fail::Unsupported));
    }

    #[test]
    fn iv_lengths_and_missing_state() {
        let mut c = GcmCtx::new(32, Backend::Soft);
        assert_eq!(c.aad(b"x"), Err(Fail::NoKeySet));
        assert_eq!(
            c.init(Some(&[0u8; 16]), None, true),
            Err(Fail::InvalidKeyLength)
        );
        c.init(Some(&[0u8; 32]), None, false).unwrap();
        assert_eq!(
            c.aad(b"x"),
            Err(Fail::Unsupported),
            "no IV to decrypt under"
        );
        assert_eq!(c.iv(), None);
        // Encrypting without an IV draws one, as OpenSSL does.
        c.init(None, None, true).unwrap();
        c.aad(b"x").unwrap();
        let drawn = c.iv().unwrap().to_vec();
        assert_eq!(drawn.len(), 12);
        assert_ne!(drawn, [0u8; 12]);
        // A new key mid-message: refused until a new IV.
        c.init(Some(&[0u8; 32]), None, true).unwrap();
        assert_eq!(c.aad(b"x"), Err(Fail::Unsupported));
        c.init(None, Some(&drawn), true).unwrap();
        c.aad(b"x").unwrap();
        // The same key set again is not expanded again; another one is.
        let mut c = GcmCtx::new(32, Backend::Soft);
        c.init(Some(&[1u8; 32]), Some(&[7u8; 12]), true).unwrap();
        let mut one = [0u8; 20];
        c.crypt(Io::InPlace(&mut one), 20).unwrap();
        c.finalize().unwrap();
        c.init(Some(&[1u8; 32]), Some(&[7u8; 12]), true).unwrap();
        let mut again = [0u8; 20];
        c.crypt(Io::InPlace(&mut again), 20).unwrap();
        assert_eq!(one, again);
        c.init(Some(&[2u8; 32]), Some(&[7u8; 12]), true).unwrap();
        let mut other = [0u8; 20];
        c.crypt(Io::InPlace(&mut other), 20).unwrap();
        assert_ne!(one, other);
        let mut c = GcmCtx::new(32, Backend::Soft);
        c.init(Some(&[0u8; 32]), None, true).unwrap();
        assert_eq!(c.set_ivlen(0), Err(Fail::InvalidIvLength));
        assert_eq!(c.set_ivlen(129), Err(Fail::InvalidIvLength));
        c.set_ivlen(1).unwrap();
        assert_eq!(c.init(None, Some(&[]), true), Err(Fail::InvalidIvLength));
        c.init(None, Some(&[7u8]), true).unwrap();
        assert_eq!(c.iv(), Some(&[7u8][..]));
        let gcm = Gcm::with_backend(&[0u8; 32], Backend::Soft).unwrap();
        let mut want = [5u8; 3];
        let t = gcm.seal_in_place_detached(&[7u8], &[], &mut want).unwrap();
        let mut got = [5u8; 3];
        c.crypt(Io::InPlace(&mut got), 3).unwrap();
        c.finalize().unwrap();
        assert_eq!((got, c.get_tag(16).unwrap()), (want, t.as_bytes()));
    }
}
