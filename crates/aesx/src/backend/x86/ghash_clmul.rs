//! GHASH with PCLMULQDQ on 128-bit lanes, and the x86 GHASH key layout.
//!
//! Layout (see `kernels/gcm.rs` for the math): a block is byte-reversed into a
//! register, so the register holds the big-endian integer of the block; the
//! powers of H are premultiplied by y; products are accumulated schoolbook
//! (four PCLMULQDQ per block: lo, hi and two middle terms) and reduced once
//! per group by two multiplications with 0xc2 << 56.
//!
//! The key keeps H^32..H^1 in that order, so that the last `n` entries are
//! exactly the multipliers of a group of `n` blocks (block `i` of the group
//! takes H^(n-i)); the 128-, 256- and 512-bit code all load from it.
//!
//! [`ghash_update`] (the `aesni` tier's AAD and GMAC) is all multiplies.
//! Port model (uops.info; Zen 3 measured with a probe):
//!
//! | core | PCLMULQDQ | PSHUFB, PSHUFD | PXOR |
//! | --- | --- | --- | --- |
//! | Zen 3, Zen 4 | FP0/FP1 (the AES pipes), one per two cycles, latency 4 | FP1, FP2 | FP0-FP3 |
//! | Golden Cove | p5, one per cycle, latency 3 | p1, p5 | p0, p1, p5 |
//!
//! Per block with one reduction per eight: schoolbook 4.25 multiplies,
//! Karatsuba 3.25 (the powers' half-sums made once per call, the block's
//! with one PSHUFD and PXOR). On Zen that is 8.5 against 6.5 cycles per
//! block, so the `zen` and `generic` schedules take Karatsuba. On Golden
//! Cove it is 4.25 cycles of port 5 against 3.25 plus about one more
//! there (the PSHUFD and a share of the XORs): a wash on paper, so
//! `intel` keeps schoolbook (not measured there). Measured on Zen 3 (3.21 GHz,
//! GMAC over 16 KiB): Karatsuba 7.69 GB/s, 0.97 of its 7.9 bound;
//! schoolbook 5.92, 0.98 of 6.0 (before 2026-11-29 a group's products ran
//! in a loop over the run-time count: 5.11).

use core::arch::x86_64::*;

use super::key::X86Aes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::wipe;
use crate::backend::kernels::BlockKernels;
use crate::backend::schedule::Schedule;
use crate::key::{Block, BLOCK_LEN};

/// Powers of H kept (blocks per reduction in the widest kernel).
pub(crate) const POWERS: usize = 32;

/// H^32·y, ..., H^1·y as little-endian 128-bit integers (the register image).
#[derive(Clone)]
#[repr(C, align(64))]
pub(crate) struct X86HKey {
    pub(crate) pow: [u128; POWERS],
}

impl Drop for X86HKey {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.pow);
    }
}

impl X86HKey {
    /// Pointer to H^(POWERS-i)·y, for vector loads of consecutive powers.
    #[inline]
    pub(crate) fn ptr(&self, i: usize) -> *const u8 {
        self.pow[i..].as_ptr().cast()
    }
}

/// Byte-reversal shuffle for one 128-bit lane.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn bswap_mask() -> __m128i {
    _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
}

/// The length block `[len(A)]_64 || [len(C)]_64` in bits, byte-reversed
/// (the C length is the low half).
#[inline(always)]
pub(crate) fn length_block(aad: usize, data: usize) -> __m128i {
    // SAFETY: SSE2 is baseline on x86_64.
    unsafe { _mm_set_epi64x((aad as u64 * 8) as i64, (data as u64 * 8) as i64) }
}

/// The `n` (<= 16) bytes at `p`, zero-padded, through a local that is
/// wiped afterwards (the bytes may be plaintext).
///
/// # Safety
/// `p` must hold `n` readable bytes.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) unsafe fn load_padded(p: *const u8, n: usize) -> __m128i {
    let mut b = [0u8; BLOCK_LEN];
    // SAFETY: the caller passes `n` (<= 16) readable bytes; `b` is a
    // distinct local of 16.
    let r = unsafe {
        core::ptr::copy_nonoverlapping(p, b.as_mut_ptr(), n);
        _mm_loadu_si128(b.as_ptr().cast())
    };
    wipe([&mut b], [0; BLOCK_LEN]);
    r
}

/// The reduction constant y^63 + y^62 + y^57 in the high half.
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn poly() -> __m128i {
    _mm_set_epi64x(0xc200_0000_0000_0000u64 as i64, 0)
}

/// Unreduced sum of 256-bit products, schoolbook parts.
#[derive(Clone, Copy)]
pub(crate) struct Wide {
    lo: __m128i,
    mid: __m128i,
    hi: __m128i,
}

impl Wide {
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn zero() -> Wide {
        Wide {
            lo: _mm_setzero_si128(),
            mid: _mm_setzero_si128(),
            hi: _mm_setzero_si128(),
        }
    }

