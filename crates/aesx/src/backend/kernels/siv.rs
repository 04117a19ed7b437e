//! The per-message pieces of AES-GCM-SIV and XAES-256-GCM, by backend: a
//! fast key schedule for keys derived per message, the GCM-SIV counter mode
//! (RFC 8452: the first 32-bit word of the block counts, little-endian,
//! modulo 2^32) and POLYVAL.
//!
//! The modes run generically over a backend's key type (inside one
//! `with_engine!`), so a derived key is built in place as that type and
//! never goes through the large `Engine` enum.

use zeroize::Zeroize;

use super::gcm::GcmKernels;
use super::inout::InOut;
use super::polyval::PolyvalKernels;
use crate::error::Result;
use crate::key::{Block, BLOCK_LEN};

/// Keystream blocks per batch in the generic counter mode (1 KiB).
const BATCH: usize = 64;

/// Each family implements these next to its key type, in its own folder.
pub(crate) trait SivKernels: GcmKernels + Sized {
    /// This family's POLYVAL key.
    type Polyval: PolyvalKernels;

    /// A key on the same backend from 16 or 32 raw bytes, for encryption
    /// only: a backend may leave out its decryption round keys.
    fn message_key(&self, key: &[u8]) -> Result<Self>;

    /// The POLYVAL key `h` for calls of about `blocks` blocks (more still
    /// work), on this key's backend.
    fn polyval_key(&self, h: &Block, blocks: usize) -> Self::Polyval;

    /// The GHASH key of a key derived per message (XAES), for one message
    /// that hashes `blocks` blocks in all (AAD, text and the length block).
    /// A backend may compute only the powers H^1..H^blocks: a correct GHASH
    /// of that many blocks never multiplies data by a higher one.
    fn message_ghash_key(&self, blocks: usize) -> Self::HKey {
        let _ = blocks;
        self.ghash_key()
    }

    /// XORs the keystream of counter blocks `tag | 0x80` in the last byte,
    /// the first 32 bits a little-endian counter wrapping mod 2^32, into `io`.
    fn ctr32le(&self, tag: &Block, io: InOut<'_>) {
        ctr32le_generic(self, tag, io)
    }
}

/// [`SivKernels::ctr32le`] from batches of counter blocks through
/// `encrypt_blocks`.
fn ctr32le_generic<K: GcmKernels>(k: &K, tag: &Block, mut io: InOut<'_>) {
    let mut ctr = *tag;
    ctr[15] |= 0x80;
    let mut c = u32::from_le_bytes([ctr[0], ctr[1], ctr[2], ctr[3]]);
    let mut ks = [0u8; BATCH * BLOCK_LEN];
    let mut done = 0;
    while done < io.len() {
        let n = (io.len() - done).min(BATCH * BLOCK_LEN);
        let m = n.div_ceil(BLOCK_LEN);
        for b in ks[..m * BLOCK_LEN].chunks_exact_mut(BLOCK_LEN) {
            b.copy_from_slice(&ctr);
            b[..4].copy_from_slice(&c.to_le_bytes());
            c = c.wrapping_add(1);
        }
        k.encrypt_blocks(InOut::in_place(&mut ks[..m * BLOCK_LEN]));
        let (_, rest) = io.reborrow().split_at(done);
        let (mut part, _) = rest.split_at(n);
        part.xor_from(&ks[..n]);
        done += n;
    }
    ks.zeroize();
}
