//! GCM with VAES and VPCLMULQDQ: one source for both vector widths, ymm
//! (AVX2, two blocks per register, the `vaes256` tier) and zmm (AVX-512,
//! four blocks per register, the `vaes512` tier), as Linux's
//! `aes-gcm-avx10` serves both from one text. The kernels are generic
//! `#[inline(always)]` bodies over a [`Vector`] width (the shared width API
//! of `vector.rs`, plus [`GcmVector`] here), instantiated by thin
//! `#[target_feature]` entry points (`vaes_entries!`); `objdump -d` shows
//! no calls in the loops.
//!
//! Main loop: `S` = 8 registers per step (16 blocks on ymm, 32 on zmm; zmm
//! decryption takes six, [`STEP_DEC_ZMM`]). The `S` registers of counter
//! blocks go through the AES rounds while the `S` registers of ciphertext of
//! the step before (encryption) or of this step (decryption) are multiplied
//! by the step's powers of H between the rounds (zmm: pairs of products
//! after every other round; ymm: one after each round; see
//! `Pass::encrypt_ghash`), summed unreduced per lane, reduced lane by lane
//! and summed across lanes once per step. A 4-register step and a masked
//! tail finish the message; masked loads zero-pad as GHASH pads, so the
//! one-shot path ([`gcm_oneshot`]) takes partial blocks in registers, and
//! messages of at most four registers and 128 bytes of AAD hash everything
//! under one reduction.
//!
//! Counter blocks are kept byte-reversed, so `vpaddd` on each lane's lowest
//! dword is inc32; when the last byte does not wrap inside a step only the
//! first register is byte-swapped (`Pass::step_counters`).
//!
//! The round count is a const parameter and the middle rounds are written
//! out (`middle_rounds!`), each followed by one empty `asm!` over the AES
//! states and the three accumulators (`Vector::order_acc`): without the
//! barrier LLVM hoists a step's products to its start and runs each register
//! through all its rounds in turn; a rolled round loop keeps an index, a
//! branch and a key load per round.
//!
//! Ports: on Golden Cove zmm VAESENC runs on port 0 only and VPCLMULQDQ and
//! the shuffles on port 5; on Zen 4 both share the two 256-bit pipes. The
//! schedule cuts every instruction besides the AES rounds, which suits
//! both. Registers: on zmm the states, accumulators, round keys and most
//! powers stay in registers; on ymm round keys, powers and the step's
//! ciphertext are memory operands.
//!
//! ymm ports. Golden Cove: VAESENC ymm on ports 0 and 1, VPCLMULQDQ one
//! per cycle on port 5 beside them, so the schoolbook products (four per
//! block) cost the AES pipes nothing. Zen 3 (measured by a probe on an EPYC,
//! family 25 model 1): VAESENC xmm/ymm two per cycle, latency 4;
//! VPCLMULQDQ xmm or ymm one per two cycles, latency 4, on the AES pipes
//! (eight VAESENC chains with four products per round: 8 cycles, not 4);
//! VPXOR nearly free beside them, a shuffle about 0.15 cycle. There the
//! products bound the step, so under the `zen` and `generic` schedules the
//! ymm main step multiplies with Karatsuba ([`Pass::encrypt_ghash_kara`]:
//! 24 products and 2 for the reduction per 16 blocks instead of 34, and
//! AES-128/192 encryption reduces once per two steps; a probe of just the
//! AES rounds and 26 products takes about 70 cycles per step for AES-128,
//! 85 for AES-256, against 80 and 95 with 34). The `intel` schedule keeps
//! the schoolbook step: there the products use port 5 alone, and
//! Karatsuba would trade them for unpacks on port 5 and XORs. Measured on
//! Zen 3 (3.2 GHz core clock): about 0.8 of that probe bound (AES-128
//! encryption 8.9-9.1 GB/s at 16 KiB, 0.46 of ECB; AES-256 7.9-8.0,
//! 0.57). Measurements: docs/BENCHMARKS.md.

use core::arch::x86_64::*;

use super::ghash_clmul::{bswap_mask, length_block, poly, Wide, X86HKey, POWERS};
use super::key::X86Aes;
use super::polyval::Acc;
use super::vector::{
    byte_mask, middle_rounds, prefetch_step, vaes_entries, Vector, ONES_THEN_ZEROS, PREFETCH_MIN,
};
use crate::backend::kernels::cpu::{Vaes256, Vaes512};
use crate::backend::kernels::gcm::inc32;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::trace::{self, Kernel};
use crate::backend::schedule::Schedule;
use crate::key::{Block, KeySize, MAX_ROUNDS};

/// Registers per main-loop step.
const STEP: usize = 8;
/// Registers per main-loop step of zmm decryption (see the notes above).
const STEP_DEC_ZMM: usize = 6;
/// Registers per tail step.
const T: usize = 4;
/// AAD bytes the single-reduction path takes (with at most `T` registers of
/// data and the length block: 8 + 16 + 1 <= POWERS blocks).
const SMALL_AAD: usize = 128;

/// What GCM needs beyond [`Vector`] (the shared width API of `vector.rs`):
/// its trace counters and byte-masking a register.
pub(crate) trait GcmVector: Vector {
    /// The trace counters of this width's GCM kernels (encrypt, decrypt).
    const KERNELS: (Kernel, Kernel);
    /// `v` with the bytes from `len` (0..=BYTES) on zeroed.
    fn keep_bytes(self, v: Self::V, len: usize) -> Self::V;
}

// SAFETY (every intrinsic call in this impl): `self` is a `Vaes256` token,
// made only by detection after it found AES-NI, SSE4.1, PCLMULQDQ, AVX,
// AVX2, VAES and VPCLMULQDQ (and the OS saving ymm state).
impl GcmVector for Vaes256 {
    const KERNELS: (Kernel, Kernel) = (Kernel::Vaes256GcmEnc, Kernel::Vaes256GcmDec);

    #[inline(always)]
    fn keep_bytes(self, v: __m256i, len: usize) -> __m256i {
        let off = 32 - len.min(32);
        // SAFETY: `off + 32 <= 64`, inside the table; the VAES-256 token
        // proves AVX2.
        unsafe {
            let m = _mm256_loadu_si256(ONES_THEN_ZEROS.as_ptr().add(off).cast());
            _mm256_and_si256(v, m)
        }
    }
}