    /// A sum whose parts were accumulated elsewhere (e.g. wider lanes).
    #[inline]
    pub(crate) fn from_parts(lo: __m128i, mid: __m128i, hi: __m128i) -> Wide {
        Wide { lo, mid, hi }
    }

    /// Adds the carry-less product `a * b`.
    #[inline]
    #[target_feature(enable = "sse2,pclmulqdq")]
    pub(crate) fn mul_add(&mut self, a: __m128i, b: __m128i) {
        self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128(a, b, 0x00));
        self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128(a, b, 0x11));
        self.mid = _mm_xor_si128(
            self.mid,
            _mm_xor_si128(
                _mm_clmulepi64_si128(a, b, 0x01),
                _mm_clmulepi64_si128(a, b, 0x10),
            ),
        );
    }

    /// Montgomery reduction by y^128 modulo g'(y): with Z = (z3 z2 z1 z0),
    /// adding z0·g' clears z0, adding z1'·g'·y^64 clears the next word, and
    /// the high half is the result; z·g' = z + y^64·(z·c) + y^128·z with
    /// c = y^63 + y^62 + y^57, hence two PCLMULQDQ and two swaps.
    #[inline]
    #[target_feature(enable = "sse2,pclmulqdq")]
    pub(crate) fn reduce(self) -> __m128i {
        let lo = _mm_xor_si128(self.lo, _mm_slli_si128(self.mid, 8));
        let hi = _mm_xor_si128(self.hi, _mm_srli_si128(self.mid, 8));
        let p = poly();
        let t = _mm_clmulepi64_si128(lo, p, 0x10);
        let x = _mm_xor_si128(_mm_shuffle_epi32(lo, 0x4e), t);
        let t2 = _mm_clmulepi64_si128(x, p, 0x10);
        _mm_xor_si128(_mm_xor_si128(hi, _mm_shuffle_epi32(x, 0x4e)), t2)
    }
}

/// Unreduced sum of 256-bit products, Karatsuba parts: three PCLMULQDQ per
/// block instead of four (`mid` collects `(a_hi ^ a_lo)(b_hi ^ b_lo)`; the
/// true middle term is `mid ^ lo ^ hi`, fixed once per reduction). The
/// multiplier's half-sum is precomputed (see [`half_sum`]). On Zen,
/// PCLMULQDQ shares its pipes with AESENC, so in stitched GCM every product
/// saved is an AES round gained.
#[derive(Clone, Copy)]
pub(crate) struct WideK {
    lo: __m128i,
    mid: __m128i,
    hi: __m128i,
}

impl WideK {
    #[inline]
    #[target_feature(enable = "sse2")]
    pub(crate) fn zero() -> WideK {
        WideK {
            lo: _mm_setzero_si128(),
            mid: _mm_setzero_si128(),
            hi: _mm_setzero_si128(),
        }
    }

    /// The three accumulators, for a scheduling barrier that ties them to
    /// a point of the instruction stream.
    #[inline(always)]
    pub(crate) fn parts_mut(&mut self) -> (&mut __m128i, &mut __m128i, &mut __m128i) {
        (&mut self.lo, &mut self.mid, &mut self.hi)
    }

    /// Adds `a * b`, where `bk` holds `b_hi ^ b_lo` in its low half.
    #[inline]
    #[target_feature(enable = "sse2,pclmulqdq")]
    pub(crate) fn mul_add(&mut self, a: __m128i, b: __m128i, bk: __m128i) {
        self.lo = _mm_xor_si128(self.lo, _mm_clmulepi64_si128(a, b, 0x00));
        self.hi = _mm_xor_si128(self.hi, _mm_clmulepi64_si128(a, b, 0x11));
        let ak = _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
        self.mid = _mm_xor_si128(self.mid, _mm_clmulepi64_si128(ak, bk, 0x00));
    }

    /// Reduces as [`Wide::reduce`] after recovering the middle term.
    #[inline]
    #[target_feature(enable = "sse2,pclmulqdq")]
    pub(crate) fn reduce(self) -> __m128i {
        let mid = _mm_xor_si128(self.mid, _mm_xor_si128(self.lo, self.hi));
        Wide::from_parts(self.lo, mid, self.hi).reduce()
    }
}

/// `b_hi ^ b_lo` in the low half: the Karatsuba multiplier of [`WideK`].
#[inline]
#[target_feature(enable = "sse2")]
pub(crate) fn half_sum(b: __m128i) -> __m128i {
    _mm_xor_si128(b, _mm_shuffle_epi32(b, 0x4e))
}

/// Field product in the premultiplied layout.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
fn mul(a: __m128i, b: __m128i) -> __m128i {
    let mut w = Wide::zero();
    w.mul_add(a, b);
    w.reduce()
}

