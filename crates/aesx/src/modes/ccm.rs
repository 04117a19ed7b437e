//! AES-CCM (SP 800-38C, RFC 3610); the notes are on [`Ccm`].

use zeroize::Zeroize;

use super::block::Aes;
use super::cmac::CbcMacState;
use super::tag::{self, AeadIo, Tag};
use crate::backend::kernels::mac::xor_into;
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, BLOCK_LEN};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// AES-CCM with one key and one tag length: seal and open many messages.
///
/// CCM (NIST SP 800-38C, RFC 3610) authenticates the associated data and
/// the plaintext with a CBC-MAC, then encrypts the plaintext and the MAC in
/// CTR mode. Nonces are 7 to 13 bytes; a nonce of `n` bytes leaves
/// `q = 15 - n` bytes for the message length, so a message must be shorter
/// than 2^(8q) bytes (64 KiB with a 13-byte nonce) — longer ones are
/// refused with [`Error::MessageTooLong`]. Tags are 4, 6, 8, 10, 12, 14 or
/// 16 bytes, fixed per [`Ccm`] value.
///
/// `open` compares the tag in constant time and, when it differs, zeroes
/// the output before returning [`Error::AuthenticationFailed`]: no
/// unauthenticated plaintext leaves it. A nonce must never repeat under one
/// key.
///
/// ```
/// use aesx::Ccm;
///
/// let ccm = Ccm::new(&[7u8; 16], 8).unwrap();
/// let nonce = [1u8; 13];
/// let sealed = ccm.seal(&nonce, b"header", b"secret").unwrap();
/// assert_eq!(sealed.len(), 6 + 8);
/// assert_eq!(ccm.open(&nonce, b"header", &sealed).unwrap(), b"secret");
/// let mut forged = sealed.clone();
/// forged[0] ^= 1;
/// assert!(ccm.open(&nonce, b"header", &forged).is_err());
/// ```
// `Debug` prints no key material: `Aes`'s own shows only backend and size.
#[derive(Clone, Debug)]
pub struct Ccm {
    aes: Aes,
    tag_len: usize,
}

/// A message's counter block A_1, the keystream block S_0 = E(A_0) that
/// masks the tag, and the CBC-MAC after B_0 and the associated data.
struct Prepared {
    ctr: Block,
    s0: Block,
    mac: CbcMacState,
}

impl Ccm {
    /// The tag lengths CCM allows, in bytes.
    pub const TAG_LENS: [usize; 7] = [4, 6, 8, 10, 12, 14, 16];
    /// The shortest nonce, in bytes.
    pub const MIN_NONCE_LEN: usize = 7;
    /// The longest nonce, in bytes.
    pub const MAX_NONCE_LEN: usize = 13;

    /// AES-CCM with `key` (16, 24 or 32 bytes) and tags of `tag_len` bytes
    /// (4, 6, ..., 16) on the preferred backend.
    pub fn new(key: &[u8], tag_len: usize) -> Result<Self> {
        Self::with_backend(key, tag_len, Backend::preferred()?)
    }

    /// AES-CCM on the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], tag_len: usize, backend: Backend) -> Result<Self> {
        if !Self::TAG_LENS.contains(&tag_len) {
            return Err(Error::InvalidTagLength { len: tag_len });
        }
        Ok(Ccm {
            aes: Aes::with_backend(key, backend)?,
            tag_len,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.aes.backend()
    }

    /// The AES key size.
    pub fn key_size(&self) -> KeySize {
        self.aes.key_size()
    }

    /// The tag length in bytes.
    pub fn tag_len(&self) -> usize {
        self.tag_len
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        <Self as AeadIo>::seal_in_place_detached(self, nonce, aad, buf)
    }

    /// Decrypts `buf` in place if `tag` verifies; otherwise zeroes `buf` and
    /// returns [`Error::AuthenticationFailed`].
    pub fn open_in_place_detached(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        <Self as AeadIo>::open_in_place_detached(self, nonce, aad, buf, tag)
    }

    /// Both directions: the payload through the CCM kernel (whole blocks)
    /// and a partial last block, then the tag of the plaintext.
    fn crypt(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, decrypt: bool) -> Result<Tag> {
        let Prepared {
            mut ctr,
            mut s0,
            mut mac,
        } = self.prepare(nonce, aad, io.len())?;
        let (whole, mut tail) = io.split_blocks();
        if decrypt {
            self.aes.engine.ccm_decrypt(&mut mac.state, &mut ctr, whole);
        } else {
            self.aes.engine.ccm_encrypt(&mut mac.state, &mut ctr, whole);
        }
        if !tail.is_empty() {
            // The last partial block: the MAC takes the plaintext
            // zero-padded, the keystream covers its n bytes.
            let n = tail.len();
            let mut t = [0u8; BLOCK_LEN];
            tail.read_into(&mut t[..n]);
            let mut ks = ctr;
            self.aes.encrypt_block(&mut ks);
            if !decrypt {
                self.aes.engine.cbc_mac(&mut mac.state, &t);
            }
            xor_into(&mut t[..n], &ks[..n]);
            tail.write_from(&t[..n]);
            if decrypt {
                self.aes.engine.cbc_mac(&mut mac.state, &t);
            }
            t.zeroize();
            ks.zeroize();
        }
        Ok(self.finish(&mut s0, &mac.state))
    }

    /// `nonce`'s ciphertext of `pt` followed by the tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        let mut out = Vec::with_capacity(pt.len() + self.tag_len);
        out.extend_from_slice(pt);
        let tag = self.seal_in_place_detached(nonce, aad, &mut out)?;
        out.extend_from_slice(tag.as_bytes());
        Ok(out)
    }

