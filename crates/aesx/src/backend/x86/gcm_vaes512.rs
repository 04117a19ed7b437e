//! GCM with VAES and VPCLMULQDQ on 512-bit registers (AVX-512).
//!
//! Main loop: 32 blocks per step. Eight zmm registers of four counter blocks
//! each go through the AES rounds (eight independent chains keep the AES
//! units busy despite their latency) while the 32 ciphertext blocks of the
//! step before (encryption) or of this step (decryption) are multiplied by
//! H^32..H^1, summed unreduced, and reduced once. The AES chains and the
//! multiplications are independent, so the out-of-order core overlaps them;
//! only the reduction (one per 32 blocks) is serial. A 16-block step and a
//! masked tail finish the message.
//!
//! Tails use byte-masked loads and stores, so the one-shot path
//! ([`gcm_oneshot`]) handles partial blocks of AAD and data in registers: a
//! masked load zero-pads exactly as GHASH pads, lanes past the end multiply
//! a zero power of H and drop out of the sum, and nothing outside the
//! buffers is read or written.
//!
//! Counter blocks are kept byte-reversed, which puts the 32-bit big-endian
//! counter of each lane in that lane's lowest dword: `vpaddd` then is inc32
//! exactly (it wraps modulo 2^32 and never carries into the IV).
//!
//! Where the cycles go (Zen 5): AES-128 on zmm is 10 VAESENC per four blocks
//! and GHASH 4 VPCLMULQDQ per four blocks plus the reduction, on the same two
//! pipes: about 0.073 TSC cycles/byte at the port bound; measured about
//! 0.12. The gap is the schoolbook products (a Karatsuba form needs one
//! fewer multiply per register) and the serial reduction per 32 blocks; this
//! revision does not close it.

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, Wide, X86HKey, POWERS};
use super::X86Aes;
use crate::backend::gcm_kernels::inc32;
use crate::backend::inout::InOut;
use crate::backend::trace::{self, Kernel};
use crate::key::{Block, MAX_ROUNDS};

/// Registers (of four blocks) per main-loop step.
const WIDE: usize = 8;

/// Byte mask of the first `bytes` bytes of a zmm register.
#[inline]
fn byte_mask(bytes: usize) -> u64 {
    if bytes >= 64 {
        u64::MAX
    } else {
        (1u64 << bytes) - 1
    }
}

/// Everything one pass keeps in registers: round keys, powers of H, the
/// counter and the GHASH state.
struct Pass {
    rk: [__m512i; MAX_ROUNDS + 1],
    nr: usize,
    /// `pw[j]` = H^(32-4j)..H^(29-4j).
    pw: [__m512i; WIDE],
    bs: __m512i,
    inc4: __m512i,
    /// Byte-reversed counters of the next four blocks.
    c: __m512i,
    /// GHASH state, byte-reversed.
    y: __m128i,
}

