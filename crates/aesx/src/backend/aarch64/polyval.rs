//! POLYVAL (RFC 8452) with PMULL/PMULL2.
//!
//! A block loaded as two little-endian 64-bit lanes is POLYVAL's own field
//! element (no bit or byte reversal). Products are schoolbook (four PMULLs
//! per block against a power and its lane-swapped copy), summed over a group
//! of up to eight blocks and reduced once: dot(a, b) = a·b·x^-128 by two
//! folds with x^63 + x^62 + x^57 (0xc2 << 56), as in `x86/polyval.rs`.
//! Fixed-latency instructions only, no branch or lookup on secrets.

use core::arch::aarch64::*;

use super::ghash::{pmull_hi, pmull_lo, swap_lanes};
use super::ArmAes;
use crate::backend::kernels::cpu::ArmCrypto;
use crate::key::{Block, BLOCK_LEN};

/// Most powers of H kept (blocks per reduction).
const MAX: usize = 8;

/// `tab[MAX - 1 - t]` = H^(t+1)·x^(-128·t) and `swp` the same lane-swapped:
/// block j of a group of n blocks takes entry `MAX - n + j`. Only the last
/// `have` entries are computed.
#[derive(Clone)]
pub(crate) struct ArmPolyvalKey {
    tab: [uint64x2_t; MAX],
    swp: [uint64x2_t; MAX],
    have: usize,
    /// The proof that `update` may run the PMULL code.
    crypto: ArmCrypto,
}

impl Drop for ArmPolyvalKey {
    fn drop(&mut self) {
        for v in self.tab.iter_mut().chain(self.swp.iter_mut()) {
            // SAFETY: a valid, aligned, exclusive reference; volatile so the
            // wipe of key material is not elided.
            unsafe { core::ptr::write_volatile(v, vdupq_n_u64(0)) };
        }
    }
}

impl ArmPolyvalKey {
    /// The key `h` with as many powers as calls of `blocks` blocks use;
    /// `aes` (an existing key) hands over its token, the proof that the
    /// CPU has FEAT_PMULL.
    pub(crate) fn new(aes: &ArmAes, h: &Block, blocks: usize) -> Self {
        let have = blocks.clamp(1, MAX);
        let crypto = aes.crypto();
        // SAFETY: the `ArmCrypto` token proves FEAT_AES and FEAT_PMULL.
        unsafe { powers(crypto, h, have) }
    }

    /// `acc = dot(acc ^ X, H)` over the whole blocks of `data`.
    pub(crate) fn update(&self, acc: &mut Block, data: &[u8]) {
        let n = data.len() / BLOCK_LEN;
        let _proof: ArmCrypto = self.crypto;
        // SAFETY: the key holds the `ArmCrypto` token (FEAT_AES and
        // FEAT_PMULL); `data` holds `n` whole blocks.
        unsafe { update(self, acc, data.as_ptr(), n) }
    }
}

/// Unreduced (lo, mid, hi) sums of products.
#[derive(Clone, Copy)]
struct Sum {
    lo: uint64x2_t,
    mid: uint64x2_t,
    hi: uint64x2_t,
}

impl Sum {
    #[inline]
    #[target_feature(enable = "aes")]
    fn new() -> Self {
        Sum {
            lo: vdupq_n_u64(0),
            mid: vdupq_n_u64(0),
            hi: vdupq_n_u64(0),
        }
    }

    /// Adds x·h; `hs` is h lane-swapped.
    #[inline]
    #[target_feature(enable = "aes")]
    fn add(&mut self, x: uint64x2_t, h: uint64x2_t, hs: uint64x2_t) {
        self.lo = veorq_u64(self.lo, pmull_lo(x, h));
        self.hi = veorq_u64(self.hi, pmull_hi(x, h));
        self.mid = veorq_u64(self.mid, veorq_u64(pmull_lo(x, hs), pmull_hi(x, hs)));
    }

    /// The sum times x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1.
    #[inline]
    #[target_feature(enable = "aes")]
    fn reduce(self) -> uint64x2_t {
        let z = vdupq_n_u64(0);
        let lo = veorq_u64(self.lo, vextq_u64::<1>(z, self.mid));
        let hi = veorq_u64(self.hi, vextq_u64::<1>(self.mid, z));
        let c = vsetq_lane_u64::<0>(0xc200_0000_0000_0000, z);
        let lo = veorq_u64(swap_lanes(lo), pmull_lo(lo, c));
        let lo = veorq_u64(swap_lanes(lo), pmull_lo(lo, c));
        veorq_u64(hi, lo)
    }
}

#[inline]
#[target_feature(enable = "aes")]
fn dot(a: uint64x2_t, b: uint64x2_t) -> uint64x2_t {
    let mut s = Sum::new();
    s.add(a, b, swap_lanes(b));
    s.reduce()
}

#[inline]
#[target_feature(enable = "aes")]
unsafe fn load(p: *const u8) -> uint64x2_t {
    // SAFETY: the caller passes 16 readable bytes; LD1 has no alignment need.
    vreinterpretq_u64_u8(unsafe { vld1q_u8(p) })
}

/// Powers by doubling: `pow[a]·pow[b] = pow[a+b+1]`.
#[target_feature(enable = "aes")]
unsafe fn powers(crypto: ArmCrypto, h: &Block, have: usize) -> ArmPolyvalKey {
    let mut tab = [vdupq_n_u64(0); MAX];
    // SAFETY: `h` is 16 readable bytes.
    tab[MAX - 1] = unsafe { load(h.as_ptr()) };
    let mut done = 1;
    while done < have {
        let top = tab[MAX - done];
        let upto = (2 * done).min(have);
        for j in done..upto {
            tab[MAX - 1 - j] = dot(top, tab[MAX - 1 - (j - done)]);
        }
        done = upto;
    }
    let mut swp = [vdupq_n_u64(0); MAX];
    for (s, t) in swp.iter_mut().zip(tab.iter()) {
        *s = swap_lanes(*t);
    }
    ArmPolyvalKey {
        tab,
        swp,
        have,
        crypto,
    }
}

/// Groups of `MAX` blocks with one reduction each, then the rest in pieces
/// of at most `have` blocks, one reduction each.
#[target_feature(enable = "aes")]
unsafe fn update(k: &ArmPolyvalKey, acc: &mut Block, p: *const u8, n: usize) {
    // SAFETY: `acc` is 16 bytes; every data load reads a block below `n`,
    // which the caller guarantees readable.
    unsafe {
        let mut a = load(acc.as_ptr());
        let mut i = 0;
        while i < n {
            let m = (n - i).min(k.have);
            let mut s = Sum::new();
            for j in 0..m {
                let mut x = load(p.add(16 * (i + j)));
                if j == 0 {
                    x = veorq_u64(x, a);
                }
                s.add(x, k.tab[MAX - m + j], k.swp[MAX - m + j]);
            }
            a = s.reduce();
            i += m;
        }
        vst1q_u8(acc.as_mut_ptr(), vreinterpretq_u8_u64(a));
    }
}
