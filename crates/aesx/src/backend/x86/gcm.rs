//! GCM on the x86 backends: the `GcmKernels` of `X86Aes`, dispatched on the
//! key's `Level` (one match per call).

use super::ghash_clmul::{self, X86HKey};
use super::{gcm_vaes512, Level, X86Aes};
use crate::backend::gcm_kernels::GcmKernels;
use crate::backend::inout::InOut;
use crate::key::Block;

impl GcmKernels for X86Aes {
    type HKey = X86HKey;

    fn ghash_key(&self) -> X86HKey {
        // SAFETY: an X86Aes exists only if AES-NI, SSE4.1 and PCLMULQDQ were
        // detected (every level requires them).
        unsafe { ghash_clmul::hkey(self) }
    }

    fn ghash_update(&self, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
        match self.level {
            // SAFETY: a Vaes512 key proves AVX-512 F/BW/VL, VAES, VPCLMULQDQ.
            Level::Vaes512 => unsafe { gcm_vaes512::ghash_update(hk, acc, data) },
            // SAFETY: every level has PCLMULQDQ and SSSE3 (implied by SSE4.1).
            _ => unsafe { ghash_clmul::ghash_update(hk, acc, data) },
        }
    }

    fn gcm_encrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: as in ghash_update.
            Level::Vaes512 => unsafe { gcm_vaes512::gcm_crypt::<true>(self, hk, ctr, acc, io) },
            _ => generic_encrypt(self, hk, ctr, acc, io),
        }
    }

    fn gcm_decrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: as in ghash_update.
            Level::Vaes512 => unsafe { gcm_vaes512::gcm_crypt::<false>(self, hk, ctr, acc, io) },
            _ => generic_decrypt(self, hk, ctr, acc, io),
        }
    }
}

/// The trait's generic stitched pass (CTR32 batches, then GHASH).
struct Generic<'a>(&'a X86Aes);

impl crate::backend::kernels::BlockKernels for Generic<'_> {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        self.0.encrypt_blocks(io)
    }
    fn decrypt_blocks(&self, io: InOut<'_>) {
        self.0.decrypt_blocks(io)
    }
}

impl GcmKernels for Generic<'_> {
    type HKey = X86HKey;
    fn ghash_key(&self) -> X86HKey {
        self.0.ghash_key()
    }
    fn ghash_update(&self, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
        self.0.ghash_update(hk, acc, data)
    }
}

fn generic_encrypt(k: &X86Aes, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
    Generic(k).gcm_encrypt(hk, ctr, acc, io)
}

fn generic_decrypt(k: &X86Aes, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
    Generic(k).gcm_decrypt(hk, ctr, acc, io)
}
