//! POLYVAL (RFC 8452) on PCLMULQDQ (the `aesni` tier) and VPCLMULQDQ on ymm
//! and zmm, from one source over [`Vector`] (all three widths).
//!
//! Blocks load as little-endian 128-bit lanes, which is POLYVAL's own bit
//! order: no byte swap anywhere. A group of up to 16 blocks is multiplied
//! by descending powers of H (four 64x64 products per block, summed
//! unreduced), then reduced once: dot(a, b) = a·b·x^-128 by two folds with
//! x^63 + x^62 + x^57 (the top word of the reduction constant
//! 0xc2000000_00000000), as in `soft/polyval.rs`.

use core::arch::x86_64::*;

use super::vector::{vaes_entries, Vector};
use super::Level;
use crate::backend::kernels::trace::{self, Kernel};
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
                Level::Aesni(t) => {
                    trace::hit(Kernel::AesniPolyval);
                    update_aesni::<8>(t, self, acc, data.as_ptr(), n)
                }
                Level::Vaes256(t) => {
                    trace::hit(Kernel::Vaes256Polyval);
                    update_vaes256::<8>(t, self, acc, data.as_ptr(), n)
                }
                Level::Vaes512(t) => {
                    trace::hit(Kernel::Vaes512Polyval);
                    update_vaes512::<4>(t, self, acc, data.as_ptr(), n)
                }
            }
        }
    }
}

vaes_entries! {
    fn update_aesni / update_vaes256 / update_vaes512 <const R: usize>
        (k: &X86PolyvalKey, acc: &mut Block, p: *const u8, n: usize) = update;
}

/// Unreduced sums of carry-less products, per lane: `lo`, `mid` (the
/// cross terms, x^64 up) and `hi` (x^128 up). GCM (`gcm_vaes.rs`) sums its
/// products of powers of H·y the same way.
pub(super) struct Acc<V: Vector> {
    pub(super) lo: V::V,
    pub(super) mid: V::V,
    pub(super) hi: V::V,
}

impl<V: Vector> Acc<V> {
    #[inline(always)]
    pub(super) fn zero(v: V) -> Self {
        Acc {
            lo: v.zero(),
            mid: v.zero(),
            hi: v.zero(),
        }
    }

    /// Adds a·b lane by lane (four 64x64 products).
    #[inline(always)]
    pub(super) fn mul_add(&mut self, v: V, a: V::V, b: V::V) {
        self.lo = v.xor(self.lo, v.clmul::<0x00>(a, b));
        self.hi = v.xor(self.hi, v.clmul::<0x11>(a, b));
        self.mid = v.xor3(self.mid, v.clmul::<0x01>(a, b), v.clmul::<0x10>(a, b));
    }

    /// The 256-bit sum per lane as (low, high) halves.
    #[inline(always)]
    fn halves(self, v: V) -> (V::V, V::V) {
        let lo = v.xor(self.lo, v.bslli::<8>(self.mid));
        let hi = v.xor(self.hi, v.bsrli::<8>(self.mid));
        (lo, hi)
    }

    /// The 256-bit sum over all lanes as (low, high) halves.
    #[inline(always)]
    fn fold(self, v: V) -> (__m128i, __m128i) {
        let (lo, hi) = self.halves(v);
        (v.xor_lanes(lo), v.xor_lanes(hi))
    }
}

/// (lo, hi)·x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1, per lane.
#[inline(always)]
fn reduce<V: Vector>(v: V, lo: V::V, hi: V::V) -> V::V {
    let c = v.set_u64x2(0xc200_0000_0000_0000, 0);
    let lo = v.xor(v.shuffle32::<0x4e>(lo), v.clmul::<0x10>(lo, c));
    let lo = v.xor(v.shuffle32::<0x4e>(lo), v.clmul::<0x10>(lo, c));
    v.xor(hi, lo)
}

/// dot(a, b) in every lane.
#[inline(always)]
fn dot_lanes<V: Vector>(v: V, a: V::V, b: V::V) -> V::V {
    let mut s = Acc::zero(v);
    s.mul_add(v, a, b);
    let (lo, hi) = s.halves(v);
    reduce(v, lo, hi)
}

/// H^1..H^have for the tier of `level`, in `tab`'s layout (`tab[N - 1 - t]`
/// = H^(t+1)·x^(-128·t)). The same Montgomery product serves GHASH's powers
/// of H·y (see `gcm_kernels`), hence the `N` parameter.
pub(super) fn powers<const N: usize>(level: Level, h: __m128i, have: usize) -> [__m128i; N] {
    // SAFETY: the matched level's token proves the features its function
    // enables.
    unsafe {
        match level {
            Level::Aesni(t) => powers_aesni::<N>(t, h, have),
            Level::Vaes256(t) => powers_vaes256::<N>(t, h, have),
            Level::Vaes512(t) => powers_vaes512::<N>(t, h, have),
        }
    }
}