// SAFETY (every intrinsic call in this impl): `self` is a `Vaes512` token,
// made only by detection after it found everything `Vaes256` needs plus
// AVX-512 F, BW and VL (and the OS saving zmm state).
impl GcmVector for Vaes512 {
    const KERNELS: (Kernel, Kernel) = (Kernel::Vaes512GcmEnc, Kernel::Vaes512GcmDec);

    #[inline(always)]
    fn keep_bytes(self, v: __m512i, len: usize) -> __m512i {
        // SAFETY: the VAES-512 token proves AVX-512 BW.
        unsafe { _mm512_maskz_mov_epi8(byte_mask(len), v) }
    }
}

/// The first `len` bytes at `p`: whole registers without a mask, whole
/// blocks with a block mask (the ymm byte-masked load goes through a buffer
/// and a `memcpy`).
///
/// # Safety
/// `p` must be readable for `min(len, BYTES)` bytes.
#[inline(always)]
unsafe fn load_part<W: Vector>(w: W, p: *const u8, len: usize) -> W::V {
    // SAFETY: each branch reads at most `min(len, BYTES)` bytes at `p`, which
    // the caller makes readable.
    unsafe {
        if len >= W::BYTES {
            w.load(p)
        } else if len.is_multiple_of(16) {
            w.load_blocks(p, len / 16)
        } else {
            w.load_bytes(p, len)
        }
    }
}

/// Writes the first `len` bytes of `v` at `p` (see [`load_part`]).
///
/// # Safety
/// `p` must be writable for `min(len, BYTES)` bytes.
#[inline(always)]
unsafe fn store_part<W: Vector>(w: W, p: *mut u8, v: W::V, len: usize) {
    // SAFETY: each branch writes at most `min(len, BYTES)` bytes at `p`,
    // which the caller makes writable.
    unsafe {
        if len >= W::BYTES {
            w.store(p, v)
        } else if len.is_multiple_of(16) {
            w.store_blocks(p, v, len / 16)
        } else {
            w.store_bytes(p, v, len)
        }
    }
}

/// GCM's use of the unreduced lane-wise products shared with POLYVAL.
impl<W: GcmVector> Acc<W> {
    /// Adds `a0·b0 ^ a1·b1` lane by lane: eight products and four
    /// three-input XORs (one instruction each on AVX-512), where two
    /// [`Acc::mul_add`] calls take six accumulating instructions.
    #[inline(always)]
    fn mul_add2(&mut self, w: W, a0: W::V, b0: W::V, a1: W::V, b1: W::V) {
        self.lo = w.xor3(self.lo, w.clmul::<0x00>(a0, b0), w.clmul::<0x00>(a1, b1));
        self.hi = w.xor3(self.hi, w.clmul::<0x11>(a0, b0), w.clmul::<0x11>(a1, b1));
        self.mid = w.xor3(self.mid, w.clmul::<0x01>(a0, b0), w.clmul::<0x10>(a0, b0));
        self.mid = w.xor3(self.mid, w.clmul::<0x01>(a1, b1), w.clmul::<0x10>(a1, b1));
    }

    /// Reduces every lane, then sums the lanes: the new GHASH state.
    /// Reduction is GF(2)-linear, so reducing each lane before the sum
    /// gives the same result as reducing the sum, and it is cheaper: the
    /// two folds run once on whole registers (two products, two dword
    /// shuffles and two three-input XORs, as in `Wide::reduce` but with the
    /// middle term folded in along the way), and only one register is
    /// summed across lanes instead of three.
    #[inline(always)]
    fn reduce(&self, w: W) -> __m128i {
        // SAFETY: every `Vector` token implies SSE2.
        let p = w.broadcast(unsafe { poly() });
        // lo·x^0 + mid·x^64 + hi·x^128: fold the low qword of `lo` into
        // `mid` (times x^63 + x^62 + x^57, the low half of x^128 mod the
        // field polynomial in this bit order), then the low qword of the
        // result into `hi`.
        let mid = w.xor3(
            self.mid,
            w.shuffle32::<0x4e>(self.lo),
            w.clmul::<0x10>(self.lo, p),
        );
        let r = w.xor3(self.hi, w.shuffle32::<0x4e>(mid), w.clmul::<0x10>(mid, p));
        w.xor_lanes(r)
    }
}

/// Everything one pass keeps in registers: round keys, the step's powers of
/// H, the counter and the GHASH state; `S` registers per main step.
struct Pass<W: GcmVector, const NR: usize, const S: usize> {
    w: W,
    rk: [W::V; MAX_ROUNDS + 1],
    /// `pw[j]`: the powers of H taken by register `j` of a main step
    /// (H^(S·B - B·j) down to H^(S·B - B·j - B + 1), B blocks per register).
    pw: [W::V; S],
    /// `pk[i]`, per lane: the XOR of the two halves of register `2i`'s
    /// power in the low qword and of register `2i + 1`'s in the high qword,
    /// the Karatsuba middle factors of a register pair (see
    /// [`Pass::encrypt_ghash_kara`]); zero unless `kara`.
    pk: [W::V; S],
    /// `pw` and `pk` for the step before: powers H^(2·S·B) down to
    /// H^(S·B + 1), for Karatsuba steps in pairs under one reduction; zero
    /// unless `kara`.
    pw2: [W::V; S],
    pk2: [W::V; S],
    /// Karatsuba main steps ([`Pass::encrypt_ghash_kara`]): ymm on cores
    /// where the carry-less multiplier shares the AES pipes.
    kara: bool,
    bs: W::V,
    inc: W::V,
    /// Byte-reversed counters of the next register of blocks.
    c: W::V,
    /// `c` advanced by a whole main step (S·B blocks).
    inc_step: W::V,
    /// B in the top byte of each lane's last dword: the step from one
    /// register of counter blocks to the next in block byte order, valid
    /// while the last byte does not wrap (see [`Pass::step_counters`]).
    inc_be: W::V,
    /// The 32-bit counter of the first block of `c` (lane 0).
    ctr32: u32,
    /// GHASH state, byte-reversed.
    y: __m128i,
}

