//! POLYVAL (RFC 8452) on PCLMULQDQ (the `aesni` tier) and VPCLMULQDQ on ymm
//! and zmm, from one source over [`Vector`] (all three widths).
//!
//! Blocks load as little-endian 128-bit lanes, which is POLYVAL's own bit
//! order: no byte swap anywhere. A group of up to 16 blocks is multiplied
//! by descending powers of H (four 64x64 products per block, summed
//! unreduced), then reduced once: dot(a, b) = a·b·x^-128 by two folds with
//! x^63 + x^62 + x^57 (the top word of the reduction constant
//! 0xc2000000_00000000), as in `soft/polyval.rs`.
//!
//! Two users: [`X86PolyvalKey`] (the `PolyvalKernels` key: a table of
//! powers and [`update_in`]) and [`gcm_siv_hash`], the whole hash of a
//! GCM-SIV message for the fused one-shot in `siv.rs`.
//!
//! Where the cycles go (a Golden Cove core, PCLMULQDQ latency 3, one per
//! cycle on port 5). A short message's hash is latency: H is fresh per
//! message, its powers are dependent products (~15 cycles each: a product
//! and the two-fold reduction), so [`hash_small`] takes up to 15 blocks in
//! stages that overlap the powers, straight from registers and the
//! caller's buffers: 5 blocks (a 64-byte text and the length block) are 3
//! products deep, not 5 (Horner) or 4 (all powers, then one group). A long
//! one takes a [`Table`] of the powers its groups use (8 on xmm, 16 on ymm
//! and zmm) and [`update_in`] per part; per block that is ~3.4 products on
//! xmm and ymm (Karatsuba, with one reduction per group), 4.25 on zmm
//! (schoolbook, four blocks a product).
//!
//! On Zen 3 and Zen 4 PCLMULQDQ runs on the AES pipes (FP0/FP1), one per
//! two cycles on Zen 3 (measured; xmm and ymm alike), so a long hash costs
//! ~6.8 cycles per block on xmm and ~3.4 on ymm. Measured on Zen 3 (3.21
//! GHz, AES-128 GCM-SIV seal at 1 MiB, which is this hash and then the
//! counter mode): `aesni` 12.1 cycles per block, of which the counter mode
//! takes ~5.3, leaving ~6.8 for the hash: the model's figure.

use core::arch::x86_64::*;

use super::ghash_clmul::load_padded;
use super::key::Level;
use super::vector::{vaes_entries, Vector};
use crate::backend::kernels::cpu::Aesni;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::kernels::wipe;
use crate::key::{Block, BLOCK_LEN};

/// Most powers of H kept (the largest group).
pub(super) const MAX: usize = 16;

/// The `PolyvalKernels` key: a [`Table`] of powers and the tier to run on.
pub(crate) struct X86PolyvalKey {
    table: Table,
    level: Level,
}

