//! CFB128 and CFB8 (SP 800-38A section 6.3); the notes are on [`Cfb`] and
//! [`Cfb8`].
//!
//! Encryption is a serial chain (each block's cipher input is the previous
//! ciphertext). Decryption is not: every cipher input is ciphertext the
//! caller already holds, so whole runs of it go through the backend's wide
//! ECB kernel, a chunk at a time.

use zeroize::Zeroize;

use super::block::{debug_over_aes, Aes};
use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::key::{Block, BLOCK_LEN};

/// The public calls of a CFB stream over its `run(encrypt, io)`: in place,
/// into a buffer of equal length and into a new vector, each way.
macro_rules! stream_calls {
    ($name:literal) => {
        #[doc = concat!("Encrypts `buf` in place, continuing the ", $name, " stream.")]
        pub fn encrypt(&mut self, buf: &mut [u8]) {
            self.run(true, InOut::in_place(buf));
        }

        #[doc = concat!("Decrypts `buf` in place, continuing the ", $name, " stream.")]
        pub fn decrypt(&mut self, buf: &mut [u8]) {
            self.run(false, InOut::in_place(buf));
        }

        /// Encrypts `src` into `dst` (equal lengths).
        pub fn encrypt_to(&mut self, src: &[u8], dst: &mut [u8]) -> Result<()> {
            self.run(true, InOut::new(src, dst)?);
            Ok(())
        }

        /// Decrypts `src` into `dst` (equal lengths).
        pub fn decrypt_to(&mut self, src: &[u8], dst: &mut [u8]) -> Result<()> {
            self.run(false, InOut::new(src, dst)?);
            Ok(())
        }

        /// Encrypts into a new vector.
        #[cfg(feature = "std")]
        pub fn encrypt_vec(&mut self, src: &[u8]) -> alloc::vec::Vec<u8> {
            let mut v = src.to_vec();
            self.encrypt(&mut v);
            v
        }

        /// Decrypts into a new vector.
        #[cfg(feature = "std")]
        pub fn decrypt_vec(&mut self, src: &[u8]) -> alloc::vec::Vec<u8> {
            let mut v = src.to_vec();
            self.decrypt(&mut v);
            v
        }
    };
}

/// Blocks per wide-kernel call when decrypting (a 1 KiB stack buffer).
const CHUNK: usize = 64;

pub(crate) fn iv_block(iv: &[u8]) -> Result<Block> {
    iv.try_into().map_err(|_| Error::InvalidIvLength {
        expected: BLOCK_LEN,
        got: iv.len(),
    })
}

/// AES in CFB128 mode (full-block feedback), streaming.
///
/// SP 800-38A section 6.3 with s = 128; the same bytes as OpenSSL's
/// `aes-*-cfb` (`-cfb128`) and pyca's `modes.CFB`. A `Cfb` keeps its place
/// in the stream, so any sequence of `encrypt` (or `decrypt`) lengths gives
/// the same bytes as one call; there is no padding and no partial-block
/// rule. Encrypting is a serial chain (run as the backend's CBC-encryption
/// chain over the plaintext); decrypting runs the backend's wide kernel. No integrity: pair it with a MAC, or use
/// [`crate::Gcm`].
#[derive(Clone)]
pub struct Cfb {
    aes: Aes,
    /// The ciphertext of the block being built (bytes `..used`) or, when
    /// `used == 16`, the last whole ciphertext block (the IV at first).
    reg: Block,
    /// E(previous ciphertext block), the keystream of the block being built.
    ks: Block,
    used: usize,
}

impl Drop for Cfb {
    fn drop(&mut self) {
        self.reg.zeroize();
        self.ks.zeroize();
    }
}

impl core::fmt::Debug for Cfb {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        debug_over_aes(f, "Cfb", &self.aes)
    }
}

impl Cfb {
    /// CFB128 with `key` and a 16-byte IV, preferred backend.
    pub fn new(key: &[u8], iv: &[u8]) -> Result<Self> {
        Self::from_aes(Aes::new(key)?, iv)
    }

    /// CFB128 with `key` and a 16-byte IV on `backend`.
    pub fn with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Self> {
        Self::from_aes(Aes::with_backend(key, backend)?, iv)
    }