impl<W: GcmVector, const NR: usize, const S: usize> Pass<W, NR, S> {
    /// # Safety
    /// Only with the features of `w` enabled (from an entry point).
    #[inline(always)]
    unsafe fn new(w: W, k: &X86Aes, hk: &X86HKey, ctr: &Block, acc: &Block) -> Self {
        debug_assert!(NR == 0 || NR == k.rounds());
        let mut rk = [w.zero(); MAX_ROUNDS + 1];
        for (d, s) in rk.iter_mut().zip(k.enc.iter()).take(NR + 1) {
            *d = w.broadcast(*s);
        }
        let mut pw = [w.zero(); S];
        for (j, p) in pw.iter_mut().enumerate() {
            // SAFETY: powers POWERS - S·B + B·j .. + B lie inside the key
            // (S·B <= POWERS).
            *p = unsafe { w.load(hk.ptr(POWERS - S * W::BLOCKS + W::BLOCKS * j)) };
        }
        // Karatsuba needs the powers of two steps (`pw2`): ymm only.
        let kara =
            W::REGS < 32 && 2 * S * W::BLOCKS <= POWERS && !Schedule::current().clmul_beside_aes();
        let mut pk = [w.zero(); S];
        let mut pw2 = [w.zero(); S];
        let mut pk2 = [w.zero(); S];
        if kara {
            for (j, p) in pw2.iter_mut().enumerate() {
                // SAFETY: powers POWERS - 2·S·B + B·j .. + B lie inside the
                // key (`kara` implies 2·S·B <= POWERS).
                *p = unsafe { w.load(hk.ptr(POWERS - 2 * S * W::BLOCKS + W::BLOCKS * j)) };
            }
            for (pw, pk) in [(&pw, &mut pk), (&pw2, &mut pk2)] {
                for i in 0..S / 2 {
                    let k0 = w.xor(pw[2 * i], w.shuffle32::<0x4e>(pw[2 * i]));
                    let k1 = w.xor(pw[2 * i + 1], w.shuffle32::<0x4e>(pw[2 * i + 1]));
                    pk[i] = w.unpacklo64(k0, k1);
                }
            }
        }
        // SAFETY: `ctr` and `acc` are 16 readable bytes each; SSSE3 is
        // implied by every token.
        let (c0, y) = unsafe {
            let bs = bswap_mask();
            (
                _mm_shuffle_epi8(_mm_loadu_si128(ctr.as_ptr().cast()), bs),
                _mm_shuffle_epi8(_mm_loadu_si128(acc.as_ptr().cast()), bs),
            )
        };
        // SAFETY: SSE2 is implied by every token.
        let bs = w.broadcast(unsafe { bswap_mask() });
        let mut c32 = [0u8; 4];
        c32.copy_from_slice(&ctr[12..]);
        Pass {
            w,
            rk,
            pw,
            pk,
            pw2,
            pk2,
            kara,
            bs,
            inc: w.set_u64x2(0, W::BLOCKS as u64),
            c: w.add32(w.broadcast(c0), w.lane_index()),
            inc_step: w.set_u64x2(0, (S * W::BLOCKS) as u64),
            inc_be: w.set_u64x2((W::BLOCKS as u64) << 56, 0),
            ctr32: u32::from_be_bytes(c32),
            y,
        }
    }

    /// The next `R` registers of counter blocks.
    #[inline(always)]
    fn counters<const R: usize>(&mut self) -> [W::V; R] {
        let w = self.w;
        let mut b = [w.zero(); R];
        for x in b.iter_mut() {
            *x = w.shuffle_bytes(self.c, self.bs);
            self.c = w.add32(self.c, self.inc);
        }
        self.ctr32 = self.ctr32.wrapping_add((R * W::BLOCKS) as u32);
        b
    }

    /// The next `S` registers of counter blocks, as [`Pass::counters`].
    /// When the last byte of the counter does not wrap inside the step
    /// (seven steps in eight at 32 blocks a step), only the first register
    /// is byte-swapped and the others are added in block byte order: inc32
    /// then touches only that byte, which is the top byte of a little-endian
    /// dword. That saves `S - 1` shuffles per step on the shuffle port,
    /// which the carry-less products also need. The counter is public (it
    /// comes from the IV), so branching on it leaks nothing.
    #[inline(always)]
    fn step_counters(&mut self) -> [W::V; S] {
        let w = self.w;
        if (self.ctr32 & 0xff) as usize + S * W::BLOCKS > 0x100 {
            return self.counters::<S>();
        }
        let mut b = [w.zero(); S];
        let mut x = w.shuffle_bytes(self.c, self.bs);
        for v in b.iter_mut() {
            *v = x;
            x = w.add32(x, self.inc_be);
        }
        self.c = w.add32(self.c, self.inc_step);
        self.ctr32 = self.ctr32.wrapping_add((S * W::BLOCKS) as u32);
        b
    }

    /// Encrypts `R` registers of blocks, rounds interleaved across them.
    #[inline(always)]
    fn encrypt<const R: usize>(&self, b: &mut [W::V; R]) {
        let w = self.w;
        for x in b.iter_mut() {
            *x = w.xor(*x, self.rk[0]);
        }
        middle_rounds!(r < NR => {
            let k = self.rk[r];
            for x in b.iter_mut() {
                *x = w.aesenc(*x, k);
            }
            w.order(b);
        });
        let k = self.rk[NR];
        for x in b.iter_mut() {
            *x = w.aesenclast(*x, k);
        }
    }

    /// AES on `S` registers with the GHASH of `S` other registers (`x`,
    /// byte-reversed ciphertext) woven between the rounds: one product after
    /// each of the first rounds, so the carry-less multiplies and the AES
    /// rounds share the instruction stream instead of relying on the
    /// out-of-order window alone. `ENCRYPT`: the pass encrypts (which
    /// spreads AES-256's products wider).
    #[inline(always)]
    fn encrypt_ghash<const ENCRYPT: bool>(&mut self, b: &mut [W::V; S], x: &[W::V; S]) {
        let w = self.w;
        let mut acc = Acc::zero(w);
        for v in b.iter_mut() {
            *v = w.xor(*v, self.rk[0]);
        }
        let x0 = w.xor(x[0], w.zext(self.y));
        // zmm: two products after every other round (AES-128's 9 middle
        // rounds hold the S / 2 pairs with room to spare), summed by
        // three-input XORs. ymm has no such XOR and only 16 registers: the
        // eight partial products of a pair made decryption spill (14% slower
        // at 16 KiB), so it takes one product before the rounds and one
        // after each of the first seven.
        //
        // AES-256 encryption spreads them over its 13 middle rounds instead:
        // zmm pairs after every third round (1, 4, 7, 10), ymm products
        // after two rounds of every three (1, 2, 4, 5, 7, 8, 10, 11). On the
        // Xeon that made 4 to 64 KiB 1.5-2.3% faster on zmm, 16 KiB to 1 MiB
        // 2.4-4.7% on ymm. Decryption keeps the dense order: on ymm the
        // spread was 1% slower, and for zmm's six-register step, pairs every
        // fourth round were faster at 16 KiB and slower at 1 MiB.
        let pairs = W::REGS >= 32;
        let spread = ENCRYPT && NR == 14 && S == 8;
        if !pairs && !spread {
            acc.mul_add(w, x0, self.pw[0]);
        }
        middle_rounds!(r < NR => {
            let k = self.rk[r];
            for v in b.iter_mut() {
                *v = w.aesenc(*v, k);
            }
            if pairs {
                let stride = if spread { 3 } else { 2 };
                if r % stride == 1 && r / stride < S / 2 {
                    let j = 2 * (r / stride);
                    let a0 = if j == 0 { x0 } else { x[j] };
                    acc.mul_add2(w, a0, self.pw[j], x[j + 1], self.pw[j + 1]);
                }
            } else if spread {
                if !r.is_multiple_of(3) && r <= 11 {
                    let j = r - 1 - (r - 1) / 3;
                    acc.mul_add(w, if j == 0 { x0 } else { x[j] }, self.pw[j]);
                }
            } else if r < S {
                acc.mul_add(w, x[r], self.pw[r]);
            }
            acc.order_with(w, b);
        });
        let k = self.rk[NR];
        for v in b.iter_mut() {
            *v = w.aesenclast(*v, k);
        }
        self.y = acc.reduce(w);
    }

