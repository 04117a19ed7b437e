//! GCM's TLS 1.2 record path (RFC 5288), with the semantics of OpenSSL 3's
//! `ciphercommon_gcm.c`: libssl sets the 4-byte fixed IV from the handshake
//! once (`tlsivfixed`: an encrypting context draws the 8-byte invocation
//! field at random, then counts it up per record), and for every record
//! the 13-byte AAD (`tlsaad`, answered with the 16 bytes of tag the record
//! carries, `tlsaadpad`), then one in-place update over the whole record:
//! explicit nonce (8 bytes, written when encrypting, read when decrypting),
//! payload, tag. `tlsivgen`/`tlsivinv` hand the explicit nonce out or take
//! it in for callers that build the record themselves.

use aesx::BLOCK_LEN;

use super::{GcmCtx, IvState};
use crate::block::Fail;
use crate::counter::count_bytes;

/// `EVP_AEAD_TLS1_AAD_LEN`: sequence number, type, version, length.
pub const TLS_AAD_LEN: usize = 13;
/// `EVP_GCM_TLS_FIXED_IV_LEN`: the implicit part of the nonce.
pub const TLS_FIXED_IV: usize = 4;
/// `EVP_GCM_TLS_EXPLICIT_IV_LEN`: the nonce part that leads each record.
pub const TLS_EXPLICIT_IV: usize = 8;
/// `EVP_GCM_TLS_TAG_LEN`.
pub const TLS_TAG: usize = BLOCK_LEN;

impl GcmCtx {
    /// Whether the next update is a TLS record (`tlsaad` was set).
    pub fn tls_pending(&self) -> bool {
        self.tls_aad.is_some()
    }

    /// `tlsaadpad`: what the last `tlsaad` answered.
    pub fn tls_aad_pad(&self) -> usize {
        self.tls_aad_pad
    }

    /// `tlsaad`: the record's AAD, whose length field counts the explicit
    /// nonce (and, when decrypting, the tag); stored with the payload's
    /// length. Returns the tag length the record carries.
    pub fn tls_set_aad(&mut self, aad: &[u8]) -> Result<usize, Fail> {
        let mut buf: [u8; TLS_AAD_LEN] = aad.try_into().map_err(|_| Fail::Unsupported)?;
        let declared = usize::from(u16::from_be_bytes([buf[11], buf[12]]));
        let overhead = if self.enc {
            TLS_EXPLICIT_IV
        } else {
            TLS_EXPLICIT_IV + TLS_TAG
        };
        let payload = declared.checked_sub(overhead).ok_or(Fail::Unsupported)?;
        buf[11..].copy_from_slice(&(payload as u16).to_be_bytes());
        self.tls_aad = Some(buf);
        self.tls_aad_pad = TLS_TAG;
        Ok(TLS_TAG)
    }

    /// `tlsivfixed`: the fixed field (at least 4 bytes, leaving at least 8
    /// for the invocation field, which an encrypting context draws at
    /// random); records then count the IV.
    pub fn tls_set_fixed(&mut self, fixed: &[u8]) -> Result<(), Fail> {
        let n = fixed.len();
        if n < TLS_FIXED_IV || n > self.ivlen || self.ivlen - n < TLS_EXPLICIT_IV {
            return Err(Fail::InvalidIvLength);
        }
        self.iv[..n].copy_from_slice(fixed);
        if self.enc {
            getrandom::fill(&mut self.iv[n..self.ivlen]).map_err(|_| Fail::Unsupported)?;
        }
        self.iv_random = self.enc;
        self.iv_gen = true;
        self.iv_state = IvState::Buffered;
        Ok(())
    }

    /// `tlsivfixed` with length -1 (`EVP_CTRL_GCM_SET_IV_FIXED`, -1): the
    /// whole IV, `ivlen` bytes, no random part.
    pub fn tls_restore_iv(&mut self, iv: &[u8]) -> Result<(), Fail> {
        if iv.len() != self.ivlen {
            return Err(Fail::InvalidIvLength);
        }
        self.iv[..iv.len()].copy_from_slice(iv);
        self.iv_random = false;
        self.iv_gen = true;
        self.iv_state = IvState::Buffered;
        Ok(())
    }

    /// `tlsivgen`: starts a message under the current IV, hands out its
    /// last `out.len()` bytes (all of it if `out` is longer) and counts the
    /// invocation field up for the next one.
    pub fn tls_iv_gen(&mut self, out: &mut [u8]) -> Result<(), Fail> {
        if !self.iv_gen || out.is_empty() {
            return Err(Fail::Unsupported);
        }
        let ivlen = self.ivlen;
        let Some(stream) = self.stream.as_mut() else {
            return Err(Fail::NoKeySet);
        };
        stream
            .restart(&self.iv[..ivlen])
            .map_err(|_| Fail::InvalidIvLength)?;
        let n = out.len().min(ivlen);
        out[..n].copy_from_slice(&self.iv[ivlen - n..ivlen]);
        self.count_invocation();
        self.iv_state = IvState::Copied;
        Ok(())
    }