    /// CFB128 over an already expanded key.
    pub fn from_aes(aes: Aes, iv: &[u8]) -> Result<Self> {
        let reg = iv_block(iv)?;
        Ok(Cfb {
            aes,
            reg,
            ks: [0; BLOCK_LEN],
            used: BLOCK_LEN,
        })
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }

    stream_calls!("CFB128");

    /// The IV that continues this stream in a new `Cfb` (the last
    /// ciphertext block), when the stream stands at a block boundary;
    /// `None` inside a block.
    pub fn next_iv(&self) -> Option<Block> {
        (self.used == BLOCK_LEN).then_some(self.reg)
    }

    /// Bytes `used..used + n` of the current block: XOR with the keystream,
    /// the ciphertext kept in the register. `n <= 16 - used`.
    fn partial(&mut self, encrypt: bool, mut io: InOut<'_>) {
        let n = io.len();
        let mut t = [0u8; BLOCK_LEN];
        io.read_into(&mut t[..n]);
        for (i, b) in t[..n].iter_mut().enumerate() {
            let j = self.used + i;
            let x = *b ^ self.ks[j];
            self.reg[j] = if encrypt { x } else { *b };
            *b = x;
        }
        io.write_from(&t[..n]);
        t.zeroize();
        self.used += n;
    }

    fn run(&mut self, encrypt: bool, io: InOut<'_>) {
        // 1. Finish the block left partial by the last call.
        let head = (BLOCK_LEN - self.used).min(io.len());
        let (first, rest) = io.split_at(head);
        if head > 0 {
            self.partial(encrypt, first);
        }
        // 2. Whole blocks.
        let (whole, tail) = rest.split_blocks();
        if !whole.is_empty() {
            if encrypt {
                self.encrypt_chain(whole);
            } else {
                self.decrypt_wide(whole);
            }
        }
        // 3. Start a new block for the tail.
        if !tail.is_empty() {
            self.ks = self.reg;
            self.aes.encrypt_block(&mut self.ks);
            self.used = 0;
            self.partial(encrypt, tail);
        }
    }

    /// Whole blocks of encryption, through the backend's CBC-encryption
    /// chain: with Y0 = E(C0) and Yi = E(Pi ^ Y(i-1)) (CBC over the
    /// plaintext from Y0), Yi = E(Ci) and so Ci = Pi ^ Y(i-1). The chain
    /// stays serial, as CFB encryption must, but runs in the kernel that
    /// keeps the round keys in registers.
    fn encrypt_chain(&mut self, mut io: InOut<'_>) {
        let mut buf = [0u8; CHUNK * BLOCK_LEN];
        let mut ks = [0u8; CHUNK * BLOCK_LEN];
        while !io.is_empty() {
            let n = io.blocks().min(CHUNK);
            let (mut now, later) = io.split_at(n * BLOCK_LEN);
            let len = n * BLOCK_LEN;
            // Y0, the keystream of the first block.
            let mut y = self.reg;
            self.aes.encrypt_block(&mut y);
            ks[..BLOCK_LEN].copy_from_slice(&y);
            now.read_into(&mut buf[..len]);
            let last_p = now.read_block(n - 1);
            self.aes
                .engine
                .cbc_encrypt(&mut y, InOut::in_place(&mut buf[..len]));
            // Keystream block i is Y(i-1).
            ks[BLOCK_LEN..len].copy_from_slice(&buf[..len - BLOCK_LEN]);
            now.xor_from(&ks[..len]);
            for (r, (p, k)) in self
                .reg
                .iter_mut()
                .zip(last_p.iter().zip(&ks[len - BLOCK_LEN..len]))
            {
                *r = p ^ k;
            }
            io = later;
        }
        buf.zeroize();
        ks.zeroize();
    }

    /// Whole blocks of decryption: keystream block i is E(C[i-1]) (E(reg)
    /// for the first), so a chunk of them is one ECB call on the shifted
    /// ciphertext.
    fn decrypt_wide(&mut self, mut io: InOut<'_>) {
        let mut buf = [0u8; CHUNK * BLOCK_LEN];
        while !io.is_empty() {
            let n = io.blocks().min(CHUNK);
            let (mut now, later) = io.split_at(n * BLOCK_LEN);
            let len = n * BLOCK_LEN;
            buf[..BLOCK_LEN].copy_from_slice(&self.reg);
            now.read_into(&mut buf[BLOCK_LEN..len]);
            let last = now.read_block(n - 1);
            self.aes
                .engine
                .encrypt_blocks(InOut::in_place(&mut buf[..len]));
            now.xor_from(&buf[..len]);
            self.reg = last;
            io = later;
        }
        buf.zeroize();
    }
}