impl Pass {
    /// # Safety
    /// AVX-512F must be available.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,ssse3")]
    unsafe fn new(k: &X86Aes, hk: &X86HKey, ctr: &Block, acc: &Block) -> Pass {
        let mut rk = [_mm512_setzero_si512(); MAX_ROUNDS + 1];
        for (d, s) in rk.iter_mut().zip(k.enc.iter()).take(k.rounds + 1) {
            *d = _mm512_broadcast_i32x4(*s);
        }
        let mut pw = [_mm512_setzero_si512(); WIDE];
        for (j, p) in pw.iter_mut().enumerate() {
            // SAFETY: the key holds POWERS = 32 powers; this reads 4 of them.
            *p = unsafe { _mm512_loadu_si512(hk.ptr(4 * j).cast()) };
        }
        let bs128 = bswap_mask();
        // SAFETY: `ctr` and `acc` are 16 readable bytes each.
        let (c0, y) = unsafe {
            (
                _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bs128),
                _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs128),
            )
        };
        let inc1 = _mm512_set_epi32(0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0);
        Pass {
            rk,
            nr: k.rounds,
            pw,
            bs: _mm512_broadcast_i32x4(bs128),
            inc4: _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4),
            c: _mm512_add_epi32(_mm512_broadcast_i32x4(c0), inc1),
            y,
        }
    }

    /// The next `R` registers of counter blocks.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn counters<const R: usize>(&mut self) -> [__m512i; R] {
        let mut b = [_mm512_setzero_si512(); R];
        for x in b.iter_mut() {
            *x = _mm512_shuffle_epi8(self.c, self.bs);
            self.c = _mm512_add_epi32(self.c, self.inc4);
        }
        b
    }

    /// Encrypts `R` registers of blocks, rounds interleaved across them.
    #[inline]
    #[target_feature(enable = "avx512f,vaes")]
    fn encrypt<const R: usize>(&self, b: &mut [__m512i; R]) {
        for x in b.iter_mut() {
            *x = _mm512_xor_si512(*x, self.rk[0]);
        }
        for r in 1..self.nr {
            let k = self.rk[r];
            for x in b.iter_mut() {
                *x = _mm512_aesenc_epi128(*x, k);
            }
        }
        let k = self.rk[self.nr];
        for x in b.iter_mut() {
            *x = _mm512_aesenclast_epi128(*x, k);
        }
    }

    /// AES on eight registers with the GHASH of eight other registers
    /// (`x`, byte-reversed ciphertext) woven between the rounds: one
    /// multiplication after each of the first rounds, so that the carry-less
    /// multiplier and the AES units work side by side in the instruction
    /// stream rather than relying on the out-of-order window alone.
    // `r` is the round number; it also picks the product woven after it.
    #[allow(clippy::needless_range_loop)]
    #[inline]
    #[target_feature(enable = "avx512f,avx2,vaes,vpclmulqdq,pclmulqdq")]
    fn encrypt_ghash(&mut self, b: &mut [__m512i; WIDE], x: &[__m512i; WIDE]) {
        let mut w = Wide512::zero();
        for v in b.iter_mut() {
            *v = _mm512_xor_si512(*v, self.rk[0]);
        }
        w.mul_add(
            _mm512_xor_si512(x[0], _mm512_zextsi128_si512(self.y)),
            self.pw[0],
        );
        // AES-128 has 9 middle rounds, enough for the other 7 products.
        for r in 1..self.nr {
            let k = self.rk[r];
            for v in b.iter_mut() {
                *v = _mm512_aesenc_epi128(*v, k);
            }
            if r < WIDE {
                w.mul_add(x[r], self.pw[r]);
            }
        }
        let k = self.rk[self.nr];
        for v in b.iter_mut() {
            *v = _mm512_aesenclast_epi128(*v, k);
        }
        self.y = w.reduce();
    }

    /// Hashes `R` registers of byte-reversed blocks (the last 4R blocks of a
    /// group ending at H^1) into `y`, one reduction.
    #[inline]
    #[target_feature(enable = "avx512f,avx2,vpclmulqdq,pclmulqdq")]
    fn ghash<const R: usize>(&mut self, x: &[__m512i; R]) {
        let mut w = Wide512::zero();
        for (j, &xj) in x.iter().enumerate() {
            let v = if j == 0 {
                _mm512_xor_si512(xj, _mm512_zextsi128_si512(self.y))
            } else {
                xj
            };
            w.mul_add(v, self.pw[WIDE - R + j]);
        }
        self.y = w.reduce();
    }

    /// Hashes `m` (1..=16) byte-reversed blocks in `x` (zero or garbage past
    /// them): block j times H^(m-j), powers loaded masked so that the lanes
    /// past the end contribute nothing.
    ///
    /// # Safety
    /// AVX-512 F/BW and VPCLMULQDQ must be available.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,vpclmulqdq,pclmulqdq")]
    unsafe fn ghash_partial(&mut self, hk: &X86HKey, x: &[__m512i; 4], m: usize) {
        let mut w = Wide512::zero();
        let base = POWERS - m;
        for (j, &xj) in x.iter().enumerate().take(m.div_ceil(4)) {
            let blocks = (m - 4 * j).min(4);
            // SAFETY: powers base+4j .. base+4j+blocks lie inside the key
            // (base + m = POWERS); the masked load reads no byte beyond.
            let pw = unsafe {
                _mm512_maskz_loadu_epi8(byte_mask(16 * blocks), hk.ptr(base + 4 * j).cast())
            };
            let v = if j == 0 {
                _mm512_xor_si512(xj, _mm512_zextsi128_si512(self.y))
            } else {
                xj
            };
            w.mul_add(v, pw);
        }
        self.y = w.reduce();
    }

    /// GHASH of `len` bytes at `p`, the last partial block zero-padded.
    ///
    /// # Safety
    /// `p` must be readable for `len` bytes.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx2,vpclmulqdq,pclmulqdq")]
    unsafe fn ghash_bytes(&mut self, hk: &X86HKey, p: *const u8, len: usize) {
        let mut i = 0;
        // SAFETY: full loads cover bytes i..i+64*k <= len; masked loads read
        // only bytes below len.
        unsafe {
            while i + 64 * WIDE <= len {
                let mut x = [_mm512_setzero_si512(); WIDE];
                for (j, v) in x.iter_mut().enumerate() {
                    *v = _mm512_shuffle_epi8(_mm512_loadu_si512(p.add(i + 64 * j).cast()), self.bs);
                }
                self.ghash::<WIDE>(&x);
                i += 64 * WIDE;
            }
            while i < len {
                let t = (len - i).min(256);
                let mut x = [_mm512_setzero_si512(); 4];
                for (j, v) in x.iter_mut().enumerate().take(t.div_ceil(64)) {
                    let b =
                        _mm512_maskz_loadu_epi8(byte_mask(t - 64 * j), p.add(i + 64 * j).cast());
                    *v = _mm512_shuffle_epi8(b, self.bs);
                }
                self.ghash_partial(hk, &x, t.div_ceil(16));
                i += t;
            }
        }
    }

    /// Encrypts or decrypts `len` bytes from `src` to `dst`, hashing the
    /// ciphertext; a partial last block is zero-padded for GHASH.
    ///
    /// # Safety
    /// `src` readable and `dst` writable for `len` bytes, either equal or
    /// not overlapping.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vaes,vpclmulqdq,pclmulqdq")]
    unsafe fn crypt<const ENCRYPT: bool>(
        &mut self,
        hk: &X86HKey,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        const STEP: usize = 64 * WIDE;
        let mut i = 0;
        // SAFETY: unmasked accesses cover bytes i..i+STEP (or +256) below
        // len; masked ones only bytes below len. Each register of input is
        // loaded before the same bytes are stored (in-place safe).
        unsafe {
            if len >= STEP {
                if ENCRYPT {
                    // Encryption hashes its own output: keep one step of
                    // ciphertext in flight so AES and GHASH overlap.
                    let mut prev = [_mm512_setzero_si512(); WIDE];
                    let mut b = self.counters::<WIDE>();
                    self.encrypt(&mut b);
                    for j in 0..WIDE {
                        let v = _mm512_xor_si512(b[j], _mm512_loadu_si512(src.add(64 * j).cast()));
                        _mm512_storeu_si512(dst.add(64 * j).cast(), v);
                        prev[j] = _mm512_shuffle_epi8(v, self.bs);
                    }
                    i = STEP;
                    while i + STEP <= len {
                        let mut b = self.counters::<WIDE>();
                        self.encrypt_ghash(&mut b, &prev);
                        for j in 0..WIDE {
                            let v = _mm512_xor_si512(
                                b[j],
                                _mm512_loadu_si512(src.add(i + 64 * j).cast()),
                            );
                            _mm512_storeu_si512(dst.add(i + 64 * j).cast(), v);
                            prev[j] = _mm512_shuffle_epi8(v, self.bs);
                        }
                        i += STEP;
                    }
                    self.ghash::<WIDE>(&prev);
                } else {
                    while i + STEP <= len {
                        let mut ct = [_mm512_setzero_si512(); WIDE];
                        let mut x = [_mm512_setzero_si512(); WIDE];
                        for j in 0..WIDE {
                            ct[j] = _mm512_loadu_si512(src.add(i + 64 * j).cast());
                            x[j] = _mm512_shuffle_epi8(ct[j], self.bs);
                        }
                        let mut b = self.counters::<WIDE>();
                        self.encrypt_ghash(&mut b, &x);
                        for j in 0..WIDE {
                            _mm512_storeu_si512(
                                dst.add(i + 64 * j).cast(),
                                _mm512_xor_si512(b[j], ct[j]),
                            );
                        }
                        i += STEP;
                    }
                }
            }
            if len - i >= 256 {
                let mut data = [_mm512_setzero_si512(); 4];
                for (j, v) in data.iter_mut().enumerate() {
                    *v = _mm512_loadu_si512(src.add(i + 64 * j).cast());
                }
                let mut b = self.counters::<4>();
                self.encrypt(&mut b);
                let mut x = [_mm512_setzero_si512(); 4];
                for j in 0..4 {
                    let out = _mm512_xor_si512(b[j], data[j]);
                    _mm512_storeu_si512(dst.add(i + 64 * j).cast(), out);
                    x[j] = _mm512_shuffle_epi8(if ENCRYPT { out } else { data[j] }, self.bs);
                }
                // The last 16 powers: the tail of the pw table.
                let mut w = Wide512::zero();
                for j in 0..4 {
                    let v = if j == 0 {
                        _mm512_xor_si512(x[0], _mm512_zextsi128_si512(self.y))
                    } else {
                        x[j]
                    };
                    w.mul_add(v, self.pw[WIDE - 4 + j]);
                }
                self.y = w.reduce();
                i += 256;
            }
            let t = len - i;
            if t > 0 {
                let regs = t.div_ceil(64);
                let mut data = [_mm512_setzero_si512(); 4];
                for (j, v) in data.iter_mut().enumerate().take(regs) {
                    *v = _mm512_maskz_loadu_epi8(byte_mask(t - 64 * j), src.add(i + 64 * j).cast());
                }
                let mut ks = [_mm512_setzero_si512(); 4];
                match regs {
                    1 => {
                        let mut b = self.counters::<1>();
                        self.encrypt(&mut b);
                        ks[0] = b[0];
                    }
                    2 => {
                        let mut b = self.counters::<2>();
                        self.encrypt(&mut b);
                        ks[..2].copy_from_slice(&b);
                    }
                    3 => {
                        let mut b = self.counters::<3>();
                        self.encrypt(&mut b);
                        ks[..3].copy_from_slice(&b);
                    }
                    _ => {
                        let mut b = self.counters::<4>();
                        self.encrypt(&mut b);
                        ks = b;
                    }
                }
                let mut x = [_mm512_setzero_si512(); 4];
                for j in 0..regs {
                    let mask = byte_mask(t - 64 * j);
                    // Zero the keystream past the end: GHASH pads with zeros.
                    let out = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(ks[j], data[j]));
                    _mm512_mask_storeu_epi8(dst.add(i + 64 * j).cast(), mask, out);
                    x[j] = _mm512_shuffle_epi8(if ENCRYPT { out } else { data[j] }, self.bs);
                }
                self.ghash_partial(hk, &x, t.div_ceil(16));
            }
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

/// GHASH over whole blocks (AAD).
///
/// # Safety
/// The CPU must support AVX-512 F/BW/VL, VPCLMULQDQ, PCLMULQDQ, SSSE3.
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vpclmulqdq,pclmulqdq,ssse3")]
pub(super) unsafe fn ghash_update(k: &X86Aes, hk: &X86HKey, acc: &mut Block, data: &[u8]) {
    let whole = data.len() - data.len() % 16;
    // SAFETY: features as required; `data` readable for `whole` bytes.
    unsafe {
        let mut st = Pass::new(k, hk, &[0; 16], acc);
        st.ghash_bytes(hk, data.as_ptr(), whole);
        _mm_storeu_si128(
            acc.as_mut_ptr().cast(),
            _mm_shuffle_epi8(st.y, bswap_mask()),
        );
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
    trace::hit(if ENCRYPT {
        Kernel::Vaes512GcmEnc
    } else {
        Kernel::Vaes512GcmDec
    });
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    // SAFETY: both buffers hold 16 * n bytes; features as required.
    unsafe {
        let mut st = Pass::new(k, hk, ctr, acc);
        st.crypt::<ENCRYPT>(hk, src, dst, 16 * n);
        _mm_storeu_si128(
            acc.as_mut_ptr().cast(),
            _mm_shuffle_epi8(st.y, bswap_mask()),
        );
    }
    inc32(ctr, n as u32);
}

/// A whole GCM message in one call: GHASH of the AAD, CTR32 from inc32(J0)
/// stitched with GHASH of the ciphertext (a partial last block included),
/// the length block, and the tag `E_K(J0) ^ S`. Returns the full 16-byte
/// tag; the caller truncates and compares.
///
/// # Safety
/// As [`gcm_crypt`].
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3")]
pub(super) unsafe fn gcm_oneshot<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    mut io: InOut<'_>,
) -> Block {
    trace::hit(if ENCRYPT {
        Kernel::Vaes512GcmEnc
    } else {
        Kernel::Vaes512GcmDec
    });
    let len = io.len();
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    if len <= SMALL_DATA && aad.len() <= SMALL_AAD {
        // SAFETY: as below; the small path reads and writes only inside the
        // buffers (masked accesses).
        return unsafe { oneshot_small::<ENCRYPT>(k, hk, j0, aad, src, dst, len) };
    }
    let mut ctr = *j0;
    inc32(&mut ctr, 1);
    let bs128 = bswap_mask();
    // SAFETY: `aad` readable for its length, the buffers for `len` bytes;
    // features as required.
    unsafe {
        // E_K(J0) on its own chain; the core overlaps it with what follows.
        let mut ekj0 = _mm_xor_si128(_mm_loadu_si128(j0.as_ptr().cast()), k.enc[0]);
        for r in 1..k.rounds {
            ekj0 = _mm_aesenc_si128(ekj0, k.enc[r]);
        }
        ekj0 = _mm_aesenclast_si128(ekj0, k.enc[k.rounds]);

        let mut st = Pass::new(k, hk, &ctr, &[0; 16]);
        st.ghash_bytes(hk, aad.as_ptr(), aad.len());
        st.crypt::<ENCRYPT>(hk, src, dst, len);
        // Length block: [len(A)]_64 || [len(C)]_64 in bits, byte-reversed
        // (so the C length is the low half).
        let lens = _mm_set_epi64x((aad.len() as u64 * 8) as i64, (len as u64 * 8) as i64);
        let mut w = Wide::zero();
        w.mul_add(
            _mm_xor_si128(st.y, lens),
            _mm_loadu_si128(hk.ptr(POWERS - 1).cast()),
        );
        let s = w.reduce();
        let tag = _mm_xor_si128(_mm_shuffle_epi8(s, bs128), ekj0);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

/// Message sizes taken by [`oneshot_small`]: at most 8 + 16 + 1 = 25 blocks
/// to hash, within the 32 powers of H, so one reduction covers everything.
const SMALL_DATA: usize = 256;
const SMALL_AAD: usize = 128;

/// A short message with a single GHASH reduction: the AAD blocks, the
/// ciphertext blocks and the length block are multiplied by H^t..H^1 and
/// summed, so the only serial work is AES, one round of products and one
/// reduction. E_K(J0) rides along the keystream rounds.
///
/// # Safety
/// As [`gcm_crypt`]; `src`/`dst` valid for `len <= SMALL_DATA` bytes (equal
/// or disjoint), `aad.len() <= SMALL_AAD`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2,vaes,vpclmulqdq,aes,pclmulqdq,ssse3")]
unsafe fn oneshot_small<const ENCRYPT: bool>(
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> Block {
    let bs128 = bswap_mask();
    let bs = _mm512_broadcast_i32x4(bs128);
    let ab = aad.len().div_ceil(16);
    let db = len.div_ceil(16);
    let base = POWERS - (ab + db + 1);
    let regs = len.div_ceil(64);
    // SAFETY: j0/aad/key/buffer accesses are in bounds: masked loads and
    // stores touch only the first `aad.len()` / `len` bytes, power loads
    // only powers base..POWERS.
    unsafe {
        let jv = _mm_loadu_si128(j0.as_ptr().cast());
        let c = _mm512_add_epi32(
            _mm512_broadcast_i32x4(_mm_shuffle_epi8(jv, bs128)),
            _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 2, 0, 0, 0, 1),
        );
        let inc4 = _mm512_set_epi32(0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4, 0, 0, 0, 4);
        let mut b = [_mm512_setzero_si512(); 4];
        let mut cc = c;
        for v in b.iter_mut() {
            *v = _mm512_xor_si512(
                _mm512_shuffle_epi8(cc, bs),
                _mm512_broadcast_i32x4(k.enc[0]),
            );
            cc = _mm512_add_epi32(cc, inc4);
        }
        let mut e = _mm_xor_si128(jv, k.enc[0]);
        for r in 1..k.rounds {
            let rk = _mm512_broadcast_i32x4(k.enc[r]);
            for v in b.iter_mut().take(regs) {
                *v = _mm512_aesenc_epi128(*v, rk);
            }
            e = _mm_aesenc_si128(e, k.enc[r]);
        }
        let rk = _mm512_broadcast_i32x4(k.enc[k.rounds]);
        for v in b.iter_mut().take(regs) {
            *v = _mm512_aesenclast_epi128(*v, rk);
        }
        e = _mm_aesenclast_si128(e, k.enc[k.rounds]);

        let mut w = Wide512::zero();
        for q in 0..ab.div_ceil(4) {
            let x = _mm512_maskz_loadu_epi8(
                byte_mask(aad.len() - 64 * q),
                aad.as_ptr().add(64 * q).cast(),
            );
            let pw =
                _mm512_maskz_loadu_epi8(byte_mask(16 * (ab - 4 * q)), hk.ptr(base + 4 * q).cast());
            w.mul_add(_mm512_shuffle_epi8(x, bs), pw);
        }
        for (q, ks) in b.iter().enumerate().take(regs) {
            let mask = byte_mask(len - 64 * q);
            let data = _mm512_maskz_loadu_epi8(mask, src.add(64 * q).cast());
            let out = _mm512_maskz_mov_epi8(mask, _mm512_xor_si512(*ks, data));
            _mm512_mask_storeu_epi8(dst.add(64 * q).cast(), mask, out);
            let x = _mm512_shuffle_epi8(if ENCRYPT { out } else { data }, bs);
            let pw = _mm512_maskz_loadu_epi8(
                byte_mask(16 * (db - 4 * q)),
                hk.ptr(base + ab + 4 * q).cast(),
            );
            w.mul_add(x, pw);
        }
        let lens = _mm_set_epi64x((aad.len() as u64 * 8) as i64, (len as u64 * 8) as i64);
        let h1 = _mm_loadu_si128(hk.ptr(POWERS - 1).cast());
        w.mul_add(_mm512_zextsi128_si512(lens), _mm512_zextsi128_si512(h1));
        let tag = _mm_xor_si128(_mm_shuffle_epi8(w.reduce(), bs128), e);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}
