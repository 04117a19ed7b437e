//! POLYVAL (RFC 8452 section 3), the universal hash of AES-GCM-SIV, with one
//! kernel per backend family.
//!
//! Unlike GHASH, the POLYVAL key changes with every nonce, so its powers are
//! computed per message (only as many as the message can use). The engine
//! runs GCM-SIV on the family's own key type (one match per call), so the
//! POLYVAL key is that family's own type and needs no dispatch of its own.

use zeroize::Zeroize;

use crate::key::{Block, BLOCK_LEN};

/// A POLYVAL key (H and the powers its kernel uses), one type per backend
/// family ([`SivKernels::Polyval`](super::siv::SivKernels::Polyval)).
pub(crate) trait PolyvalKernels {
    /// `acc = dot(acc ^ X, H)` over the whole blocks of `data` (a trailing
    /// partial block is ignored).
    fn update_blocks(&self, acc: &mut Block, data: &[u8]);

    /// Hashes `data` with its last partial block zero-padded.
    fn update_padded(&self, acc: &mut Block, data: &[u8]) {
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
