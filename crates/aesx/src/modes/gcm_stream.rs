//! Streaming GCM: [`State`], the running state of one message (written
//! once, for every streaming form), [`Core`] (the state with a borrowed key:
//! the one-shot calls, the incremental [`GcmEncryptor`] and ESP), and
//! [`hazmat::GcmDecryptorHazmat`], the decryptor that releases plaintext
//! before the tag is checked.

use zeroize::Zeroize;

use super::gcm::{j0_of, Gcm, MAX_AAD_LEN, MAX_PLAINTEXT_LEN};
use super::tag::{self, Tag};
use crate::backend::kernels::gcm::inc32;
use crate::backend::InOut;
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// The running state of one GCM message, without its key: the counter, the
/// GHASH accumulator, the partial block and its keystream. Every streaming
/// form holds one beside its key: [`Core`] (borrowing the key: the one-shot
/// calls, the incremental API, ESP) and the owned, clonable
/// [`GcmStreamHazmat`](crate::hazmat::GcmStreamHazmat). Each call takes
/// the key the state was started with; the holder wipes it on drop.
#[derive(Clone)]
pub(crate) struct State {
    /// Counter block of the next keystream block.
    ctr: Block,
    /// E_K(J0), the mask of the tag.
    ekj0: Block,
    /// GHASH state.
    acc: Block,
    aad_len: u64,
    data_len: u64,
    /// Bytes of a partial block waiting for GHASH: AAD before the data,
    /// ciphertext after.
    pend: Block,
    pend_len: usize,
    /// Keystream of the current partial data block (bytes `pend_len..`).
    ks: Block,
    /// Whether message data has started (no more AAD).
    in_data: bool,
}

impl State {
    /// Zeroes the secret values (every holder calls it on drop).
    pub(crate) fn wipe(&mut self) {
        self.ctr.zeroize();
        self.ekj0.zeroize();
        self.ks.zeroize();
        self.acc.zeroize();
        self.pend.zeroize();
    }

    /// A message under `nonce` with the key `gcm`.
    pub(crate) fn new(gcm: &Gcm, nonce: &[u8]) -> Result<Self> {
        let mut j0 = j0_of(gcm, nonce)?;
        let mut ekj0 = j0;
        gcm.engine.encrypt_blocks(InOut::in_place(&mut ekj0));
        let mut ctr = j0;
        inc32(&mut ctr, 1);
        j0.zeroize();
        Ok(State {
            ctr,
            ekj0,
            acc: [0; BLOCK_LEN],
            aad_len: 0,
            data_len: 0,
            pend: [0; BLOCK_LEN],
            pend_len: 0,
            ks: [0; BLOCK_LEN],
            in_data: false,
        })
    }

