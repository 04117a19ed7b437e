//! Constant-time portable POLYVAL (RFC 8452 section 3).
//!
//! No table is indexed by secret data and no branch depends on it. Carry-less
//! products come from integer multiplications of 32-bit operands whose set
//! bits are four apart: a product of two such classes has at most eight terms
//! per kept column, a count that fits below the next kept column, so each
//! kept bit is that column's parity (the idea of BearSSL's ctmul32). Blocks
//! are little-endian `u128`s: POLYVAL's own field layout, so no bit reversal
//! is needed, and dot(a, b) = a·b·x^-128 is a Montgomery reduction.

use crate::backend::kernels::gf128::{self, Powers};
use crate::key::Block;

/// H^1..H^4 in the Montgomery domain (see [`Powers`]).
#[derive(Clone)]
pub(crate) struct SoftPolyvalKey {
    pow: Powers,
}

const CLASS: [u32; 4] = [0x1111_1111, 0x2222_2222, 0x4444_4444, 0x8888_8888];
const CLASS64: [u64; 4] = [
    0x1111_1111_1111_1111,
    0x2222_2222_2222_2222,
    0x4444_4444_4444_4444,
    0x8888_8888_8888_8888,
];

/// Carry-less 32x32 -> 64-bit product from 16 integer multiplications.
#[inline]
fn clmul32(x: u32, y: u32) -> u64 {
    let xs = CLASS.map(|m| (x & m) as u64);
    let ys = CLASS.map(|m| (y & m) as u64);
    let mut out = 0u64;
    for (r, &keep) in CLASS64.iter().enumerate() {
        let mut z = 0u64;
        for (i, &xi) in xs.iter().enumerate() {
            z ^= xi * ys[(r + 4 - i) % 4];
        }
        out |= z & keep;
    }
    out
}

/// Carry-less 64x64 -> 128-bit product (Karatsuba over 32-bit halves).
#[inline]
fn clmul64(a: u64, b: u64) -> u128 {
    let (a0, a1) = (a as u32, (a >> 32) as u32);
    let (b0, b1) = (b as u32, (b >> 32) as u32);
    let lo = clmul32(a0, b0);
    let hi = clmul32(a1, b1);
    let mid = clmul32(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    lo as u128 ^ ((mid as u128) << 32) ^ ((hi as u128) << 64)
}

impl SoftPolyvalKey {
    pub(crate) fn new(h: &Block) -> Self {
        // dot(x, pow[i]) = x·H^(i+1)·x^(-128(i+1)): what i + 1 chained dot
        // products by H give.
        SoftPolyvalKey {
            pow: gf128::powers(u128::from_le_bytes(*h), clmul64),
        }
    }

    /// S = dot(S ^ X, H) over the whole blocks of `data`.
    pub(crate) fn update(&self, acc: &mut Block, data: &[u8]) {
        let s = u128::from_le_bytes(*acc);
        *acc = gf128::absorb(s, &self.pow, data, u128::from_le_bytes, clmul64).to_le_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bit k of the carry-less product is the parity of the pairs (i, k - i)
    /// with both bits set: the definition, one output bit at a time.
    fn clmul_by_definition(x: u64, y: u64) -> u128 {
        (0..127u32).fold(0u128, |acc, k| {
            let pairs = (0..=k.min(63))
                .filter(|&i| k - i < 64 && (x >> i) & 1 == 1 && (y >> (k - i)) & 1 == 1)
                .count();
            acc | (((pairs & 1) as u128) << k)
        })
    }

    #[test]
    fn clmul64_is_carryless() {
        gf128::check_clmul64(clmul64, clmul_by_definition, 300);
        for (a, b) in [
            (u64::MAX, u64::MAX),
            (1, u64::MAX),
            (0x8000_0000_0000_0000, 3),
        ] {
            assert_eq!(clmul64(a, b), clmul_by_definition(a, b));
        }
    }

    /// RFC 8452 Appendix A: POLYVAL(H, X1, X2).
    #[test]
    fn rfc8452_appendix_a() {
        let h: Block = hex16("25629347589242761d31f826ba4b757b");
        let x1 = hex16("4f4f95668c83dfb6401762bb2d01a262");
        let x2 = hex16("d1a24ddd2721d006bbe45f20d3c9f362");
        let k = SoftPolyvalKey::new(&h);
        let mut acc = [0u8; 16];
        let mut data = [0u8; 32];
        data[..16].copy_from_slice(&x1);
        data[16..].copy_from_slice(&x2);
        k.update(&mut acc, &data);
        assert_eq!(acc, hex16("f7a3b47b846119fae5b7866cf5e5b77e"));
    }

    fn hex16(s: &str) -> Block {
        let mut b = [0u8; 16];
        for i in 0..16 {
            b[i] = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
        }
        b
    }
}
