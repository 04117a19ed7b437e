//! GCM with VAES and VPCLMULQDQ on 512-bit registers (AVX-512).
//!
//! Sixteen blocks per step: four zmm registers of four counter blocks each go
//! through the AES rounds while the sixteen ciphertext blocks of the step
//! before (encryption) or of this step (decryption) are multiplied by
//! H^16..H^1, summed unreduced, and reduced once. The two chains are
//! independent, so the out-of-order core overlaps the AES rounds with the
//! carry-less multiplications; only the reduction chain (one per 16 blocks)
//! is serial. Tails of 1 to 15 blocks use masked loads and stores, and a
//! masked load of the last powers of H: lanes past the end multiply a zero
//! power and drop out of the sum.
//!
//! Counter blocks are kept byte-reversed, which puts the 32-bit big-endian
//! counter of each lane in that lane's lowest dword: `vpaddd` then is inc32
//! exactly (it wraps modulo 2^32 and never carries into the IV).

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, Wide, X86HKey, POWERS};
use super::X86Aes;
use crate::backend::gcm_kernels::inc32;
use crate::backend::inout::InOut;
use crate::key::{Block, MAX_ROUNDS};

/// Blocks per main-loop step.
const STEP: usize = 16;

/// Byte mask of the first `r` (1..=4) blocks of a zmm register.
#[inline]
fn lane_mask(r: usize) -> u64 {
    if r >= 4 {
        u64::MAX
    } else {
        (1u64 << (16 * r)) - 1
    }
}

/// Round keys broadcast to all four lanes.
struct Keys {
    rk: [__m512i; MAX_ROUNDS + 1],
    nr: usize,
}

impl Keys {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(k: &X86Aes) -> Keys {
        let mut rk = [_mm512_setzero_si512(); MAX_ROUNDS + 1];
        for (d, s) in rk.iter_mut().zip(k.enc.iter()).take(k.rounds + 1) {
            *d = _mm512_broadcast_i32x4(*s);
        }
        Keys { rk, nr: k.rounds }
    }

    /// Encrypts N registers of four blocks each, rounds interleaved.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    fn encrypt<const N: usize>(&self, b: &mut [__m512i; N]) {
        for x in b.iter_mut() {
            *x = _mm512_xor_si512(*x, self.rk[0]);
        }
        for r in 1..self.nr {
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, self.rk[r]);
            }
        }
        for x in b.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, self.rk[self.nr]);
        }
    }
}

/// Sums the four 128-bit lanes of `v`.
#[inline]
#[target_feature(enable = "avx512f,avx2")]
fn fold_lanes(v: __m512i) -> __m128i {
    let a = _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    _mm_xor_si128(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1))
}

/// Unreduced products of zmm registers, lane-wise.
struct Wide512 {
    lo: __m512i,
    mid: __m512i,
    hi: __m512i,
}

