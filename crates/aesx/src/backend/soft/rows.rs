//! The words the rounds work on: one bit plane of all four state rows.
//!
//! Lane `r` (64 bits) of plane `i` holds bit `i` of the bytes of row `r`;
//! inside a lane, bit `16 * c + s` is column `c` of the block in slot `s`.
//! Keeping the four rows of a plane side by side makes every step a
//! whole-word operation: the S-box is one circuit on eight words, MixColumns
//! mixes rows by permuting lanes, and ShiftRows rotates each lane by its own
//! fixed amount.
//!
//! [`Plane`] is the storage form (state between steps, round keys). The
//! [`Word`] implementations are register forms of it: two SSE2 registers
//! (x86-64 baseline), one AVX2 register (x86-64 CPUs that have it), or four
//! `u64`s elsewhere. All operations are fixed sequences of logic, shuffle and
//! rotate instructions that never look at the data.

use super::sbox::Lanes;

/// Four 64-bit lanes in memory, aligned for one 256-bit load.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
#[repr(C, align(32))]
pub(super) struct Plane(pub(super) [u64; 4]);

// Zeroize by a volatile write of the all-zero default.
impl zeroize::DefaultIsZeroes for Plane {}

/// A plane in registers.
///
/// Making a word needs a `Cpu` value: `()` for the baseline words, the
/// AVX2 token for the AVX2 word. Every word carries its proof along
/// ([`Word::cpu`]), so a word in hand is itself the proof that its methods
/// may run, and only detection can start the chain.
pub(super) trait Word: Lanes {
    /// The proof a word of this type is made with.
    type Cpu: Copy;
    /// The proof this word was made with.
    fn cpu(self) -> Self::Cpu;
    fn load(cpu: Self::Cpu, p: &Plane) -> Self;
    fn store(self) -> Plane;
    /// Row `r` takes row `r + 1` (mod 4): the row mixing of MixColumns.
    fn rotate_rows_1(self) -> Self;
    /// Row `r` takes row `r + 2` (mod 4).
    fn rotate_rows_2(self) -> Self;
    /// ShiftRows: row `r` moves `r` columns left, so column `c` takes
    /// column `c + r`; with columns in 16-bit groups that is a rotation
    /// right by `16 r` of lane `r`.
    fn shift_rows(self) -> Self;
    /// The inverse of [`Word::shift_rows`].
    fn inv_shift_rows(self) -> Self;
    /// Every lane shifted right (or left) by `N` bits; for the transpose.
    fn shr<const N: i32>(self) -> Self;
    fn shl<const N: i32>(self) -> Self;
    /// `x` in every lane.
    fn splat(cpu: Self::Cpu, x: u64) -> Self;
}

/// The plain-integer words: the implementation off x86-64, and the
/// reference the vector ones are tested against.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
pub(super) mod portable {
    use super::{Plane, Word};
    use core::ops::{BitAnd, BitXor, Not};

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Rows([u64; 4]);

    impl Word for Rows {
        type Cpu = ();

        #[inline(always)]
        fn cpu(self) {}

        #[inline(always)]
        fn load(_: (), p: &Plane) -> Rows {
            Rows(p.0)
        }

        #[inline(always)]
        fn store(self) -> Plane {
            Plane(self.0)
        }

        #[inline(always)]
        fn rotate_rows_1(self) -> Rows {
            let a = self.0;
            Rows([a[1], a[2], a[3], a[0]])
        }

        #[inline(always)]
        fn rotate_rows_2(self) -> Rows {
            let a = self.0;
            Rows([a[2], a[3], a[0], a[1]])
        }

        #[inline(always)]
        fn shift_rows(self) -> Rows {
            Rows(core::array::from_fn(|r| {
                self.0[r].rotate_right(16 * r as u32)
            }))
        }

        #[inline(always)]
        fn inv_shift_rows(self) -> Rows {
            Rows(core::array::from_fn(|r| {
                self.0[r].rotate_left(16 * r as u32)
            }))
        }

        #[inline(always)]
        fn shr<const N: i32>(self) -> Rows {
            Rows(self.0.map(|x| x >> N))
        }

        #[inline(always)]
        fn shl<const N: i32>(self) -> Rows {
            Rows(self.0.map(|x| x << N))
        }

