//! Reproducible bytes for the unit tests (xorshift64): varied rather than
//! random, so that a failing case reproduces from its seed.

/// `n` bytes from `seed`, different per seed.
pub(crate) fn xorshift_bytes(seed: u64, n: usize) -> std::vec::Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
