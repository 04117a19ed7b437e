//! AES-GCM for IPsec ESP (RFC 4106); the full notes are on [`Esp`].

use zeroize::Zeroize;

use super::gcm::Gcm;
use super::gcm_stream::Core;
use super::tag::{self, Tag};
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};

/// Salt length (the last 4 bytes of the RFC 4106 keying material).
pub(crate) const SALT_LEN: usize = 4;
/// Per-packet IV length.
pub(crate) const IV_LEN: usize = 8;

/// Packets up to this size go through the fused one-shot kernel in one call
/// and are summed right after it, while they are still in L1 (48 KiB on the
/// CPUs aesx targets); longer ones are processed in chunks of this size, each
/// summed as soon as the kernel has written it. A multiple of 16 (and so of
/// 8, the checksum word).
const CHUNK: usize = 16384;

/// An RFC 4106 key context: AES key, salt and ICV length.
///
/// AES-GCM for IPsec ESP (RFC 4106), shaped like AArch64cryptolib's IPsec
/// API: a key context built once, then in-place seal and open of packets.
///
/// - The nonce is the 4-byte salt of the key context followed by the 8-byte
///   per-packet ESP IV (RFC 4106 section 4), so every packet takes GCM's
///   96-bit fast path.
/// - The AAD is the ESP header: SPI and a 32-bit sequence number (8 bytes)
///   or SPI and a 64-bit extended sequence number (12 bytes).
/// - Tags (ICVs) are 8, 12 or 16 bytes (RFC 4106 section 3).
///
/// Decryption also returns the 64-bit one's-complement checksum of the
/// plaintext (see [`ones_complement_checksum`]), computed in the same pass
/// over memory: a packet of up to 16 KiB goes through the fused GCM kernel
/// and is summed straight after, while it is still in L1; a longer one is
/// processed in 16 KiB chunks, each summed right after the kernel wrote it.
/// The sum itself runs at several words per cycle (32-bit halves added in
/// 64-bit lanes), so it costs little next to AES-GCM. Encryption can return
/// it too (summed just before the data is encrypted).
///
/// ```
/// use aesx::Esp;
///
/// let esp = Esp::new(&[9u8; 16], &[1, 2, 3, 4], 16).unwrap();
/// let iv = [0u8; 8];
/// let aad = [0, 0, 0x10, 0, 0, 0, 0, 1]; // SPI, sequence number
/// let mut packet = *b"an inner IP packet..";
/// let (tag, sum) = esp.seal_in_place_with_checksum(&iv, &aad, &mut packet).unwrap();
/// let sum2 = esp.open_in_place(&iv, &aad, &mut packet, tag.as_bytes()).unwrap();
/// assert_eq!(&packet, b"an inner IP packet..");
/// assert_eq!(sum, sum2);
/// ```
#[derive(Clone)]
pub struct Esp {
    gcm: Gcm,
    salt: [u8; SALT_LEN],
}

// The salt is keying material (RFC 4106 section 8.1): wiped on drop, never
// printed.
impl Drop for Esp {
    fn drop(&mut self) {
        self.salt.zeroize();
    }
}

impl core::fmt::Debug for Esp {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Esp")
            .field("backend", &self.gcm.backend())
            .field("key_size", &self.gcm.key_size())
            .field("tag_len", &self.gcm.tag_len())
            .finish_non_exhaustive()
    }
}

impl Esp {
    /// Salt length: the last 4 bytes of the RFC 4106 keying material.
    pub const SALT_LEN: usize = SALT_LEN;
    /// Per-packet IV length.
    pub const IV_LEN: usize = IV_LEN;

    /// A context for `key` (16, 24 or 32 bytes), 4-byte `salt` and tags of
    /// `tag_len` bytes (8, 12 or 16), on the preferred backend.
    pub fn new(key: &[u8], salt: &[u8], tag_len: usize) -> Result<Self> {
        Self::with_backend(key, salt, tag_len, Backend::preferred()?)
    }

    /// As [`Esp::new`], on the named backend.
    pub fn with_backend(key: &[u8], salt: &[u8], tag_len: usize, backend: Backend) -> Result<Self> {
        if !matches!(tag_len, 8 | 12 | 16) {
            return Err(Error::InvalidTagLength { len: tag_len });
        }
        let salt: [u8; SALT_LEN] = salt.try_into().map_err(|_| Error::InvalidIvLength {
            expected: SALT_LEN,
            got: salt.len(),
        })?;
        let gcm = Gcm::with_backend(key, backend)?.with_tag_len(tag_len)?;
        Ok(Esp { gcm, salt })
    }

    /// A context from RFC 4106 keying material: the key followed by the
    /// 4-byte salt (20, 28 or 36 bytes).
    pub fn from_keying_material(keymat: &[u8], tag_len: usize) -> Result<Self> {
        if keymat.len() < SALT_LEN {
            return Err(Error::InvalidKeyLength { len: keymat.len() });
        }
        let (key, salt) = keymat.split_at(keymat.len() - SALT_LEN);
        Self::new(key, salt, tag_len)
    }

    /// The backend this context runs on.
    pub fn backend(&self) -> Backend {
        self.gcm.backend()
    }

    /// The ICV (tag) length in bytes.
    pub fn tag_len(&self) -> usize {
        self.gcm.tag_len()
    }

    fn check(&self, iv: &[u8], aad: &[u8], len: usize) -> Result<[u8; 12]> {
        if iv.len() != IV_LEN {
            return Err(Error::InvalidIvLength {
                expected: IV_LEN,
                got: iv.len(),
            });
        }
        if !matches!(aad.len(), 8 | 12) {
            return Err(Error::InvalidAadLength { len: aad.len() });
        }
        if len as u64 > super::gcm::MAX_PLAINTEXT_LEN {
            return Err(Error::MessageTooLong);
        }
        let mut nonce = [0u8; 12];
        nonce[..SALT_LEN].copy_from_slice(&self.salt);
        nonce[SALT_LEN..].copy_from_slice(iv);
        Ok(nonce)
    }

