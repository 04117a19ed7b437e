//! GCM on the x86 backends: the `GcmKernels` of `X86Aes`, dispatched on the
//! key's `Level` (one match per call).

use core::arch::x86_64::*;

use super::ghash_clmul::{self, X86HKey};
use super::{gcm_aesni, gcm_vaes, Level, X86Aes};
use crate::backend::gcm_kernels::{oneshot_generic, word_sum, GcmKernels};
use crate::backend::inout::InOut;
use crate::key::Block;

// SAFETY (all calls below): each arm holds the token of the level it matched
// (made only by run-time detection), which proves that level's features:
// AES-NI, SSE4.1 (so SSSE3) and PCLMULQDQ for every level; plus AVX2, VAES
// and VPCLMULQDQ for Vaes256; plus AVX-512 F/BW/VL for Vaes512.
impl GcmKernels for X86Aes {
    type HKey = X86HKey;

    fn ghash_key(&self) -> X86HKey {
        let _aesni = self.level.aesni();
        // SAFETY: `_aesni`, the token every level holds, proves PCLMULQDQ
        // and SSE4.1 (so SSSE3).
        unsafe { ghash_clmul::hkey(self) }
    }

    fn ghash_update(&self, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512(t) => unsafe { gcm_vaes::ghash_update_512(t, self, hk, acc, data) },
            // SAFETY: see above.
            Level::Vaes256(t) => unsafe { gcm_vaes::ghash_update_256(t, self, hk, acc, data) },
            // SAFETY: see above.
            Level::Aesni(_) => unsafe { ghash_clmul::ghash_update(hk, acc, data) },
        }
    }

    fn gcm_encrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512(t) => unsafe {
                gcm_vaes::gcm_crypt_512::<true>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: see above.
            Level::Vaes256(t) => unsafe {
                gcm_vaes::gcm_crypt_256::<true>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: see above.
            Level::Aesni(_) => unsafe { gcm_aesni::gcm_crypt::<true>(self, hk, ctr, acc, io) },
        }
    }

    fn gcm_decrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512(t) => unsafe {
                gcm_vaes::gcm_crypt_512::<false>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: see above.
            Level::Vaes256(t) => unsafe {
                gcm_vaes::gcm_crypt_256::<false>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: see above.
            Level::Aesni(_) => unsafe { gcm_aesni::gcm_crypt::<false>(self, hk, ctr, acc, io) },
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
            (Level::Vaes512(t), true) => unsafe {
                gcm_vaes::gcm_oneshot_512::<true>(t, self, hk, j0, aad, io)
            },
            // SAFETY: see above.
            (Level::Vaes512(t), false) => unsafe {
                gcm_vaes::gcm_oneshot_512::<false>(t, self, hk, j0, aad, io)
            },
            // SAFETY: see above.
            (Level::Vaes256(t), true) => unsafe {
                gcm_vaes::gcm_oneshot_256::<true>(t, self, hk, j0, aad, io)
            },
            // SAFETY: see above.
            (Level::Vaes256(t), false) => unsafe {
                gcm_vaes::gcm_oneshot_256::<false>(t, self, hk, j0, aad, io)
            },
            (Level::Aesni(_), _) => oneshot_generic(self, hk, encrypt, j0, aad, io),
        }
    }

    fn word_sum(&self, data: &[u8]) -> u128 {
        match self.level {
            // SAFETY: see above.
            Level::Vaes512(_) => unsafe { word_sum_avx512(data) },
            // SAFETY: see above.
            Level::Vaes256(_) => unsafe { word_sum_avx2(data) },
            Level::Aesni(_) => word_sum(data),
        }
    }
}

/// [`GcmKernels::word_sum`] on zmm registers: per 64-byte row, the low and
/// high 32-bit halves of the eight words are added into two accumulators
/// of eight 64-bit lanes. Parts of at most 2^20 rows keep every lane below
/// 2^52; the leftover bytes go through the portable sum.
///
/// # Safety
/// The CPU must support AVX-512F.
#[target_feature(enable = "avx512f")]
unsafe fn word_sum_avx512(data: &[u8]) -> u128 {
    let rows = data.len() / 64 * 64;
    let m32 = _mm512_set1_epi64(0xffff_ffff);
    let mut total = 0u128;
    for part in data[..rows].chunks(64 << 20) {
        let (mut lo, mut hi) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        for row in part.chunks_exact(64) {
            // SAFETY: `row` is 64 readable bytes.
            let v = unsafe { _mm512_loadu_si512(row.as_ptr().cast()) };
            lo = _mm512_add_epi64(lo, _mm512_and_si512(v, m32));
            hi = _mm512_add_epi64(hi, _mm512_srli_epi64(v, 32));
        }
        total += _mm512_reduce_add_epi64(lo) as u64 as u128;
        total += (_mm512_reduce_add_epi64(hi) as u64 as u128) << 32;
    }
    total + word_sum(&data[rows..])
}

/// [`GcmKernels::word_sum`] on ymm registers, as the AVX-512 version.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn word_sum_avx2(data: &[u8]) -> u128 {
    let rows = data.len() / 32 * 32;
    let m32 = _mm256_set1_epi64x(0xffff_ffff);
    let mut total = 0u128;
    for part in data[..rows].chunks(32 << 20) {
        let (mut lo, mut hi) = (_mm256_setzero_si256(), _mm256_setzero_si256());
        for row in part.chunks_exact(32) {
            // SAFETY: `row` is 32 readable bytes.
            let v = unsafe { _mm256_loadu_si256(row.as_ptr().cast()) };
            lo = _mm256_add_epi64(lo, _mm256_and_si256(v, m32));
            hi = _mm256_add_epi64(hi, _mm256_srli_epi64(v, 32));
        }
        let mut l = [0u64; 4];
        let mut h = [0u64; 4];
        // SAFETY: 32-byte stores into local arrays.
        unsafe {
            _mm256_storeu_si256(l.as_mut_ptr().cast(), lo);
            _mm256_storeu_si256(h.as_mut_ptr().cast(), hi);
        }
        for i in 0..4 {
            total += l[i] as u128 + ((h[i] as u128) << 32);
        }
    }
    total + word_sum(&data[rows..])
}
