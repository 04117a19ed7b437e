//! POLYVAL (RFC 8452) on PCLMULQDQ (the `aesni` tier) and VPCLMULQDQ on ymm
//! and zmm, from one source over [`Lanes`].
//!
//! Blocks load as little-endian 128-bit lanes, which is POLYVAL's own bit
//! order: no byte swap anywhere. A group of up to 16 blocks is multiplied
//! by descending powers of H (four 64x64 products per block, summed
//! unreduced), then reduced once: dot(a, b) = a·b·x^-128 by two folds with
//! x^63 + x^62 + x^57 (the top word of the reduction constant
//! 0xc2000000_00000000), as in `soft/polyval.rs`.

use core::arch::x86_64::*;

use super::lanes::Lanes;
use super::Level;
use crate::backend::trace::{self, Kernel};
use crate::key::{Block, BLOCK_LEN};

/// Most powers of H kept (the largest group).
const MAX: usize = 16;

/// `tab[MAX - 1 - t]` = H^(t+1)·x^(-128·t), so that block j of a group of
/// n blocks takes `tab[MAX - n + j]`: contiguous, loadable as wide lanes.
/// Only the last `have` entries are computed.
#[derive(Clone)]
pub(crate) struct X86PolyvalKey {
    tab: [__m128i; MAX],
    have: usize,
    level: Level,
}

impl Drop for X86PolyvalKey {
    fn drop(&mut self) {
        for t in self.tab.iter_mut() {
            // SAFETY: `t` is a valid, aligned, exclusive reference; volatile
            // so the wipe of key material is not elided.
            unsafe { core::ptr::write_volatile(t, _mm_setzero_si128()) };
        }
    }
}

impl X86PolyvalKey {
    /// The key `h` with as many powers as a call of `blocks` blocks uses.
    pub(crate) fn new(level: Level, h: &Block, blocks: usize) -> Self {
        let have = blocks.clamp(1, MAX);
        // SAFETY: `h` is 16 readable bytes; loadu has no alignment need
        // (SSE2, baseline).
        let h = unsafe { _mm_loadu_si128(h.as_ptr().cast()) };
        let tab = powers::<MAX>(level, h, have);
        X86PolyvalKey { tab, have, level }
    }

    /// `acc = dot(acc ^ X, H)` over the whole blocks of `data`.
    pub(crate) fn update(&self, acc: &mut Block, data: &[u8]) {
        let n = data.len() / BLOCK_LEN;
        if n == 0 {
            return;
        }
        // SAFETY: the matched level's token proves the features its kernel
        // enables; `data` holds `n` whole blocks.
        unsafe {
            match self.level {
                Level::Aesni(_) => {
                    trace::hit(Kernel::AesniPolyval);
                    update_aesni(self, acc, data.as_ptr(), n)
                }
                Level::Vaes256(_) => {
                    trace::hit(Kernel::Vaes256Polyval);
                    update_vaes256(self, acc, data.as_ptr(), n)
                }
                Level::Vaes512(_) => {
                    trace::hit(Kernel::Vaes512Polyval);
                    update_vaes512(self, acc, data.as_ptr(), n)
                }
            }
        }
    }
}

#[target_feature(enable = "sse2,ssse3,sse4.1,pclmulqdq")]
unsafe fn update_aesni(k: &X86PolyvalKey, acc: &mut Block, p: *const u8, n: usize) {
    // SAFETY: forwarded contract; this function enables what __m128i needs.
    unsafe { update::<__m128i, 8>(k, acc, p, n) }
}

