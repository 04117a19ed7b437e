//! An owned, clonable streaming GCM state ([`GcmStreamHazmat`]) for callers
//! that keep one message's state in a long-lived, duplicable object (the
//! OpenSSL provider's cipher contexts: `EVP_CIPHER_CTX_copy` mid-stream).
//! [`GcmEncryptor`](crate::GcmEncryptor) and
//! [`GcmDecryptorHazmat`](crate::hazmat::GcmDecryptorHazmat) borrow their
//! [`Gcm`] and cannot be cloned; this one owns a clone of the key.
//!
//! The running state is the same as `gcm_stream::Core`'s (counter, GHASH
//! accumulator, partial block, keystream of the partial block); the code
//! follows it step for step, over the same kernels.

use zeroize::Zeroize;

use super::gcm::{j0_of, Gcm, MAX_AAD_LEN, MAX_PLAINTEXT_LEN};
use super::tag::Tag;
use crate::backend::kernels::gcm::inc32;
use crate::backend::InOut;
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

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
    ctr: Block,
    ekj0: Block,
    acc: Block,
    aad_len: u64,
    data_len: u64,
    pend: Block,
    pend_len: usize,
    ks: Block,
    in_data: bool,
}

impl Drop for GcmStreamHazmat {
    fn drop(&mut self) {
        self.ekj0.zeroize();
        self.ks.zeroize();
        self.acc.zeroize();
        self.pend.zeroize();
        self.ctr.zeroize();
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
        let mut s = GcmStreamHazmat {
            gcm: gcm.clone(),
            ctr: [0; BLOCK_LEN],
            ekj0: [0; BLOCK_LEN],
            acc: [0; BLOCK_LEN],
            aad_len: 0,
            data_len: 0,
            pend: [0; BLOCK_LEN],
            pend_len: 0,
            ks: [0; BLOCK_LEN],
            in_data: false,
        };
        s.restart(nonce)?;
        Ok(s)
    }

    /// Abandons the running message and starts a new one under `nonce`
    /// with the same key, without copying the key again (the cheap way to
    /// run many messages). On an error (an empty nonce) nothing changes.
    pub fn restart(&mut self, nonce: &[u8]) -> Result<()> {
        let mut j0 = j0_of(&self.gcm, nonce)?;
        let mut ekj0 = j0;
        self.gcm.engine.encrypt_blocks(InOut::in_place(&mut ekj0));
        self.ctr = j0;
        inc32(&mut self.ctr, 1);
        j0.zeroize();
        self.ekj0 = ekj0;
        ekj0.zeroize();
        self.acc = [0; BLOCK_LEN];
        self.aad_len = 0;
        self.data_len = 0;
        self.pend = [0; BLOCK_LEN];
        self.pend_len = 0;
        self.ks = [0; BLOCK_LEN];
        self.in_data = false;
        Ok(())
    }

    /// The key this stream runs under.
    pub fn gcm(&self) -> &Gcm {
        &self.gcm
    }

    fn ghash(&mut self, data: &[u8]) {
        let acc = &mut self.acc;
        self.gcm.engine.ghash_update(acc, data);
    }

    /// Hashes more associated data: [`Error::InvalidState`] once data has
    /// started, [`Error::AadTooLong`] past 2^61 - 1 bytes in all.
    pub fn aad(&mut self, mut aad: &[u8]) -> Result<()> {
        if self.in_data {
            return Err(Error::InvalidState);
        }
        if aad.is_empty() {
            return Ok(());
        }
        match self.aad_len.checked_add(aad.len() as u64) {
            Some(t) if t <= MAX_AAD_LEN => self.aad_len = t,
            _ => return Err(Error::AadTooLong),
        }
        if self.pend_len > 0 {
            let n = (BLOCK_LEN - self.pend_len).min(aad.len());
            self.pend[self.pend_len..self.pend_len + n].copy_from_slice(&aad[..n]);
            self.pend_len += n;
            aad = &aad[n..];
            if self.pend_len < BLOCK_LEN {
                return Ok(());
            }
            let block = self.pend;
            self.ghash(&block);
            self.pend_len = 0;
        }
        let whole = aad.len() - aad.len() % BLOCK_LEN;
        if whole > 0 {
            self.ghash(&aad[..whole]);
        }
        let rest = &aad[whole..];
        self.pend[..rest.len()].copy_from_slice(rest);
        self.pend_len = rest.len();
        Ok(())
    }

    fn flush_pending(&mut self) {
        if self.pend_len > 0 {
            self.pend[self.pend_len..].fill(0);
            let block = self.pend;
            self.ghash(&block);
            self.pend_len = 0;
        }
    }