    /// `tlsivinv`: a decrypting context takes the record's explicit nonce
    /// as the IV's last bytes and starts a message under it.
    pub fn tls_iv_inv(&mut self, inv: &[u8]) -> Result<(), Fail> {
        if !self.iv_gen || self.enc || inv.len() > self.ivlen {
            return Err(Fail::Unsupported);
        }
        let ivlen = self.ivlen;
        let Some(stream) = self.stream.as_mut() else {
            return Err(Fail::NoKeySet);
        };
        self.iv[ivlen - inv.len()..ivlen].copy_from_slice(inv);
        stream
            .restart(&self.iv[..ivlen])
            .map_err(|_| Fail::InvalidIvLength)?;
        self.iv_state = IvState::Copied;
        Ok(())
    }

    /// The invocation field (the IV's last 8 bytes) plus one, big-endian,
    /// wrapping as OpenSSL's `ctr64_inc`.
    fn count_invocation(&mut self) {
        let ivlen = self.ivlen;
        let field = &mut self.iv[ivlen.saturating_sub(TLS_EXPLICIT_IV)..ivlen];
        for b in field.iter_mut().rev() {
            *b = b.wrapping_add(1);
            if *b != 0 {
                break;
            }
        }
    }

    /// A TLS record was announced and anything but the record came.
    pub(super) fn tls_abandon(&mut self) -> Result<(), Fail> {
        self.tls_aad = None;
        self.iv_state = IvState::Finished;
        Err(Fail::Unsupported)
    }

    /// One TLS 1.2 record in place: explicit nonce, payload, tag.
    /// Encrypting writes the nonce and the tag and returns the record's
    /// length; decrypting checks the tag (the payload is zeroed when it
    /// does not match) and returns the payload's length. The IV is spent
    /// and the AAD used up either way.
    pub fn tls_record(&mut self, rec: &mut [u8]) -> Result<usize, Fail> {
        let aad = self.tls_aad.take();
        let r = match aad {
            Some(aad) => self.tls_record_with(&aad, rec),
            None => Err(Fail::Unsupported),
        };
        self.iv_state = IvState::Finished;
        r
    }

