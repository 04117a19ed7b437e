//! [`Rows`]: one bit plane of all four state rows, the word the rounds work
//! on.
//!
//! Lane `r` (a `u64`) holds bit `i` of the bytes of row `r`; inside a lane,
//! bit `16 * c + s` is column `c` of the block in slot `s`. Keeping the four
//! rows of a plane side by side makes every step a whole-word operation: the
//! S-box is one circuit on eight of these, MixColumns mixes rows by permuting
//! lanes, and ShiftRows rotates each lane by its own fixed amount.
//!
//! On x86-64 a word is two SSE2 registers (SSE2 is part of the x86-64
//! baseline, so the intrinsics are safe to call); elsewhere it is four
//! `u64`s. Either way the operations are fixed sequences of logic, shuffle
//! and rotate instructions that never look at the data.

use core::ops::{BitAnd, BitXor, BitXorAssign, Not};

#[cfg(target_arch = "x86_64")]
pub(super) use self::sse2::Rows;

#[cfg(not(target_arch = "x86_64"))]
pub(super) use self::portable::Rows;

impl BitXorAssign for Rows {
    #[inline(always)]
    fn bitxor_assign(&mut self, o: Rows) {
        *self = *self ^ o;
    }
}

impl Default for Rows {
    #[inline(always)]
    fn default() -> Rows {
        Rows::from_lanes([0; 4])
    }
}

// Zeroize by a volatile write of the all-zero default.
impl zeroize::DefaultIsZeroes for Rows {}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use core::arch::x86_64::*;

    use super::{BitAnd, BitXor, Not};

    /// Lanes 0 and 1 in the first register, 2 and 3 in the second.
    #[derive(Clone, Copy)]
    pub(crate) struct Rows(__m128i, __m128i);

    impl Rows {
        #[inline(always)]
        pub(crate) fn from_lanes(a: [u64; 4]) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe {
                Rows(
                    _mm_set_epi64x(a[1] as i64, a[0] as i64),
                    _mm_set_epi64x(a[3] as i64, a[2] as i64),
                )
            }
        }

        #[inline(always)]
        pub(crate) fn to_lanes(self) -> [u64; 4] {
            let lane = |v: __m128i| {
                // SAFETY: SSE2 is part of the x86-64 baseline.
                unsafe {
                    (
                        _mm_cvtsi128_si64(v) as u64,
                        _mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v)) as u64,
                    )
                }
            };
            let (a0, a1) = lane(self.0);
            let (a2, a3) = lane(self.1);
            [a0, a1, a2, a3]
        }

        /// Row `r` takes row `r + 1` (mod 4).
        #[inline(always)]
        pub(crate) fn rotate_rows_1(self) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe {
                let (lo, hi) = (_mm_castsi128_pd(self.0), _mm_castsi128_pd(self.1));
                // shufpd 1: [first[1], second[0]].
                Rows(
                    _mm_castpd_si128(_mm_shuffle_pd::<1>(lo, hi)),
                    _mm_castpd_si128(_mm_shuffle_pd::<1>(hi, lo)),
                )
            }
        }

        /// Row `r` takes row `r + 2` (mod 4): swap the registers.
        #[inline(always)]
        pub(crate) fn rotate_rows_2(self) -> Rows {
            Rows(self.1, self.0)
        }

        /// Lane `r` rotated right by `16 r` bits, i.e. its 16-bit groups
        /// (the columns) moved down by `r`: word shuffles `0x39` (by one),
        /// `0x4e` (by two) and `0x93` (by three).
        #[inline(always)]
        pub(crate) fn shift_rows(self) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe {
                Rows(
                    _mm_shufflehi_epi16::<0x39>(self.0),
                    _mm_shufflehi_epi16::<0x93>(_mm_shufflelo_epi16::<0x4e>(self.1)),
                )
            }
        }

        /// Lane `r` rotated left by `16 r` bits.
        #[inline(always)]
        pub(crate) fn inv_shift_rows(self) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe {
                Rows(
                    _mm_shufflehi_epi16::<0x93>(self.0),
                    _mm_shufflehi_epi16::<0x39>(_mm_shufflelo_epi16::<0x4e>(self.1)),
                )
            }
        }
    }

    impl BitXor for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitxor(self, o: Rows) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe { Rows(_mm_xor_si128(self.0, o.0), _mm_xor_si128(self.1, o.1)) }
        }
    }

    impl BitAnd for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitand(self, o: Rows) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe { Rows(_mm_and_si128(self.0, o.0), _mm_and_si128(self.1, o.1)) }
        }
    }

    impl Not for Rows {
        type Output = Rows;
        #[inline(always)]
        fn not(self) -> Rows {
            // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64
            // CPU has it and the compiler already assumes it.
            unsafe {
                let ones = _mm_set1_epi64x(-1);
                Rows(_mm_xor_si128(self.0, ones), _mm_xor_si128(self.1, ones))
            }
        }
    }
}