        #[inline(always)]
        fn splat(_: (), x: u64) -> Rows {
            Rows([x; 4])
        }
    }

    impl BitXor for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitxor(self, o: Rows) -> Rows {
            Rows(core::array::from_fn(|r| self.0[r] ^ o.0[r]))
        }
    }

    impl BitAnd for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitand(self, o: Rows) -> Rows {
            Rows(core::array::from_fn(|r| self.0[r] & o.0[r]))
        }
    }

    impl Not for Rows {
        type Output = Rows;
        #[inline(always)]
        fn not(self) -> Rows {
            Rows(self.0.map(|x| !x))
        }
    }
}

/// Two SSE2 registers: lanes 0 and 1, then lanes 2 and 3.
#[cfg(target_arch = "x86_64")]
pub(super) mod sse2 {
    use super::{Plane, Word};
    use core::arch::x86_64::*;
    use core::ops::{BitAnd, BitXor, Not};

    #[derive(Clone, Copy)]
    pub(crate) struct Rows(__m128i, __m128i);

    // Every `unsafe` below calls SSE2 intrinsics (and, in load and store,
    // touches memory): SSE2 is part of the x86-64 baseline, so every x86-64
    // CPU runs them and the compiler already assumes it.
    impl Word for Rows {
        // SSE2 needs no proof: it is part of the x86-64 baseline.
        type Cpu = ();

        #[inline(always)]
        fn cpu(self) {}

        #[inline(always)]
        fn load(_: (), p: &Plane) -> Rows {
            let ptr = p.0.as_ptr() as *const __m128i;
            // SAFETY: SSE2 is baseline; `p` is a live 32-byte `Plane`, so
            // both unaligned 16-byte reads are in bounds.
            unsafe { Rows(_mm_loadu_si128(ptr), _mm_loadu_si128(ptr.add(1))) }
        }

        #[inline(always)]
        fn store(self) -> Plane {
            let mut p = Plane::default();
            let ptr = p.0.as_mut_ptr() as *mut __m128i;
            // SAFETY: SSE2 is baseline; `p` is a local 32-byte `Plane`, so
            // both unaligned 16-byte writes are in bounds.
            unsafe {
                _mm_storeu_si128(ptr, self.0);
                _mm_storeu_si128(ptr.add(1), self.1);
            }
            p
        }

        #[inline(always)]
        fn rotate_rows_1(self) -> Rows {
            // SAFETY: SSE2 is baseline. shufpd 1 picks [first[1], second[0]].
            unsafe {
                let (lo, hi) = (_mm_castsi128_pd(self.0), _mm_castsi128_pd(self.1));
                Rows(
                    _mm_castpd_si128(_mm_shuffle_pd::<1>(lo, hi)),
                    _mm_castpd_si128(_mm_shuffle_pd::<1>(hi, lo)),
                )
            }
        }

        #[inline(always)]
        fn rotate_rows_2(self) -> Rows {
            Rows(self.1, self.0)
        }

        /// 16-bit word shuffles inside each lane: `0x39` moves the words
        /// down by one (rotate right 16), `0x4e` by two, `0x93` by three.
        #[inline(always)]
        fn shift_rows(self) -> Rows {
            self.rotate_words::<0x39, 0x93>()
        }

        #[inline(always)]
        fn inv_shift_rows(self) -> Rows {
            self.rotate_words::<0x93, 0x39>()
        }

        #[inline(always)]
        fn shr<const N: i32>(self) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe { Rows(_mm_srli_epi64::<N>(self.0), _mm_srli_epi64::<N>(self.1)) }
        }

