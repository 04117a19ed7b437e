//! GCM with VAES and VPCLMULQDQ on 256-bit registers (AVX2).
//!
//! Sixteen blocks per step in eight ymm registers of two blocks each: the
//! counter blocks go through the AES rounds while the sixteen ciphertext
//! blocks are multiplied by H^16..H^1 (two powers per register) and reduced
//! once. The last register of an odd tail is loaded, stored and given its
//! power with AVX2 masked moves, so nothing past the buffers is touched; its
//! empty lane meets a zero power and drops out of the sum. Counter blocks are
//! byte-reversed so that `vpaddd` on each lane's low dword is inc32.
//!
//! Where the cycles go (Zen 5, AES and carry-less multiply share two pipes,
//! two ymm AES ops per cycle): per two blocks AES-128 takes 10 VAESENC and
//! this schoolbook GHASH 4 + 2/8 VPCLMULQDQ, about 7.1 core cycles per 32
//! bytes at the port bound. Measured (2026-11-23, shared machine) 8-9.7 GB/s
//! at 16 KiB, level with ring's VAES-AVX2 code (0.98-1.10x) and 0.8-0.9x at
//! 1500 B, where the unstitched first step, the final GHASH and the
//! run-time round loop of the tail weigh more. A Karatsuba, round-generic
//! version of this file (as gcm_aesni) measured no better here and was not
//! kept; the 1500 B gap is open.

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, Wide, X86HKey, POWERS};
use super::X86Aes;
use crate::backend::gcm_kernels::inc32;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::{Block, MAX_ROUNDS};

/// Blocks per step, and registers holding them.
const STEP: usize = 16;
const REGS: usize = STEP / 2;

/// Qword mask for a register holding `r` (1 or 2) blocks.
#[inline]
#[target_feature(enable = "avx2")]
fn qmask(r: usize) -> __m256i {
    if r >= 2 {
        _mm256_set1_epi64x(-1)
    } else {
        _mm256_set_epi64x(0, 0, -1, -1)
    }
}

struct Keys {
    rk: [__m256i; MAX_ROUNDS + 1],
    nr: usize,
}

impl Keys {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(k: &X86Aes) -> Keys {
        let mut rk = [_mm256_setzero_si256(); MAX_ROUNDS + 1];
        for (d, s) in rk.iter_mut().zip(k.enc.iter()).take(k.rounds + 1) {
            *d = _mm256_broadcastsi128_si256(*s);
        }
        Keys { rk, nr: k.rounds }
    }

    /// Encrypts the first `m` registers.
    #[inline]
    #[target_feature(enable = "avx2,vaes")]
    fn encrypt(&self, b: &mut [__m256i; REGS], m: usize) {
        for x in b.iter_mut().take(m) {
            *x = _mm256_xor_si256(*x, self.rk[0]);
        }
        for r in 1..self.nr {
            for x in b.iter_mut().take(m) {
                *x = _mm256_aesenc_epi128(*x, self.rk[r]);
            }
        }
        for x in b.iter_mut().take(m) {
            *x = _mm256_aesenclast_epi128(*x, self.rk[self.nr]);
        }
    }

    /// Encrypts all registers (bounds known: fully interleaved).
    #[inline]
    #[target_feature(enable = "avx2,vaes")]
    fn encrypt_all(&self, b: &mut [__m256i; REGS]) {
        for x in b.iter_mut() {
            *x = _mm256_xor_si256(*x, self.rk[0]);
        }
        for r in 1..self.nr {
            let rk = self.rk[r];
            for x in b.iter_mut() {
                *x = _mm256_aesenc_epi128(*x, rk);
            }
        }
        for x in b.iter_mut() {
            *x = _mm256_aesenclast_epi128(*x, self.rk[self.nr]);
        }
    }
}

impl Keys {
    /// AES on all registers with the GHASH of eight registers of
    /// byte-reversed ciphertext `x` (times `pw`, H^16..H^1) woven between
    /// the rounds, one product per round; returns the new GHASH state.
    // `r` is the round number; it also picks the product woven after it.
    #[allow(clippy::needless_range_loop)]
    #[inline]
    #[target_feature(enable = "avx2,vaes,vpclmulqdq,pclmulqdq")]
    fn encrypt_ghash(
        &self,
        b: &mut [__m256i; REGS],
        x: &[__m256i; REGS],
        pw: &[__m256i; REGS],
        y: __m128i,
    ) -> __m128i {
        let mut w = Wide256::zero();
        for v in b.iter_mut() {
            *v = _mm256_xor_si256(*v, self.rk[0]);
        }
        w.mul_add(_mm256_xor_si256(x[0], _mm256_zextsi128_si256(y)), pw[0]);
        for r in 1..self.nr {
            let k = self.rk[r];
            for v in b.iter_mut() {
                *v = _mm256_aesenc_epi128(*v, k);
            }
            if r < REGS {
                w.mul_add(x[r], pw[r]);
            }
        }
        let k = self.rk[self.nr];
        for v in b.iter_mut() {
            *v = _mm256_aesenclast_epi128(*v, k);
        }
        w.reduce()
    }
}