vaes_entries! {
    fn powers_aesni / powers_vaes256 / powers_vaes512 <const N: usize>
        (h: __m128i, have: usize) -> [__m128i; N] = powers_in;
}

/// Powers by doubling: pow[a]·pow[b] = pow[a+b+1], so each round multiplies
/// the newest power by all earlier ones at once, `V::BLOCKS` products per
/// instruction where the round is whole (five dependent rounds for 32).
///
/// # Safety
/// None beyond the token (`unsafe` for the entry points' sake).
#[inline(always)]
unsafe fn powers_in<V: Vector, const N: usize>(v: V, h: __m128i, have: usize) -> [__m128i; N] {
    let l = V::BLOCKS;
    let x = v.xmm();
    let mut tab = [x.zero(); N];
    tab[N - 1] = h;
    let p = tab.as_mut_ptr().cast::<u8>();
    let mut done = 1;
    while done < have {
        let top = tab[N - done];
        let upto = (2 * done).min(have);
        if l > 1 && done % l == 0 && upto == 2 * done {
            let t = v.broadcast(top);
            for c in (0..done).step_by(l) {
                // SAFETY: both accesses stay within `tab`'s N entries
                // (indices N - 2·done .. N, with 2·done <= have <= N).
                unsafe {
                    let y = v.load(p.add(16 * (N - done + c)));
                    v.store(p.add(16 * (N - 2 * done + c)), dot_lanes(v, t, y));
                }
            }
        } else {
            for j in done..upto {
                // pow[j] = pow[done - 1]·pow[j - done]
                tab[N - 1 - j] = dot_lanes(x, top, tab[N - 1 - (j - done)]);
            }
        }
        done = upto;
    }
    tab
}

/// The kernel: groups of `R` registers (`R * V::BLOCKS` blocks, at most 16)
/// with one reduction each, then the rest in pieces of at most `have`
/// blocks, also one reduction each.
///
/// # Safety
/// `p` must hold `n` readable blocks.
#[inline(always)]
unsafe fn update<V: Vector, const R: usize>(
    v: V,
    k: &X86PolyvalKey,
    acc: &mut Block,
    p: *const u8,
    n: usize,
) {
    let l = V::BLOCKS;
    let g = R * l;
    let x1 = v.xmm();
    let tab = k.tab.as_ptr().cast::<u8>();
    // SAFETY: `p` holds `n` blocks and every load below stays below block
    // `n`; `tab` holds MAX blocks and every index below is in MAX - g.. or
    // MAX - m.., at most MAX - 1 + 1 blocks from its start; `acc` is 16
    // bytes.
    unsafe {
        let mut a = x1.load(acc.as_ptr());
        let mut i = 0;
        if k.have >= g {
            let mut hs = [v.zero(); 16];
            for (r, h) in hs.iter_mut().enumerate().take(R) {
                *h = v.load(tab.add(16 * (MAX - g + r * l)));
            }
            while n - i >= g {
                let mut s = Acc::zero(v);
                // The register that takes `a` goes last: `mul_add`'s
                // three-way XOR is not reassociated by LLVM, so only then
                // is the previous group's reduction one product and one
                // XOR from this group's sum, not R (about 5% on zmm).
                for (r, h) in hs.iter().enumerate().take(R).skip(1) {
                    s.mul_add(v, v.load(p.add(16 * (i + r * l))), *h);
                }
                let x = v.xor(v.load(p.add(16 * i)), v.zext(a));
                s.mul_add(v, x, hs[0]);
                let (lo, hi) = s.fold(v);
                a = reduce(x1, lo, hi);
                i += g;
            }
        }
        while i < n {
            let m = (n - i).min(k.have);
            let mut s = Acc::zero(v);
            let mut s1 = Acc::zero(x1);
            let mut j = 0;
            while m - j >= l {
                let mut x = v.load(p.add(16 * (i + j)));
                if j == 0 {
                    x = v.xor(x, v.zext(a));
                }
                s.mul_add(v, x, v.load(tab.add(16 * (MAX - m + j))));
                j += l;
            }
            while j < m {
                let mut x = x1.load(p.add(16 * (i + j)));
                if j == 0 {
                    x = x1.xor(x, a);
                }
                s1.mul_add(x1, x, x1.load(tab.add(16 * (MAX - m + j))));
                j += 1;
            }
            let (lo, hi) = s.fold(v);
            let (lo1, hi1) = s1.fold(x1);
            a = reduce(x1, x1.xor(lo, lo1), x1.xor(hi, hi1));
            i += m;
        }
        x1.store(acc.as_mut_ptr(), a);
    }
}