        #[inline(always)]
        fn shl<const N: i32>(self) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe { Rows(_mm_slli_epi64::<N>(self.0), _mm_slli_epi64::<N>(self.1)) }
        }

        #[inline(always)]
        fn splat(_: (), x: u64) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe { Rows(_mm_set1_epi64x(x as i64), _mm_set1_epi64x(x as i64)) }
        }
    }

    impl Rows {
        /// Lane 0 as it is, lanes 1 and 3 with their 16-bit words shuffled
        /// by `ROW1` and `ROW3`, lane 2 by `0x4e` (rotated by 32 bits, the
        /// same both ways): ShiftRows and its inverse differ only in the
        /// direction of the odd rows.
        #[inline(always)]
        fn rotate_words<const ROW1: i32, const ROW3: i32>(self) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe {
                Rows(
                    _mm_shufflehi_epi16::<ROW1>(self.0),
                    _mm_shufflehi_epi16::<ROW3>(_mm_shufflelo_epi16::<0x4e>(self.1)),
                )
            }
        }
    }

    impl BitXor for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitxor(self, o: Rows) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe { Rows(_mm_xor_si128(self.0, o.0), _mm_xor_si128(self.1, o.1)) }
        }
    }

    impl BitAnd for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitand(self, o: Rows) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe { Rows(_mm_and_si128(self.0, o.0), _mm_and_si128(self.1, o.1)) }
        }
    }

    impl Not for Rows {
        type Output = Rows;
        #[inline(always)]
        fn not(self) -> Rows {
            // SAFETY: SSE2 is baseline.
            unsafe {
                let ones = _mm_set1_epi64x(-1);
                Rows(_mm_xor_si128(self.0, ones), _mm_xor_si128(self.1, ones))
            }
        }
    }
}

/// One AVX2 register, with the AVX2 token beside it.
///
/// A word can only be made from the token ([`Word::load`], [`Word::splat`]
/// take it; every other method takes a word that already has it), and only
/// detection makes the token, so every AVX2 instruction below runs on a CPU
/// that has AVX2. For speed the methods are `#[inline(always)]`, so that
/// they and their intrinsics are compiled into `batch_avx2` in the parent
/// module, which enables AVX2 for the whole batch.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(super) mod avx2 {
    use super::{Plane, Word};
    use crate::backend::kernels::cpu::Avx2;
    use core::arch::x86_64::*;
    use core::ops::{BitAnd, BitXor, Not};

    #[derive(Clone, Copy)]
    pub(crate) struct Rows(__m256i, Avx2);

    /// `vpshufb` control rotating the 64-bit lane `r` of a 256-bit register
    /// right by `16 r` bits (or left, when `left`), as four lane constants.
    const fn rotation_control(left: bool) -> [i64; 4] {
        let mut out = [0i64; 4];
        let mut r = 0;
        while r < 4 {
            // Byte j of the lane takes byte j + 2r (mod 8) of the same lane;
            // vpshufb indexes within each 128-bit half, where this lane is
            // qword r & 1.
            let shift = (if left { 8 - 2 * r } else { 2 * r }) % 8;
            let mut lane = 0u64;
            let mut j = 0;
            while j < 8 {
                let src = 8 * (r & 1) + (j + shift) % 8;
                lane |= (src as u64) << (8 * j);
                j += 1;
            }
            out[r] = lane as i64;
            r += 1;
        }
        out
    }

    const SHIFT_ROWS: [i64; 4] = rotation_control(false);
    const INV_SHIFT_ROWS: [i64; 4] = rotation_control(true);

    // Every `unsafe` below calls AVX2 (or AVX) intrinsics with an AVX2
    // token in hand: the `cpu` argument, or the one inside `self` (see
    // above).
    impl Word for Rows {
        type Cpu = Avx2;

        #[inline(always)]
        fn cpu(self) -> Avx2 {
            self.1
        }

        #[inline(always)]
        fn load(cpu: Avx2, p: &Plane) -> Rows {
            // SAFETY: `cpu` proves AVX2; `p` is a live 32-byte `Plane`, so
            // the unaligned 32-byte read is in bounds.
            unsafe { Rows(_mm256_loadu_si256(p.0.as_ptr() as *const __m256i), cpu) }
        }

        #[inline(always)]
        fn store(self) -> Plane {
            let mut p = Plane::default();
            // SAFETY: `self.1` proves AVX2; `p` is a local 32-byte `Plane`.
            unsafe { _mm256_storeu_si256(p.0.as_mut_ptr() as *mut __m256i, self.0) };
            p
        }

        #[inline(always)]
        fn rotate_rows_1(self) -> Rows {
            // SAFETY: `self.1` proves AVX2. Lane j takes lane j + 1: 1,2,3,0.
            unsafe { Rows(_mm256_permute4x64_epi64::<0x39>(self.0), self.1) }
        }

        #[inline(always)]
        fn rotate_rows_2(self) -> Rows {
            // SAFETY: `self.1` proves AVX2. Lane j takes lane j + 2: 2,3,0,1.
            unsafe { Rows(_mm256_permute4x64_epi64::<0x4e>(self.0), self.1) }
        }

        #[inline(always)]
        fn shift_rows(self) -> Rows {
            self.shuffle_bytes(SHIFT_ROWS)
        }

        #[inline(always)]
        fn inv_shift_rows(self) -> Rows {
            self.shuffle_bytes(INV_SHIFT_ROWS)
        }

        #[inline(always)]
        fn shr<const N: i32>(self) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe { Rows(_mm256_srli_epi64::<N>(self.0), self.1) }
        }

        #[inline(always)]
        fn shl<const N: i32>(self) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe { Rows(_mm256_slli_epi64::<N>(self.0), self.1) }
        }

        #[inline(always)]
        fn splat(cpu: Avx2, x: u64) -> Rows {
            // SAFETY: `cpu` proves AVX2 (and so AVX).
            unsafe { Rows(_mm256_set1_epi64x(x as i64), cpu) }
        }
    }

    impl Rows {
        /// `vpshufb` by the control `c` (lane constants, lane 0 first).
        #[inline(always)]
        fn shuffle_bytes(self, c: [i64; 4]) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe {
                let ctl = _mm256_set_epi64x(c[3], c[2], c[1], c[0]);
                Rows(_mm256_shuffle_epi8(self.0, ctl), self.1)
            }
        }
    }

    impl BitXor for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitxor(self, o: Rows) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe { Rows(_mm256_xor_si256(self.0, o.0), self.1) }
        }
    }

    impl BitAnd for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitand(self, o: Rows) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe { Rows(_mm256_and_si256(self.0, o.0), self.1) }
        }
    }

    impl Not for Rows {
        type Output = Rows;
        #[inline(always)]
        fn not(self) -> Rows {
            // SAFETY: `self.1` proves AVX2.
            unsafe { Rows(_mm256_xor_si256(self.0, _mm256_set1_epi64x(-1)), self.1) }
        }
    }
}