    /// One main step: [`Pass::encrypt_ghash_kara`] (`KARA`, with `acc`,
    /// `FIRST` and `LAST`) or [`Pass::encrypt_ghash`] (which reduces every
    /// step: only with `FIRST` and `LAST` both set).
    #[inline(always)]
    fn main_step<const ENCRYPT: bool, const KARA: bool, const FIRST: bool, const LAST: bool>(
        &mut self,
        b: &mut [W::V; S],
        x: &[W::V; S],
        acc: &mut Acc<W>,
    ) {
        debug_assert!(KARA || FIRST && LAST, "schoolbook steps reduce every step");
        if KARA {
            self.encrypt_ghash_kara::<ENCRYPT, FIRST, LAST>(b, x, acc);
        } else {
            self.encrypt_ghash::<ENCRYPT>(b, x);
        }
    }

    /// [`Pass::encrypt_ghash`] with Karatsuba products: three carry-less
    /// multiplies per register instead of four. Register `j` adds its low
    /// and high products; each odd `j` also adds the middle products of
    /// the pair `j - 1, j`, both in one register (the XOR of each block's
    /// halves gathered by two qword unpacks, multiplied by `pk`, low qword
    /// by low and high by high). 24 products and the reduction's 2 per
    /// step instead of 34: on Zen 3 a VPCLMULQDQ occupies an AES pipe for
    /// two cycles, so the products, not the rounds, bound the schoolbook
    /// step (see the notes at the top).
    ///
    /// The sums go to `acc`: `FIRST` starts them (and adds the GHASH
    /// state to register 0), `LAST` reduces them into the state. A step
    /// that is `FIRST` only multiplies by the powers of the step before
    /// (`pw2`, `pk2`), so that two steps share one reduction.
    #[inline(always)]
    fn encrypt_ghash_kara<const ENCRYPT: bool, const FIRST: bool, const LAST: bool>(
        &mut self,
        b: &mut [W::V; S],
        x: &[W::V; S],
        acc: &mut Acc<W>,
    ) {
        let w = self.w;
        let (pw, pk) = if LAST {
            (&self.pw, &self.pk)
        } else {
            (&self.pw2, &self.pk2)
        };
        if FIRST {
            *acc = Acc::zero(w);
        }
        for v in b.iter_mut() {
            *v = w.xor(*v, self.rk[0]);
        }
        let x0 = if FIRST {
            w.xor(x[0], w.zext(self.y))
        } else {
            x[0]
        };
        // Registers 0 and 1 go last: register 0 holds the GHASH state of
        // the step before, so its products wait for that reduction, and
        // every sum after them would wait too (2-3% at 16 KiB on Zen 3).
        let unit = |i: usize| if i + 2 < S { i + 2 } else { S - 1 - i };
        // One register's products before the rounds and one after each of
        // the next rounds, pinned there; AES-256 encryption spreads them
        // over rounds 1, 2, 4, 5, 7, 8, 10 and lets LLVM place them, which
        // measured 2-3% faster there and 2-4% slower everywhere else.
        let spread = ENCRYPT && NR == 14;
        Self::kara_unit(w, pw, pk, acc, x0, x, unit(0), !spread);
        // Encryption (AES-128/192) starts with two registers' products
        // before the rounds: 1-1.5% faster there, 0.5-1% slower for
        // decryption.
        let early = usize::from(ENCRYPT && !spread);
        if early == 1 {
            Self::kara_unit(w, pw, pk, acc, x0, x, unit(1), true);
        }
        middle_rounds!(r < NR => {
            let k = self.rk[r];
            for v in b.iter_mut() {
                *v = w.aesenc(*v, k);
            }
            if spread {
                if !r.is_multiple_of(3) && r <= 11 {
                    let i = r - (r - 1) / 3;
                    if i < S {
                        Self::kara_unit(w, pw, pk, acc, x0, x, unit(i), !spread);
                    }
                }
            } else if r + early < S {
                Self::kara_unit(w, pw, pk, acc, x0, x, unit(r + early), true);
            }
            acc.order_with(w, b);
        });
        let k = self.rk[NR];
        for v in b.iter_mut() {
            *v = w.aesenclast(*v, k);
        }
        if LAST {
            self.y = Self::reduce_kara(w, acc);
        }
    }

    /// Reduces Karatsuba sums: the middle sums hold (a0 ^ a1)(b0 ^ b1) =
    /// mid ^ lo ^ hi per lane.
    #[inline(always)]
    fn reduce_kara(w: W, acc: &Acc<W>) -> __m128i {
        let mut a = Acc::zero(w);
        a.lo = acc.lo;
        a.hi = acc.hi;
        a.mid = w.xor3(acc.mid, acc.lo, acc.hi);
        a.reduce(w)
    }

