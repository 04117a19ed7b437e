//! GCM on the x86 backends: the `GcmKernels` of `X86Aes`, dispatched on the
//! key's `Level` (one match per call).

use super::ghash_clmul::{self, X86HKey};
use super::key::{Level, X86Aes};
use super::vector::{vaes_entries, Vector};
use super::{gcm_aesni, gcm_vaes};
use crate::backend::kernels::gcm::{word_sum, GcmKernels};
use crate::backend::kernels::inout::InOut;
use crate::key::Block;

// Each arm below holds the token of the level it matched, made only by
// run-time detection: that token proves the features of the kernel called.
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
            // SAFETY: the VAES-512 token proves VAES, VPCLMULQDQ and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { gcm_vaes::ghash_update_512(t, self, hk, acc, data) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { gcm_vaes::ghash_update_256(t, self, hk, acc, data) },
            // SAFETY: the AES-NI token proves AES-NI, SSE4.1 and PCLMULQDQ.
            Level::Aesni(_) => unsafe { ghash_clmul::ghash_update(hk, acc, data) },
        }
    }

    fn gcm_encrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        self.gcm_crypt::<true>(hk, ctr, acc, io)
    }

    fn gcm_decrypt(&self, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>) {
        self.gcm_crypt::<false>(hk, ctr, acc, io)
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
            // SAFETY: the VAES-512 token proves VAES, VPCLMULQDQ and AVX-512 F/BW/VL.
            (Level::Vaes512(t), true) => unsafe {
                gcm_vaes::gcm_oneshot_512::<true>(t, self, hk, j0, aad, io)
            },
            // SAFETY: the VAES-512 token proves VAES, VPCLMULQDQ and AVX-512 F/BW/VL.
            (Level::Vaes512(t), false) => unsafe {
                gcm_vaes::gcm_oneshot_512::<false>(t, self, hk, j0, aad, io)
            },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            (Level::Vaes256(t), true) => unsafe {
                gcm_vaes::gcm_oneshot_256::<true>(t, self, hk, j0, aad, io)
            },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            (Level::Vaes256(t), false) => unsafe {
                gcm_vaes::gcm_oneshot_256::<false>(t, self, hk, j0, aad, io)
            },
            // SAFETY: the AES-NI token proves AES-NI, SSE4.1 and PCLMULQDQ.
            (Level::Aesni(_), true) => unsafe {
                gcm_aesni::gcm_oneshot::<true>(self, hk, j0, aad, io)
            },
            // SAFETY: the AES-NI token proves AES-NI, SSE4.1 and PCLMULQDQ.
            (Level::Aesni(_), false) => unsafe {
                gcm_aesni::gcm_oneshot::<false>(self, hk, j0, aad, io)
            },
        }
    }

    fn word_sum(&self, data: &[u8]) -> u128 {
        match self.level {
            // SAFETY: the VAES-512 token proves VAES, VPCLMULQDQ and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe { word_sum_512(t, data) },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe { word_sum_256(t, data) },
            Level::Aesni(_) => word_sum(data),
        }
    }
}

impl X86Aes {
    /// [`GcmKernels::gcm_encrypt`] (`ENCRYPT`) or `gcm_decrypt`.
    #[inline]
    fn gcm_crypt<const ENCRYPT: bool>(
        &self,
        hk: &X86HKey,
        ctr: &mut Block,
        acc: &mut Block,
        io: InOut<'_>,
    ) {
        match self.level {
            // SAFETY: the VAES-512 token proves VAES, VPCLMULQDQ and AVX-512 F/BW/VL.
            Level::Vaes512(t) => unsafe {
                gcm_vaes::gcm_crypt_512::<ENCRYPT>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: the VAES-256 token proves VAES, VPCLMULQDQ and AVX2.
            Level::Vaes256(t) => unsafe {
                gcm_vaes::gcm_crypt_256::<ENCRYPT>(t, self, hk, ctr, acc, io)
            },
            // SAFETY: the AES-NI token proves AES-NI, SSE4.1 and PCLMULQDQ.
            Level::Aesni(_) => unsafe { gcm_aesni::gcm_crypt::<ENCRYPT>(self, hk, ctr, acc, io) },
        }
    }
}

/// [`GcmKernels::word_sum`] on a VAES width: per register of data, the low
/// and high 32-bit halves of its words are added into two accumulators of
/// 64-bit lanes. Parts of at most 2^20 registers keep every lane below
/// 2^52; the leftover bytes go through the portable sum.
///
/// # Safety
/// None beyond the token (`unsafe` for the entry points' sake).
#[inline(always)]
pub(super) unsafe fn word_sum_wide<V: Vector>(v: V, data: &[u8]) -> u128 {
    let rows = data.len() / V::BYTES * V::BYTES;
    let m32 = v.set_u64x2(0xffff_ffff, 0xffff_ffff);
    let mut total = 0u128;
    for part in data[..rows].chunks(V::BYTES << 20) {
        let (mut lo, mut hi) = (v.zero(), v.zero());
        for row in part.chunks_exact(V::BYTES) {
            // SAFETY: `row` is `BYTES` readable bytes.
            let x = unsafe { v.load(row.as_ptr()) };
            lo = v.add64(lo, v.and(x, m32));
            hi = v.add64(hi, v.srli64::<32>(x));
        }
        let (mut l, mut h) = ([0u64; 8], [0u64; 8]);
        // SAFETY: `BYTES` (<= 64) byte stores into local arrays of 64.
        unsafe {
            v.store(l.as_mut_ptr().cast(), lo);
            v.store(h.as_mut_ptr().cast(), hi);
        }
        for (l, h) in l.iter().zip(h.iter()).take(2 * V::BLOCKS) {
            total += *l as u128 + ((*h as u128) << 32);
        }
    }
    total + word_sum(&data[rows..])
}

vaes_entries! {
    fn word_sum_256 / word_sum_512 <> (data: &[u8]) -> u128 = word_sum_wide;
}
