//! AES-GCM (SP 800-38D); the full notes are on [`Gcm`].

use core::fmt;

use zeroize::Zeroize;

use crate::backend::gcm_kernels::{inc32, with_gcm, GcmEngine, GcmKernels};
use crate::backend::{Backend, BlockKernels, Engine, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, RoundKeys, BLOCK_LEN};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// The full tag length (and the default).
pub(crate) const TAG_LEN: usize = 16;

/// The longest plaintext GCM allows: 2^36 - 32 bytes (2^39 - 256 bits).
pub(crate) const MAX_PLAINTEXT_LEN: u64 = (1 << 36) - 32;

/// The longest AAD GCM allows: 2^61 - 1 bytes (less than 2^64 bits).
pub(crate) const MAX_AAD_LEN: u64 = (1 << 61) - 1;

/// Tag lengths SP 800-38D permits (4 and 8 only for special applications).
pub(crate) const ALLOWED_TAG_LENS: [usize; 7] = [16, 15, 14, 13, 12, 8, 4];

/// An authentication tag of 4 to 16 bytes.
///
/// Tags are public values; comparing them is done in constant time anyway
/// (see [`Tag::verify`]), since a timing leak in verification lets a forger
/// find a valid tag byte by byte.
#[derive(Clone, Copy)]
pub struct Tag {
    bytes: [u8; TAG_LEN],
    len: u8,
}

impl Tag {
    /// A full 16-byte tag (for the other AEADs of the crate).
    pub(crate) fn full(bytes: [u8; TAG_LEN]) -> Tag {
        Tag {
            bytes,
            len: TAG_LEN as u8,
        }
    }

    /// The tag bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len as usize]
    }

    /// Tag length in bytes.
    #[allow(clippy::len_without_is_empty)] // a tag is never empty
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Constant-time comparison with `other` (false if the lengths differ).
    pub fn verify(&self, other: &[u8]) -> bool {
        ct_eq(self.as_bytes(), other)
    }
}

impl Tag {
    /// The first `len` bytes of a full-length tag block (for the other AEAD
    /// modes: CCM).
    pub(crate) fn truncated(bytes: Block, len: usize) -> Tag {
        debug_assert!(len <= TAG_LEN);
        Tag {
            bytes,
            len: len as u8,
        }
    }
}

impl AsRef<[u8]> for Tag {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl PartialEq for Tag {
    fn eq(&self, other: &Tag) -> bool {
        ct_eq(self.as_bytes(), other.as_bytes())
    }
}

impl Eq for Tag {}

impl fmt::Debug for Tag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Tag(")?;
        for b in self.as_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

/// Constant-time equality: the time depends only on the lengths.
pub(crate) fn ct_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut d = 0u8;
    for (x, y) in a.iter().zip(b) {
        d |= x ^ y;
    }
    // Keep the optimiser from turning the loop into an early exit.
    core::hint::black_box(d) == 0
}

/// AES-GCM with one key: seal and open many messages.
///
/// AES-GCM (NIST SP 800-38D): authenticated encryption with associated data.
///
/// [`Gcm`] holds the expanded AES key and the GHASH key H = E_K(0^128) with its
/// precomputed powers (both zeroized on drop). One-shot `seal`/`open` calls
/// work in place or out of place, with the tag appended or detached; `open`
/// compares tags in constant time and, when they differ, zeroes the output
/// before returning [`Error::AuthenticationFailed`], so no unauthenticated
/// plaintext ever leaves it.
///
/// Incremental encryption ([`GcmEncryptor`]) takes AAD, then data in pieces of
/// any size, then yields the tag. Incremental decryption lives in [`hazmat`](crate::hazmat):
/// it has to hand out plaintext before it can check the tag.
///
/// Limits (SP 800-38D section 5.2.1.1) are enforced as errors: plaintext at
/// most 2^36 - 32 bytes, AAD at most 2^61 - 1 bytes, a non-empty IV, and tags
/// of 16, 15, 14, 13, 12, 8 or 4 bytes. A 12-byte IV is used directly
/// (J0 = IV || 0^31 || 1); any other length goes through GHASH. The counter
/// is incremented with inc32 (its last 32 bits wrap modulo 2^32), which is
/// what makes non-96-bit IVs interoperable.
///
/// ```
/// use aesx::Gcm;
///
/// let gcm = Gcm::new(&[7u8; 32]).unwrap();
/// let nonce = [1u8; 12];
/// let sealed = gcm.seal(&nonce, b"header", b"secret message").unwrap();
/// assert_eq!(sealed.len(), 14 + 16);
/// let opened = gcm.open(&nonce, b"header", &sealed).unwrap();
/// assert_eq!(opened, b"secret message");
///
/// // Any change is caught, and nothing is released.
/// let mut forged = sealed.clone();
/// forged[0] ^= 1;
/// assert!(gcm.open(&nonce, b"header", &forged).is_err());
/// ```
#[derive(Clone)]
pub struct Gcm {
    engine: GcmEngine,
    backend: Backend,
    size: KeySize,
    tag_len: usize,
}

impl fmt::Debug for Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("Gcm")
            .field("backend", &self.backend)
            .field("key_size", &self.size)
            .field("tag_len", &self.tag_len)
            .finish_non_exhaustive()
    }
}