    /// [`Pass::ghash`] of one main step's `S` registers with Karatsuba
    /// products ([`Pass::kara_unit`]); only when `kara`. GHASH alone (the
    /// AAD, GMAC) is all products: 26 multiplies per 16 blocks against 34,
    /// yet on Zen 3 only 4% faster (GMAC at 16 KiB, 12.1 against 11.6
    /// GB/s): the unpacks and XORs it adds take the shuffle pipe the
    /// byte swaps use. The main step's order (registers 0 and 1 last)
    /// measured 16% slower here.
    #[inline(always)]
    fn ghash_kara(&mut self, x: &[W::V; S]) {
        let w = self.w;
        let mut acc = Acc::zero(w);
        let x0 = w.xor(x[0], w.zext(self.y));
        for j in 0..S {
            Self::kara_unit(w, &self.pw, &self.pk, &mut acc, x0, x, j, false);
        }
        self.y = Self::reduce_kara(w, &acc);
    }

    /// Register `j`'s share of [`Pass::encrypt_ghash_kara`] (`x0`: register
    /// 0 with the GHASH state added): its low and high products, and the
    /// middle products of a pair, (`j - 1`, `j`) for odd `j` above 1 and
    /// (0, 1) for `j` = 0, which comes after register 1. `pin`: the inputs
    /// pass an empty `asm!` first, so that the products stay after the
    /// round they follow instead of being hoisted to the step's start.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn kara_unit(
        w: W,
        pw: &[W::V; S],
        pk: &[W::V; S],
        acc: &mut Acc<W>,
        x0: W::V,
        x: &[W::V; S],
        j: usize,
        pin: bool,
    ) {
        let mut v = match j {
            0 => [x0, x[1]],
            1 => [x[1], x[1]],
            _ => [x[j], x[j - 1]],
        };
        if pin {
            w.order(&mut v);
        }
        let [xj, other] = v;
        acc.lo = w.xor(acc.lo, w.clmul::<0x00>(xj, pw[j]));
        acc.hi = w.xor(acc.hi, w.clmul::<0x11>(xj, pw[j]));
        if j != 1 && (j == 0 || j % 2 == 1) {
            // Per lane, the halves of the pair's first register in the
            // low qword and of its second in the high qword, as in `pk`.
            let (a, b) = if j == 0 { (xj, other) } else { (other, xj) };
            let t = w.xor(w.unpacklo64(a, b), w.unpackhi64(a, b));
            let k = pk[j / 2];
            acc.mid = w.xor3(acc.mid, w.clmul::<0x00>(t, k), w.clmul::<0x11>(t, k));
        }
    }

    /// Hashes `R` registers of byte-reversed blocks (the last R·B blocks of
    /// a group ending at H^1) into `y`, one reduction.
    #[inline(always)]
    fn ghash<const R: usize>(&mut self, x: &[W::V; R]) {
        let w = self.w;
        let mut acc = Acc::zero(w);
        for (j, &xj) in x.iter().enumerate() {
            let v = if j == 0 {
                w.xor(xj, w.zext(self.y))
            } else {
                xj
            };
            acc.mul_add(w, v, self.pw[S - R + j]);
        }
        self.y = acc.reduce(w);
    }

    /// Hashes `m` (1..=T·B) byte-reversed blocks in `x` (zero past them):
    /// block j times H^(m-j), the powers loaded masked so that no lane past
    /// the end adds anything and nothing past the key is read.
    #[inline(always)]
    fn ghash_partial(&mut self, hk: &X86HKey, x: &[W::V; T], m: usize) {
        let w = self.w;
        let mut acc = Acc::zero(w);
        let base = POWERS - m;
        for (j, &xj) in x.iter().enumerate().take(m.div_ceil(W::BLOCKS)) {
            let blocks = (m - W::BLOCKS * j).min(W::BLOCKS);
            // SAFETY: powers base + B·j .. + blocks lie inside the key
            // (base + m = POWERS); the masked load reads nothing beyond.
            let pw = unsafe { w.load_blocks(hk.ptr(base + W::BLOCKS * j), blocks) };
            let v = if j == 0 {
                w.xor(xj, w.zext(self.y))
            } else {
                xj
            };
            acc.mul_add(w, v, pw);
        }
        self.y = acc.reduce(w);
    }

    /// GHASH of `len` bytes at `p`, the last partial block zero-padded.
    ///
    /// # Safety
    /// `p` must be readable for `len` bytes.
    #[inline(always)]
    unsafe fn ghash_bytes(&mut self, hk: &X86HKey, p: *const u8, len: usize) {
        let w = self.w;
        let mut i = 0;
        // SAFETY: full loads cover bytes i .. i + S·BYTES <= len; masked
        // loads read only bytes below len.
        unsafe {
            while i + S * W::BYTES <= len {
                let mut x = [w.zero(); S];
                for (j, v) in x.iter_mut().enumerate() {
                    *v = w.shuffle_bytes(w.load(p.add(i + W::BYTES * j)), self.bs);
                }
                if self.kara {
                    self.ghash_kara(&x);
                } else {
                    self.ghash::<S>(&x);
                }
                i += S * W::BYTES;
            }
            while i < len {
                let t = (len - i).min(T * W::BYTES);
                let mut x = [w.zero(); T];
                for (j, v) in x.iter_mut().enumerate().take(t.div_ceil(W::BYTES)) {
                    let b = load_part(w, p.add(i + W::BYTES * j), t - W::BYTES * j);
                    *v = w.shuffle_bytes(b, self.bs);
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
    #[inline(always)]
    unsafe fn crypt<const ENCRYPT: bool, const KARA: bool>(
        &mut self,
        hk: &X86HKey,
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) {
        let w = self.w;
        let step = S * W::BYTES;
        let pf = len >= PREFETCH_MIN;
        let mut i = 0;
        // SAFETY: unmasked accesses cover whole registers below len, masked
        // ones only bytes below len. Each register of input is loaded before
        // the same bytes are stored (in-place safe).
        unsafe {
            if ENCRYPT && len >= step {
                // Encryption hashes its own output: one step of ciphertext
                // stays in flight so that AES and GHASH overlap.
                let mut prev = [w.zero(); S];
                let mut b = self.step_counters();
                self.encrypt(&mut b);
                for j in 0..S {
                    let v = w.xor(b[j], w.load(src.add(W::BYTES * j)));
                    w.store(dst.add(W::BYTES * j), v);
                    prev[j] = w.shuffle_bytes(v, self.bs);
                }
                i = step;
                let mut acc = Acc::zero(w);
                while i + step <= len {
                    // Karatsuba steps in pairs under one reduction (one
                    // product and a dozen other instructions fewer per 16
                    // blocks): 1.5-3% faster for AES-128 at 16 KiB and
                    // 1 MiB on Zen 3, level or slower for AES-256.
                    if KARA && NR != 14 && i + 2 * step <= len {
                        self.enc_step::<KARA, true, false>(src, dst, i, pf, &mut prev, &mut acc);
                        self.enc_step::<KARA, false, true>(
                            src,
                            dst,
                            i + step,
                            pf,
                            &mut prev,
                            &mut acc,
                        );
                        i += 2 * step;
                    } else {
                        self.enc_step::<KARA, true, true>(src, dst, i, pf, &mut prev, &mut acc);
                        i += step;
                    }
                }
                self.ghash::<S>(&prev);
            } else if !ENCRYPT {
                // Karatsuba steps in pairs measured 2% slower here.
                let mut acc = Acc::zero(w);
                while i + step <= len {
                    self.dec_step::<KARA>(src, dst, i, pf, &mut acc);
                    i += step;
                }
            }
            if len - i >= T * W::BYTES {
                let mut data = [w.zero(); T];
                for (j, v) in data.iter_mut().enumerate() {
                    *v = w.load(src.add(i + W::BYTES * j));
                }
                let mut b = self.counters::<T>();
                self.encrypt(&mut b);
                let mut x = [w.zero(); T];
                for j in 0..T {
                    let out = w.xor(b[j], data[j]);
                    w.store(dst.add(i + W::BYTES * j), out);
                    x[j] = w.shuffle_bytes(if ENCRYPT { out } else { data[j] }, self.bs);
                }
                self.ghash::<T>(&x);
                i += T * W::BYTES;
            }
            let t = len - i;
            if t > 0 {
                let regs = t.div_ceil(W::BYTES);
                let mut data = [w.zero(); T];
                for (j, v) in data.iter_mut().enumerate().take(regs) {
                    *v = load_part(w, src.add(i + W::BYTES * j), t - W::BYTES * j);
                }
                let ks = self.keystream(regs);
                let mut x = [w.zero(); T];
                for j in 0..regs {
                    let n = t - W::BYTES * j;
                    // Zero the output past the end: GHASH pads with zeros.
                    let out = w.keep_bytes(w.xor(ks[j], data[j]), n);
                    store_part(w, dst.add(i + W::BYTES * j), out, n);
                    x[j] = w.shuffle_bytes(if ENCRYPT { out } else { data[j] }, self.bs);
                }
                self.ghash_partial(hk, &x, t.div_ceil(16));
            }
        }
    }

    /// One main step of encryption at byte `i`: the keystream of this
    /// step, GHASH of `prev` (the step before's ciphertext), which then
    /// becomes this step's. `FIRST`/`LAST` as in [`Pass::main_step`].
    ///
    /// # Safety
    /// As [`Pass::crypt`], with `i + S·BYTES` bytes inside the buffers.
    #[inline(always)]
    unsafe fn enc_step<const KARA: bool, const FIRST: bool, const LAST: bool>(
        &mut self,
        src: *const u8,
        dst: *mut u8,
        i: usize,
        pf: bool,
        prev: &mut [W::V; S],
        acc: &mut Acc<W>,
    ) {
        let w = self.w;
        // SAFETY: whole registers at bytes i .. i + S·BYTES, inside both
        // buffers (this function's contract); each register is loaded
        // before it is stored.
        unsafe {
            prefetch_step(pf, src.add(i), dst.add(i), S * W::BYTES);
            let mut b = self.step_counters();
            self.main_step::<true, KARA, FIRST, LAST>(&mut b, prev, acc);
            for j in 0..S {
                let v = w.xor(b[j], w.load(src.add(i + W::BYTES * j)));
                w.store(dst.add(i + W::BYTES * j), v);
                prev[j] = w.shuffle_bytes(v, self.bs);
            }
        }
    }

    /// One main step of decryption at byte `i`, hashing its own input.
    ///
    /// # Safety
    /// As [`Pass::enc_step`].
    #[inline(always)]
    unsafe fn dec_step<const KARA: bool>(
        &mut self,
        src: *const u8,
        dst: *mut u8,
        i: usize,
        pf: bool,
        acc: &mut Acc<W>,
    ) {
        let w = self.w;
        // SAFETY: as in `enc_step`.
        unsafe {
            prefetch_step(pf, src.add(i), dst.add(i), S * W::BYTES);
            let mut ct = [w.zero(); S];
            let mut x = [w.zero(); S];
            for j in 0..S {
                ct[j] = w.load(src.add(i + W::BYTES * j));
                x[j] = w.shuffle_bytes(ct[j], self.bs);
            }
            let mut b = self.step_counters();
            self.main_step::<false, KARA, true, true>(&mut b, &x, acc);
            for j in 0..S {
                w.store(dst.add(i + W::BYTES * j), w.xor(b[j], ct[j]));
            }
        }
    }

    /// GHASH of `aad`, then [`Pass::crypt`]: the byte-reversed GHASH state
    /// after both.
    ///
    /// # Safety
    /// As [`Pass::crypt`], and `aad` readable.
    #[inline(always)]
    unsafe fn run<const ENCRYPT: bool>(
        mut self,
        hk: &X86HKey,
        aad: &[u8],
        src: *const u8,
        dst: *mut u8,
        len: usize,
    ) -> __m128i {
        // SAFETY: `aad` is readable; `src`/`dst` hold `len` bytes, equal
        // or disjoint (this function's contract).
        unsafe {
            self.ghash_bytes(hk, aad.as_ptr(), aad.len());
            if W::REGS < 32 && self.kara {
                self.crypt::<ENCRYPT, true>(hk, src, dst, len);
            } else {
                self.crypt::<ENCRYPT, false>(hk, src, dst, len);
            }
        }
        self.y
    }

    /// Keystream for `regs` (1..=T) registers, with the AES rounds unrolled
    /// for the count actually needed.
    #[inline(always)]
    fn keystream(&mut self, regs: usize) -> [W::V; T] {
        let mut ks = [self.w.zero(); T];
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
                let mut b = self.counters::<T>();
                self.encrypt(&mut b);
                ks = b;
            }
        }
        ks
    }
}

/// GHASH over whole blocks (AAD).
///
/// # Safety
/// Only from an entry point with the features of `w`.
#[inline(always)]
pub(super) unsafe fn ghash_update_body<W: GcmVector>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    acc: &mut Block,
    data: &[u8],
) {
    let whole = data.len() - data.len() % 16;
    // SAFETY: `data` is readable for `whole` bytes.
    unsafe {
        let mut st = Pass::<W, 0, STEP>::new(w, k, hk, &[0; 16], acc);
        st.ghash_bytes(hk, data.as_ptr(), whole);
        *acc = block_order(st.y);
    }
}

