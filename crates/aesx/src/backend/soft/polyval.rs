//! Constant-time portable POLYVAL (RFC 8452 section 3).
//!
//! No table is indexed by secret data and no branch depends on it. Carry-less
//! products come from integer multiplications of 32-bit operands whose set
//! bits are four apart: a product of two such classes has at most eight terms
//! per kept column, a count that fits below the next kept column, so each
//! kept bit is that column's parity (the idea of BearSSL's ctmul32). Blocks
//! are little-endian `u128`s: POLYVAL's own field layout, so no bit reversal
//! is needed, and dot(a, b) = a·b·x^-128 is a Montgomery reduction.

use zeroize::Zeroize;

use crate::key::{Block, BLOCK_LEN};

/// Powers of H kept: blocks per reduction.
pub(crate) const POWERS: usize = 4;

/// H^1..H^4 in the Montgomery domain (`pow[i]` = H^(i+1)·x^(-128·i)),
/// so that a block times `pow[i]` under one reduction is dot-multiplied
/// i + 1 times by H.
#[derive(Clone)]
pub(crate) struct SoftPolyvalKey {
    pow: [u128; POWERS],
}

impl Drop for SoftPolyvalKey {
    fn drop(&mut self) {
        self.pow.zeroize();
    }
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

/// An unreduced 256-bit sum of carry-less products, `hi`·x^128 + `lo`.
#[derive(Default)]
struct Acc256 {
    lo: u128,
    hi: u128,
}

impl Acc256 {
    /// Adds a·b (three 64x64 products).
    #[inline]
    fn add_product(&mut self, a: u128, b: u128) {
        let (a0, a1) = (a as u64, (a >> 64) as u64);
        let (b0, b1) = (b as u64, (b >> 64) as u64);
        let lo = clmul64(a0, b0);
        let hi = clmul64(a1, b1);
        let mid = clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
        self.lo ^= lo ^ (mid << 64);
        self.hi ^= hi ^ (mid >> 64);
    }

    /// The sum times x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1.
    ///
    /// Each 64-bit word w at the bottom is cleared by adding w·g; since
    /// g = 1 + x^121 + x^126 + x^127 + x^128, that adds w shifted by 121, 126
    /// and 127 and w itself one position of 128 higher.
    #[inline]
    fn reduce(&self) -> u128 {
        let w0 = self.lo as u64;
        let f0 = fold(w0);
        let w1 = ((self.lo >> 64) as u64) ^ (f0 as u64);
        let f1 = fold(w1);
        self.hi ^ (w0 as u128) ^ ((w1 as u128) << 64) ^ (f0 >> 64) ^ f1
    }
}

/// w·(x^57 + x^62 + x^63): the part of w·g above x^64 that stays below x^192.
#[inline]
fn fold(w: u64) -> u128 {
    let w = w as u128;
    (w << 57) ^ (w << 62) ^ (w << 63)
}

/// dot(a, b) = a·b·x^-128.
#[inline]
fn dot(a: u128, b: u128) -> u128 {
    let mut s = Acc256::default();
    s.add_product(a, b);
    s.reduce()
}

#[inline]
fn load(b: &[u8]) -> u128 {
    let mut a = [0u8; BLOCK_LEN];
    a.copy_from_slice(b);
    u128::from_le_bytes(a)
}

impl SoftPolyvalKey {
    pub(crate) fn new(h: &Block) -> Self {
        let h = u128::from_le_bytes(*h);
        let mut pow = [h; POWERS];
        for i in 1..POWERS {
            pow[i] = dot(pow[i - 1], h);
        }
        // dot(x, pow[i]) = x·H^(i+1)·x^(-128(i+1)): what i + 1 chained dot
        // products by H give.
        SoftPolyvalKey { pow }
    }

    /// S = dot(S ^ X, H) over the whole blocks of `data`.
    pub(crate) fn update(&self, acc: &mut Block, data: &[u8]) {
        let mut s = u128::from_le_bytes(*acc);
        let mut groups = data.chunks_exact(POWERS * BLOCK_LEN);
        for g in &mut groups {
            let mut w = Acc256::default();
            for (i, b) in g.chunks_exact(BLOCK_LEN).enumerate() {
                let mut x = load(b);
                if i == 0 {
                    x ^= s;
                }
                w.add_product(x, self.pow[POWERS - 1 - i]);
            }
            s = w.reduce();
        }
        for b in groups.remainder().chunks_exact(BLOCK_LEN) {
            s = dot(s ^ load(b), self.pow[0]);
        }
        *acc = s.to_le_bytes();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let mut s = 0x0123_4567_89ab_cdefu64;
        for _ in 0..2000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let a = s;
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = s;
            assert_eq!(clmul64(a, b), clmul_ref(a, b));
        }
        assert_eq!(clmul64(u64::MAX, u64::MAX), clmul_ref(u64::MAX, u64::MAX));
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
