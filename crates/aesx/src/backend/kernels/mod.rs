//! The narrow set of bulk kernels every backend supplies.
//!
//! Modes (in `crate::modes`) are written once against these traits. A backend
//! implements `encrypt_blocks`/`decrypt_blocks` and overrides whichever other
//! kernels it can do faster than the generic versions below; the generic
//! versions batch blocks so that a parallel backend (bitsliced, SIMD) is still
//! fed several independent blocks per call.
//!
//! All kernels take whole blocks only (`io.len() % 16 == 0`); partial blocks,
//! padding and stealing are the modes' business.

pub(crate) mod cpu;
pub(crate) mod family;
pub(crate) mod gcm;
pub(crate) mod gf128;
pub(crate) mod ghash_mul;
pub(crate) mod inout;
pub(crate) mod mac;
pub(crate) mod polyval;
pub(crate) mod siv;
pub(crate) mod trace;
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(crate) mod vector_keys;
mod wipe;
pub(crate) mod xts;

#[cfg(test)]
mod generic_tests;

pub(crate) use self::wipe::wipe;

use self::inout::InOut;
use crate::key::{Block, BLOCK_LEN};

/// Blocks per batch in the generic kernels (2 KiB on the stack).
const BATCH: usize = 128;

/// ECB, CBC and CTR over whole blocks.
pub(crate) trait BlockKernels {
    /// ECB-encrypts whole blocks.
    fn encrypt_blocks(&self, io: InOut<'_>);

    /// ECB-decrypts whole blocks.
    fn decrypt_blocks(&self, io: InOut<'_>);

    /// Encrypts one block in place (`Aes::encrypt_block`). A backend with a
    /// cheaper single-block path than its bulk kernel overrides it.
    // Inline, so that `Aes::encrypt_block` (itself inline) folds the whole
    // path into its caller's loop.
    #[inline]
    fn encrypt_block(&self, block: &mut Block) {
        self.encrypt_blocks(InOut::in_place(block))
    }

    /// Decrypts one block in place, as [`BlockKernels::encrypt_block`].
    #[inline]
    fn decrypt_block(&self, block: &mut Block) {
        self.decrypt_blocks(InOut::in_place(block))
    }

    /// CBC-encrypts whole blocks; `iv` becomes the last ciphertext block.
    /// Inherently serial: one block at a time through `encrypt_blocks`.
    fn cbc_encrypt(&self, iv: &mut Block, mut io: InOut<'_>) {
        for i in 0..io.blocks() {
            let mut b = io.read_block(i);
            for (x, v) in b.iter_mut().zip(iv.iter()) {
                *x ^= v;
            }
            self.encrypt_blocks(InOut::in_place(&mut b));
            io.write_block(i, &b);
            *iv = b;
        }
    }

    /// CBC-decrypts whole blocks; `iv` becomes the last ciphertext block.
    fn cbc_decrypt(&self, iv: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut buf = [0u8; BATCH * BLOCK_LEN];
        let mut done = 0;
        while done < n {
            let m = (n - done).min(BATCH);
            let chunk = &mut buf[..m * BLOCK_LEN];
            for (j, c) in chunk.chunks_exact_mut(BLOCK_LEN).enumerate() {
                c.copy_from_slice(&io.read_block(done + j));
            }
            // Keep the ciphertext: in place, the output overwrites it.
            let last_ct = io.read_block(done + m - 1);
            let mut prev = *iv;
            let mut pt = [0u8; BATCH * BLOCK_LEN];
            pt[..m * BLOCK_LEN].copy_from_slice(chunk);
            self.decrypt_blocks(InOut::in_place(&mut pt[..m * BLOCK_LEN]));
            for j in 0..m {
                let ct: Block = chunk[j * BLOCK_LEN..(j + 1) * BLOCK_LEN]
                    .try_into()
                    .unwrap();
                let mut p: Block = pt[j * BLOCK_LEN..(j + 1) * BLOCK_LEN].try_into().unwrap();
                for (x, v) in p.iter_mut().zip(prev.iter()) {
                    *x ^= v;
                }
                io.write_block(done + j, &p);
                prev = ct;
            }
            *iv = last_ct;
            done += m;
        }
    }

    /// XORs the keystream of a 128-bit big-endian counter (SP 800-38A,
    /// wrapping modulo 2^128) into whole blocks; `ctr` advances by the
    /// number of blocks.
    fn ctr_apply(&self, ctr: &mut Block, mut io: InOut<'_>) {
        let n = io.blocks();
        let mut ks = [0u8; BATCH * BLOCK_LEN];
        let mut done = 0;
        let mut c = u128::from_be_bytes(*ctr);
        while done < n {
            let m = (n - done).min(BATCH);
            for j in 0..m {
                ks[j * BLOCK_LEN..(j + 1) * BLOCK_LEN].copy_from_slice(&c.to_be_bytes());
                c = c.wrapping_add(1);
            }
            self.encrypt_blocks(InOut::in_place(&mut ks[..m * BLOCK_LEN]));
            let (_, rest) = io.reborrow().split_at(done * BLOCK_LEN);
            let (mut part, _) = rest.split_at(m * BLOCK_LEN);
            part.xor_from(&ks[..m * BLOCK_LEN]);
            done += m;
        }
        *ctr = c.to_be_bytes();
    }
}

/// The messages of a multi-buffer CBC call, as a backend sees them: the list
/// and its checks belong to the mode (`modes::cbc_multi`); a backend only
/// asks for message `i`.
pub(crate) trait CbcLanes<K> {
    /// How many messages there are.
    fn count(&self) -> usize;

    /// Message `i`: its key if that key is of type `K` (else `None`), its
    /// chaining value (the IV on entry; the kernel leaves the last
    /// ciphertext block there) and its data, a whole number of blocks to
    /// encrypt in place. Messages are distinct: no two share bytes.
    fn lane(&mut self, i: usize) -> Option<(&K, &mut Block, &mut [u8])>;
}

/// Multi-buffer CBC encryption: many independent messages, each with its
/// own key and IV, in one call, so that their chains fill the AES pipeline
/// that one chain leaves idle (one block per AES latency).
pub(crate) trait CbcManyKernels: BlockKernels + Sized {
    /// CBC-encrypts in place every message of `lanes` whose key is a
    /// `Self`, with the result of [`BlockKernels::cbc_encrypt`] on each.
    /// The generic version does exactly that, one message after another.
    fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Self>) {
        for i in 0..lanes.count() {
            if let Some((k, iv, data)) = lanes.lane(i) {
                k.cbc_encrypt(iv, InOut::in_place(data));
            }
        }
    }
}
