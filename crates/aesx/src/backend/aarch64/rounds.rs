//! The AES round sequences, as macros so that they expand inside each
//! `#[target_feature]` kernel (a helper function would need
//! `#[inline(always)]`, which Rust does not allow together with
//! `#[target_feature]`; an ordinary call per block would cost more than the
//! rounds).
//!
//! AESE is AddRoundKey + ShiftRows + SubBytes and AESMC is MixColumns, so a
//! round is an AESE/AESMC pair writing the same register: cores from
//! Cortex-A57 on fuse such a back-to-back pair into one operation. The loops
//! run rounds outermost and blocks innermost, which emits the pairs adjacent
//! and interleaves independent blocks to hide the instruction latency.
//! The last round has no MixColumns and ends with the final key XOR.

/// Encrypts every block of the array `$b` in place with `$k[0..=$r]`.
macro_rules! encrypt_lanes {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        for r in 0..$r - 1 {
            for x in $b.iter_mut() {
                *x = vaesmcq_u8(vaeseq_u8(*x, k[r]));
            }
        }
        for x in $b.iter_mut() {
            *x = veorq_u8(vaeseq_u8(*x, k[$r - 1]), k[$r]);
        }
    }};
}

/// Decrypts every block of the array `$b` in place with the equivalent
/// inverse cipher keys `$k[0..=$r]` (AESD is AddRoundKey + InvShiftRows +
/// InvSubBytes, AESIMC is InvMixColumns).
macro_rules! decrypt_lanes {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        for r in 0..$r - 1 {
            for x in $b.iter_mut() {
                *x = vaesimcq_u8(vaesdq_u8(*x, k[r]));
            }
        }
        for x in $b.iter_mut() {
            *x = veorq_u8(vaesdq_u8(*x, k[$r - 1]), k[$r]);
        }
    }};
}