/// AES in CFB8 mode (8-bit feedback), streaming.
///
/// SP 800-38A section 6.3 with s = 8: one AES call per byte, the shift
/// register fed one ciphertext byte at a time; the same bytes as OpenSSL's
/// `aes-*-cfb8` and pyca's `modes.CFB8`. Encrypting is serial (and slow by
/// nature: sixteen block cipher calls per block); decrypting gathers the
/// sixteen-byte windows of the ciphertext and runs them through the wide
/// kernel. No integrity.
#[derive(Clone)]
pub struct Cfb8 {
    aes: Aes,
    /// The last 16 ciphertext bytes (the IV at first).
    reg: Block,
}

impl Drop for Cfb8 {
    fn drop(&mut self) {
        self.reg.zeroize();
    }
}

impl core::fmt::Debug for Cfb8 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        debug_over_aes(f, "Cfb8", &self.aes)
    }
}

impl Cfb8 {
    /// CFB8 with `key` and a 16-byte IV, preferred backend.
    pub fn new(key: &[u8], iv: &[u8]) -> Result<Self> {
        Self::from_aes(Aes::new(key)?, iv)
    }

    /// CFB8 with `key` and a 16-byte IV on `backend`.
    pub fn with_backend(key: &[u8], iv: &[u8], backend: Backend) -> Result<Self> {
        Self::from_aes(Aes::with_backend(key, backend)?, iv)
    }

    /// CFB8 over an already expanded key.
    pub fn from_aes(aes: Aes, iv: &[u8]) -> Result<Self> {
        let reg = iv_block(iv)?;
        Ok(Cfb8 { aes, reg })
    }

    /// The underlying block cipher.
    pub fn aes(&self) -> &Aes {
        &self.aes
    }

    stream_calls!("CFB8");

    /// The IV that continues this stream in a new `Cfb8`: the last 16
    /// ciphertext bytes (the IV's tail before 16 bytes have passed).
    pub fn next_iv(&self) -> Block {
        self.reg
    }

    fn run(&mut self, encrypt: bool, mut io: InOut<'_>) {
        // Bytes per round: CHUNK windows of 16 bytes when decrypting.
        let mut win = [0u8; CHUNK * BLOCK_LEN];
        let mut data = [0u8; CHUNK];
        while !io.is_empty() {
            let n = io.len().min(CHUNK);
            let (mut now, later) = io.split_at(n);
            now.read_into(&mut data[..n]);
            if encrypt {
                let mut k = [0u8; BLOCK_LEN];
                for b in data[..n].iter_mut() {
                    k = self.reg;
                    self.aes.encrypt_block(&mut k);
                    *b ^= k[0];
                    self.reg.copy_within(1.., 0);
                    self.reg[BLOCK_LEN - 1] = *b;
                }
                k.zeroize();
            } else {
                // Window j is the 16 bytes (reg || C)[j..j + 16].
                let mut stream = [0u8; BLOCK_LEN + CHUNK];
                stream[..BLOCK_LEN].copy_from_slice(&self.reg);
                stream[BLOCK_LEN..BLOCK_LEN + n].copy_from_slice(&data[..n]);
                for j in 0..n {
                    win[j * BLOCK_LEN..(j + 1) * BLOCK_LEN]
                        .copy_from_slice(&stream[j..j + BLOCK_LEN]);
                }
                let len = n * BLOCK_LEN;
                self.aes
                    .engine
                    .encrypt_blocks(InOut::in_place(&mut win[..len]));
                for (j, b) in data[..n].iter_mut().enumerate() {
                    *b ^= win[j * BLOCK_LEN];
                }
                self.reg.copy_from_slice(&stream[n..n + BLOCK_LEN]);
                stream.zeroize();
            }
            now.write_from(&data[..n]);
            io = later;
        }
        win.zeroize();
        data.zeroize();
    }
}