/// The plain-integer words: the implementation off x86-64, and the
/// reference the SSE2 one is tested against.
#[cfg(any(not(target_arch = "x86_64"), test))]
mod portable {
    use super::{BitAnd, BitXor, Not};

    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    pub(crate) struct Rows([u64; 4]);

    impl Rows {
        #[inline(always)]
        pub(crate) fn from_lanes(a: [u64; 4]) -> Rows {
            Rows(a)
        }

        #[inline(always)]
        pub(crate) fn to_lanes(self) -> [u64; 4] {
            self.0
        }

        #[inline(always)]
        pub(crate) fn rotate_rows_1(self) -> Rows {
            let a = self.0;
            Rows([a[1], a[2], a[3], a[0]])
        }

        #[inline(always)]
        pub(crate) fn rotate_rows_2(self) -> Rows {
            let a = self.0;
            Rows([a[2], a[3], a[0], a[1]])
        }

        #[inline(always)]
        pub(crate) fn shift_rows(self) -> Rows {
            let a = self.0;
            Rows([
                a[0],
                a[1].rotate_right(16),
                a[2].rotate_right(32),
                a[3].rotate_right(48),
            ])
        }

        #[inline(always)]
        pub(crate) fn inv_shift_rows(self) -> Rows {
            let a = self.0;
            Rows([
                a[0],
                a[1].rotate_left(16),
                a[2].rotate_left(32),
                a[3].rotate_left(48),
            ])
        }
    }

    impl BitXor for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitxor(self, o: Rows) -> Rows {
            Rows([
                self.0[0] ^ o.0[0],
                self.0[1] ^ o.0[1],
                self.0[2] ^ o.0[2],
                self.0[3] ^ o.0[3],
            ])
        }
    }

    impl BitAnd for Rows {
        type Output = Rows;
        #[inline(always)]
        fn bitand(self, o: Rows) -> Rows {
            Rows([
                self.0[0] & o.0[0],
                self.0[1] & o.0[1],
                self.0[2] & o.0[2],
                self.0[3] & o.0[3],
            ])
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

#[cfg(test)]
mod tests {
    use super::portable::Rows as Reference;
    use super::Rows;

    fn sample(seed: u64) -> [u64; 4] {
        let mut x = seed;
        core::array::from_fn(|_| {
            x = x.wrapping_mul(0x9e37_79b9_7f4a_7c15).wrapping_add(0x1234_5678_9abc_def1);
            x ^ (x >> 29)
        })
    }

    /// Every operation of the words in use against the plain-integer ones.
    #[test]
    fn matches_reference() {
        for seed in 0..64 {
            let (a, b) = (sample(seed), sample(seed + 1000));
            let (x, y) = (Rows::from_lanes(a), Rows::from_lanes(b));
            let (rx, ry) = (Reference::from_lanes(a), Reference::from_lanes(b));
            assert_eq!(x.to_lanes(), a);
            assert_eq!((x ^ y).to_lanes(), (rx ^ ry).to_lanes());
            assert_eq!((x & y).to_lanes(), (rx & ry).to_lanes());
            assert_eq!((!x).to_lanes(), (!rx).to_lanes());
            assert_eq!(x.rotate_rows_1().to_lanes(), rx.rotate_rows_1().to_lanes());
            assert_eq!(x.rotate_rows_2().to_lanes(), rx.rotate_rows_2().to_lanes());
            assert_eq!(x.shift_rows().to_lanes(), rx.shift_rows().to_lanes());
            assert_eq!(x.inv_shift_rows().to_lanes(), rx.inv_shift_rows().to_lanes());
        }
    }
}