// The SIMD words under test exist only on x86-64; elsewhere the portable
// words are the reference itself.
#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::portable::Rows as Reference;
    use super::{Plane, Word};

    fn sample(seed: u64) -> Plane {
        let mut x = seed;
        Plane(core::array::from_fn(|_| {
            x = x
                .wrapping_mul(0x9e37_79b9_7f4a_7c15)
                .wrapping_add(0x1234_5678_9abc_def1);
            x ^ (x >> 29)
        }))
    }

    /// Every operation of `W` against the plain-integer words.
    fn matches_reference<W: Word>(cpu: W::Cpu) {
        for seed in 0..64 {
            let (a, b) = (sample(seed), sample(seed + 1000));
            let (x, y) = (W::load(cpu, &a), W::load(cpu, &b));
            let (rx, ry) = (Reference::load((), &a), Reference::load((), &b));
            assert_eq!(x.store(), a);
            assert_eq!((x ^ y).store(), (rx ^ ry).store());
            assert_eq!((x & y).store(), (rx & ry).store());
            assert_eq!((!x).store(), (!rx).store());
            assert_eq!(x.rotate_rows_1().store(), rx.rotate_rows_1().store());
            assert_eq!(x.rotate_rows_2().store(), rx.rotate_rows_2().store());
            assert_eq!(x.shift_rows().store(), rx.shift_rows().store());
            assert_eq!(x.inv_shift_rows().store(), rx.inv_shift_rows().store());
            assert_eq!(x.shr::<5>().store(), rx.shr::<5>().store());
            assert_eq!(x.shl::<5>().store(), rx.shl::<5>().store());
            assert_eq!(
                W::splat(cpu, a.0[1]).store(),
                Reference::splat((), a.0[1]).store()
            );
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn sse2_matches_reference() {
        matches_reference::<super::sse2::Rows>(());
    }

    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    #[test]
    fn avx2_matches_reference() {
        let Some(cpu) = crate::backend::kernels::cpu::features().avx2 else {
            return;
        };
        #[target_feature(enable = "avx2")]
        fn run(cpu: crate::backend::kernels::cpu::Avx2) {
            matches_reference::<super::avx2::Rows>(cpu);
        }
        // SAFETY: `cpu` is detection's AVX2 token.
        unsafe { run(cpu) }
    }
}