    fn start(&self, nonce: &[u8; 12], aad: &[u8]) -> Result<Core<'_>> {
        let mut core = Core::new(&self.gcm, nonce)?;
        core.aad(aad)?;
        Ok(core)
    }

    /// Encrypts `buf` in place and returns the ICV.
    pub fn seal_in_place(&self, iv: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        let nonce = self.check(iv, aad, buf.len())?;
        self.gcm.oneshot(&nonce, aad, InOut::in_place(buf), true)
    }

    /// Encrypts `buf` in place and returns the ICV and the one's-complement
    /// checksum of the plaintext.
    pub fn seal_in_place_with_checksum(
        &self,
        iv: &[u8],
        aad: &[u8],
        buf: &mut [u8],
    ) -> Result<(Tag, u64)> {
        let nonce = self.check(iv, aad, buf.len())?;
        let mut sum = Checksum::new();
        if buf.len() <= CHUNK {
            sum.add(self.gcm.word_sum(buf));
            let tag = self.gcm.oneshot(&nonce, aad, InOut::in_place(buf), true)?;
            return Ok((tag, sum.value()));
        }
        let mut core = self.start(&nonce, aad)?;
        for chunk in buf.chunks_mut(CHUNK) {
            sum.add(self.gcm.word_sum(chunk));
            core.encrypt(InOut::in_place(chunk))?;
        }
        Ok((core.finish(), sum.value()))
    }

    /// Verifies the ICV `tag` and decrypts `buf` in place, returning the
    /// one's-complement checksum of the plaintext. On failure `buf` is
    /// zeroed and [`Error::AuthenticationFailed`] returned.
    pub fn open_in_place(&self, iv: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> Result<u64> {
        if tag.len() != self.gcm.tag_len() {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        let nonce = self.check(iv, aad, buf.len())?;
        let mut sum = Checksum::new();
        let computed = if buf.len() <= CHUNK {
            let t = self.gcm.oneshot(&nonce, aad, InOut::in_place(buf), false)?;
            sum.add(self.gcm.word_sum(buf));
            t
        } else {
            let mut core = self.start(&nonce, aad)?;
            for chunk in buf.chunks_mut(CHUNK) {
                core.decrypt(InOut::in_place(chunk))?;
                sum.add(self.gcm.word_sum(chunk));
            }
            core.finish()
        };
        tag::release(tag::check(computed.as_bytes(), tag), buf)?;
        Ok(sum.value())
    }
}

/// The 64-bit one's-complement sum of `data` read as little-endian 64-bit
/// words (the last one zero-padded), with end-around carry. Its 8
/// little-endian bytes are the `CS` value of AArch64cryptolib's test files:
/// `ffffeeeeddddccccbbbbaaaa` sums to `babb9999deddcccc`.
pub fn ones_complement_checksum(data: &[u8]) -> u64 {
    fold(crate::backend::kernels::gcm::word_sum(data))
}

/// Running one's-complement sum. Pieces must be fed at 8-byte boundaries
/// (all but the last a multiple of 8 bytes long).
struct Checksum {
    /// Full-precision sum; folded to 64 bits with end-around carry at the end
    /// (the one's-complement sum of many words equals their integer sum
    /// folded, since 2^64 = 1 modulo 2^64 - 1).
    total: u128,
}

impl Checksum {
    fn new() -> Self {
        Checksum { total: 0 }
    }

    fn add(&mut self, part: u128) {
        // Fold first so that the running total can never overflow.
        self.total = fold(self.total) as u128 + fold(part) as u128;
    }

    fn value(&self) -> u64 {
        fold(self.total)
    }
}

/// Folds to 64 bits with end-around carry (0 only for 0).
fn fold(mut t: u128) -> u64 {
    while t >> 64 != 0 {
        t = (t & u64::MAX as u128) + (t >> 64);
    }
    t as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checksum_example_from_sources() {
        let pt = [
            0xff, 0xff, 0xee, 0xee, 0xdd, 0xdd, 0xcc, 0xcc, 0xbb, 0xbb, 0xaa, 0xaa,
        ];
        assert_eq!(
            ones_complement_checksum(&pt).to_le_bytes(),
            [0xba, 0xbb, 0x99, 0x99, 0xde, 0xdd, 0xcc, 0xcc]
        );
    }

    #[test]
    fn checksum_end_around_carry() {
        // 0xffff...ff + 1 wraps to 1 (end-around carry), + 0xfff..fe = 0xff..ff.
        let mut d = [0u8; 24];
        d[..8].copy_from_slice(&u64::MAX.to_le_bytes());
        d[8..16].copy_from_slice(&1u64.to_le_bytes());
        d[16..].copy_from_slice(&(u64::MAX - 1).to_le_bytes());
        assert_eq!(ones_complement_checksum(&d), u64::MAX);
        // Serial end-around addition agrees on random data.
        let mut x = 0x1234_5678_9abc_def0u64;
        let mut data = [0u8; 1000];
        for b in data.iter_mut() {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            *b = (x >> 56) as u8 | 0xc0;
        }
        let mut s = 0u64;
        for w in data.chunks(8) {
            let mut a = [0u8; 8];
            a[..w.len()].copy_from_slice(w);
            let (r, c) = s.overflowing_add(u64::from_le_bytes(a));
            s = r + c as u64;
        }
        assert_eq!(ones_complement_checksum(&data), s);
    }
}
