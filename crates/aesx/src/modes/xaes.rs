//! XAES-256-GCM (c2sp.org/XAES-256-GCM); the notes are on [`Xaes256Gcm`].

use core::fmt;

use zeroize::Zeroize;

use crate::backend::gcm_kernels::{GcmKernels, GcmKey};
use crate::backend::siv_kernels::SivKernels;
use crate::backend::{with_engine, Backend, BlockKernels, Engine, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, RoundKeys, BLOCK_LEN};
use crate::modes::gcm::{ct_eq, Gcm, Tag};

#[cfg(feature = "std")]
use alloc::vec::Vec;

/// Nonce length of XAES-256-GCM.
const NONCE_LEN: usize = 24;
/// Tag length.
const TAG_LEN: usize = 16;

/// XAES-256-GCM with one key: AES-256-GCM with 192-bit nonces, safe to draw
/// at random for practically unlimited messages under one key.
///
/// Each message derives a fresh AES-256 key from the first 12 bytes of the
/// nonce (SP 800-108 counter-mode KDF with CMAC; both derived blocks come
/// from one AES call), then runs AES-256-GCM with the last 12 bytes as the
/// nonce. The key is 32 bytes, the nonce 24, the tag 16. Limits and
/// failure behaviour are those of [`Gcm`](crate::Gcm): `open` compares in
/// constant time and zeroes its output on failure.
///
/// [`Gcm`]: crate::Gcm
///
/// ```
/// use aesx::Xaes256Gcm;
///
/// let xaes = Xaes256Gcm::new(&[7u8; 32]).unwrap();
/// let nonce = [1u8; 24]; // random is fine
/// let sealed = xaes.seal(&nonce, b"header", b"secret").unwrap();
/// assert_eq!(xaes.open(&nonce, b"header", &sealed).unwrap(), b"secret");
/// ```
#[derive(Clone)]
pub struct Xaes256Gcm {
    engine: Engine,
    /// The CMAC subkey K1 = dbl(AES(K, 0^128)).
    k1: Block,
    backend: Backend,
}

impl Drop for Xaes256Gcm {
    fn drop(&mut self) {
        self.k1.zeroize();
    }
}

impl fmt::Debug for Xaes256Gcm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Xaes256Gcm")
            .field("backend", &self.backend)
            .finish_non_exhaustive()
    }
}

/// Doubling in GF(2^128) as CMAC defines it (big-endian, x^128 + x^7 + x^2 +
/// x + 1), without a branch on the secret top bit.
pub(crate) fn dbl(b: &Block) -> Block {
    let v = u128::from_be_bytes(*b);
    let carry = 0u128.wrapping_sub(v >> 127);
    ((v << 1) ^ (carry & 0x87)).to_be_bytes()
}

impl Xaes256Gcm {
    /// The nonce length in bytes.
    pub const NONCE_LEN: usize = NONCE_LEN;
    /// The tag length in bytes.
    pub const TAG_LEN: usize = TAG_LEN;

