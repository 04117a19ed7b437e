//! GF(2^128) on the host, in the kernels' "normal" representation (bit i of
//! the `u128` is the coefficient of x^i, modulus x^128 + x^7 + x^2 + x + 1).
//!
//! Used to finish what the GPU leaves: the last GHASH level, the combination
//! of chunk digests and the GCM tag. Constant-time: masks instead of
//! branches on field elements; exponents are public.

/// x^128 mod P, the bits folded back by a carry out of x^127.
const R: u128 = 0x87;

/// a * b.
pub fn mul(a: u128, b: u128) -> u128 {
    let mut acc = 0u128;
    let mut a = a;
    for i in 0..128 {
        let bit = (b >> i) & 1;
        acc ^= a & 0u128.wrapping_sub(bit);
        let carry = a >> 127;
        a = (a << 1) ^ (R & 0u128.wrapping_sub(carry));
    }
    acc
}

/// a^e for a public exponent.
pub fn pow(a: u128, mut e: u64) -> u128 {
    let mut result = 1u128;
    let mut base = a;
    while e != 0 {
        if e & 1 == 1 {
            result = mul(result, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    result
}

/// A GCM block (x^0 = most significant bit of byte 0) in normal form.
pub fn from_gcm_block(block: &[u8; 16]) -> u128 {
    u128::from_be_bytes(*block).reverse_bits()
}

/// The inverse of [`from_gcm_block`].
pub fn to_gcm_block(x: u128) -> [u8; 16] {
    x.reverse_bits().to_be_bytes()
}

/// P(X; B) = sum X_i B^(m-1-i) over elements in normal form, by Horner.
pub fn poly_eval(elements: &[u128], base: u128) -> u128 {
    elements.iter().fold(0u128, |acc, &e| mul(acc, base) ^ e)
}

/// P(X; H) over GCM-order bytes split into 16-byte blocks, the last one
/// zero-padded. GHASH_H(X) = P(X; H) * H.
pub fn poly_eval_gcm_bytes(data: &[u8], h: u128) -> u128 {
    let mut acc = 0u128;
    for chunk in data.chunks(16) {
        let mut block = [0u8; 16];
        block[..chunk.len()].copy_from_slice(chunk);
        acc = mul(acc, h) ^ from_gcm_block(&block);
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SP 800-38D algorithm 1, on GCM-order bytes: an independent reference.
    fn spec_mul(x: [u8; 16], y: [u8; 16]) -> [u8; 16] {
        let x = u128::from_be_bytes(x);
        let mut v = u128::from_be_bytes(y);
        let mut z = 0u128;
        for i in 0..128 {
            if (x >> (127 - i)) & 1 == 1 {
                z ^= v;
            }
            let lsb = v & 1;
            v >>= 1;
            if lsb == 1 {
                v ^= 0xe1 << 120;
            }
        }
        z.to_be_bytes()
    }

    #[test]
    fn mul_matches_the_spec_multiplication() {
        let mut s = 0x0123_4567_89ab_cdef_u128;
        for _ in 0..200 {
            s = s
                .wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15)
                .rotate_left(17)
                ^ 0x55;
            let a = s.to_be_bytes();
            let b = s.rotate_left(64).wrapping_add(7).to_be_bytes();
            let want = spec_mul(a, b);
            let got = to_gcm_block(mul(from_gcm_block(&a), from_gcm_block(&b)));
            assert_eq!(got, want);
        }
    }

    #[test]
    fn pow_agrees_with_repeated_multiplication() {
        let h = 0xdead_beef_0bad_f00d_1234_5678_9abc_def0u128;
        let mut p = 1u128;
        for e in 0..70u64 {
            assert_eq!(pow(h, e), p);
            p = mul(p, h);
        }
    }

    #[test]
    fn xts_alpha_is_x() {
        // Multiplying by alpha in IEEE 1619 is a left shift of the
        // little-endian tweak with 0x87 folded in: the same as mul by x.
        let t = u128::MAX - 5;
        let doubled = (t << 1) ^ (0x87 * (t >> 127));
        assert_eq!(mul(t, 2), doubled);
    }
}