impl Gcm {
    /// The longest (and default) tag, in bytes.
    pub const TAG_LEN: usize = TAG_LEN;
    /// The tag lengths SP 800-38D allows, longest first.
    pub const TAG_LENS: [usize; 7] = ALLOWED_TAG_LENS;
    /// The longest plaintext one message may have: 2^36 - 32 bytes.
    pub const MAX_PLAINTEXT_LEN: u64 = MAX_PLAINTEXT_LEN;
    /// The longest associated data one message may have: 2^61 - 1 bytes.
    pub const MAX_AAD_LEN: u64 = MAX_AAD_LEN;

    /// AES-GCM with `key` (16, 24 or 32 bytes) on the preferred backend
    /// ([`Backend::preferred`]), 16-byte tags.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// AES-GCM with `key` on the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        let rk = RoundKeys::expand(key)?;
        let engine = Engine::new(backend, &rk)?;
        Ok(Gcm {
            engine: GcmEngine::new(engine),
            backend,
            size: rk.size,
            tag_len: TAG_LEN,
        })
    }

    /// The same key with tags of `tag_len` bytes (16, 15, 14, 13, 12, 8 or 4)
    /// for sealing and opening.
    pub fn with_tag_len(mut self, tag_len: usize) -> Result<Self> {
        check_tag_len(tag_len)?;
        self.tag_len = tag_len;
        Ok(self)
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The AES key size.
    pub fn key_size(&self) -> KeySize {
        self.size
    }

    /// The tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        self.seal_io(nonce, aad, InOut::in_place(buf))
    }

    /// Encrypts `pt` into `ct` (equal lengths) and returns the tag.
    pub fn seal_to_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        pt: &[u8],
        ct: &mut [u8],
    ) -> Result<Tag> {
        self.seal_io(nonce, aad, InOut::new(pt, ct)?)
    }

    /// Encrypts `pt` into `out` as ciphertext followed by the tag; `out` must
    /// hold at least `pt.len() + tag_len()` bytes. Returns the bytes written.
    pub fn seal_to(&self, nonce: &[u8], aad: &[u8], pt: &[u8], out: &mut [u8]) -> Result<usize> {
        let total = pt
            .len()
            .checked_add(self.tag_len)
            .ok_or(Error::MessageTooLong)?;
        if out.len() < total {
            return Err(Error::OutputTooSmall {
                needed: total,
                got: out.len(),
            });
        }
        let (ct, rest) = out.split_at_mut(pt.len());
        let tag = self.seal_io(nonce, aad, InOut::new(pt, ct)?)?;
        rest[..self.tag_len].copy_from_slice(tag.as_bytes());
        Ok(total)
    }

    /// Encrypts the vector in place and appends the tag.
    #[cfg(feature = "std")]
    pub fn seal_in_place_append_tag(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let tag = self.seal_in_place_detached(nonce, aad, buf)?;
        buf.extend_from_slice(tag.as_bytes());
        Ok(())
    }

    /// Returns ciphertext followed by the tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        self.check_lengths(aad.len(), pt.len())?;
        let mut out = alloc::vec![0u8; pt.len() + self.tag_len];
        self.seal_to(nonce, aad, pt, &mut out)?;
        Ok(out)
    }

    /// Verifies `tag` and decrypts `buf` in place. On failure `buf` is zeroed
    /// and [`Error::AuthenticationFailed`] returned.
    pub fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        self.check_tag(tag)?;
        let r = self.open_io(nonce, aad, InOut::in_place(buf), tag);
        if r == Err(Error::AuthenticationFailed) {
            buf.zeroize();
        }
        r
    }

    /// Verifies `tag` and decrypts `ct` into `pt` (equal lengths). On failure
    /// `pt` is zeroed and [`Error::AuthenticationFailed`] returned.
    pub fn open_to_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct: &[u8],
        tag: &[u8],
        pt: &mut [u8],
    ) -> Result<()> {
        self.check_tag(tag)?;
        let r = self.open_io(nonce, aad, InOut::new(ct, pt)?, tag);
        if r == Err(Error::AuthenticationFailed) {
            pt.zeroize();
        }
        r
    }

    /// Opens ciphertext-followed-by-tag in place and returns the plaintext,
    /// a prefix of `buf`. On failure all of `buf` is zeroed.
    pub fn open_in_place<'b>(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &'b mut [u8],
    ) -> Result<&'b mut [u8]> {
        if buf.len() < self.tag_len {
            buf.zeroize();
            return Err(Error::AuthenticationFailed);
        }
        let ct_len = buf.len() - self.tag_len;
        let mut tag = [0u8; TAG_LEN];
        tag[..self.tag_len].copy_from_slice(&buf[ct_len..]);
        let r = self.open_io(
            nonce,
            aad,
            InOut::in_place(&mut buf[..ct_len]),
            &tag[..self.tag_len],
        );
        match r {
            Ok(()) => Ok(&mut buf[..ct_len]),
            Err(e) => {
                if e == Error::AuthenticationFailed {
                    buf.zeroize();
                }
                Err(e)
            }
        }
    }

    /// Opens ciphertext-followed-by-tag into `out`, which must hold at least
    /// `ct_and_tag.len() - tag_len()` bytes; returns the plaintext length.
    /// On failure `out` is zeroed.
    pub fn open_to(
        &self,
        nonce: &[u8],
        aad: &[u8],
        ct_and_tag: &[u8],
        out: &mut [u8],
    ) -> Result<usize> {
        if ct_and_tag.len() < self.tag_len {
            out.zeroize();
            return Err(Error::AuthenticationFailed);
        }
        let ct_len = ct_and_tag.len() - self.tag_len;
        if out.len() < ct_len {
            return Err(Error::OutputTooSmall {
                needed: ct_len,
                got: out.len(),
            });
        }
        let (ct, tag) = ct_and_tag.split_at(ct_len);
        let r = self.open_io(nonce, aad, InOut::new(ct, &mut out[..ct_len])?, tag);
        match r {
            Ok(()) => Ok(ct_len),
            Err(e) => {
                if e == Error::AuthenticationFailed {
                    out.zeroize();
                }
                Err(e)
            }
        }
    }

    /// Opens ciphertext-followed-by-tag and returns the plaintext.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        if ct_and_tag.len() < self.tag_len {
            return Err(Error::AuthenticationFailed);
        }
        let mut out = alloc::vec![0u8; ct_and_tag.len() - self.tag_len];
        self.open_to(nonce, aad, ct_and_tag, &mut out)?;
        Ok(out)
    }

    /// Starts an incremental encryption under `nonce`.
    pub fn encryptor(&self, nonce: &[u8]) -> Result<GcmEncryptor<'_>> {
        Ok(GcmEncryptor {
            core: Core::new(self, nonce)?,
        })
    }

    fn check_tag(&self, tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        Ok(())
    }

    fn check_lengths(&self, aad: usize, data: usize) -> Result<()> {
        if data as u64 > MAX_PLAINTEXT_LEN {
            return Err(Error::MessageTooLong);
        }
        if aad as u64 > MAX_AAD_LEN {
            return Err(Error::AadTooLong);
        }
        Ok(())
    }

    pub(crate) fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag> {
        self.check_lengths(aad.len(), io.len())?;
        self.oneshot(nonce, aad, io, true)
    }

    /// The backend's sum of `data` as little-endian 64-bit words (ESP).
    pub(crate) fn word_sum(&self, data: &[u8]) -> u128 {
        with_gcm!(&self.engine, k => k.aes.word_sum(data))
    }

    /// One message through the backend's fused one-shot kernel; returns the
    /// computed tag (for decryption, the caller compares it). Lengths must
    /// have been checked.
    pub(crate) fn oneshot(
        &self,
        nonce: &[u8],
        aad: &[u8],
        io: InOut<'_>,
        encrypt: bool,
    ) -> Result<Tag> {
        let j0 = j0_of(self, nonce)?;
        let bytes = with_gcm!(&self.engine, k => k.aes.gcm_oneshot(&k.h, encrypt, &j0, aad, io));
        Ok(Tag {
            bytes,
            len: self.tag_len as u8,
        })
    }

    /// Decrypts and checks; the caller zeroes the output on failure.
    pub(crate) fn open_io(
        &self,
        nonce: &[u8],
        aad: &[u8],
        io: InOut<'_>,
        tag: &[u8],
    ) -> Result<()> {
        self.check_lengths(aad.len(), io.len())?;
        if self.oneshot(nonce, aad, io, false)?.verify(tag) {
            Ok(())
        } else {
            Err(Error::AuthenticationFailed)
        }
    }
}