#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq")]
unsafe fn update_vaes256(k: &X86PolyvalKey, acc: &mut Block, p: *const u8, n: usize) {
    // SAFETY: forwarded contract; this function enables what __m256i needs.
    unsafe { update::<__m256i, 8>(k, acc, p, n) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vpclmulqdq,pclmulqdq")]
unsafe fn update_vaes512(k: &X86PolyvalKey, acc: &mut Block, p: *const u8, n: usize) {
    // SAFETY: forwarded contract; this function enables what __m512i needs.
    unsafe { update::<__m512i, 4>(k, acc, p, n) }
}

/// Unreduced sums of products: `lo`, `mid` (the cross terms, x^64 up) and
/// `hi` (x^128 up), per lane.
#[derive(Clone, Copy)]
struct Sum<V> {
    lo: V,
    mid: V,
    hi: V,
}

impl<V: Lanes> Sum<V> {
    #[inline(always)]
    unsafe fn new() -> Self {
        // SAFETY: the caller is a kernel with V's features (Lanes' contract).
        unsafe {
            Sum {
                lo: V::zero(),
                mid: V::zero(),
                hi: V::zero(),
            }
        }
    }

    /// Adds x·h lane by lane (four 64x64 products).
    #[inline(always)]
    unsafe fn add(&mut self, x: V, h: V) {
        // SAFETY: the caller is a kernel with V's features (Lanes' contract).
        unsafe {
            self.lo = V::xor(self.lo, V::clmul::<0x00>(x, h));
            self.hi = V::xor(self.hi, V::clmul::<0x11>(x, h));
            self.mid = V::xor(self.mid, V::clmul::<0x01>(x, h));
            self.mid = V::xor(self.mid, V::clmul::<0x10>(x, h));
        }
    }

    /// The 256-bit sum over all lanes as (low, high) halves.
    #[inline(always)]
    unsafe fn fold(self) -> (__m128i, __m128i) {
        // SAFETY: the caller is a kernel with V's features (Lanes' contract).
        unsafe {
            let lo = V::xor(self.lo, V::shl64(self.mid));
            let hi = V::xor(self.hi, V::shr64(self.mid));
            (V::fold(lo), V::fold(hi))
        }
    }
}

/// (lo, hi)·x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1.
#[inline(always)]
unsafe fn reduce(lo: __m128i, hi: __m128i) -> __m128i {
    // SAFETY: the caller is a kernel with PCLMULQDQ.
    unsafe {
        let c = _mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 0);
        let t = _mm_clmulepi64_si128::<0x10>(lo, c);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        let t = _mm_clmulepi64_si128::<0x10>(lo, c);
        let lo = _mm_xor_si128(_mm_shuffle_epi32::<0x4e>(lo), t);
        _mm_xor_si128(hi, lo)
    }
}

/// dot(a, b) in every lane.
#[inline(always)]
unsafe fn dot_lanes<V: Lanes>(a: V, b: V) -> V {
    // SAFETY: the caller is a kernel with V's features and PCLMULQDQ.
    unsafe {
        let mut s = Sum::<V>::new();
        s.add(a, b);
        let lo = V::xor(s.lo, V::shl64(s.mid));
        let hi = V::xor(s.hi, V::shr64(s.mid));
        let c = V::splat(_mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 0));
        let lo = V::xor(V::swap64(lo), V::clmul::<0x10>(lo, c));
        let lo = V::xor(V::swap64(lo), V::clmul::<0x10>(lo, c));
        V::xor(hi, lo)
    }
}

/// H^1..H^have for the tier of `level`, in `tab`'s layout (`tab[N - 1 - t]`
/// = H^(t+1)·x^(-128·t)). The same Montgomery product serves GHASH's powers
/// of H·y (see `gcm_kernels`), hence the `N` parameter.
pub(super) fn powers<const N: usize>(level: Level, h: __m128i, have: usize) -> [__m128i; N] {
    // SAFETY: the matched level's token proves the features its function
    // enables.
    unsafe {
        match level {
            Level::Aesni(_) => powers_aesni::<N>(h, have),
            Level::Vaes256(_) => powers_vaes256::<N>(h, have),
            Level::Vaes512(_) => powers_vaes512::<N>(h, have),
        }
    }
}

#[target_feature(enable = "sse2,ssse3,sse4.1,pclmulqdq")]
unsafe fn powers_aesni<const N: usize>(h: __m128i, have: usize) -> [__m128i; N] {
    // SAFETY: this function enables what __m128i needs.
    unsafe { powers_in::<__m128i, N>(h, have) }
}

#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq")]
unsafe fn powers_vaes256<const N: usize>(h: __m128i, have: usize) -> [__m128i; N] {
    // SAFETY: this function enables what __m256i needs.
    unsafe { powers_in::<__m256i, N>(h, have) }
}