    /// Hashes more associated data: [`Error::InvalidState`] once data has
    /// started, [`Error::AadTooLong`] past the limit.
    pub(crate) fn aad(&mut self, gcm: &Gcm, mut aad: &[u8]) -> Result<()> {
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
            gcm.engine.ghash_update(&mut self.acc, &self.pend);
            self.pend_len = 0;
        }
        let whole = aad.len() - aad.len() % BLOCK_LEN;
        if whole > 0 {
            gcm.engine.ghash_update(&mut self.acc, &aad[..whole]);
        }
        let rest = &aad[whole..];
        self.pend[..rest.len()].copy_from_slice(rest);
        self.pend_len = rest.len();
        Ok(())
    }

    /// Encrypts (`encrypt`) or decrypts more data; the first call ends the
    /// AAD (hashing its partial last block, zero-padded).
    pub(crate) fn crypt(&mut self, gcm: &Gcm, mut io: InOut<'_>, encrypt: bool) -> Result<()> {
        match self.data_len.checked_add(io.len() as u64) {
            Some(t) if t <= MAX_PLAINTEXT_LEN => {}
            _ => return Err(Error::MessageTooLong),
        }
        if !self.in_data {
            if self.pend_len > 0 {
                self.pend[self.pend_len..].fill(0);
                gcm.engine.ghash_update(&mut self.acc, &self.pend);
                self.pend_len = 0;
            }
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
                gcm.engine.ghash_update(&mut self.acc, &self.pend);
                self.pend_len = 0;
            }
            io = rest;
        }
        // 2. Whole blocks through the stitched kernel.
        let (whole, mut tail) = io.split_blocks();
        if !whole.is_empty() {
            if encrypt {
                gcm.engine.gcm_encrypt(&mut self.ctr, &mut self.acc, whole)
            } else {
                gcm.engine.gcm_decrypt(&mut self.ctr, &mut self.acc, whole)
            }
        }
        // 3. Start a new partial block with the tail.
        if !tail.is_empty() {
            let n = tail.len();
            self.ks = self.ctr;
            gcm.engine.encrypt_blocks(InOut::in_place(&mut self.ks));
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
    /// copies of the running values: the state is left as it was.
    pub(crate) fn tag(&self, gcm: &Gcm) -> Tag {
        let mut acc = self.acc;
        // The pending partial block, zero-padded (AAD when no data came).
        let mut last = [0u8; BLOCK_LEN];
        last[..self.pend_len].copy_from_slice(&self.pend[..self.pend_len]);
        if self.pend_len > 0 {
            gcm.engine.ghash_update(&mut acc, &last);
        }
        let mut len_block = [0u8; BLOCK_LEN];
        len_block[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        len_block[8..].copy_from_slice(&(self.data_len * 8).to_be_bytes());
        gcm.engine.ghash_update(&mut acc, &len_block);
        for (t, m) in acc.iter_mut().zip(&self.ekj0) {
            *t ^= m;
        }
        let tag = Tag::truncated(acc, gcm.tag_len);
        acc.zeroize();
        last.zeroize();
        tag
    }
}

/// One GCM message's [`State`] with the key it borrows.
pub(crate) struct Core<'a> {
    gcm: &'a Gcm,
    state: State,
}

impl Drop for Core<'_> {
    fn drop(&mut self) {
        self.state.wipe();
    }
}

impl<'a> Core<'a> {
    pub(crate) fn new(gcm: &'a Gcm, nonce: &[u8]) -> Result<Self> {
        Ok(Core {
            gcm,
            state: State::new(gcm, nonce)?,
        })
    }

    /// Hashes more associated data; only before any message data.
    pub(crate) fn aad(&mut self, aad: &[u8]) -> Result<()> {
        self.state.aad(self.gcm, aad)
    }

    /// Encrypts more data.
    pub(crate) fn encrypt(&mut self, io: InOut<'_>) -> Result<()> {
        self.state.crypt(self.gcm, io, true)
    }

    /// Decrypts more data (the caller checks the tag before releasing it).
    pub(crate) fn decrypt(&mut self, io: InOut<'_>) -> Result<()> {
        self.state.crypt(self.gcm, io, false)
    }

    /// Ends the message: its tag (truncated to the key's length).
    pub(crate) fn finish(self) -> Tag {
        self.state.tag(self.gcm)
    }
}

/// Incremental GCM encryption: [`aad`](Self::aad) (any number of times), then
/// data in pieces of any size, then [`finish`](Self::finish) for the tag.
/// Splitting the data differently gives the same ciphertext and tag.
pub struct GcmEncryptor<'a> {
    pub(super) core: Core<'a>,
}

impl Gcm {
    /// Starts an incremental encryption under `nonce`.
    pub fn encryptor(&self, nonce: &[u8]) -> Result<GcmEncryptor<'_>> {
        Ok(GcmEncryptor {
            core: Core::new(self, nonce)?,
        })
    }
}

impl GcmEncryptor<'_> {
    /// Adds associated data; [`Error::InvalidState`] once data has started.
    pub fn aad(&mut self, aad: &[u8]) -> Result<()> {
        self.core.aad(aad)
    }

    /// Encrypts the next piece in place.
    pub fn encrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
        self.core.encrypt(InOut::in_place(buf))
    }

    /// Encrypts the next piece from `pt` into `ct` (equal lengths).
    pub fn encrypt_to(&mut self, pt: &[u8], ct: &mut [u8]) -> Result<()> {
        self.core.encrypt(InOut::new(pt, ct)?)
    }

    /// Ends the message and returns its tag.
    pub fn finish(self) -> Tag {
        self.core.finish()
    }
}

