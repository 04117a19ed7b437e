//! GHASH's field product in constant time, on plain integers: the
//! carry-less 64x64 product by integer multiplications of operands whose
//! set bits are spaced five apart ("holes"), so that the carries of an
//! integer product never reach the next bit kept (the idea of BearSSL's
//! ghash_ctmul64, arranged differently here), H times y for the
//! Montgomery-style reduction of [`gf128`](super::gf128), and x·H^m.
//!
//! The soft backend's GHASH (`soft/gcm.rs`) is built on it, and so is the
//! combining step of every backend's split calls (the GHASH and POLYVAL
//! sums of segments hashed on other threads: `modes/parallel.rs` and
//! [`SivKernels::times_h_pow`](super::siv::SivKernels::times_h_pow)), which
//! is why it lives with the contract and not in a family.

use zeroize::Zeroizing;

use super::gf128;
use crate::key::Block;

/// Bits at positions `i` with `i % 5 == r`, over the 128-bit product.
const fn mask128(r: u32) -> u128 {
    let mut m = 0u128;
    let mut i = r;
    while i < 128 {
        m |= 1 << i;
        i += 5;
    }
    m
}

/// The same masks for the 64-bit operands: the low half of each.
const fn mask64(r: u32) -> u64 {
    mask128(r) as u64
}

const M64: [u64; 5] = [mask64(0), mask64(1), mask64(2), mask64(3), mask64(4)];
const M128: [u128; 5] = [mask128(0), mask128(1), mask128(2), mask128(3), mask128(4)];

/// Carry-less 64x64 -> 128-bit product from 25 integer multiplications.
///
/// Splitting each operand into five classes of bits spaced five apart, each
/// integer product of two classes has at most 13 terms per output column, so
/// a column's count fits in 5 bits and never spills into the next column of
/// the same class; bit `k` of the product is then the parity of column `k`,
/// which is exactly the carry-less result.
#[inline]
pub(crate) fn clmul64(x: u64, y: u64) -> u128 {
    let xs = [x & M64[0], x & M64[1], x & M64[2], x & M64[3], x & M64[4]];
    let ys = [
        (y & M64[0]) as u128,
        (y & M64[1]) as u128,
        (y & M64[2]) as u128,
        (y & M64[3]) as u128,
        (y & M64[4]) as u128,
    ];
    let mut z = [0u128; 5];
    for (i, &xi) in xs.iter().enumerate() {
        let xi = xi as u128;
        for (j, &yj) in ys.iter().enumerate() {
            z[(i + j) % 5] ^= xi * yj;
        }
    }
    (z[0] & M128[0]) | (z[1] & M128[1]) | (z[2] & M128[2]) | (z[3] & M128[3]) | (z[4] & M128[4])
}

/// `h`·y: shift left one bit; a bit shifted out at y^128 comes back as
/// g'(y) - y^128 = y^127 + y^126 + y^121 + 1 (computed with a mask, not a
/// branch, since H is secret). A product by the result under one
/// Montgomery-style reduction is the GHASH product by `h`.
#[inline]
pub(crate) fn times_y(h: u128) -> u128 {
    const POLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;
    (h << 1) ^ (POLY & 0u128.wrapping_sub(h >> 127))
}

/// `x`·`h`^`m` in GHASH's field, both blocks in SP 800-38D's byte order:
/// how a GHASH state X carried over `m` more blocks of which another thread
/// hashed the sum S (from zero) becomes X·H^m ^ S. Square-and-multiply
/// over the bits of `m` (public: a length), constant time in `x` and `h`
/// (the multiplications are this module's, and no branch or index depends
/// on the blocks). About 2·log2(m) products; `m` = 0 gives `x`.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) fn ghash_mul_pow(x: &Block, h: &Block, m: u64) -> Block {
    /// The field's one: the coefficient of x^0 is the first bit.
    const ONE: u128 = 1 << 127;
    let hy = Zeroizing::new(times_y(u128::from_be_bytes(*h)));
    let mut p = Zeroizing::new(ONE);
    for bit in (0..64 - m.leading_zeros()).rev() {
        *p = gf128::mul(*p, times_y(*p), clmul64);
        if (m >> bit) & 1 == 1 {
            *p = gf128::mul(*p, *hy, clmul64);
        }
    }
    gf128::mul(u128::from_be_bytes(*x), times_y(*p), clmul64).to_be_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Carry-less product the slow, obvious way.
    fn clmul_ref(x: u64, y: u64) -> u128 {
        let mut r = 0u128;
        for i in 0..64 {
            if (y >> i) & 1 == 1 {
                r ^= (x as u128) << i;
            }
        }
        r
    }

    #[test]
    fn clmul64_matches_reference() {
        gf128::check_clmul64(clmul64, clmul_ref, 2000);
        assert_eq!(clmul64(u64::MAX, u64::MAX), clmul_ref(u64::MAX, u64::MAX));
    }
}