fn check_tag_len(tag_len: usize) -> Result<()> {
    if ALLOWED_TAG_LENS.contains(&tag_len) {
        Ok(())
    } else {
        Err(Error::InvalidTagLength { len: tag_len })
    }
}

/// The pre-counter block J0 (SP 800-38D section 7.1, step 2).
fn j0_of(gcm: &Gcm, nonce: &[u8]) -> Result<Block> {
    if nonce.is_empty() {
        return Err(Error::EmptyNonce);
    }
    let mut j0 = [0u8; BLOCK_LEN];
    if nonce.len() == 12 {
        j0[..12].copy_from_slice(nonce);
        j0[15] = 1;
    } else {
        // J0 = GHASH(IV || 0^(s+64) || [len(IV)]_64).
        let bits = (nonce.len() as u64)
            .checked_mul(8)
            .ok_or(Error::InvalidIvLength {
                expected: 12,
                got: nonce.len(),
            })?;
        let whole = nonce.len() - nonce.len() % BLOCK_LEN;
        let mut last = [0u8; BLOCK_LEN];
        last[..nonce.len() - whole].copy_from_slice(&nonce[whole..]);
        let mut len_block = [0u8; BLOCK_LEN];
        len_block[8..].copy_from_slice(&bits.to_be_bytes());
        with_gcm!(&gcm.engine, k => {
            k.aes.ghash_update(&k.h, &mut j0, &nonce[..whole]);
            if whole != nonce.len() {
                k.aes.ghash_update(&k.h, &mut j0, &last);
            }
            k.aes.ghash_update(&k.h, &mut j0, &len_block);
        });
    }
    Ok(j0)
}

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
        with_gcm!(&gcm.engine, k => k.aes.encrypt_blocks(InOut::in_place(&mut ekj0)));
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
        with_gcm!(&self.gcm.engine, k => k.aes.ghash_update(&k.h, acc, data));
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
            with_gcm!(&self.gcm.engine, k => if encrypt {
                k.aes.gcm_encrypt(&k.h, ctr, acc, whole)
            } else {
                k.aes.gcm_decrypt(&k.h, ctr, acc, whole)
            });
        }
        // 3. Start a new partial block with the tail.
        if !tail.is_empty() {
            let n = tail.len();
            self.ks = self.ctr;
            with_gcm!(&self.gcm.engine, k => k.aes.encrypt_blocks(InOut::in_place(&mut self.ks)));
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
    core: Core<'a>,
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
            if self.core.finish().verify(tag) {
                Ok(())
            } else {
                Err(Error::AuthenticationFailed)
            }
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

    #[test]
    fn inc32_wraps_without_carry() {
        let mut c = [0xffu8; 16];
        inc32(&mut c, 1);
        assert_eq!(c[..12], [0xff; 12]);
        assert_eq!(c[12..], [0; 4]);
    }
}