/// Incremental decryption, which releases plaintext before the tag is
/// checked (re-exported as `aesx::hazmat`).
pub(crate) mod hazmat {
    use super::*;

    /// Incremental GCM decryption. **Hazardous**: every call returns
    /// plaintext that has not been authenticated yet. A forged or corrupted
    /// message is only detected by [`finish`](Self::finish), after all of its
    /// plaintext has been handed out; the caller must hold that plaintext
    /// back (not parse it, not act on it, not write it where others read
    /// it) until `finish` returns `Ok`, and discard it otherwise. Prefer the
    /// one-shot [`Gcm::open_in_place`](super::Gcm::open_in_place) family, which never releases
    /// unauthenticated plaintext.
    pub struct GcmDecryptorHazmat<'a> {
        core: Core<'a>,
    }

    impl<'a> GcmDecryptorHazmat<'a> {
        /// Starts an incremental decryption under `nonce`.
        pub fn new(gcm: &'a Gcm, nonce: &[u8]) -> Result<Self> {
            Ok(GcmDecryptorHazmat {
                core: Core::new(gcm, nonce)?,
            })
        }

        /// Adds associated data; [`Error::InvalidState`] once data has started.
        pub fn aad(&mut self, aad: &[u8]) -> Result<()> {
            self.core.aad(aad)
        }

        /// Decrypts the next piece in place. The result is unauthenticated.
        pub fn decrypt_in_place(&mut self, buf: &mut [u8]) -> Result<()> {
            self.core.decrypt(InOut::in_place(buf))
        }

        /// Decrypts the next piece from `ct` into `pt` (equal lengths). The
        /// result is unauthenticated.
        pub fn decrypt_to(&mut self, ct: &[u8], pt: &mut [u8]) -> Result<()> {
            self.core.decrypt(InOut::new(ct, pt)?)
        }

        /// Checks `tag` (of the key's tag length) in constant time:
        /// [`Error::AuthenticationFailed`] means every piece of plaintext
        /// released so far must be discarded.
        pub fn finish(self, tag: &[u8]) -> Result<()> {
            let want = self.core.gcm.tag_len;
            if tag.len() != want {
                return Err(Error::InvalidTagLength { len: tag.len() });
            }
            tag::check(self.core.finish().as_bytes(), tag)
        }

        /// Ends the message and returns the computed tag (for callers that
        /// compare it themselves, in constant time).
        pub fn finish_tag(self) -> Tag {
            self.core.finish()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::Backend;

    /// The length limits, checked by accounting before any byte is touched
    /// (a real 64 GiB message would take too long in a test).
    #[test]
    fn limits_enforced_before_processing() {
        let gcm = Gcm::with_backend(&[1u8; 16], Backend::Soft).unwrap();
        let mut core = Core::new(&gcm, &[0u8; 12]).unwrap();
        core.state.data_len = MAX_PLAINTEXT_LEN - 16;
        let mut buf = [7u8; 17];
        assert_eq!(
            core.encrypt(InOut::in_place(&mut buf)),
            Err(Error::MessageTooLong)
        );
        assert_eq!(buf, [7u8; 17]);
        core.encrypt(InOut::in_place(&mut buf[..16])).unwrap();
        assert_eq!(
            core.encrypt(InOut::in_place(&mut buf[..1])),
            Err(Error::MessageTooLong)
        );

        let mut core = Core::new(&gcm, &[0u8; 12]).unwrap();
        core.state.aad_len = MAX_AAD_LEN - 2;
        core.aad(&[0u8; 2]).unwrap();
        assert_eq!(core.aad(&[0u8; 1]), Err(Error::AadTooLong));
    }
}