impl Wide512 {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn zero() -> Self {
        Wide512 {
            lo: _mm512_setzero_si512(),
            mid: _mm512_setzero_si512(),
            hi: _mm512_setzero_si512(),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,vpclmulqdq")]
    fn mul_add(&mut self, a: __m512i, b: __m512i) {
        self.lo = _mm512_xor_si512(self.lo, _mm512_clmulepi64_epi128(a, b, 0x00));
        self.hi = _mm512_xor_si512(self.hi, _mm512_clmulepi64_epi128(a, b, 0x11));
        self.mid = _mm512_ternarylogic_epi64(
            self.mid,
            _mm512_clmulepi64_epi128(a, b, 0x01),
            _mm512_clmulepi64_epi128(a, b, 0x10),
            0x96,
        );
    }

    /// Sums the lanes and reduces: the new GHASH state.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,pclmulqdq")]
    fn reduce(&self) -> __m128i {
        Wide::from_parts(
            fold_lanes(self.lo),
            fold_lanes(self.mid),
            fold_lanes(self.hi),
        )
        .reduce()
    }
}

/// y' = GHASH of 16 byte-reversed blocks `x` (in order) starting from `y`.
#[inline]
#[target_feature(enable = "avx512f,avx2,vpclmulqdq,pclmulqdq")]
fn ghash16(pw: &[__m512i; 4], x: &[__m512i; 4], y: __m128i) -> __m128i {
    let mut w = Wide512::zero();
    let x0 = _mm512_xor_si512(x[0], _mm512_zextsi128_si512(y));
    w.mul_add(x0, pw[0]);
    w.mul_add(x[1], pw[1]);
    w.mul_add(x[2], pw[2]);
    w.mul_add(x[3], pw[3]);
    w.reduce()
}

/// Loads H^16..H^1 into four registers.
///
/// # Safety
/// AVX-512F must be available.
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn load_powers(hk: &X86HKey) -> [__m512i; 4] {
    // SAFETY: the key holds 16 powers; each load reads 4 of them.
    unsafe {
        [
            _mm512_loadu_si512(hk.ptr(0).cast()),
            _mm512_loadu_si512(hk.ptr(4).cast()),
            _mm512_loadu_si512(hk.ptr(8).cast()),
            _mm512_loadu_si512(hk.ptr(12).cast()),
        ]
    }
}

/// GHASH of `m` (1..=15) blocks at `p`: block j times H^(m-j), masked.
///
/// # Safety
/// `p` must be readable for `16 * m` bytes; AVX-512 F/BW, VPCLMULQDQ.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx2,vpclmulqdq,pclmulqdq")]
unsafe fn ghash_tail(hk: &X86HKey, y: __m128i, x: &[__m512i; 4], m: usize) -> __m128i {
    let mut w = Wide512::zero();
    let base = POWERS - m;
    let mut j = 0;
    while 4 * j < m {
        let r = (m - 4 * j).min(4);
        // SAFETY: powers base+4j .. base+4j+r lie inside the key
        // (base + m = POWERS); the masked load touches no byte beyond.
        let pw = unsafe { _mm512_maskz_loadu_epi8(lane_mask(r), hk.ptr(base + 4 * j).cast()) };
        let xj = if j == 0 {
            _mm512_xor_si512(x[0], _mm512_zextsi128_si512(y))
        } else {
            x[j]
        };
        w.mul_add(xj, pw);
        j += 1;
    }
    w.reduce()
}

/// GHASH over whole blocks (AAD), 16 per reduction.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL, VPCLMULQDQ, PCLMULQDQ, SSSE3.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vpclmulqdq,pclmulqdq,ssse3")]
pub(super) unsafe fn ghash_update(hk: &X86HKey, acc: &mut Block, data: &[u8]) {
    let n = data.len() / 16;
    let p = data.as_ptr();
    let bs = _mm512_broadcast_i32x4(bswap_mask());
    // SAFETY: loads stay inside `data` (i + 16 <= n, or masked to the last
    // m blocks) and `acc`; the key loads inside the key.
    unsafe {
        let pw = load_powers(hk);
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bswap_mask());
        let mut i = 0;
        while i + STEP <= n {
            let q = p.add(16 * i);
            let x = [
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.cast()), bs),
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.add(64).cast()), bs),
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.add(128).cast()), bs),
                _mm512_shuffle_epi8(_mm512_loadu_si512(q.add(192).cast()), bs),
            ];
            y = ghash16(&pw, &x, y);
            i += STEP;
        }
        let m = n - i;
        if m > 0 {
            let q = p.add(16 * i);
            let mut x = [_mm512_setzero_si512(); 4];
            for (j, xj) in x.iter_mut().enumerate().take(m.div_ceil(4)) {
                let r = (m - 4 * j).min(4);
                *xj = _mm512_shuffle_epi8(
                    _mm512_maskz_loadu_epi8(lane_mask(r), q.add(64 * j).cast()),
                    bs,
                );
            }
            y = ghash_tail(hk, y, &x, m);
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bswap_mask()));
    }
}