/// GHASH of eight registers of byte-reversed blocks times H^16..H^1.
#[inline]
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq")]
fn ghash_full(x: &[__m256i; REGS], pw: &[__m256i; REGS], y: __m128i) -> __m128i {
    let mut w = Wide256::zero();
    w.mul_add(_mm256_xor_si256(x[0], _mm256_zextsi128_si256(y)), pw[0]);
    for j in 1..REGS {
        w.mul_add(x[j], pw[j]);
    }
    w.reduce()
}

/// Unreduced lane-wise products.
struct Wide256 {
    lo: __m256i,
    mid: __m256i,
    hi: __m256i,
}

impl Wide256 {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn zero() -> Self {
        Wide256 {
            lo: _mm256_setzero_si256(),
            mid: _mm256_setzero_si256(),
            hi: _mm256_setzero_si256(),
        }
    }

    #[inline]
    #[target_feature(enable = "avx2,vpclmulqdq")]
    fn mul_add(&mut self, a: __m256i, b: __m256i) {
        self.lo = _mm256_xor_si256(self.lo, _mm256_clmulepi64_epi128(a, b, 0x00));
        self.hi = _mm256_xor_si256(self.hi, _mm256_clmulepi64_epi128(a, b, 0x11));
        self.mid = _mm256_xor_si256(
            self.mid,
            _mm256_xor_si256(
                _mm256_clmulepi64_epi128(a, b, 0x01),
                _mm256_clmulepi64_epi128(a, b, 0x10),
            ),
        );
    }

    #[inline]
    #[target_feature(enable = "avx2,pclmulqdq")]
    fn reduce(&self) -> __m128i {
        let f =
            |v: __m256i| _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
        Wide::from_parts(f(self.lo), f(self.mid), f(self.hi)).reduce()
    }
}

/// GHASH over whole blocks (AAD), 16 per reduction.
///
/// # Safety
/// The CPU must support AVX2, VPCLMULQDQ, PCLMULQDQ and SSSE3.
#[target_feature(enable = "avx2,vpclmulqdq,pclmulqdq,ssse3")]
pub(super) unsafe fn ghash_update(hk: &X86HKey, acc: &mut Block, data: &[u8]) {
    let n = data.len() / 16;
    let p = data.as_ptr();
    let bs = _mm256_broadcastsi128_si256(bswap_mask());
    // SAFETY: block loads are masked to blocks < n; power loads to powers
    // inside the key.
    unsafe {
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bswap_mask());
        let mut i = 0;
        while i < n {
            let m = (n - i).min(STEP);
            let base = POWERS - m;
            let mut w = Wide256::zero();
            for j in 0..m.div_ceil(2) {
                let mask = qmask(m - 2 * j);
                let mut x = _mm256_shuffle_epi8(
                    _mm256_maskload_epi64(p.add(16 * (i + 2 * j)).cast(), mask),
                    bs,
                );
                if j == 0 {
                    x = _mm256_xor_si256(x, _mm256_zextsi128_si256(y));
                }
                let pw = _mm256_maskload_epi64(hk.ptr(base + 2 * j).cast(), mask);
                w.mul_add(x, pw);
            }
            y = w.reduce();
            i += m;
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bswap_mask()));
    }
}

