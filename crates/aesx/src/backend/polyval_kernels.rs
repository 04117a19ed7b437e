//! POLYVAL (RFC 8452 section 3), the universal hash of AES-GCM-SIV, with one
//! kernel per backend family.
//!
//! Unlike GHASH, the POLYVAL key changes with every nonce, so its powers are
//! computed per message and a kernel choice is a per-message `match`.

use zeroize::Zeroize;

use super::soft_polyval::SoftPolyvalKey;
use super::Backend;
use crate::key::{Block, BLOCK_LEN};

/// A POLYVAL key (H and the powers the chosen kernel uses).
pub(crate) enum PolyvalKey {
    Soft(SoftPolyvalKey),
}

impl PolyvalKey {
    /// The key `h` for the kernel of `backend` (which must be available).
    pub(crate) fn new(_backend: Backend, h: &Block) -> Self {
        PolyvalKey::Soft(SoftPolyvalKey::new(h))
    }

    /// `acc = dot(acc ^ X, H)` over the whole blocks of `data` (a trailing
    /// partial block is ignored).
    pub(crate) fn update_blocks(&self, acc: &mut Block, data: &[u8]) {
        match self {
            PolyvalKey::Soft(k) => k.update(acc, data),
        }
    }

    /// Hashes `data` with its last partial block zero-padded.
    pub(crate) fn update_padded(&self, acc: &mut Block, data: &[u8]) {
        let whole = data.len() - data.len() % BLOCK_LEN;
        self.update_blocks(acc, &data[..whole]);
        if whole < data.len() {
            let mut last = [0u8; BLOCK_LEN];
            last[..data.len() - whole].copy_from_slice(&data[whole..]);
            self.update_blocks(acc, &last);
            last.zeroize();
        }
    }
}