/// CTR32 encryption or decryption of whole blocks stitched with GHASH of
/// the ciphertext.
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL, VAES, VPCLMULQDQ, AES-NI,
/// PCLMULQDQ and SSSE3 (holding an `X86Aes` of level `Vaes512`).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3")]
pub(super) unsafe fn gcm_crypt<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &mut Block,
    acc: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    let keys = Keys::new(k);
    let bs = _mm512_broadcast_i32x4(bswap_mask());
    let inc1 = _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0);
    let inc4 = _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4);

    // SAFETY: every unmasked load/store below touches blocks i..i+16 with
    // i + 16 <= n, masked ones only the first m blocks from i (i + m = n),
    // so all accesses stay inside the `16 * n` bytes of both buffers. Each
    // group of blocks is loaded before the same positions are stored, so
    // in-place operation is fine.
    unsafe {
        let pw = load_powers(hk);
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bswap_mask());
        let c0 = _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bswap_mask());
        let mut c = _mm512_add_epi32(_mm512_broadcast_i32x4(c0), inc1);

        // Four registers of counter blocks from c, advancing c.
        macro_rules! counters {
            ($cnt:expr) => {{
                let mut b = [_mm512_setzero_si512(); $cnt];
                for x in b.iter_mut() {
                    *x = _mm512_shuffle_epi8(c, bs);
                    c = _mm512_add_epi32(c, inc4);
                }
                b
            }};
        }

        let mut i = 0;
        if n >= STEP {
            if ENCRYPT {
                // Encryption hashes its own output: keep one step of
                // ciphertext in flight so AES and GHASH can overlap.
                let mut prev = [_mm512_setzero_si512(); 4];
                let mut b = counters!(4);
                keys.encrypt(&mut b);
                for j in 0..4 {
                    let v = _mm512_xor_si512(b[j], _mm512_loadu_si512(src.add(64 * j).cast()));
                    _mm512_storeu_si512(dst.add(64 * j).cast(), v);
                    prev[j] = _mm512_shuffle_epi8(v, bs);
                }
                i = STEP;
                while i + STEP <= n {
                    let mut b = counters!(4);
                    keys.encrypt(&mut b);
                    y = ghash16(&pw, &prev, y);
                    let s = src.add(16 * i);
                    let d = dst.add(16 * i);
                    for j in 0..4 {
                        let v = _mm512_xor_si512(b[j], _mm512_loadu_si512(s.add(64 * j).cast()));
                        _mm512_storeu_si512(d.add(64 * j).cast(), v);
                        prev[j] = _mm512_shuffle_epi8(v, bs);
                    }
                    i += STEP;
                }
                y = ghash16(&pw, &prev, y);
            } else {
                while i + STEP <= n {
                    let s = src.add(16 * i);
                    let d = dst.add(16 * i);
                    let mut x = [_mm512_setzero_si512(); 4];
                    let mut ct = [_mm512_setzero_si512(); 4];
                    for j in 0..4 {
                        ct[j] = _mm512_loadu_si512(s.add(64 * j).cast());
                        x[j] = _mm512_shuffle_epi8(ct[j], bs);
                    }
                    let mut b = counters!(4);
                    keys.encrypt(&mut b);
                    y = ghash16(&pw, &x, y);
                    for j in 0..4 {
                        _mm512_storeu_si512(d.add(64 * j).cast(), _mm512_xor_si512(b[j], ct[j]));
                    }
                    i += STEP;
                }
            }
        }

        // Tail: 1..=15 blocks.
        let m = n - i;
        if m > 0 {
            let s = src.add(16 * i);
            let d = dst.add(16 * i);
            let regs = m.div_ceil(4);
            let mut data = [_mm512_setzero_si512(); 4];
            for (j, v) in data.iter_mut().enumerate().take(regs) {
                *v = _mm512_maskz_loadu_epi8(lane_mask(m - 4 * j), s.add(64 * j).cast());
            }
            let mut ks = [_mm512_setzero_si512(); 4];
            match regs {
                1 => {
                    let mut b = counters!(1);
                    keys.encrypt(&mut b);
                    ks[0] = b[0];
                }
                2 => {
                    let mut b = counters!(2);
                    keys.encrypt(&mut b);
                    ks[..2].copy_from_slice(&b);
                }
                3 => {
                    let mut b = counters!(3);
                    keys.encrypt(&mut b);
                    ks[..3].copy_from_slice(&b);
                }
                _ => {
                    let mut b = counters!(4);
                    keys.encrypt(&mut b);
                    ks = b;
                }
            }
            let mut x = [_mm512_setzero_si512(); 4];
            for j in 0..regs {
                let out = _mm512_xor_si512(ks[j], data[j]);
                _mm512_mask_storeu_epi8(d.add(64 * j).cast(), lane_mask(m - 4 * j), out);
                // Lanes past the end hold keystream; they meet zero powers.
                x[j] = _mm512_shuffle_epi8(if ENCRYPT { out } else { data[j] }, bs);
            }
            y = ghash_tail(hk, y, &x, m);
        }
        let _ = c;
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bswap_mask()));
    }
    inc32(ctr, n as u32);
}