    /// XAES-256-GCM with a 32-byte `key` on the fastest backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::with_backend(key, Backend::preferred()?)
    }

    /// XAES-256-GCM with `key` on the named backend; an error if it is
    /// unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        if key.len() != KeySize::Aes256.bytes() {
            return Err(Error::InvalidKeyLength { len: key.len() });
        }
        let rk = RoundKeys::expand(key)?;
        let engine = Engine::new(backend, &rk)?;
        let mut l = [0u8; BLOCK_LEN];
        with_engine!(&engine, k => k.encrypt_blocks(InOut::in_place(&mut l)));
        let k1 = dbl(&l);
        l.zeroize();
        Ok(Xaes256Gcm {
            engine,
            k1,
            backend,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// Encrypts `buf` in place and returns the tag.
    pub fn seal_in_place_detached(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        let (n, j0) = check(nonce, aad.len(), buf.len())?;
        with_engine!(&self.engine, k => {
            let g = self.derive(k, n, aad.len(), buf.len())?;
            Ok(Tag::full(g.aes.gcm_oneshot(&g.h, true, &j0, aad, InOut::in_place(buf))))
        })
    }

    /// Returns ciphertext followed by the 16-byte tag.
    #[cfg(feature = "std")]
    pub fn seal(&self, nonce: &[u8], aad: &[u8], pt: &[u8]) -> Result<Vec<u8>> {
        let (n, j0) = check(nonce, aad.len(), pt.len())?;
        let mut out = alloc::vec![0u8; pt.len() + TAG_LEN];
        let (ct, tag) = out.split_at_mut(pt.len());
        with_engine!(&self.engine, k => {
            let g = self.derive(k, n, aad.len(), pt.len())?;
            tag.copy_from_slice(&g.aes.gcm_oneshot(&g.h, true, &j0, aad, InOut::new(pt, ct)?));
        });
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
        let (n, j0) = check(nonce, aad.len(), buf.len())?;
        if tag.len() != TAG_LEN {
            return Err(Error::InvalidTagLength { len: tag.len() });
        }
        let r = with_engine!(&self.engine, k => {
            let g = self.derive(k, n, aad.len(), buf.len())?;
            verify(&g.aes.gcm_oneshot(&g.h, false, &j0, aad, InOut::in_place(buf)), tag)
        });
        if r.is_err() {
            buf.zeroize();
        }
        r
    }

    /// Opens ciphertext followed by the tag and returns the plaintext.
    #[cfg(feature = "std")]
    pub fn open(&self, nonce: &[u8], aad: &[u8], ct_and_tag: &[u8]) -> Result<Vec<u8>> {
        let len = ct_and_tag.len().saturating_sub(TAG_LEN);
        let (n, j0) = check(nonce, aad.len(), len)?;
        if ct_and_tag.len() < TAG_LEN {
            return Err(Error::AuthenticationFailed);
        }
        let (ct, tag) = ct_and_tag.split_at(len);
        let mut out = alloc::vec![0u8; len];
        let r = with_engine!(&self.engine, k => {
            let g = self.derive(k, n, aad.len(), ct.len())?;
            verify(&g.aes.gcm_oneshot(&g.h, false, &j0, aad, InOut::new(ct, &mut out)?), tag)
        });
        match r {
            Ok(()) => Ok(out),
            Err(e) => {
                out.zeroize();
                Err(e)
            }
        }
    }

    /// The message's AES-256-GCM key: Kx = AES(K, M1 ^ K1) || AES(K, M2 ^
    /// K1) with Mi = 00 0i 'X' 00 || N[..12], in one two-block call, then
    /// its GHASH key with the powers a message of `aad` and `len` bytes uses.
    fn derive<K: SivKernels>(
        &self,
        k: &K,
        n: &[u8; 12],
        aad: usize,
        len: usize,
    ) -> Result<GcmKey<K>> {
        let mut kx = [0u8; 2 * BLOCK_LEN];
        for (i, m) in kx.chunks_exact_mut(BLOCK_LEN).enumerate() {
            m[..4].copy_from_slice(&[0, i as u8 + 1, b'X', 0]);
            m[4..].copy_from_slice(n);
            for (x, k) in m.iter_mut().zip(&self.k1) {
                *x ^= k;
            }
        }
        k.encrypt_blocks(InOut::in_place(&mut kx));
        let aes = k.message_key(&kx);
        crate::modes::gcm_siv::wipe(&mut kx);
        let aes = aes?;
        let blocks = aad
            .div_ceil(BLOCK_LEN)
            .saturating_add(len.div_ceil(BLOCK_LEN))
            .saturating_add(1);
        let h = aes.message_ghash_key(blocks);
        Ok(GcmKey { aes, h })
    }
}

/// Checks the nonce and the GCM limits; returns the KDF half of the nonce
/// and the GCM pre-counter block J0 = N[12..] || 0^31 || 1.
fn check(nonce: &[u8], aad: usize, data: usize) -> Result<(&[u8; 12], Block)> {
    if nonce.len() != NONCE_LEN {
        return Err(Error::InvalidIvLength {
            expected: NONCE_LEN,
            got: nonce.len(),
        });
    }
    if data as u64 > Gcm::MAX_PLAINTEXT_LEN {
        return Err(Error::MessageTooLong);
    }
    if aad as u64 > Gcm::MAX_AAD_LEN {
        return Err(Error::AadTooLong);
    }
    let (n, rest) = nonce.split_at(12);
    let mut j0 = [0u8; BLOCK_LEN];
    j0[..12].copy_from_slice(rest);
    j0[15] = 1;
    Ok((n.try_into().map_err(|_| Error::InvalidState)?, j0))
}

/// Compares the computed tag with the received one in constant time.
fn verify(got: &Block, tag: &[u8]) -> Result<()> {
    if ct_eq(got, tag) {
        Ok(())
    } else {
        Err(Error::AuthenticationFailed)
    }
}