    /// Encrypts the next piece in place.
    pub fn encrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.crypt(InOut::in_place(buf), true)
    }

    /// Encrypts the next piece from `pt` into `ct` (equal lengths).
    pub fn encrypt_to(&mut self, pt: &[u8], ct: &mut [u8]) -> Result<()> {
        self.crypt(InOut::new(pt, ct)?, true)
    }

    /// Decrypts the next piece in place; the result is unauthenticated.
    pub fn decrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.crypt(InOut::in_place(buf), false)
    }

    /// Decrypts the next piece from `ct` into `pt` (equal lengths); the
    /// result is unauthenticated.
    pub fn decrypt_to(&mut self, ct: &[u8], pt: &mut [u8]) -> Result<()> {
        self.crypt(InOut::new(ct, pt)?, false)
    }

    fn crypt(&mut self, mut io: InOut<'_>, encrypt: bool) -> Result<()> {
        match self.data_len.checked_add(io.len() as u64) {
            Some(t) if t <= MAX_PLAINTEXT_LEN => {}
            _ => return Err(Error::MessageTooLong),
        }
        if !self.in_data {
            self.flush_pending();
            self.in_data = true;
        }
        self.data_len += io.len() as u64;
        // 1. Finish a partial block left by the previous call.
        if self.pend_len > 0 && !io.is_empty() {
            let n = (BLOCK_LEN - self.pend_len).min(io.len());
            let (mut head, rest) = io.split_at(n);
            let p = self.pend_len;
            let mut tmp = [0u8; BLOCK_LEN];
            head.read_into(&mut tmp[..n]);
            if !encrypt {
                self.pend[p..p + n].copy_from_slice(&tmp[..n]);
            }
            for (t, k) in tmp[..n].iter_mut().zip(&self.ks[p..p + n]) {
                *t ^= k;
            }
            if encrypt {
                self.pend[p..p + n].copy_from_slice(&tmp[..n]);
            }
            head.write_from(&tmp[..n]);
            tmp.zeroize();
            self.pend_len += n;
            if self.pend_len == BLOCK_LEN {
                let block = self.pend;
                self.ghash(&block);
                self.pend_len = 0;
            }
            io = rest;
        }
        // 2. Whole blocks through the stitched kernel.
        let (whole, mut tail) = io.split_blocks();
        if !whole.is_empty() {
            let (ctr, acc) = (&mut self.ctr, &mut self.acc);
            if encrypt {
                self.gcm.engine.gcm_encrypt(ctr, acc, whole)
            } else {
                self.gcm.engine.gcm_decrypt(ctr, acc, whole)
            }
        }
        // 3. Start a new partial block with the tail.
        if !tail.is_empty() {
            let n = tail.len();
            self.ks = self.ctr;
            self.gcm
                .engine
                .encrypt_blocks(InOut::in_place(&mut self.ks));
            inc32(&mut self.ctr, 1);
            let mut tmp = [0u8; BLOCK_LEN];
            tail.read_into(&mut tmp[..n]);
            if !encrypt {
                self.pend[..n].copy_from_slice(&tmp[..n]);
            }
            for (t, k) in tmp[..n].iter_mut().zip(&self.ks[..n]) {
                *t ^= k;
            }
            if encrypt {
                self.pend[..n].copy_from_slice(&tmp[..n]);
            }
            tail.write_from(&tmp[..n]);
            tmp.zeroize();
            self.pend_len = n;
        }
        Ok(())
    }

    /// The tag of the message so far (the key's tag length), computed on
    /// copies of the running values: the state itself is left as it was.
    pub fn tag(&self) -> Tag {
        let mut acc = self.acc;
        // The pending partial block, zero-padded (as `flush_pending`).
        let mut last = [0u8; BLOCK_LEN];
        last[..self.pend_len].copy_from_slice(&self.pend[..self.pend_len]);
        let mut len_block = [0u8; BLOCK_LEN];
        len_block[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        len_block[8..].copy_from_slice(&(self.data_len * 8).to_be_bytes());
        if self.pend_len > 0 {
            self.gcm.engine.ghash_update(&mut acc, &last);
        }
        self.gcm.engine.ghash_update(&mut acc, &len_block);
        for (t, m) in acc.iter_mut().zip(&self.ekj0) {
            *t ^= m;
        }
        let tag = Tag::truncated(acc, self.gcm.tag_len);
        acc.zeroize();
        last.zeroize();
        tag
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

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