/// CTR32 encryption or decryption of whole blocks stitched with GHASH of
/// the ciphertext.
///
/// # Safety
/// Only from an entry point with the features of `w`.
#[inline(always)]
pub(super) unsafe fn gcm_crypt_body<W: GcmVector, const ENCRYPT: bool>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &mut Block,
    acc: &mut Block,
    mut io: InOut<'_>,
) {
    trace::hit(if ENCRYPT { W::KERNELS.0 } else { W::KERNELS.1 });
    let n = io.blocks();
    if n == 0 {
        return;
    }
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    // SAFETY: both buffers hold 16 * n bytes, equal or disjoint (`InOut`).
    unsafe {
        *acc = match k.size {
            KeySize::Aes128 => crypt_blocks::<W, ENCRYPT, 10>(w, k, hk, ctr, acc, src, dst, 16 * n),
            KeySize::Aes192 => crypt_blocks::<W, ENCRYPT, 12>(w, k, hk, ctr, acc, src, dst, 16 * n),
            KeySize::Aes256 => crypt_blocks::<W, ENCRYPT, 14>(w, k, hk, ctr, acc, src, dst, 16 * n),
        };
    }
    inc32(ctr, n as u32);
}

/// A byte-reversed GHASH state in block byte order.
#[inline(always)]
fn block_order(y: __m128i) -> Block {
    let mut out = [0u8; 16];
    // SAFETY: a 16-byte store into a local; SSSE3 is implied by every
    // token (this inlines into their entry points).
    unsafe { _mm_storeu_si128(out.as_mut_ptr().cast(), _mm_shuffle_epi8(y, bswap_mask())) };
    out
}