    /// The plaintext of `ct_and_tag` (ciphertext then tag), if the tag
    /// verifies.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        let ct_len = ct_and_tag
            .len()
            .checked_sub(self.tag_len)
            .ok_or(Error::InvalidTagLength {
                len: ct_and_tag.len(),
            })?;
        let (ct, tag) = ct_and_tag.split_at(ct_len);
        let mut out = ct.to_vec();
        self.open_in_place_detached(nonce, aad, &mut out, tag)?;
        Ok(out)
    }

    /// Checks the lengths, builds B_0 and A_0 and runs the CBC-MAC through
    /// B_0 and the encoded associated data.
    fn prepare(&self, nonce: &[u8], aad: &[u8], len: usize) -> Result<Prepared> {
        let n = nonce.len();
        if !(Self::MIN_NONCE_LEN..=Self::MAX_NONCE_LEN).contains(&n) {
            return Err(Error::InvalidNonceLength {
                min: Self::MIN_NONCE_LEN,
                max: Self::MAX_NONCE_LEN,
                got: n,
            });
        }
        let q = 15 - n;
        let len = len as u64;
        if q < 8 && len >> (8 * q) != 0 {
            return Err(Error::MessageTooLong);
        }
        let mut b0 = [0u8; BLOCK_LEN];
        b0[0] = (u8::from(!aad.is_empty()) << 6)
            | (((self.tag_len as u8 - 2) / 2) << 3)
            | (q as u8 - 1);
        b0[1..=n].copy_from_slice(nonce);
        b0[16 - q..].copy_from_slice(&len.to_be_bytes()[8 - q..]);
        // B_0 and A_0 together: E(B_0) starts the CBC-MAC, E(A_0) = S_0
        // masks the tag; independent, so one two-block call runs both at
        // once instead of two in a row.
        let mut pair = [0u8; 2 * BLOCK_LEN];
        pair[..BLOCK_LEN].copy_from_slice(&b0);
        pair[BLOCK_LEN] = q as u8 - 1;
        pair[BLOCK_LEN + 1..=BLOCK_LEN + n].copy_from_slice(nonce);
        let mut ctr: Block = pair[BLOCK_LEN..].try_into().expect("one block");
        ctr[15] = 1;
        self.aes.engine.encrypt_blocks(InOut::in_place(&mut pair));
        let mut mac = CbcMacState::new(pair[..BLOCK_LEN].try_into().expect("one block"));
        let s0: Block = pair[BLOCK_LEN..].try_into().expect("one block");
        pair.zeroize();
        if !aad.is_empty() {
            let a = aad.len() as u64;
            let mut hdr = [0u8; 10];
            let hdr: &[u8] = if a < 0xff00 {
                hdr[..2].copy_from_slice(&(a as u16).to_be_bytes());
                &hdr[..2]
            } else if a <= u64::from(u32::MAX) {
                hdr[..2].copy_from_slice(&[0xff, 0xfe]);
                hdr[2..6].copy_from_slice(&(a as u32).to_be_bytes());
                &hdr[..6]
            } else {
                hdr[..2].copy_from_slice(&[0xff, 0xff]);
                hdr[2..].copy_from_slice(&a.to_be_bytes());
                &hdr[..]
            };
            mac.update(&self.aes, hdr);
            mac.update(&self.aes, aad);
            mac.pad_zero(&self.aes);
        }
        Ok(Prepared { ctr, s0, mac })
    }

    /// The tag: the CBC-MAC masked with S_0, truncated; wipes S_0.
    fn finish(&self, s0: &mut Block, mac: &Block) -> Tag {
        let mut full = *s0;
        xor_into(&mut full, mac);
        full[self.tag_len..].fill(0);
        s0.zeroize();
        Tag::truncated(full, self.tag_len)
    }
}

impl AeadIo for Ccm {
    fn seal_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>) -> Result<Tag> {
        self.crypt(nonce, aad, io, false)
    }

    fn open_io(&self, nonce: &[u8], aad: &[u8], io: InOut<'_>, tag: &[u8]) -> Result<()> {
        if tag.len() != self.tag_len {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        tag::check(self.crypt(nonce, aad, io, true)?.as_bytes(), tag)
    }

    fn tag_bytes(&self) -> usize {
        self.tag_len
    }
}
