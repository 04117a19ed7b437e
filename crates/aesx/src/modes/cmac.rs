//! CMAC (SP 800-38B, RFC 4493); the notes are on [`Cmac`].

use zeroize::{Zeroize, Zeroizing};

use super::block::{debug_over_aes, Aes};
use super::tag;
use crate::backend::kernels::mac::xor_into;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::key::{Block, KeySize, BLOCK_LEN};

/// A CBC-MAC chain that takes bytes in pieces of any size.
///
/// It always holds back the last 1 to 16 bytes it was given (CMAC must
/// treat the final block differently, and only the next `update` says
/// whether a full buffered block was the final one); the rest go through the
/// backend's `cbc_mac` kernel straight from the caller's slice.
#[derive(Clone)]
pub(crate) struct CbcMacState {
    pub(crate) state: Block,
    buf: Block,
    used: usize,
}

impl CbcMacState {
    pub(crate) fn new(state: Block) -> Self {
        CbcMacState {
            state,
            buf: [0; BLOCK_LEN],
            used: 0,
        }
    }

    /// Absorbs `data`, holding back its last 1 to 16 bytes.
    pub(crate) fn update(&mut self, aes: &Aes, mut data: &[u8]) {
        if data.is_empty() {
            return;
        }
        let take = (BLOCK_LEN - self.used).min(data.len());
        self.buf[self.used..self.used + take].copy_from_slice(&data[..take]);
        self.used += take;
        data = &data[take..];
        if data.is_empty() {
            return;
        }
        // The buffer is full and more follows: it was not the final block.
        let keep = (data.len() - 1) % BLOCK_LEN + 1;
        let (whole, tail) = data.split_at(data.len() - keep);
        aes.engine.cbc_mac(&mut self.state, &self.buf);
        aes.engine.cbc_mac(&mut self.state, whole);
        self.buf[..keep].copy_from_slice(tail);
        self.used = keep;
    }

    /// Absorbs the held-back bytes zero-padded to a block (CCM's padding);
    /// nothing if none are held.
    pub(crate) fn pad_zero(&mut self, aes: &Aes) {
        if self.used > 0 {
            self.buf[self.used..].fill(0);
            aes.engine.cbc_mac(&mut self.state, &self.buf);
            self.used = 0;
        }
    }

    /// CMAC's last step: whole blocks `body` that come before the held-back
    /// bytes (empty when streaming), then the final block, padded with 10*
    /// and masked with K2 if partial (or absent), masked with K1 if full.
    fn finish_cmac(mut self, aes: &Aes, body: &[u8], k1: &Block, k2: &Block) -> Block {
        if self.used == BLOCK_LEN {
            xor_into(&mut self.buf, k1);
        } else {
            self.buf[self.used] = 0x80;
            self.buf[self.used + 1..].fill(0);
            xor_into(&mut self.buf, k2);
        }
        aes.engine.cbc_mac(&mut self.state, body);
        aes.engine.cbc_mac(&mut self.state, &self.buf);
        self.state
    }
}

impl Drop for CbcMacState {
    fn drop(&mut self) {
        self.state.zeroize();
        self.buf.zeroize();
    }
}

/// Doubling in GF(2^128) with the SP 800-38B polynomial (big-endian bit
/// order), without a branch on the secret top bit.
fn dbl(b: &Block) -> Block {
    let x = u128::from_be_bytes(*b);
    let carry = x >> 127;
    ((x << 1) ^ (0u128.wrapping_sub(carry) & 0x87)).to_be_bytes()
}

/// The first CMAC subkey, K1 = dbl(AES(K, 0^128)) (SP 800-38B section
/// 6.1); XAES-256-GCM's key derivation uses it too.
pub(crate) fn subkey(aes: &Aes) -> Block {
    let mut l = [0u8; BLOCK_LEN];
    aes.encrypt_block(&mut l);
    let k1 = dbl(&l);
    l.zeroize();
    k1
}

/// AES-CMAC with one key (SP 800-38B; RFC 4493 for AES-128).
///
/// The subkeys K1 and K2 are derived once per key and zeroized on drop with
/// the round keys. [`Cmac::mac`] is one-shot; [`Cmac::hasher`] streams input
/// in pieces of any size with the same result. Verification compares in
/// constant time; a truncated tag (1 to 16 bytes) is compared on its own
/// length, against the leading bytes of the full tag.
///
/// CMAC is a chain of AES calls, each waiting for the last: its speed is the
/// latency of one AES block per 16 bytes.
///
/// ```
/// use aesx::Cmac;
///
/// let cmac = Cmac::new(&[0x2bu8; 16]).unwrap();
/// let tag = cmac.mac(b"message");
/// let mut h = cmac.hasher();
/// h.update(b"mess");
/// h.update(b"age");
/// assert_eq!(h.finalize(), tag);
/// assert!(cmac.verify(b"message", &tag[..8]).is_ok());
/// assert!(cmac.verify(b"massage", &tag).is_err());
/// ```
#[derive(Clone)]
pub struct Cmac {
    aes: Aes,
    k1: Zeroizing<Block>,
    k2: Zeroizing<Block>,
}

