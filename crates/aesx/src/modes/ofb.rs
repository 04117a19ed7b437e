//! OFB (SP 800-38A section 6.4); the notes are on [`Ofb`].

use zeroize::Zeroize;

use super::block::{debug_over_aes, Aes};
use super::cfb::iv_block;
use crate::backend::{Backend, InOut};
use crate::error::Result;
use crate::key::{Block, BLOCK_LEN};

/// Keystream blocks made per pass before one XOR over the data.
const CHUNK: usize = 64;

/// AES in OFB mode, streaming.
///
/// SP 800-38A section 6.4: the keystream is E(IV), E(E(IV)), ..., XORed into
/// the data, so encrypting and decrypting are the same operation; the same
/// bytes as OpenSSL's `aes-*-ofb` and pyca's `modes.OFB`. An `Ofb` keeps
/// its place, so any sequence of call lengths gives the bytes of one call.
/// The keystream is a serial chain (each block is the cipher of the one
/// before), whatever the backend; it runs as the backend's CBC-encryption
/// chain over zero blocks. No integrity, and the
/// IV must never repeat under one key (a repeat reuses the whole keystream).
#[derive(Clone)]
pub struct Ofb {
    aes: Aes,
    /// The last keystream block (the IV at first).
    reg: Block,
    /// Bytes `used..16` of `reg` are keystream not yet used.
    used: usize,
}

impl Drop for Ofb {
    fn drop(&mut self) {
        self.reg.zeroize();
    }
}

impl core::fmt::Debug for Ofb {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        debug_over_aes(f, "Ofb", &self.aes)
    }
}

impl Ofb {
    /// OFB with `key` and a 16-byte IV, preferred backend.
    pub fn new(key: &[u8], iv: &[u8]) -> Result<Self> {
        Self::from_aes(Aes::new(key)?, iv)
    }

    /// OFB with `key` and a 16-byte IV on `backend`.
    pub fn with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Self> {
        Self::from_aes(Aes::with_backend(key, backend)?, iv)
    }

    /// OFB over an already expanded key.
    pub fn from_aes(aes: Aes, iv: &[u8]) -> Result<Self> {
        let reg = iv_block(iv)?;
        Ok(Ofb {
            aes,
            reg,
            used: BLOCK_LEN,
        })
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }

    /// XORs the keystream into `buf` in place (encrypts or decrypts).
    pub fn apply_keystream(&mut self, buf: &mut [u8]) {
        self.apply(InOut::in_place(buf));
    }

    /// XORs the keystream into `src`, writing `dst` (equal lengths).
    pub fn apply_keystream_to(&mut self, src: &[u8], dst: &mut [u8]) -> Result<()> {
        self.apply(InOut::new(src, dst)?);
        Ok(())
    }

    /// Encrypts or decrypts into a new vector.
    #[cfg(feature = "std")]
    pub fn apply_keystream_vec(&mut self, src: &[u8]) -> alloc::vec::Vec<u8> {
        let mut v = src.to_vec();
        self.apply_keystream(&mut v);
        v
    }

    /// The IV that continues this stream in a new `Ofb` (the last keystream
    /// block: secret, as the keystream is), when the stream stands at a
    /// block boundary; `None` inside a block.
    pub fn next_iv(&self) -> Option<Block> {
        (self.used == BLOCK_LEN).then_some(self.reg)
    }

    fn next_block(&mut self) {
        self.aes.encrypt_block(&mut self.reg);
        self.used = 0;
    }

    fn apply(&mut self, io: InOut<'_>) {
        // 1. The rest of the current keystream block.
        let head = (BLOCK_LEN - self.used).min(io.len());
        let (mut first, rest) = io.split_at(head);
        if head > 0 {
            first.xor_from(&self.reg[self.used..self.used + head]);
            self.used += head;
        }
        // 2. Whole blocks: a chunk of keystream, then one XOR.
        let (mut whole, mut tail) = rest.split_blocks();
        let mut ks = [0u8; CHUNK * BLOCK_LEN];
        while !whole.is_empty() {
            let n = whole.blocks().min(CHUNK);
            let (mut now, later) = whole.split_at(n * BLOCK_LEN);
            // CBC encryption of zero blocks from the register is exactly
            // the OFB keystream (Oi = E(0 ^ O(i-1))), in the backend's
            // chained kernel; it leaves the last block in the register.
            let ks = &mut ks[..n * BLOCK_LEN];
            ks.fill(0);
            self.aes
                .engine
                .cbc_encrypt(&mut self.reg, InOut::in_place(ks));
            now.xor_from(ks);
            whole = later;
        }
        ks.zeroize();
        // 3. A new keystream block for the tail.
        if !tail.is_empty() {
            self.next_block();
            let n = tail.len();
            tail.xor_from(&self.reg[..n]);
            self.used = n;
        }
    }
}