    fn tls_record_with(&mut self, aad: &[u8], rec: &mut [u8]) -> Result<usize, Fail> {
        if self.stream.is_none() {
            return Err(Fail::NoKeySet);
        }
        if rec.len() < TLS_EXPLICIT_IV + TLS_TAG || !self.iv_gen {
            return Err(Fail::Unsupported);
        }
        let ivlen = self.ivlen;
        let n = TLS_EXPLICIT_IV.min(ivlen);
        if self.enc {
            // The last record a key may encrypt (OpenSSL's count too).
            self.tls_enc_records = self
                .tls_enc_records
                .checked_add(1)
                .ok_or(Fail::Unsupported)?;
            rec[..n].copy_from_slice(&self.iv[ivlen - n..ivlen]);
        } else {
            self.iv[ivlen - n..ivlen].copy_from_slice(&rec[..n]);
        }
        let mut nonce = [0u8; super::IV_MAX];
        nonce[..ivlen].copy_from_slice(&self.iv[..ivlen]);
        if self.enc {
            self.count_invocation();
        }
        let Some(stream) = self.stream.as_ref() else {
            return Err(Fail::NoKeySet);
        };
        let gcm = stream.gcm();
        let body = &mut rec[TLS_EXPLICIT_IV..];
        let (payload, tag) = body.split_at_mut(body.len() - TLS_TAG);
        let len = payload.len();
        if self.enc {
            let t = gcm
                .seal_in_place_detached(&nonce[..ivlen], aad, payload)
                .map_err(|_| Fail::Unsupported)?;
            tag.copy_from_slice(t.as_bytes());
        } else {
            // Zeroes the payload when the tag does not match.
            gcm.open_in_place_detached(&nonce[..ivlen], aad, payload, tag)
                .map_err(|_| Fail::BadDecrypt)?;
        }
        count_bytes(len + aad.len());
        Ok(if self.enc { rec.len() } else { len })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::Io;
    use aesx::{Backend, Gcm};

    const KEY: [u8; 16] = [0x11; 16];
    const IV: [u8; 12] = [1, 2, 3, 4, 0, 0, 0, 0, 0, 0, 0, 0xfe];

    fn aad(len: usize) -> [u8; TLS_AAD_LEN] {
        let mut a = [0u8; TLS_AAD_LEN];
        a[8] = 23;
        a[9] = 3;
        a[10] = 3;
        a[11..].copy_from_slice(&(len as u16).to_be_bytes());
        a
    }

    fn ctx(enc: bool) -> GcmCtx {
        let mut c = GcmCtx::new(16, Backend::Soft);
        c.init(Some(&KEY), None, enc).unwrap();
        c
    }

    #[test]
    fn records_seal_count_the_nonce_and_open() {
        let gcm = Gcm::with_backend(&KEY, Backend::Soft).unwrap();
        let mut e = ctx(true);
        e.tls_restore_iv(&IV).unwrap();
        let mut d = ctx(false);
        d.tls_set_fixed(&IV[..4]).unwrap();
        for (i, n) in [0usize, 1, 100].into_iter().enumerate() {
            let mut rec = vec![0u8; TLS_EXPLICIT_IV + n + TLS_TAG];
            rec[8..8 + n].fill(0x5a);
            assert_eq!(e.tls_set_aad(&aad(n + 8)), Ok(TLS_TAG));
            assert_eq!(e.tls_record(&mut rec), Ok(n + 24));
            // The explicit nonce is the IV's last 8 bytes, counted up.
            let mut nonce = IV;
            let ctr = u64::from_be_bytes(IV[4..].try_into().unwrap()) + i as u64;
            nonce[4..].copy_from_slice(&ctr.to_be_bytes());
            assert_eq!(&rec[..8], &nonce[4..]);
            let mut want = vec![0x5au8; n];
            let t = gcm
                .seal_in_place_detached(&nonce, &aad(n), &mut want)
                .unwrap();
            assert_eq!((&rec[8..8 + n], &rec[8 + n..]), (&want[..], t.as_bytes()));
            assert_eq!(d.tls_set_aad(&aad(rec.len())), Ok(TLS_TAG));
            let mut forged = rec.clone();
            assert_eq!(d.tls_record(&mut rec), Ok(n));
            assert_eq!(&rec[8..8 + n], &vec![0x5au8; n][..]);
            if n > 0 {
                forged[8] ^= 1;
                d.tls_set_aad(&aad(forged.len())).unwrap();
                assert_eq!(d.tls_record(&mut forged), Err(Fail::BadDecrypt));
                assert!(forged[8..8 + n].iter().all(|&b| b == 0), "zeroed");
            }
        }
    }

    #[test]
    fn iv_gen_and_inv_run_a_streamed_record() {
        let mut e = ctx(true);
        e.tls_restore_iv(&IV).unwrap();
        let mut explicit = [0u8; 8];
        e.tls_iv_gen(&mut explicit).unwrap();
        assert_eq!(explicit, IV[4..]);
        e.aad(b"hdr").unwrap();
        let mut data = *b"payload";
        e.crypt(Io::InPlace(&mut data), 7).unwrap();
        e.finalize().unwrap();
        let tag = e.get_tag(16).unwrap().to_vec();
        let mut d = ctx(false);
        d.tls_set_fixed(&IV[..4]).unwrap();
        d.tls_iv_inv(&explicit).unwrap();
        d.aad(b"hdr").unwrap();
        d.crypt(Io::InPlace(&mut data), 7).unwrap();
        d.set_tag(&tag).unwrap();
        d.finalize().unwrap();
        assert_eq!(&data, b"payload");
        // The next generated nonce is one more.
        e.tls_iv_gen(&mut explicit).unwrap();
        assert_eq!(explicit[7], 0xff);
        e.tls_iv_gen(&mut explicit).unwrap();
        assert_eq!(explicit, [0, 0, 0, 0, 0, 0, 1, 0]);
    }

    #[test]
    fn misuse_is_refused() {
        let mut e = ctx(true);
        assert_eq!(e.tls_set_aad(&[0u8; 12]), Err(Fail::Unsupported));
        assert_eq!(e.tls_set_aad(&aad(7)), Err(Fail::Unsupported));
        let mut d = ctx(false);
        assert_eq!(d.tls_set_aad(&aad(23)), Err(Fail::Unsupported));
        assert_eq!(e.tls_set_fixed(&[0u8; 3]), Err(Fail::InvalidIvLength));
        assert_eq!(e.tls_set_fixed(&[0u8; 5]), Err(Fail::InvalidIvLength));
        // No fixed IV yet: no generation, no record.
        assert_eq!(e.tls_iv_gen(&mut [0u8; 8]), Err(Fail::Unsupported));
        e.tls_set_aad(&aad(8)).unwrap();
        assert_eq!(e.tls_record(&mut [0u8; 24]), Err(Fail::Unsupported));
        e.tls_set_fixed(&[9u8; 4]).unwrap();
        assert_ne!(e.iv().unwrap()[4..], [0u8; 8], "random invocation field");
        e.tls_set_aad(&aad(8)).unwrap();
        assert_eq!(e.tls_record(&mut [0u8; 23]), Err(Fail::Unsupported));
        // A record announced, then a final or AAD: refused, AAD dropped.
        e.tls_set_fixed(&[9u8; 4]).unwrap();
        e.tls_set_aad(&aad(8)).unwrap();
        assert_eq!(e.finalize(), Err(Fail::Unsupported));
        assert!(!e.tls_pending());
        assert_eq!(
            e.tls_iv_inv(&[0u8; 8]),
            Err(Fail::Unsupported),
            "encrypting"
        );
    }
}