impl core::fmt::Debug for Cmac {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print key material (the subkeys are as secret as the key).
        debug_over_aes(f, "Cmac", &self.aes)
    }
}

impl Cmac {
    /// The tag length, in bytes.
    pub const TAG_LEN: usize = BLOCK_LEN;

    /// CMAC with `key` (16, 24 or 32 bytes) on the preferred backend.
    pub fn new(key: &[u8]) -> Result<Self> {
        Self::from_aes(Aes::new(key)?)
    }

    /// CMAC with `key` on the named backend; an error if it is unavailable.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        Self::from_aes(Aes::with_backend(key, backend)?)
    }

    fn from_aes(aes: Aes) -> Result<Self> {
        let k1 = subkey(&aes);
        let k2 = dbl(&k1);
        Ok(Cmac {
            aes,
            k1: Zeroizing::new(k1),
            k2: Zeroizing::new(k2),
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

    /// The 16-byte tag of `data`.
    pub fn mac(&self, data: &[u8]) -> [u8; 16] {
        // One pass without the streaming buffer: every block but the last
        // 1 to 16 bytes straight from `data`, then the masked final block.
        let keep = if data.is_empty() {
            0
        } else {
            (data.len() - 1) % BLOCK_LEN + 1
        };
        let (body, tail) = data.split_at(data.len() - keep);
        let mut chain = CbcMacState::new([0; BLOCK_LEN]);
        chain.buf[..keep].copy_from_slice(tail);
        chain.used = keep;
        chain.finish_cmac(&self.aes, body, &self.k1, &self.k2)
    }

    /// Checks `tag` (1 to 16 bytes: a truncated tag is compared with as many
    /// leading bytes of the full one) in constant time.
    /// [`Error::InvalidTagLength`] for an empty or over-long tag,
    /// [`Error::AuthenticationFailed`] for a wrong one.
    pub fn verify(&self, data: &[u8], tag: &[u8]) -> Result<()> {
        check_tag(tag, || self.mac(data))
    }

    /// A streaming computation: `update` any number of times, then
    /// `finalize` or `verify`.
    pub fn hasher(&self) -> CmacHasher<'_> {
        CmacHasher {
            cmac: Held::Borrowed(self),
            chain: CbcMacState::new([0; BLOCK_LEN]),
        }
    }

    /// A streaming computation that owns its key: for holders that cannot
    /// keep a borrow alive (a Python object, a C handle).
    #[cfg(feature = "std")]
    pub fn into_hasher(self) -> CmacHasher<'static> {
        CmacHasher {
            cmac: Held::Owned(alloc::boxed::Box::new(self)),
            chain: CbcMacState::new([0; BLOCK_LEN]),
        }
    }
}

/// The key of a [`CmacHasher`]: borrowed from the caller's [`Cmac`], or its
/// own.
#[derive(Clone)]
enum Held<'a> {
    Borrowed(&'a Cmac),
    #[cfg(feature = "std")]
    Owned(alloc::boxed::Box<Cmac>),
}

impl Held<'_> {
    fn get(&self) -> &Cmac {
        match self {
            Held::Borrowed(c) => c,
            #[cfg(feature = "std")]
            Held::Owned(c) => c,
        }
    }
}

/// Streaming CMAC over one [`Cmac`] key; any split of the input gives the
/// tag of the whole.
#[derive(Clone)]
pub struct CmacHasher<'a> {
    cmac: Held<'a>,
    chain: CbcMacState,
}

impl core::fmt::Debug for CmacHasher<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The chaining value is key-dependent and secret until finalised.
        f.debug_struct("CmacHasher")
            .field("cmac", self.cmac.get())
            .finish_non_exhaustive()
    }
}

impl CmacHasher<'_> {
    /// Appends `data` to the message.
    pub fn update(&mut self, data: &[u8]) {
        self.chain.update(&self.cmac.get().aes, data);
    }

    /// The 16-byte tag of everything given to `update`.
    pub fn finalize(self) -> [u8; 16] {
        let c = self.cmac.get();
        self.chain.finish_cmac(&c.aes, &[], &c.k1, &c.k2)
    }

    /// Checks `tag` as [`Cmac::verify`] does.
    pub fn verify(self, tag: &[u8]) -> Result<()> {
        check_tag(tag, || self.finalize())
    }
}

/// Compares `tag` (1 to 16 bytes) with the leading bytes of the full tag
/// `full()` computes, in constant time; the length is checked first.
fn check_tag(tag: &[u8], full: impl FnOnce() -> [u8; 16]) -> Result<()> {
    if tag.is_empty() || tag.len() > BLOCK_LEN {
        return Err(Error::InvalidTagLength { len: tag.len() });
    }
    let mut full = full();
    let r = tag::check(&full[..tag.len()], tag);
    full.zeroize();
    r
}
