//! GCM on the x86 backends: the `GcmKernels` of `X86Aes`, dispatched on the
//! key's `Level` (one match per call).

use super::ghash_clmul::{self, X86HKey};
use super::X86Aes;
use crate::backend::gcm_kernels::GcmKernels;
use crate::key::Block;

impl GcmKernels for X86Aes {
    type HKey = X86HKey;

    fn ghash_key(&self) -> X86HKey {
        // SAFETY: an X86Aes exists only if AES-NI, SSE4.1 and PCLMULQDQ were
        // detected (every level requires them).
        unsafe { ghash_clmul::hkey(self) }
    }

    fn ghash_update(&self, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
        // SAFETY: as above (SSSE3 is implied by SSE4.1).
        unsafe { ghash_clmul::ghash_update(hk, acc, data) }
    }
}