/// CTR32 encryption or decryption of whole blocks stitched with GHASH of
/// the ciphertext.
///
/// # Safety
/// The CPU must support AVX2, VAES, VPCLMULQDQ, AES-NI, PCLMULQDQ and SSSE3
/// (holding an `X86Aes` of level `Vaes256` or above).
#[target_feature(enable = "avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3")]
pub(super) unsafe fn gcm_crypt<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &mut Block,
    acc: &mut Block,
    mut io: InOut<'_>,
) {
    trace::hit(if ENCRYPT {
        Kernel::Vaes256GcmEnc
    } else {
        Kernel::Vaes256GcmDec
    });
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    let keys = Keys::new(k);
    let bs = _mm256_broadcastsi128_si256(bswap_mask());
    let inc2 = _mm256_set_epi32(0, 0, 0, 2, 0, 0, 0, 2);
    // SAFETY: every access covers blocks i + 2j (and i + 2j + 1 unless
    // masked off) with i + m <= n, inside both buffers of 16 * n bytes; each
    // register of input is loaded before the same positions are stored.
    unsafe {
        let mut y = _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bswap_mask());
        let c0 = _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bswap_mask());
        let mut c = _mm256_add_epi32(
            _mm256_broadcastsi128_si256(c0),
            _mm256_set_epi32(0, 0, 0, 1, 0, 0, 0, 0),
        );
        let mut i = 0;
        // Full steps: GHASH woven into the AES rounds; encryption hashes the
        // previous step's ciphertext (one step in flight).
        let mut pw = [_mm256_setzero_si256(); REGS];
        for (j, p) in pw.iter_mut().enumerate() {
            *p = _mm256_loadu_si256(hk.ptr(POWERS - STEP + 2 * j).cast());
        }
        let counters = |c: &mut __m256i| {
            let mut b = [_mm256_setzero_si256(); REGS];
            for x in b.iter_mut() {
                *x = _mm256_shuffle_epi8(*c, bs);
                *c = _mm256_add_epi32(*c, inc2);
            }
            b
        };
        if ENCRYPT && n >= STEP {
            let mut prev = [_mm256_setzero_si256(); REGS];
            let mut b = counters(&mut c);
            keys.encrypt_all(&mut b);
            for j in 0..REGS {
                let v = _mm256_xor_si256(b[j], _mm256_loadu_si256(src.add(32 * j).cast()));
                _mm256_storeu_si256(dst.add(32 * j).cast(), v);
                prev[j] = _mm256_shuffle_epi8(v, bs);
            }
            i = STEP;
            while i + STEP <= n {
                let mut b = counters(&mut c);
                y = keys.encrypt_ghash(&mut b, &prev, &pw, y);
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                for j in 0..REGS {
                    let v = _mm256_xor_si256(b[j], _mm256_loadu_si256(s.add(32 * j).cast()));
                    _mm256_storeu_si256(d.add(32 * j).cast(), v);
                    prev[j] = _mm256_shuffle_epi8(v, bs);
                }
                i += STEP;
            }
            y = ghash_full(&prev, &pw, y);
        } else if !ENCRYPT {
            while i + STEP <= n {
                let (s, d) = (src.add(16 * i), dst.add(16 * i));
                let mut ct = [_mm256_setzero_si256(); REGS];
                let mut x = [_mm256_setzero_si256(); REGS];
                for j in 0..REGS {
                    ct[j] = _mm256_loadu_si256(s.add(32 * j).cast());
                    x[j] = _mm256_shuffle_epi8(ct[j], bs);
                }
                let mut b = counters(&mut c);
                y = keys.encrypt_ghash(&mut b, &x, &pw, y);
                for j in 0..REGS {
                    _mm256_storeu_si256(d.add(32 * j).cast(), _mm256_xor_si256(b[j], ct[j]));
                }
                i += STEP;
            }
        }
        while i < n {
            let m = (n - i).min(STEP);
            let regs = m.div_ceil(2);
            let base = POWERS - m;
            let s = src.add(16 * i);
            let d = dst.add(16 * i);
            let mut b = [_mm256_setzero_si256(); REGS];
            for x in b.iter_mut().take(regs) {
                *x = _mm256_shuffle_epi8(c, bs);
                c = _mm256_add_epi32(c, inc2);
            }
            let mut data = [_mm256_setzero_si256(); REGS];
            if m == STEP {
                for (j, v) in data.iter_mut().enumerate() {
                    *v = _mm256_loadu_si256(s.add(32 * j).cast());
                }
                keys.encrypt_all(&mut b);
            } else {
                for (j, v) in data.iter_mut().enumerate().take(regs) {
                    *v = _mm256_maskload_epi64(s.add(32 * j).cast(), qmask(m - 2 * j));
                }
                keys.encrypt(&mut b, regs);
            }
            let mut w = Wide256::zero();
            for j in 0..regs {
                let out = _mm256_xor_si256(b[j], data[j]);
                let r = m - 2 * j;
                if r >= 2 {
                    _mm256_storeu_si256(d.add(32 * j).cast(), out);
                } else {
                    _mm256_maskstore_epi64(d.add(32 * j).cast(), qmask(r), out);
                }
                let mut x = _mm256_shuffle_epi8(if ENCRYPT { out } else { data[j] }, bs);
                if j == 0 {
                    x = _mm256_xor_si256(x, _mm256_zextsi128_si256(y));
                }
                let pw = if r >= 2 {
                    _mm256_loadu_si256(hk.ptr(base + 2 * j).cast())
                } else {
                    _mm256_maskload_epi64(hk.ptr(base + 2 * j).cast(), qmask(r))
                };
                w.mul_add(x, pw);
            }
            y = w.reduce();
            i += m;
        }
        _mm_storeu_si128(acc.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bswap_mask()));
    }
    inc32(ctr, n as u32);
}