/// Computes H = E_K(0) and its powers.
///
/// # Safety
/// The CPU must support AES-NI, SSE4.1 and PCLMULQDQ (holding an `X86Aes`).
#[target_feature(enable = "aes,sse4.1,pclmulqdq")]
pub(super) unsafe fn hkey(k: &X86Aes) -> X86HKey {
    let mut h = [0u8; BLOCK_LEN];
    k.encrypt_blocks(InOut::in_place(&mut h));
    let hv = u128::from_be_bytes(h);
    zeroize::Zeroize::zeroize(&mut h);
    // H·y, reducing a carry out of y^127 with a mask (H is secret).
    const G: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;
    let k1 = (hv << 1) ^ (G & 0u128.wrapping_sub(hv >> 127));
    let mut key = X86HKey { pow: [0; POWERS] };
    key.pow[POWERS - 1] = k1;
    // SAFETY: u128 and __m128i have the same size; unaligned loads/stores
    // of 16 bytes inside `key.pow`.
    unsafe {
        let k1v = _mm_loadu_si128((&k1 as *const u128).cast());
        let mut p = k1v;
        for i in (0..POWERS - 1).rev() {
            p = mul(p, k1v);
            _mm_storeu_si128(key.pow[i..].as_mut_ptr().cast(), p);
        }
    }
    key
}

/// GHASH over whole blocks, eight per reduction: the AES-NI tier's hash
/// of the AAD (and all of GMAC).
///
/// Whole groups of eight have a loop of their own, so that the group
/// unrolls (a loop over a run-time count per group stayed rolled). Where
/// PCLMULQDQ shares the AES pipes (Zen, and the generic schedule; see the
/// note at the top) the groups multiply with Karatsuba, three products a
/// block against four; Intel keeps the schoolbook products (on its own
/// port the fourth multiply costs about what Karatsuba's shuffle and XORs
/// would).
///
/// # Safety
/// The CPU must support SSSE3 and PCLMULQDQ.
#[target_feature(enable = "sse2,ssse3,pclmulqdq")]
pub(super) unsafe fn ghash_update(hk: &X86HKey, acc: &mut Block, data: &[u8]) {
    let bs = bswap_mask();
    let n = data.len() / BLOCK_LEN;
    let p = data.as_ptr();
    // SAFETY: every load below reads block j < n of `data`, or 16 bytes of
    // `acc` or of the key; unaligned loads are fine.
    unsafe {
        // Block `j` (< n), byte-reversed.
        let block = |j: usize| _mm_shuffle_epi8(_mm_loadu_si128(p.add(16 * j).cast()), bs);
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs);
        let mut i = 0;
        if n >= GROUP && !Schedule::current().clmul_beside_aes() {
            let pw: [__m128i; GROUP] =
                core::array::from_fn(|j| _mm_loadu_si128(hk.ptr(POWERS - GROUP + j).cast()));
            let pk = pw.map(|h| half_sum(h));
            while n - i >= GROUP {
                let x: [__m128i; GROUP] = core::array::from_fn(|j| block(i + j));
                y = ghash8(&x, &pw, &pk, y);
                i += GROUP;
            }
        }
        while n - i >= GROUP {
            y = ghash_group(hk, &block, i, GROUP, y);
            i += GROUP;
        }
        if i < n {
            y = ghash_group(hk, &block, i, n - i, y);
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bs));
    }
}

/// Blocks per reduction in [`ghash_update`].
const GROUP: usize = 8;

/// GHASH of eight byte-reversed blocks times H^8..H^1 (`pw`, their
/// Karatsuba half-sums in `pk`), with the state `y` added to the first;
/// one reduction.
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
pub(crate) fn ghash8(
    x: &[__m128i; GROUP],
    pw: &[__m128i; GROUP],
    pk: &[__m128i; GROUP],
    y: __m128i,
) -> __m128i {
    let mut w = WideK::zero();
    w.mul_add(_mm_xor_si128(x[0], y), pw[0], pk[0]);
    for j in 1..GROUP {
        w.mul_add(x[j], pw[j], pk[j]);
    }
    w.reduce()
}

/// One group of `m` (1..=8) blocks from block `i` of `block`, schoolbook,
/// added to the state `y` and reduced.
///
/// # Safety
/// `block(i + j)` must be a valid call for every `j < m` (it reads the
/// caller's data unchecked).
#[inline]
#[target_feature(enable = "sse2,pclmulqdq")]
unsafe fn ghash_group(
    hk: &X86HKey,
    block: &impl Fn(usize) -> __m128i,
    i: usize,
    m: usize,
    y: __m128i,
) -> __m128i {
    let mut w = Wide::zero();
    for j in 0..m {
        let x = if j == 0 {
            _mm_xor_si128(block(i), y)
        } else {
            block(i + j)
        };
        // SAFETY: whole powers inside the key.
        w.mul_add(x, unsafe { _mm_loadu_si128(hk.ptr(POWERS - m + j).cast()) });
    }
    w.reduce()
}
