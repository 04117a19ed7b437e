//! Constant-time portable GHASH for the soft backend.
//!
//! No table is indexed by secret data and no branch depends on it: the
//! carry-less products come from ordinary integer multiplications of operands
//! whose set bits are spaced five apart ("holes"), so that the carries of an
//! integer product never reach the next bit we keep (the idea of BearSSL's
//! ghash_ctmul64, arranged differently here). The field layout and the
//! Montgomery-style reduction are those described in `gcm_kernels`.

use zeroize::Zeroize;

use crate::backend::gcm_kernels::GcmKernels;
use crate::backend::inout::InOut;
use crate::backend::kernels::BlockKernels;
use crate::backend::soft::SoftAes;
use crate::key::{Block, BLOCK_LEN};

/// Powers of H kept: blocks hashed per reduction.
const POWERS: usize = 4;

/// H^1..H^4, each premultiplied by y, as integers (see `gcm_kernels`).
#[derive(Clone)]
pub(crate) struct SoftHKey {
    /// `pow[i]` = H^(i+1)·y.
    pow: [u128; POWERS],
}

impl Drop for SoftHKey {
    fn drop(&mut self) {
        self.pow.zeroize();
    }
}

/// Bits at positions `i` with `i % 5 == r`, for the 64-bit operands.
const fn mask64(r: u32) -> u64 {
    let mut m = 0u64;
    let mut i = r;
    while i < 64 {
        m |= 1 << i;
        i += 5;
    }
    m
}

/// The same masks over the 128-bit product.
const fn mask128(r: u32) -> u128 {
    let mut m = 0u128;
    let mut i = r;
    while i < 128 {
        m |= 1 << i;
        i += 5;
    }
    m
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
fn clmul64(x: u64, y: u64) -> u128 {
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

/// A 256-bit carry-less product kept as its Karatsuba parts, so that several
/// products can be summed before the middle term is folded in.
#[derive(Default)]
struct Wide {
    lo: u128,
    mid: u128,
    hi: u128,
}

impl Wide {
    /// Adds the carry-less product `a * b` (Karatsuba: three 64x64 products).
    #[inline]
    fn mul_add(&mut self, a: u128, b: u128) {
        let (a0, a1) = (a as u64, (a >> 64) as u64);
        let (b0, b1) = (b as u64, (b >> 64) as u64);
        let lo = clmul64(a0, b0);
        let hi = clmul64(a1, b1);
        self.lo ^= lo;
        self.hi ^= hi;
        self.mid ^= clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    }

    /// Reduces the sum modulo g'(y), dividing by y^128 (see `gcm_kernels`).
    #[inline]
    fn reduce(&self) -> u128 {
        let lo = self.lo ^ (self.mid << 64);
        let hi = self.hi ^ (self.mid >> 64);
        let z0 = lo as u64;
        let t = mul_c(z0);
        let z1 = ((lo >> 64) as u64) ^ (t as u64);
        let t2 = mul_c(z1);
        hi ^ (z0 as u128 | ((z1 as u128) << 64)) ^ (t >> 64) ^ t2
    }
}

/// Carry-less product of `z` with the constant y^63 + y^62 + y^57.
#[inline]
fn mul_c(z: u64) -> u128 {
    let z = z as u128;
    (z << 57) ^ (z << 62) ^ (z << 63)
}

/// Field product of two values in the premultiplied layout.
fn mul(a: u128, b: u128) -> u128 {
    let mut w = Wide::default();
    w.mul_add(a, b);
    w.reduce()
}

impl SoftHKey {
    fn new(h: u128) -> Self {
        // H·y: shift left one bit; a bit shifted out at y^128 comes back as
        // g'(y) - y^128 = y^127 + y^126 + y^121 + 1 (computed with a mask,
        // not a branch, since H is secret).
        const POLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;
        let k1 = (h << 1) ^ (POLY & 0u128.wrapping_sub(h >> 127));
        let mut pow = [k1; POWERS];
        for i in 1..POWERS {
            pow[i] = mul(pow[i - 1], k1);
        }
        SoftHKey { pow }
    }
}

impl GcmKernels for SoftAes {
    type HKey = SoftHKey;

    fn ghash_key(&self) -> SoftHKey {
        let mut h = [0u8; BLOCK_LEN];
        self.encrypt_blocks(InOut::in_place(&mut h));
        let key = SoftHKey::new(u128::from_be_bytes(h));
        h.zeroize();
        key
    }

    fn ghash_update(&self, hk: &SoftHKey, acc: &mut Block, data: &[u8]) {
        let mut y = u128::from_be_bytes(*acc);
        let mut groups = data.chunks_exact(POWERS * BLOCK_LEN);
        for g in &mut groups {
            // Block i of the group is multiplied by H^(4-i); one reduction.
            let mut w = Wide::default();
            for (i, b) in g.chunks_exact(BLOCK_LEN).enumerate() {
                let mut x = load(b);
                if i == 0 {
                    x ^= y;
                }
                w.mul_add(x, hk.pow[POWERS - 1 - i]);
            }
            y = w.reduce();
        }
        for b in groups.remainder().chunks_exact(BLOCK_LEN) {
            y = mul(y ^ load(b), hk.pow[0]);
        }
        *acc = y.to_be_bytes();
    }
}

#[inline]
fn load(b: &[u8]) -> u128 {
    let mut a = [0u8; BLOCK_LEN];
    a.copy_from_slice(b);
    u128::from_be_bytes(a)
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
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for _ in 0..2000 {
            let (a, b) = (next(), next());
            assert_eq!(clmul64(a, b), clmul_ref(a, b));
        }
        assert_eq!(clmul64(u64::MAX, u64::MAX), clmul_ref(u64::MAX, u64::MAX));
    }
}