/// GHASH of `aad`, then CTR32 from `ctr` over `len` bytes stitched with
/// GHASH of the ciphertext, from the state `acc`, with this width and
/// direction's main step: [`STEP_DEC_ZMM`] registers for zmm decryption
/// (see the notes above), [`STEP`] otherwise. Returns the byte-reversed
/// GHASH state.
///
/// # Safety
/// As [`Pass::crypt`], `aad` readable; `k.rounds() == NR`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn stitched<W: GcmVector, const ENCRYPT: bool, const NR: usize>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &Block,
    acc: &Block,
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> __m128i {
    // SAFETY: `src`/`dst` hold `len` bytes, equal or disjoint, `k` has `NR`
    // rounds, the features are enabled (this function's contract).
    unsafe {
        if !ENCRYPT && W::REGS >= 32 {
            Pass::<W, NR, STEP_DEC_ZMM>::new(w, k, hk, ctr, acc)
                .run::<ENCRYPT>(hk, aad, src, dst, len)
        } else {
            Pass::<W, NR, STEP>::new(w, k, hk, ctr, acc).run::<ENCRYPT>(hk, aad, src, dst, len)
        }
    }
}

/// [`gcm_crypt_body`] for `NR` rounds (unrolled): returns the new GHASH
/// state.
///
/// # Safety
/// As [`Pass::crypt`]; `k.rounds() == NR`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn crypt_blocks<W: GcmVector, const ENCRYPT: bool, const NR: usize>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    ctr: &Block,
    acc: &Block,
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> Block {
    // SAFETY: `src`/`dst` hold `len` bytes, equal or disjoint; no AAD
    // (this function's contract).
    block_order(unsafe { stitched::<W, ENCRYPT, NR>(w, k, hk, ctr, acc, &[], src, dst, len) })
}

/// E_K(J0) on one 128-bit chain (the core overlaps it with what follows).
///
/// # Safety
/// AES-NI must be available (implied by every token).
#[inline(always)]
unsafe fn encrypt_j0<const NR: usize>(k: &X86Aes, j0: __m128i) -> __m128i {
    // SAFETY: every token implies AES-NI and SSE2 (this function's
    // contract).
    unsafe {
        let mut e = _mm_xor_si128(j0, k.enc[0]);
        for r in 1..NR {
            e = _mm_aesenc_si128(e, k.enc[r]);
        }
        _mm_aesenclast_si128(e, k.enc[NR])
    }
}

/// A whole GCM message in one call: GHASH of the AAD, CTR32 from inc32(J0)
/// stitched with GHASH of the ciphertext (a partial last block included),
/// the length block, and the tag `E_K(J0) ^ S`. Returns the full 16-byte
/// tag; the caller truncates and compares.
///
/// # Safety
/// Only from an entry point with the features of `w`.
#[inline(always)]
pub(super) unsafe fn gcm_oneshot_body<W: GcmVector, const ENCRYPT: bool>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    mut io: InOut<'_>,
) -> Block {
    trace::hit(if ENCRYPT { W::KERNELS.0 } else { W::KERNELS.1 });
    let len = io.len();
    let src = io.src_ptr();
    let dst = io.dst_ptr();
    // SAFETY: the buffers hold `len` bytes, equal or disjoint (`InOut`).
    unsafe {
        match k.size {
            KeySize::Aes128 => oneshot_nr::<W, ENCRYPT, 10>(w, k, hk, j0, aad, src, dst, len),
            KeySize::Aes192 => oneshot_nr::<W, ENCRYPT, 12>(w, k, hk, j0, aad, src, dst, len),
            KeySize::Aes256 => oneshot_nr::<W, ENCRYPT, 14>(w, k, hk, j0, aad, src, dst, len),
        }
    }
}