#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vpclmulqdq,pclmulqdq")]
unsafe fn powers_vaes512<const N: usize>(h: __m128i, have: usize) -> [__m128i; N] {
    // SAFETY: this function enables what __m512i needs.
    unsafe { powers_in::<__m512i, N>(h, have) }
}

/// Powers by doubling: pow[a]·pow[b] = pow[a+b+1], so each round multiplies
/// the newest power by all earlier ones at once, `V::BLOCKS` products per
/// instruction where the round is whole (five dependent rounds for 32).
#[inline(always)]
unsafe fn powers_in<V: Lanes, const N: usize>(h: __m128i, have: usize) -> [__m128i; N] {
    let l = V::BLOCKS;
    // SAFETY: the caller enables V's features and PCLMULQDQ; every access to
    // `tab` stays within its N entries (indices N - 2·done .. N, with
    // 2·done <= have <= N).
    unsafe {
        let mut tab = [_mm_setzero_si128(); N];
        tab[N - 1] = h;
        let p = tab.as_mut_ptr().cast::<u8>();
        let mut done = 1;
        while done < have {
            let top = tab[N - done];
            let upto = (2 * done).min(have);
            if l > 1 && done % l == 0 && upto == 2 * done {
                let t = V::splat(top);
                for c in (0..done).step_by(l) {
                    let x = V::load(p.add(16 * (N - done + c)));
                    V::store(p.add(16 * (N - 2 * done + c)), dot_lanes(t, x));
                }
            } else {
                for j in done..upto {
                    // pow[j] = pow[done - 1]·pow[j - done]
                    tab[N - 1 - j] = dot_lanes(top, tab[N - 1 - (j - done)]);
                }
            }
            done = upto;
        }
        tab
    }
}

/// The kernel: groups of `R` registers (`R * V::BLOCKS` blocks, at most 16)
/// with one reduction each, then the rest in pieces of at most `have`
/// blocks, also one reduction each.
#[inline(always)]
unsafe fn update<V: Lanes, const R: usize>(
    k: &X86PolyvalKey,
    acc: &mut Block,
    p: *const u8,
    n: usize,
) {
    let l = V::BLOCKS;
    let g = R * l;
    let tab = k.tab.as_ptr().cast::<u8>();
    // SAFETY: the caller enables V's features (and PCLMULQDQ); `p` holds
    // `n` blocks and every load below stays below block `n`; `tab` holds
    // MAX blocks and every index below is in MAX - g.. or MAX - m.., at most
    // MAX - 1 + 1 blocks from its start.
    unsafe {
        let mut a = _mm_loadu_si128(acc.as_ptr().cast());
        let mut i = 0;
        if k.have >= g {
            let mut hs = [V::zero(); 16];
            for (r, h) in hs.iter_mut().enumerate().take(R) {
                *h = V::load(tab.add(16 * (MAX - g + r * l)));
            }
            while n - i >= g {
                let mut s = Sum::<V>::new();
                for (r, h) in hs.iter().enumerate().take(R) {
                    let mut x = V::load(p.add(16 * (i + r * l)));
                    if r == 0 {
                        x = V::xor(x, V::lane0(a));
                    }
                    s.add(x, *h);
                }
                let (lo, hi) = s.fold();
                a = reduce(lo, hi);
                i += g;
            }
        }
        while i < n {
            let m = (n - i).min(k.have);
            let mut s = Sum::<V>::new();
            let mut s1 = Sum::<__m128i>::new();
            let mut j = 0;
            while m - j >= l {
                let mut x = V::load(p.add(16 * (i + j)));
                if j == 0 {
                    x = V::xor(x, V::lane0(a));
                }
                s.add(x, V::load(tab.add(16 * (MAX - m + j))));
                j += l;
            }
            while j < m {
                let mut x = _mm_loadu_si128(p.add(16 * (i + j)).cast());
                if j == 0 {
                    x = _mm_xor_si128(x, a);
                }
                s1.add(x, _mm_loadu_si128(tab.add(16 * (MAX - m + j)).cast()));
                j += 1;
            }
            let (lo, hi) = s.fold();
            let (lo1, hi1) = s1.fold();
            a = reduce(_mm_xor_si128(lo, lo1), _mm_xor_si128(hi, hi1));
            i += m;
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), a);
    }
}
