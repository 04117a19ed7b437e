//! AES-NI kernels on 128-bit lanes.

use core::arch::x86_64::*;

use super::X86Aes;
use crate::backend::inout::InOut;

/// ECB-encrypts whole blocks.
///
/// # Safety
/// The CPU must support AES-NI and SSE4.1 (guaranteed by holding an `X86Aes`).
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn encrypt_blocks(k: &X86Aes, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    for i in 0..n {
        // SAFETY: block i lies inside both regions (i < len / 16); the load
        // happens before the store, so exact aliasing is fine.
        unsafe {
            let mut b = _mm_loadu_si128(src.add(16 * i).cast());
            b = _mm_xor_si128(b, k.enc[0]);
            for r in 1..k.rounds {
                b = _mm_aesenc_si128(b, k.enc[r]);
            }
            b = _mm_aesenclast_si128(b, k.enc[k.rounds]);
            _mm_storeu_si128(dst.add(16 * i).cast(), b);
        }
    }
}

/// ECB-decrypts whole blocks.
///
/// # Safety
/// As [`encrypt_blocks`].
#[target_feature(enable = "aes,sse4.1")]
pub(super) unsafe fn decrypt_blocks(k: &X86Aes, mut io: InOut<'_>) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    for i in 0..n {
        // SAFETY: as in encrypt_blocks.
        unsafe {
            let mut b = _mm_loadu_si128(src.add(16 * i).cast());
            b = _mm_xor_si128(b, k.dec[0]);
            for r in 1..k.rounds {
                b = _mm_aesdec_si128(b, k.dec[r]);
            }
            b = _mm_aesdeclast_si128(b, k.dec[k.rounds]);
            _mm_storeu_si128(dst.add(16 * i).cast(), b);
        }
    }
}
