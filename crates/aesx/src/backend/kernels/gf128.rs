//! The GF(2^128) arithmetic that the soft backend's constant-time GHASH
//! (`soft/gcm.rs`) and POLYVAL (`soft/polyval.rs`) share, and
//! [`ghash_mul`](super::ghash_mul)'s power product.
//!
//! Both multiply with one Montgomery-style reduction by the same constant:
//! POLYVAL's dot(a, b) = a·b·x^-128 directly, and GHASH in its bit-reflected
//! layout with H premultiplied by y (see `gcm_kernels`), where dividing by
//! y^128 is the same fold. So each hash brings only its byte order and its
//! own constant-time carry-less 64x64 multiply; the sums of products, the
//! reduction, the key powers and Horner's rule over groups of blocks are
//! here. No table is indexed by secret data and no branch depends on it.

use zeroize::Zeroizing;

use crate::key::BLOCK_LEN;

/// Powers of H kept: blocks hashed per reduction.
pub(crate) const POWERS: usize = 4;

/// H^1..H^4 (`pow[i]` = H^(i+1) in the Montgomery domain, so that a block
/// times `pow[i]` under one reduction is multiplied i + 1 times by H),
/// wiped on drop.
pub(crate) type Powers = Zeroizing<[u128; POWERS]>;

/// A 256-bit carry-less product kept as its Karatsuba parts, so that several
/// products can be summed before the middle term is folded in.
#[derive(Default)]
struct Wide {
    lo: u128,
    mid: u128,
    hi: u128,
}

impl Wide {
    /// Adds the carry-less product `a * b` (Karatsuba: three 64x64 products
    /// by `clmul64`).
    #[inline]
    fn mul_add(&mut self, a: u128, b: u128, clmul64: impl Fn(u64, u64) -> u128) {
        let (a0, a1) = (a as u64, (a >> 64) as u64);
        let (b0, b1) = (b as u64, (b >> 64) as u64);
        let lo = clmul64(a0, b0);
        let hi = clmul64(a1, b1);
        self.lo ^= lo;
        self.hi ^= hi;
        self.mid ^= clmul64(a0 ^ a1, b0 ^ b1) ^ lo ^ hi;
    }

    /// The sum times x^-128 modulo x^128 + x^127 + x^126 + x^121 + 1.
    ///
    /// Each 64-bit word w at the bottom is cleared by adding w·g; since
    /// g = 1 + x^121 + x^126 + x^127 + x^128, that adds w shifted by 121,
    /// 126 and 127 and w itself one position of 128 higher.
    #[inline]
    fn reduce(&self) -> u128 {
        let lo = self.lo ^ (self.mid << 64);
        let hi = self.hi ^ (self.mid >> 64);
        let w0 = lo as u64;
        let f0 = fold(w0);
        let w1 = ((lo >> 64) as u64) ^ (f0 as u64);
        let f1 = fold(w1);
        hi ^ (w0 as u128) ^ ((w1 as u128) << 64) ^ (f0 >> 64) ^ f1
    }
}

/// w·(x^57 + x^62 + x^63): the part of w·g above x^64 that stays below x^192.
#[inline]
fn fold(w: u64) -> u128 {
    let w = w as u128;
    (w << 57) ^ (w << 62) ^ (w << 63)
}

/// The field product of `a` and `b` (one reduction).
#[inline]
pub(crate) fn mul(a: u128, b: u128, clmul64: impl Fn(u64, u64) -> u128) -> u128 {
    let mut w = Wide::default();
    w.mul_add(a, b, clmul64);
    w.reduce()
}

/// The powers of `h` (see [`Powers`]).
pub(crate) fn powers(h: u128, clmul64: impl Fn(u64, u64) -> u128 + Copy) -> Powers {
    let mut pow = Zeroizing::new([h; POWERS]);
    for i in 1..POWERS {
        pow[i] = mul(pow[i - 1], h, clmul64);
    }
    pow
}

/// Horner's rule over the whole blocks of `data` (each read as an integer
/// by `from_bytes`, the hash's byte order) from the running value `y`:
/// groups of four blocks with one reduction each, block `i` of a group times
/// H^(4-i), then the remaining blocks one at a time.
#[inline]
pub(crate) fn absorb(
    mut y: u128,
    pow: &Powers,
    data: &[u8],
    from_bytes: impl Fn([u8; BLOCK_LEN]) -> u128,
    clmul64: impl Fn(u64, u64) -> u128 + Copy,
) -> u128 {
    let load = |b: &[u8]| {
        let mut a = [0u8; BLOCK_LEN];
        a.copy_from_slice(b);
        from_bytes(a)
    };
    let mut groups = data.chunks_exact(POWERS * BLOCK_LEN);
    for g in &mut groups {
        let mut w = Wide::default();
        for (i, b) in g.chunks_exact(BLOCK_LEN).enumerate() {
            let mut x = load(b);
            if i == 0 {
                x ^= y;
            }
            w.mul_add(x, pow[POWERS - 1 - i], clmul64);
        }
        y = w.reduce();
    }
    for b in groups.remainder().chunks_exact(BLOCK_LEN) {
        y = mul(y ^ load(b), pow[0], clmul64);
    }
    y
}

/// Checks a hash's `clmul64` against a bit-by-bit `reference` on `count`
/// deterministic pseudorandom operand pairs (xorshift64).
#[cfg(test)]
pub(crate) fn check_clmul64(
    clmul64: fn(u64, u64) -> u128,
    reference: fn(u64, u64) -> u128,
    count: usize,
) {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    // Under Miri (which looks for undefined behaviour, not wrong products,
    // and interprets the bit-by-bit reference slowly) a few products do.
    let count = if cfg!(miri) { count.min(16) } else { count };
    for _ in 0..count {
        let (a, b) = (next(), next());
        assert_eq!(clmul64(a, b), reference(a, b), "{a:#x} * {b:#x}");
    }
}
