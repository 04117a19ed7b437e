//! CTR (SP 800-38A section 6.5); the notes are on [`Ctr`].

use zeroize::Zeroize;

use super::block::{debug_over_aes, Aes};
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// AES-CTR keystream generator and applier.
///
/// CTR (SP 800-38A section 6.5) with a 128-bit big-endian counter block that
/// wraps modulo 2^128, as the standard's "standard incrementing function" over
/// the whole block does (RFC 3686 style nonce||IV||counter layouts are the
/// caller's choice of initial block).
///
/// Streaming: a `Ctr` keeps its position, so any sequence of update lengths
/// yields the same bytes as one call; `seek` moves to any byte offset.
#[derive(Clone)]
pub struct Ctr {
    aes: Aes,
    /// The initial counter block, for `seek`.
    iv: u128,
    /// Counter block of the next whole block of keystream.
    next: Block,
    /// Keystream of the current partial block; bytes `used..16` are unused.
    ks: Block,
    used: usize,
    /// Byte position in the stream (modulo 2^128).
    pos: u128,
    /// Threads one large call may use (1: the calling thread alone).
    threads: u8,
}

impl Drop for Ctr {
    fn drop(&mut self) {
        self.ks.zeroize();
        self.next.zeroize();
        self.iv.zeroize();
        self.pos.zeroize();
    }
}

// Neither the keystream nor the counter block is printed: the keystream
// decrypts the data, and the counter says where in it the stream stands.
impl core::fmt::Debug for Ctr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        debug_over_aes(f, "Ctr", &self.aes)
    }
}

impl Ctr {
    /// CTR with `key` and a 16-byte initial counter block, preferred backend.
    pub fn new(key: &[u8], iv: &[u8]) -> Result<Self> {
        Self::from_aes(Aes::new(key)?, iv)
    }

    /// CTR with `key` and a 16-byte initial counter block on `backend`.
    pub fn with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Self> {
        Self::from_aes(Aes::with_backend(key, backend)?, iv)
    }

    /// CTR over an already expanded key.
    pub fn from_aes(aes: Aes, iv: &[u8]) -> Result<Self> {
        let iv: Block = iv.try_into().map_err(|_| Error::InvalidIvLength {
            expected: BLOCK_LEN,
            got: iv.len(),
        })?;
        Ok(Ctr {
            aes,
            iv: u128::from_be_bytes(iv),
            next: iv,
            ks: [0; BLOCK_LEN],
            used: BLOCK_LEN,
            pos: 0,
            threads: 1,
        })
    }

    /// The same stream with the whole blocks of every call of at least
    /// [`MIN_SEGMENT`](crate::parallel::MIN_SEGMENT) bytes per extra thread
    /// split over up to `threads` threads, each from its own counter block
    /// (the 128-bit counter plus the blocks before it, wrapping as one
    /// thread does): the same keystream at every split. 0 and 1 mean one
    /// thread; see [`parallel`](crate::parallel).
    #[cfg(feature = "std")]
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = super::parallel::clamp_threads(threads);
        self
    }

    /// Threads one large call may use (see [`Ctr::with_threads`]).
    pub fn threads(&self) -> usize {
        usize::from(self.threads)
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }

    /// Current byte position in the keystream.
    pub fn position(&self) -> u128 {
        self.pos
    }

    /// Moves to byte `offset` of the keystream.
    pub fn seek(&mut self, offset: u128) {
        let block = offset / BLOCK_LEN as u128;
        let within = (offset % BLOCK_LEN as u128) as usize;
        self.next = self.iv.wrapping_add(block).to_be_bytes();
        self.pos = offset;
        self.used = BLOCK_LEN;
        if within != 0 {
            self.refill();
            self.used = within;
        }
    }

    /// Generates the keystream block for `next` into `ks` and advances.
    fn refill(&mut self) {
        self.ks = self.next;
        self.aes.encrypt_block(&mut self.ks);
        self.next = u128::from_be_bytes(self.next).wrapping_add(1).to_be_bytes();
        self.used = 0;
    }

    /// XORs the keystream into `buf` in place.
    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.apply(InOut::in_place(buf));
    }

    /// XORs the keystream into `src`, writing `dst` (equal lengths).
    pub fn apply_keystream_to(&mut self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.apply(InOut::new(src, dst)?);
        Ok(())
    }

    fn apply(&mut self, io: InOut<'_>) {
        let total = io.len();
        // 1. Finish the partial keystream block left by the last call.
        let head = (BLOCK_LEN - self.used).min(io.len());
        let (mut first, rest) = io.split_at(head);
        if head > 0 {
            first.xor_from(&self.ks[self.used..self.used + head]);
            self.used += head;
        }
        // 2. Whole blocks straight through the backend kernel.
        let (whole, mut tail) = rest.split_blocks();
        if !whole.is_empty() {
            #[cfg(feature = "std")]
            let parts = super::parallel::segments(whole.len(), BLOCK_LEN, self.threads());
            #[cfg(not(feature = "std"))]
            let parts = 1;
            if parts > 1 {
                #[cfg(feature = "std")]
                super::parallel::ctr_apply(&self.aes, parts, &mut self.next, whole);
            } else {
                self.aes.engine.ctr_apply(&mut self.next, whole);
            }
        }
        // 3. Start a new keystream block for the tail.
        if !tail.is_empty() {
            self.refill();
            let n = tail.len();
            tail.xor_from(&self.ks[..n]);
            self.used = n;
        }
        self.pos = self.pos.wrapping_add(total as u128);
    }
}
