//! An owned, clonable streaming GCM state ([`GcmStreamHazmat`]) for callers
//! that keep one message's state in a long-lived, duplicable object (the
//! OpenSSL provider's cipher contexts: `EVP_CIPHER_CTX_copy` mid-stream).
//! [`GcmEncryptor`](crate::GcmEncryptor) and
//! [`GcmDecryptorHazmat`](crate::hazmat::GcmDecryptorHazmat) borrow their
//! [`Gcm`] and cannot be cloned; this one owns a clone of the key.
//!
//! The running state is `gcm_stream::State`, the one every streaming form
//! holds; this type owns the key beside it.

use super::gcm::Gcm;
use super::gcm_stream::State;
use super::tag::Tag;
use crate::backend::InOut;
use crate::error::Result;

/// Streaming GCM that owns its key and can be cloned mid-message.
///
/// **Hazardous** in decryption as [`GcmDecryptorHazmat`](crate::hazmat::GcmDecryptorHazmat) is: every
/// `decrypt_*` call hands out plaintext before the tag is checked; the
/// caller compares [`tag`](Self::tag) with the received tag (in constant
/// time, e.g. [`ct_eq`](crate::ct_eq)) and discards the plaintext when they
/// differ. Encryption is as safe as [`GcmEncryptor`](crate::GcmEncryptor).
///
/// Order: [`aad`](Self::aad) any number of times, then data in pieces of
/// any size, then [`tag`](Self::tag); splitting the data differently gives
/// the same output and tag, and a clone continues independently.
#[derive(Clone)]
pub struct GcmStreamHazmat {
    gcm: Gcm,
    state: State,
}

impl Drop for GcmStreamHazmat {
    fn drop(&mut self) {
        self.state.wipe();
    }
}

impl core::fmt::Debug for GcmStreamHazmat {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("GcmStreamHazmat")
            .field("gcm", &self.gcm)
            .finish_non_exhaustive()
    }
}

impl GcmStreamHazmat {
    /// Starts a message under `nonce` (any non-empty length) with a clone
    /// of `gcm` (its key, backend and tag length).
    pub fn new(gcm: &Gcm, nonce: &[u8]) -> Result<Self> {
        Ok(GcmStreamHazmat {
            state: State::new(gcm, nonce)?,
            gcm: gcm.clone(),
        })
    }

    /// Abandons the running message and starts a new one under `nonce`
    /// with the same key, without copying the key again (the cheap way to
    /// run many messages). On an error (an empty nonce) nothing changes.
    pub fn restart(&mut self, nonce: &[u8]) -> Result<()> {
        let fresh = State::new(&self.gcm, nonce)?;
        self.state.wipe();
        self.state = fresh;
        Ok(())
    }

    /// The key this stream runs under.
    pub fn gcm(&self) -> &Gcm {
        &self.gcm
    }

    /// Hashes more associated data: [`Error::InvalidState`](crate::Error::InvalidState) once data has
    /// started, [`Error::AadTooLong`](crate::Error::AadTooLong) past 2^61 - 1 bytes in all.
    pub fn aad(&mut self, aad: &[u8]) -> Result<()> {
        self.state.aad(&self.gcm, aad)
    }

    /// Encrypts the next piece in place.
    pub fn encrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.state.crypt(&self.gcm, InOut::in_place(buf), true)
    }

    /// Encrypts the next piece from `pt` into `ct` (equal lengths).
    pub fn encrypt_to(&mut self, pt: &[u8], ct: &mut [u8]) -> Result<()> {
        self.state.crypt(&self.gcm, InOut::new(pt, ct)?, true)
    }

    /// Decrypts the next piece in place; the result is unauthenticated.
    pub fn decrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.state.crypt(&self.gcm, InOut::in_place(buf), false)
    }

    /// Decrypts the next piece from `ct` into `pt` (equal lengths); the
    /// result is unauthenticated.
    pub fn decrypt_to(&mut self, ct: &[u8], pt: &mut [u8]) -> Result<()> {
        self.state.crypt(&self.gcm, InOut::new(ct, pt)?, false)
    }

    /// The tag of the message so far (the key's tag length), computed on
    /// copies of the running values: the state itself is left as it was.
    pub fn tag(&self) -> Tag {
        self.state.tag(&self.gcm)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;
    use crate::error::Error;

    #[test]
    fn pieces_and_clones_match_one_shot() {
        for backend in Backend::available().iter() {
            let gcm = Gcm::with_backend(&[3u8; 32], backend).unwrap();
            for nonce_len in [12usize, 1, 16, 60] {
                let nonce = vec![9u8; nonce_len];
                let aad: Vec<u8> = (0..37u8).collect();
                let pt: Vec<u8> = (0..100u8).collect();
                let mut want = pt.clone();
                let want_tag = gcm.seal_in_place_detached(&nonce, &aad, &mut want).unwrap();
                for cut in [0usize, 1, 15, 16, 17, 99, 100] {
                    let mut s = GcmStreamHazmat::new(&gcm, &nonce).unwrap();
                    s.aad(&aad[..5]).unwrap();
                    s.aad(&aad[5..]).unwrap();
                    let mut ct = vec![0u8; 100];
                    s.encrypt_to(&pt[..cut], &mut ct[..cut]).unwrap();
                    let mut fork = s.clone();
                    ct[cut..].copy_from_slice(&pt[cut..]);
                    s.encrypt_in_place(&mut ct[cut..]).unwrap();
                    assert_eq!(ct, want);
                    assert_eq!(s.tag().as_bytes(), want_tag.as_bytes());
                    assert_eq!(s.aad(b"x"), Err(Error::InvalidState));
                    let mut rest = pt[cut..].to_vec();
                    fork.encrypt_in_place(&mut rest).unwrap();
                    assert_eq!(rest, &want[cut..]);
                    assert_eq!(fork.tag().as_bytes(), want_tag.as_bytes());

                    // A stream restarted from any state runs a fresh message.
                    let mut d = s.clone();
                    assert_eq!(d.restart(&[]), Err(Error::EmptyNonce));
                    d.restart(&nonce).unwrap();
                    d.aad(&aad).unwrap();
                    let mut back = want.clone();
                    d.decrypt_in_place(&mut back[..cut]).unwrap();
                    d.decrypt_in_place(&mut back[cut..]).unwrap();
                    assert_eq!(back, pt);
                    assert_eq!(d.tag().as_bytes(), want_tag.as_bytes());
                }
            }
        }
    }
}
