//! Constant-time portable GHASH for the soft backend.
//!
//! No table is indexed by secret data and no branch depends on it: the
//! carry-less products come from ordinary integer multiplications of operands
//! whose set bits are spaced five apart ("holes"), so that the carries of an
//! integer product never reach the next bit we keep (the idea of BearSSL's
//! ghash_ctmul64, arranged differently here). The field layout and the
//! Montgomery-style reduction are those described in `gcm_kernels`.

use zeroize::Zeroize;

use super::gf128::{self, Powers};
use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::BlockKernels;
use crate::backend::soft::SoftAes;
use crate::key::{Block, BLOCK_LEN};

/// H^1..H^4, each premultiplied by y, as integers (see `gcm_kernels`).
#[derive(Clone)]
pub(crate) struct SoftHKey {
    pow: Powers,
}

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

impl SoftHKey {
    fn new(h: u128) -> Self {
        // H·y: shift left one bit; a bit shifted out at y^128 comes back as
        // g'(y) - y^128 = y^127 + y^126 + y^121 + 1 (computed with a mask,
        // not a branch, since H is secret).
        const POLY: u128 = 0xc200_0000_0000_0000_0000_0000_0000_0001;
        let k1 = (h << 1) ^ (POLY & 0u128.wrapping_sub(h >> 127));
        SoftHKey {
            pow: gf128::powers(k1, clmul64),
        }
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
        let y = u128::from_be_bytes(*acc);
        *acc = gf128::absorb(y, &hk.pow, data, u128::from_be_bytes, clmul64).to_be_bytes();
    }
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