impl X86PolyvalKey {
    /// The key `h` with as many powers as a call of `blocks` blocks uses.
    pub(crate) fn new(level: Level, h: &Block, blocks: usize) -> Self {
        let have = blocks.clamp(1, MAX);
        let x1 = level.aesni();
        // SAFETY: `h` is 16 readable bytes (unaligned load).
        let h = unsafe { x1.load(h.as_ptr()) };
        let tab = powers::<MAX>(level, h, have);
        X86PolyvalKey {
            table: Table::with_powers(x1, tab, have, have),
            level,
        }
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

    /// Pins the sums so far and the AES states `b` at this point of the
    /// instruction stream ([`Vector::order_acc`]).
    #[inline(always)]
    pub(super) fn order_with<const N: usize>(&mut self, v: V, b: &mut [V::V; N]) {
        let mut acc = [self.lo, self.mid, self.hi];
        v.order_acc(b, &mut acc);
        [self.lo, self.mid, self.hi] = acc;
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
    pub(super) fn fold(self, v: V) -> (__m128i, __m128i) {
        let (lo, hi) = self.halves(v);
        (v.xor_lanes(lo), v.xor_lanes(hi))
    }
}

/// Whether [`update_in`]'s groups multiply by Karatsuba on this width: on
/// xmm and ymm, where the shuffle that Karatsuba adds issues on port 1 or
/// 5 beside the multiplier's port 5; not on zmm, where port 5 takes both
/// and Karatsuba would trade one product for one shuffle (measured ~4%
/// slower at 1500 bytes, even at 16 KiB).
#[inline(always)]
pub(super) const fn karatsuba<V: Vector>() -> bool {
    V::BLOCKS <= 2
}

/// Karatsuba sums of carry-less products, per lane: `lo` and `hi` as in
/// [`Acc`], and `mk` = the sum of (a0 ^ a1)·(b0 ^ b1), from which the cross
/// terms follow as `mk ^ lo ^ hi`. The second operand comes with its halves
/// XORed in advance ([`Table::kar`]).
pub(super) struct KAcc<V: Vector> {
    lo: V::V,
    hi: V::V,
    mk: V::V,
}

impl<V: Vector> KAcc<V> {
    #[inline(always)]
    pub(super) fn zero(v: V) -> Self {
        KAcc {
            lo: v.zero(),
            hi: v.zero(),
            mk: v.zero(),
        }
    }

    /// Adds a·b lane by lane (three 64x64 products); `bk` holds b0 ^ b1 in
    /// the low half of each lane.
    #[inline(always)]
    pub(super) fn mul_add(&mut self, v: V, a: V::V, b: V::V, bk: V::V) {
        self.lo = v.xor(self.lo, v.clmul::<0x00>(a, b));
        self.hi = v.xor(self.hi, v.clmul::<0x11>(a, b));
        let ak = v.xor(a, v.shuffle32::<0x4e>(a));
        self.mk = v.xor(self.mk, v.clmul::<0x00>(ak, bk));
    }

    /// As [`Acc::order_with`].
    #[inline(always)]
    pub(super) fn order_with<const N: usize>(&mut self, v: V, b: &mut [V::V; N]) {
        let mut acc = [self.lo, self.hi, self.mk];
        v.order_acc(b, &mut acc);
        [self.lo, self.hi, self.mk] = acc;
    }

    /// The 256-bit sum over all lanes, with a·b (four products, off the
    /// Karatsuba path) added last, as (low, high) halves.
    #[inline(always)]
    pub(super) fn fold_with(self, v: V, a: V::V, b: V::V) -> (__m128i, __m128i) {
        let mid = v.xor3(self.mk, self.lo, self.hi);
        let mut s = Acc {
            lo: self.lo,
            mid,
            hi: self.hi,
        };
        s.mul_add(v, a, b);
        s.fold(v)
    }
}

/// (lo, hi)·x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1, per lane.
#[inline(always)]
pub(super) fn reduce<V: Vector>(v: V, lo: V::V, hi: V::V) -> V::V {
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

/// The kernel entry: [`update_in`] on the key's table, the accumulator
/// from and back to memory.
///
/// # Safety
/// `p` must hold `n` readable blocks.
#[inline(always)]
pub(super) unsafe fn update<V: Vector, const R: usize>(
    v: V,
    k: &X86PolyvalKey,
    acc: &mut Block,
    p: *const u8,
    n: usize,
) {
    let x1 = v.xmm();
    // SAFETY: `acc` is 16 bytes; the caller passes `n` blocks at `p`.
    unsafe {
        let a = update_in::<V, R>(v, &k.table, x1.load(acc.as_ptr()), p, n);
        x1.store(acc.as_mut_ptr(), a);
    }
}

/// `a = dot(a ^ X, H)` over `n` blocks at `p`, with the powers of `t`:
/// groups of `R` registers (`R * V::BLOCKS` blocks, at most 16) with one
/// reduction each, then the rest in pieces of at most `have` blocks, also
/// one reduction each.
///
/// On xmm and ymm ([`karatsuba`]) the groups multiply by Karatsuba
/// ([`KAcc`]): three carry-less products per block, not four. PCLMULQDQ
/// issues on one port (port 5 on Intel cores), so a long hash is bound by
/// the count of products: ~4.25 per block schoolbook with the reduction,
/// ~3.4 here (the register that takes the accumulator stays schoolbook:
/// its Karatsuba would add a shuffle and an XOR to the chain from one
/// group's reduction to the next). The groups need `t.kar` for their `g`
/// powers (see [`Table::new`]).
///
/// # Safety
/// `p` must hold `n` readable blocks.
#[inline(always)]
pub(super) unsafe fn update_in<V: Vector, const R: usize>(
    v: V,
    t: &Table,
    mut a: __m128i,
    p: *const u8,
    n: usize,
) -> __m128i {
    let l = V::BLOCKS;
    let g = R * l;
    let x1 = v.xmm();
    let have = t.have;
    let tab = t.tab.as_ptr().cast::<u8>();
    let kar = t.kar.as_ptr().cast::<u8>();
    // SAFETY: `p` holds `n` blocks and every load below stays below block
    // `n`; `tab` and `kar` hold MAX blocks and every index below is in
    // MAX - g.. or MAX - m.., at most MAX - 1 + 1 blocks from the start.
    unsafe {
        let mut i = 0;
        if have >= g {
            let mut hs = [v.zero(); 16];
            let mut ks = [v.zero(); 16];
            for r in 0..R {
                hs[r] = v.load(tab.add(16 * (MAX - g + r * l)));
                if karatsuba::<V>() {
                    ks[r] = v.load(kar.add(16 * (MAX - g + r * l)));
                }
            }
            while n - i >= g {
                // The register that takes `a` goes last: only then is the
                // previous group's reduction one product and a few XORs
                // from this group's sum, not R (about 5% on zmm).
                let x = |r: usize| v.load(p.add(16 * (i + r * l)));
                let x0 = v.xor(x(0), v.zext(a));
                let (lo, hi) = if karatsuba::<V>() {
                    let mut s = KAcc::zero(v);
                    for (r, (h, k)) in hs.iter().zip(&ks).enumerate().take(R).skip(1) {
                        s.mul_add(v, x(r), *h, *k);
                    }
                    s.fold_with(v, x0, hs[0])
                } else {
                    let mut s = Acc::zero(v);
                    for (r, h) in hs.iter().enumerate().take(R).skip(1) {
                        s.mul_add(v, x(r), *h);
                    }
                    s.mul_add(v, x0, hs[0]);
                    s.fold(v)
                };
                a = reduce(x1, lo, hi);
                i += g;
            }
        }
        while i < n {
            let m = (n - i).min(have);
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
    }
    a
}

/// The most blocks (AAD, text and the length block, each padded) that
/// [`gcm_siv_hash`] hashes from registers in stages of 1, 2, 4 and 8
/// blocks (see [`hash_small`]).
pub(super) const SMALL: usize = 15;

/// POLYVAL(H, AAD || text || lengths) from zero, AAD and text each
/// zero-padded to whole blocks: the hash of RFC 8452 section 4, for the
/// GCM-SIV one-shot (`siv.rs`). `R` registers per group, as
/// [`update_in`].
///
/// Up to [`SMALL`] blocks go through [`hash_small`]; longer messages
/// compute the powers their longest part uses (at most 16) and take one
/// [`update_in`] per part, the text's partial block and the length block
/// together.
///
/// # Safety
/// `text` must hold `len` readable bytes.
#[inline(always)]
pub(super) unsafe fn gcm_siv_hash<V: Vector, const R: usize>(
    v: V,
    h: __m128i,
    aad: &[u8],
    text: *const u8,
    len: usize,
) -> __m128i {
    let x1 = v.xmm();
    let (aw, ap) = (aad.len() / BLOCK_LEN, aad.len() % BLOCK_LEN);
    let (tw, tp) = (len / BLOCK_LEN, len % BLOCK_LEN);
    let total = aad.len().div_ceil(BLOCK_LEN) + len.div_ceil(BLOCK_LEN) + 1;
    let lens = lengths(x1, aad.len(), len);
    let a = aad.as_ptr();
    if is_small(aad.len(), len) {
        // The blocks in order, straight from the caller's buffers; only the
        // partial ones go through (wiped) locals.
        let aad_end = aad.len().div_ceil(BLOCK_LEN);
        let text_end = aad_end + tw;
        let (mut a_tail, mut t_tail) = (x1.zero(), x1.zero());
        // SAFETY: `aad` holds `ap` bytes after its `aw` whole blocks, the
        // caller's `text` `tp` after its `tw`.
        unsafe {
            if ap > 0 {
                a_tail = load_padded(a.add(16 * aw), ap);
            }
            if tp > 0 {
                t_tail = load_padded(text.add(16 * tw), tp);
            }
        }
        let block = |i: usize| {
            // SAFETY: for any i, block i < aw of `aad` or block
            // i - aad_end < tw of `text`: whole blocks inside the buffers.
            unsafe {
                if i < aw {
                    x1.load(a.add(16 * i))
                } else if i < aad_end {
                    a_tail
                } else if i < text_end {
                    x1.load(text.add(16 * (i - aad_end)))
                } else if i < total - 1 {
                    t_tail
                } else {
                    lens
                }
            }
        };
        return hash_small(x1, h, block, total);
    }
    let kg = if karatsuba::<V>() { R * V::BLOCKS } else { 0 };
    // No more powers than a group takes: the groups use exactly g = R·l,
    // and what is left after them is less than g (8 on xmm, where a
    // table of 16 would cost eight more dependent products).
    let t = Table::new(v, h, aw.max(tw).min(R * V::BLOCKS), kg);
    let acc = t.aad::<V, R>(v, x1.zero(), aad);
    // SAFETY: the caller passes `len` bytes at `text`: `tw` whole blocks,
    // then `tp`.
    unsafe {
        let acc = t.blocks::<V, R>(v, acc, text, tw);
        t.finish::<V, R>(v, acc, text.add(16 * tw), tp, lens)
    }
}

/// Whether [`gcm_siv_hash`] takes a message of `aad` and `len` bytes on its
/// short path (at most [`SMALL`] blocks with the length block).
#[inline(always)]
pub(super) fn is_small(aad: usize, len: usize) -> bool {
    aad.div_ceil(BLOCK_LEN) + len.div_ceil(BLOCK_LEN) < SMALL
}

/// GCM-SIV's length block: le64(AAD bits) || le64(text bits) (both lengths
/// are at most 2^36 bytes).
#[inline(always)]
pub(super) fn lengths(x1: Aesni, aad: usize, len: usize) -> __m128i {
    x1.set_u64x2(len as u64 * 8, aad as u64 * 8)
}

/// The powers of H for a long message's hash: `tab[MAX - 1 - t]` =
/// H^(t+1)·x^(-128·t), so that block j of a group of n blocks takes
/// `tab[MAX - n + j]` (contiguous, loadable as wide lanes), and beside each
/// power its halves XORed for Karatsuba. Only the last `have` entries are
/// computed. Wiped on drop.
pub(super) struct Table {
    pub(super) tab: [__m128i; MAX],
    /// `kar[i]`: the two halves of `tab[i]` XORed, in both halves.
    pub(super) kar: [__m128i; MAX],
    pub(super) have: usize,
}

impl Drop for Table {
    fn drop(&mut self) {
        // SAFETY: SSE2 is part of the x86-64 baseline.
        let zero = unsafe { _mm_setzero_si128() };
        // Two fixed-length loops, unrolled (a chained iterator is not).
        wipe(self.tab.iter_mut(), zero);
        wipe(self.kar.iter_mut(), zero);
    }
}

impl Table {
    /// H^1..H^have (2 <= have <= 16; the count is clamped), with the
    /// Karatsuba halves of the last `g` powers where `have` >= `g` (the
    /// groups of [`update_in`] with `g` = `R` · `V::BLOCKS`; 0 for none).
    #[inline(always)]
    pub(super) fn new<V: Vector>(v: V, h: __m128i, have: usize, g: usize) -> Self {
        let have = have.clamp(2, MAX);
        // SAFETY: no contract beyond the token (`unsafe` for its entries).
        let tab = unsafe { powers_in::<V, MAX>(v, h, have) };
        Table::with_powers(v.xmm(), tab, have, g)
    }

    /// The table of the powers `tab` (its last `have` entries), with the
    /// Karatsuba halves of the last `g` if `have` >= `g`.
    #[inline(always)]
    fn with_powers(x1: Aesni, tab: [__m128i; MAX], have: usize, g: usize) -> Self {
        let mut kar = [x1.zero(); MAX];
        if have >= g {
            for i in MAX - g..MAX {
                kar[i] = x1.xor(tab[i], x1.shuffle32::<0x4e>(tab[i]));
            }
        }
        Table { tab, kar, have }
    }

    /// `acc` through `aad`, its partial last block zero-padded.
    #[inline(always)]
    pub(super) fn aad<V: Vector, const R: usize>(&self, v: V, acc: __m128i, aad: &[u8]) -> __m128i {
        let (aw, ap) = (aad.len() / BLOCK_LEN, aad.len() % BLOCK_LEN);
        // SAFETY: `aad` holds `aw` whole blocks, then `ap` bytes.
        unsafe {
            let acc = self.blocks::<V, R>(v, acc, aad.as_ptr(), aw);
            if ap == 0 {
                return acc;
            }
            let mut last = [0u8; BLOCK_LEN];
            core::ptr::copy_nonoverlapping(aad.as_ptr().add(16 * aw), last.as_mut_ptr(), ap);
            let acc = self.blocks::<V, R>(v, acc, last.as_ptr(), 1);
            wipe([&mut last], [0; BLOCK_LEN]);
            acc
        }
    }

    /// `acc` through the `n` blocks at `p`.
    ///
    /// # Safety
    /// `p` must hold `n` readable blocks.
    #[inline(always)]
    pub(super) unsafe fn blocks<V: Vector, const R: usize>(
        &self,
        v: V,
        acc: __m128i,
        p: *const u8,
        n: usize,
    ) -> __m128i {
        // SAFETY: the contract of `update_in` is this function's.
        unsafe { update_in::<V, R>(v, self, acc, p, n) }
    }

    /// `acc` through the text's last `tp` (< 16) bytes at `p` zero-padded,
    /// if any, and the length block `lens`, as one group.
    ///
    /// # Safety
    /// `p` must hold `tp` readable bytes.
    #[inline(always)]
    pub(super) unsafe fn finish<V: Vector, const R: usize>(
        &self,
        v: V,
        acc: __m128i,
        p: *const u8,
        tp: usize,
        lens: __m128i,
    ) -> __m128i {
        let mut last = [0u8; 2 * BLOCK_LEN];
        let n = (tp > 0) as usize;
        // SAFETY: the caller passes `tp` bytes at `p`; `last` holds two
        // blocks, of which n + 1 are hashed.
        let acc = unsafe {
            core::ptr::copy_nonoverlapping(p, last.as_mut_ptr(), tp);
            v.xmm().store(last.as_mut_ptr().add(16 * n), lens);
            self.blocks::<V, R>(v, acc, last.as_ptr(), n + 1)
        };
        wipe([&mut last], [0; 2 * BLOCK_LEN]);
        acc
    }
}

/// POLYVAL(H, block(0), .., block(n - 1)) from zero for n <= [`SMALL`], in
/// stages whose latencies overlap the powers' (the short-message path).
///
/// With powers by doubling, H^1..H^2^k are ready after k dependent dot
/// products. One group over all n blocks with one reduction waits for
/// H^n: 1 + ceil(log2 n) products from H to the hash (4 for the five
/// blocks of a 64-byte message). Here the blocks go in stages of 1, 2, 4
/// and 8 blocks: a stage of 2^k blocks multiplies by powers that are ready
/// after k products, and the accumulator of the smaller stages before it
/// is ready by then too, so it ends after k + 1. The last stage is the
/// largest power of two `top` with n < 2 top, the ones before it are the
/// bits of n - top, so n blocks take 1 + floor(log2 n) products (3 for
/// five blocks, a product's latency less). Each stage has a fixed size,
/// so the powers stay in registers.
#[inline(always)]
fn hash_small(x1: Aesni, h: __m128i, block: impl Fn(usize) -> __m128i, n: usize) -> __m128i {
    let top = if n >= 8 {
        8
    } else if n >= 4 {
        4
    } else if n >= 2 {
        2
    } else {
        1
    };
    // pw[t] = H^(t+1) (as iterated dot products), by doubling, only as far
    // as the last stage needs.
    let mut pw = [x1.zero(); 8];
    pw[0] = h;
    if top >= 2 {
        pw[1] = dot_lanes(x1, h, h);
    }
    if top >= 4 {
        pw[2] = dot_lanes(x1, pw[1], h);
        pw[3] = dot_lanes(x1, pw[1], pw[1]);
    }
    if top >= 8 {
        for t in 0..4 {
            pw[4 + t] = dot_lanes(x1, pw[3], pw[t]);
        }
    }
    let rem = n - top;
    let mut acc = x1.zero();
    let mut i = 0;
    if rem & 1 != 0 {
        acc = stage::<1>(x1, &pw, acc, &block, i);
        i += 1;
    }
    if rem & 2 != 0 {
        acc = stage::<2>(x1, &pw, acc, &block, i);
        i += 2;
    }
    if rem & 4 != 0 {
        acc = stage::<4>(x1, &pw, acc, &block, i);
        i += 4;
    }
    acc = match top {
        1 => stage::<1>(x1, &pw, acc, &block, i),
        2 => stage::<2>(x1, &pw, acc, &block, i),
        4 => stage::<4>(x1, &pw, acc, &block, i),
        _ => stage::<8>(x1, &pw, acc, &block, i),
    };
    wipe(pw.iter_mut(), x1.zero());
    acc
}

/// One stage of [`hash_small`]: blocks i..i + M, the first with `acc`
/// XORed in, times H^M..H^1, reduced.
#[inline(always)]
fn stage<const M: usize>(
    x1: Aesni,
    pw: &[__m128i; 8],
    acc: __m128i,
    block: &impl Fn(usize) -> __m128i,
    i: usize,
) -> __m128i {
    let mut s = Acc::zero(x1);
    // The block that takes the accumulator last, as in `update_in`.
    for j in 1..M {
        s.mul_add(x1, block(i + j), pw[M - 1 - j]);
    }
    s.mul_add(x1, x1.xor(block(i), acc), pw[M - 1]);
    let (lo, hi) = s.fold(x1);
    reduce(x1, lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// a·b mod x^128 + x^127 + x^126 + x^121 + 1, bit i of the `u128` (of
    /// the little-endian block) the coefficient of x^i, one bit at a time.
    fn mul(mut a: u128, b: u128) -> u128 {
        let mut r = 0;
        for i in 0..128 {
            if b >> i & 1 == 1 {
                r ^= a;
            }
            let carry = a >> 127;
            a <<= 1;
            if carry == 1 {
                a ^= 0xc200_0000_0000_0000_0000_0000_0000_0001;
            }
        }
        r
    }

    /// POLYVAL by its definition: dot(a, b) = a·b·x^-128, Horner's rule.
    fn reference(h: &Block, data: &[u8]) -> Block {
        // x^-1 = x^127 + x^126 + x^125 + x^120; x^-128 by squaring.
        let mut inv = 0xe100_0000_0000_0000_0000_0000_0000_0000u128;
        for _ in 0..7 {
            inv = mul(inv, inv);
        }
        let h = u128::from_le_bytes(*h);
        let mut s = 0u128;
        for b in data.chunks_exact(BLOCK_LEN) {
            let x = u128::from_le_bytes(b.try_into().unwrap());
            s = mul(mul(s ^ x, h), inv);
        }
        s.to_le_bytes()
    }

    fn levels() -> impl Iterator<Item = Level> {
        #[cfg(feature = "std")]
        assert!(
            Level::detect(0).is_some() || !std::is_x86_feature_detected!("aes"),
            "no level detected on an AES-NI machine"
        );
        (0..3).filter_map(Level::detect)
    }

    /// RFC 8452 Appendix A, and the reference above agreeing with it.
    #[test]
    fn rfc8452_appendix_a_on_every_level() {
        let h = 0x7b754bba26f8311d7642925847936225u128.to_le_bytes();
        let mut data = [0u8; 32];
        data[..16].copy_from_slice(&0x62a2012dbb621740b6df838c66954f4fu128.to_le_bytes());
        data[16..].copy_from_slice(&0x62f3c9d3205fe4bb06d02127dd4da2d1u128.to_le_bytes());
        let want = 0x7eb7e5f56c86b7e5fa1961847bb4a3f7u128.to_le_bytes();
        assert_eq!(reference(&h, &data), want);
        for level in levels() {
            let mut acc = [0u8; 16];
            X86PolyvalKey::new(level, &h, 2).update(&mut acc, &data);
            assert_eq!(acc, want, "{level:?}");
        }
    }

    /// The `PolyvalKernels` key on every level against the definition: any
    /// table size, any split of the data into calls (groups, remainders,
    /// Karatsuba and schoolbook paths).
    #[test]
    fn x86_keys_agree_with_the_definition() {
        let mut seed = 0x5851_f42d_4c95_7f2du64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 24) as u8
        };
        let h: Block = core::array::from_fn(|_| next());
        let data: Vec<u8> = (0..16 * 75).map(|_| next()).collect();
        for level in levels() {
            for have in [1, 3, 8, 9, 16, 40] {
                let k = X86PolyvalKey::new(level, &h, have);
                for blocks in [0, 1, 2, 7, 8, 15, 16, 17, 33, 75] {
                    let d = &data[..16 * blocks];
                    let want = reference(&h, d);
                    for split in [0, 1, 5, 16, 40] {
                        let at = 16 * split.min(blocks);
                        let mut acc = [0u8; 16];
                        k.update(&mut acc, &d[..at]);
                        k.update(&mut acc, &d[at..]);
                        assert_eq!(acc, want, "{level:?} have {have} {blocks} blocks");
                    }
                }
            }
        }
    }
}
