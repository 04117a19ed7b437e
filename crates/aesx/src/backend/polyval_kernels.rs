//! POLYVAL (RFC 8452 section 3), the universal hash of AES-GCM-SIV, with one
//! kernel per backend family.
//!
//! Unlike GHASH, the POLYVAL key changes with every nonce, so its powers are
//! computed per message (only as many as the message can use) and the
//! kernel choice is a per-message `match`.

use zeroize::Zeroize;

use super::soft_polyval::SoftPolyvalKey;
use super::Backend;
use crate::key::{Block, BLOCK_LEN};

/// A POLYVAL key (H and the powers the chosen kernel uses).
pub(crate) enum PolyvalKey {
    Soft(SoftPolyvalKey),
    #[cfg(target_arch = "x86_64")]
    X86(super::x86::polyval::X86PolyvalKey),
}

impl PolyvalKey {
    /// The key `h` for the kernel of `backend` (which must be available),
    /// for calls of at most about `blocks` blocks each (more still work).
    pub(crate) fn new(backend: Backend, h: &Block, blocks: usize) -> Self {
        #[cfg(target_arch = "x86_64")]
        if let Some(level) = super::x86::Level::detect(backend) {
            return PolyvalKey::X86(super::x86::polyval::X86PolyvalKey::new(level, h, blocks));
        }
        let _ = (backend, blocks);
        PolyvalKey::Soft(SoftPolyvalKey::new(h))
    }

    /// `acc = dot(acc ^ X, H)` over the whole blocks of `data` (a trailing
    /// partial block is ignored).
    pub(crate) fn update_blocks(&self, acc: &mut Block, data: &[u8]) {
        match self {
            PolyvalKey::Soft(k) => k.update(acc, data),
            #[cfg(target_arch = "x86_64")]
            PolyvalKey::X86(k) => k.update(acc, data),
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
