//! Streaming GCM: [`Core`], the running state of one message (shared by
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    Aad,
    Data,
}

/// The running state of one GCM message: shared by the one-shot calls, the
/// incremental API and ESP.
pub(crate) struct Core<'a> {
    gcm: &'a Gcm,
    /// Counter block of the next keystream block.
    ctr: Block,
    /// E_K(J0), the mask of the tag.
    ekj0: Block,
    /// GHASH state.
    acc: Block,
    aad_len: u64,
    data_len: u64,
    /// Bytes of a partial block waiting for GHASH: AAD in the AAD phase,
    /// ciphertext in the data phase.
    pend: Block,
    pend_len: usize,
    /// Keystream of the current partial data block (bytes `pend_len..`).
    ks: Block,
    phase: Phase,
}

impl Drop for Core<'_> {
    fn drop(&mut self) {
        self.ekj0.zeroize();
        self.ks.zeroize();
        self.acc.zeroize();
        self.pend.zeroize();
    }
}

impl<'a> Core<'a> {
    pub(crate) fn new(gcm: &'a Gcm, nonce: &[u8]) -> Result<Self> {
        let mut j0 = j0_of(gcm, nonce)?;
        let mut ekj0 = j0;
        gcm.engine.encrypt_blocks(InOut::in_place(&mut ekj0));
        let mut ctr = j0;
        inc32(&mut ctr, 1);
        j0.zeroize();
        Ok(Core {
            gcm,
            ctr,
            ekj0,
            acc: [0; BLOCK_LEN],
            aad_len: 0,
            data_len: 0,
            pend: [0; BLOCK_LEN],
            pend_len: 0,
            ks: [0; BLOCK_LEN],
            phase: Phase::Aad,
        })
    }

    fn ghash(&mut self, data: &[u8]) {
        let acc = &mut self.acc;
        self.gcm.engine.ghash_update(acc, data);
    }

    /// Hashes more associated data; only before any message data.
    pub(crate) fn aad(&mut self, mut aad: &[u8]) -> Result<()> {
        if self.phase != Phase::Aad {
            return Err(Error::InvalidState);
        }
        if aad.is_empty() {
            return Ok(());
        }
        let total = self.aad_len.checked_add(aad.len() as u64);
        match total {
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

    /// Ends the AAD phase (pads the last partial AAD block).
    fn start_data(&mut self, len: usize) -> Result<()> {
        let total = self.data_len.checked_add(len as u64);
        match total {
            Some(t) if t <= MAX_PLAINTEXT_LEN => {}
            _ => return Err(Error::MessageTooLong),
        }
        if self.phase == Phase::Aad {
            self.flush_pending();
            self.phase = Phase::Data;
        }
        self.data_len += len as u64;
        Ok(())
    }

    /// Hashes the pending partial block, zero-padded.
    fn flush_pending(&mut self) {
        if self.pend_len > 0 {
            self.pend[self.pend_len..].fill(0);
            let block = self.pend;
            self.ghash(&block);
            self.pend_len = 0;
        }
    }

    /// Encrypts more data.
    pub(crate) fn encrypt(&mut self, io: InOut<'_>) -> Result<()> {
        self.crypt(io, true)
    }

    /// Decrypts more data (the caller checks the tag before releasing it).
    pub(crate) fn decrypt(&mut self, io: InOut<'_>) -> Result<()> {
        self.crypt(io, false)
    }

    fn crypt(&mut self, io: InOut<'_>, encrypt: bool) -> Result<()> {
        self.start_data(io.len())?;
        let mut io = io;
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

    /// Hashes the lengths and returns the tag (truncated to the key's length).
    pub(crate) fn finish(mut self) -> Tag {
        self.flush_pending();
        let mut len_block = [0u8; BLOCK_LEN];
        len_block[..8].copy_from_slice(&(self.aad_len * 8).to_be_bytes());
        len_block[8..].copy_from_slice(&(self.data_len * 8).to_be_bytes());
        self.ghash(&len_block);
        let mut bytes = self.acc;
        for (t, m) in bytes.iter_mut().zip(&self.ekj0) {
            *t ^= m;
        }
        Tag {
            bytes,
            len: self.gcm.tag_len as u8,
        }
    }
}

/// Incremental GCM encryption: [`aad`](Self::aad) (any number of times), then
/// data in pieces of any size, then [`finish`](Self::finish) for the tag.
/// Splitting the data differently gives the same ciphertext and tag.
pub struct GcmEncryptor<'a> {
    pub(super) core: Core<'a>,
}

/// The calls the incremental encryptor and decryptor share: `aad`, then
/// the next piece in place (`$in_place`) or from `$src` into `$dst` (`$to`),
/// through `Core::$dir`.
macro_rules! piece_calls {
    (
        $(#[$in_place_doc:meta])* $in_place:ident,
        $(#[$to_doc:meta])* $to:ident($src:ident, $dst:ident) => $dir:ident
    ) => {
        /// Adds associated data; [`Error::InvalidState`] once data has started.
        pub fn aad(&mut self, aad: &[u8]) -> Result<()> {
            self.core.aad(aad)
        }

        $(#[$in_place_doc])*
        pub fn $in_place(&mut self, buf: &mut [u8]) -> Result<()> {
            self.core.$dir(InOut::in_place(buf))
        }

        $(#[$to_doc])*
        pub fn $to(&mut self, $src: &[u8], $dst: &mut [u8]) -> Result<()> {
            self.core.$dir(InOut::new($src, $dst)?)
        }
    };
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
    piece_calls! {
        /// Encrypts the next piece in place.
        encrypt_in_place,
        /// Encrypts the next piece from `pt` into `ct` (equal lengths).
        encrypt_to(pt, ct) => encrypt
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

        piece_calls! {
            /// Decrypts the next piece in place. The result is unauthenticated.
            decrypt_in_place,
            /// Decrypts the next piece from `ct` into `pt` (equal lengths). The
            /// result is unauthenticated.
            decrypt_to(ct, pt) => decrypt
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
        core.data_len = MAX_PLAINTEXT_LEN - 16;
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
        core.aad_len = MAX_AAD_LEN - 2;
        core.aad(&[0u8; 2]).unwrap();
        assert_eq!(core.aad(&[0u8; 1]), Err(Error::AadTooLong));
    }
}