/// [`gcm_oneshot_body`] for `NR` rounds (unrolled).
///
/// # Safety
/// `src`/`dst` valid for `len` bytes (equal or disjoint); `k.rounds() == NR`;
/// only from an entry point with the features of `w`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn oneshot_nr<W: GcmVector, const ENCRYPT: bool, const NR: usize>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> Block {
    if len <= T * W::BYTES && aad.len() <= SMALL_AAD {
        // SAFETY: `src`/`dst` hold `len` bytes, equal or disjoint, `aad`
        // is readable, `k` has `NR` rounds (this function's contract).
        return unsafe { oneshot_small::<W, ENCRYPT, NR>(w, k, hk, j0, aad, src, dst, len) };
    }
    let mut ctr = *j0;
    inc32(&mut ctr, 1);
    // SAFETY: `aad` readable for its length, the buffers for `len` bytes;
    // AES-NI, PCLMULQDQ and SSSE3 are implied by every token.
    unsafe {
        let ekj0 = encrypt_j0::<NR>(k, _mm_loadu_si128(j0.as_ptr().cast()));
        let y = stitched::<W, ENCRYPT, NR>(w, k, hk, &ctr, &[0; 16], aad, src, dst, len);
        let mut last = Wide::zero();
        last.mul_add(
            _mm_xor_si128(y, length_block(aad.len(), len)),
            _mm_loadu_si128(hk.ptr(POWERS - 1).cast()),
        );
        let tag = _mm_xor_si128(_mm_shuffle_epi8(last.reduce(), bswap_mask()), ekj0);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

/// The rounds of [`oneshot_small`]: the first `C` registers of `b` (holding
/// the first round key) and E_K(J0), returned, interleaved. `C` is a
/// constant so that the rounds unroll in round-major order; a loop over a
/// run-time count of registers per round stayed rolled.
#[inline(always)]
fn small_rounds<W: GcmVector, const NR: usize, const C: usize>(
    w: W,
    k: &X86Aes,
    b: &mut [W::V; T],
    j0: __m128i,
) -> __m128i {
    let mut v: [W::V; C] = core::array::from_fn(|j| b[j]);
    // SAFETY: AES-NI is implied by every token.
    let mut e = unsafe { _mm_xor_si128(j0, k.enc[0]) };
    for r in 1..NR {
        let rk = w.broadcast(k.enc[r]);
        for x in v.iter_mut() {
            *x = w.aesenc(*x, rk);
        }
        w.order(&mut v);
        // SAFETY: as above.
        e = unsafe { _mm_aesenc_si128(e, k.enc[r]) };
    }
    let rk = w.broadcast(k.enc[NR]);
    for (x, y) in b.iter_mut().zip(v) {
        *x = w.aesenclast(y, rk);
    }
    // SAFETY: as above.
    unsafe { _mm_aesenclast_si128(e, k.enc[NR]) }
}

/// A short message with a single GHASH reduction: the AAD blocks, the
/// ciphertext blocks and the length block are multiplied by H^t..H^1 and
/// summed, so the only serial work is AES, one round of products and one
/// reduction. E_K(J0) rides along the keystream rounds.
///
/// # Safety
/// Only from an entry point with the features of `w`; `src`/`dst` valid for
/// `len <= T·BYTES` bytes (equal or disjoint), `aad.len() <= SMALL_AAD`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn oneshot_small<W: GcmVector, const ENCRYPT: bool, const NR: usize>(
    w: W,
    k: &X86Aes,
    hk: &X86HKey,
    j0: &Block,
    aad: &[u8],
    src: *const u8,
    dst: *mut u8,
    len: usize,
) -> Block {
    let ab = aad.len().div_ceil(16);
    let db = len.div_ceil(16);
    let base = POWERS - (ab + db + 1);
    let regs = len.div_ceil(W::BYTES);
    // SAFETY: j0/aad/key/buffer accesses are in bounds: masked loads and
    // stores touch only the first `aad.len()` / `len` bytes, power loads
    // only powers base..POWERS; AES-NI, PCLMULQDQ and SSSE3 are implied by
    // every token.
    unsafe {
        let bs128 = bswap_mask();
        let bs = w.broadcast(bs128);
        let jv = _mm_loadu_si128(j0.as_ptr().cast());
        // Counters inc32(J0) + l for lane l of register q.
        let one = w.set_u64x2(0, 1);
        let mut c = w.add32(
            w.add32(w.broadcast(_mm_shuffle_epi8(jv, bs128)), w.lane_index()),
            one,
        );
        let inc = w.set_u64x2(0, W::BLOCKS as u64);
        let rk0 = w.broadcast(k.enc[0]);
        let mut b = [w.zero(); T];
        for v in b.iter_mut() {
            *v = w.xor(w.shuffle_bytes(c, bs), rk0);
            c = w.add32(c, inc);
        }
        let e = match regs {
            1 => small_rounds::<W, NR, 1>(w, k, &mut b, jv),
            2 => small_rounds::<W, NR, 2>(w, k, &mut b, jv),
            3 => small_rounds::<W, NR, 3>(w, k, &mut b, jv),
            _ => small_rounds::<W, NR, T>(w, k, &mut b, jv),
        };

        let mut acc = Acc::zero(w);
        for q in 0..ab.div_ceil(W::BLOCKS) {
            let n = (aad.len() - W::BYTES * q).min(W::BYTES);
            let x = load_part(w, aad.as_ptr().add(W::BYTES * q), n);
            let blocks = (ab - W::BLOCKS * q).min(W::BLOCKS);
            let pw = w.load_blocks(hk.ptr(base + W::BLOCKS * q), blocks);
            acc.mul_add(w, w.shuffle_bytes(x, bs), pw);
        }
        for (q, ks) in b.iter().enumerate().take(regs) {
            let n = (len - W::BYTES * q).min(W::BYTES);
            let data = load_part(w, src.add(W::BYTES * q), n);
            let out = w.keep_bytes(w.xor(*ks, data), n);
            store_part(w, dst.add(W::BYTES * q), out, n);
            let x = w.shuffle_bytes(if ENCRYPT { out } else { data }, bs);
            let blocks = (db - W::BLOCKS * q).min(W::BLOCKS);
            let pw = w.load_blocks(hk.ptr(base + ab + W::BLOCKS * q), blocks);
            acc.mul_add(w, x, pw);
        }
        let h1 = _mm_loadu_si128(hk.ptr(POWERS - 1).cast());
        acc.mul_add(w, w.zext(length_block(aad.len(), len)), w.zext(h1));
        let tag = _mm_xor_si128(_mm_shuffle_epi8(acc.reduce(w), bs128), e);
        let mut out = [0u8; 16];
        _mm_storeu_si128(out.as_mut_ptr().cast(), tag);
        out
    }
}

vaes_entries! {
    pub(super) fn ghash_update_256 / ghash_update_512 <>
        (k: &X86Aes, hk: &X86HKey, acc: &mut Block, data: &[u8]) = ghash_update_body;
}

vaes_entries! {
    pub(super) fn gcm_crypt_256 / gcm_crypt_512 <const ENCRYPT: bool>
        (k: &X86Aes, hk: &X86HKey, ctr: &mut Block, acc: &mut Block, io: InOut<'_>)
        = gcm_crypt_body;
}

vaes_entries! {
    pub(super) fn gcm_oneshot_256 / gcm_oneshot_512 <const ENCRYPT: bool>
        (k: &X86Aes, hk: &X86HKey, j0: &Block, aad: &[u8], io: InOut<'_>) -> Block
        = gcm_oneshot_body;
}
