//! GCM on the x86 backends: the `GcmKernels` of `X86Aes`, dispatched on the
//! key's `Level` (one match per call).

use super::ghash_clmul::{self, X86HKey};
use super::{gcm_aesni, gcm_vaes256, gcm_vaes512, Level, X86Aes};
use crate::backend::gcm_kernels::{oneshot_generic, GcmKernels};
use crate::backend::inout::InOut;
use crate::key::Block;

// SAFETY (all calls below): an X86Aes of a given level exists only if run-time
// detection confirmed that level's features: AES-NI, SSE4.1 (so SSSE3) and
// PCLMULQDQ for every level; plus AVX2, VAES and VPCLMULQDQ for Vaes256; plus
// AVX-512 F/BW/VL for Vaes512.
impl GcmKernels for X86Aes {
    type HKey = X86HKey;

    fn ghash_key(&self) -> X86HKey {
        // SAFETY: see above.
        unsafe { ghash_clmul::hkey(self) }
    }

    fn ghash_update(&self, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512 => unsafe { gcm_vaes512::ghash_update(self, hk, acc, data) },
            // SAFETY: see above.
            Level::Vaes256 => unsafe { gcm_vaes256::ghash_update(hk, acc, data) },
            // SAFETY: see above.
            Level::Aesni => unsafe { ghash_clmul::ghash_update(hk, acc, data) },
        }
    }

    fn gcm_encrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512 => unsafe { gcm_vaes512::gcm_crypt::<true>(self, hk, ctr, acc, io) },
            // SAFETY: see above.
            Level::Vaes256 => unsafe { gcm_vaes256::gcm_crypt::<true>(self, hk, ctr, acc, io) },
            // SAFETY: see above.
            Level::Aesni => unsafe { gcm_aesni::gcm_crypt::<true>(self, hk, ctr, acc, io) },
        }
    }

    fn gcm_decrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512 => unsafe { gcm_vaes512::gcm_crypt::<false>(self, hk, ctr, acc, io) },
            // SAFETY: see above.
            Level::Vaes256 => unsafe { gcm_vaes256::gcm_crypt::<false>(self, hk, ctr, acc, io) },
            // SAFETY: see above.
            Level::Aesni => unsafe { gcm_aesni::gcm_crypt::<false>(self, hk, ctr, acc, io) },
        }
    }

    fn gcm_oneshot(
        &self,
        hk: &X86HKey,
        encrypt: bool,
        j0: &Block,
        aad: &[u8],
        io: InOut<'_>,
    ) -> Block {
        match (self.level, encrypt) {
            // SAFETY: see above.
            (Level::Vaes512, true) => unsafe {
                gcm_vaes512::gcm_oneshot::<true>(self, hk, j0, aad, io)
            },
            // SAFETY: see above.
            (Level::Vaes512, false) => unsafe {
                gcm_vaes512::gcm_oneshot::<false>(self, hk, j0, aad, io)
            },
            _ => oneshot_generic(self, hk, encrypt, j0, aad, io),
        }
    }
}
