//! The FIPS 197 key schedule on the host, in the layout the kernels read.
//!
//! aesx keeps its `RoundKeys` private, so the schedule is expanded here. It
//! is constant-time like aesx's own: the S-box is computed (inversion as
//! x^254, then the affine map), never looked up, so no memory access depends
//! on key bytes. The result is zeroized on drop.

use zeroize::Zeroize;

use aesx::{Error, KeySize};

/// Round keys as 32-bit little-endian words of the FIPS 197 byte string,
/// 4 per round: what `aesx_add_round_key` in the kernels expects.
pub(crate) struct RoundKeyWords {
    pub(crate) words: [u32; 60],
    pub(crate) rounds: u32,
}

impl Drop for RoundKeyWords {
    fn drop(&mut self) {
        self.words.zeroize();
    }
}

const fn xtime(a: u8) -> u8 {
    (a << 1) ^ (0x1b & 0u8.wrapping_sub(a >> 7))
}

const fn gf_mul(mut a: u8, mut b: u8) -> u8 {
    let mut p = 0u8;
    let mut i = 0;
    while i < 8 {
        p ^= a & 0u8.wrapping_sub(b & 1);
        a = xtime(a);
        b >>= 1;
        i += 1;
    }
    p
}

fn sbox(x: u8) -> u8 {
    // x^254 = x^-1 (0 -> 0) by a fixed chain of multiplications.
    let x2 = gf_mul(x, x);
    let x3 = gf_mul(x2, x);
    let x6 = gf_mul(x3, x3);
    let x12 = gf_mul(x6, x6);
    let x15 = gf_mul(x12, x3);
    let x30 = gf_mul(x15, x15);
    let x60 = gf_mul(x30, x30);
    let x120 = gf_mul(x60, x60);
    let x240 = gf_mul(x120, x120);
    let x252 = gf_mul(x240, x12);
    let b = gf_mul(x252, x2);
    b ^ b.rotate_left(1) ^ b.rotate_left(2) ^ b.rotate_left(3) ^ b.rotate_left(4) ^ 0x63
}

/// Expands a 16, 24 or 32-byte key.
pub(crate) fn expand(key: &[u8]) -> Result<RoundKeyWords, Error> {
    let size = KeySize::from_len(key.len())?;
    let nk = key.len() / 4;
    let rounds = size.rounds();
    let total = 4 * (rounds + 1);
    // Words as FIPS 197 writes them: w[i] = bytes 4i..4i+4 of the schedule.
    let mut w = [[0u8; 4]; 60];
    for (i, chunk) in key.chunks_exact(4).enumerate() {
        w[i].copy_from_slice(chunk);
    }
    let mut rcon = 1u8;
    for i in nk..total {
        let mut t = w[i - 1];
        if i % nk == 0 {
            t = [sbox(t[1]) ^ rcon, sbox(t[2]), sbox(t[3]), sbox(t[0])];
            rcon = xtime(rcon);
        } else if nk > 6 && i % nk == 4 {
            t = [sbox(t[0]), sbox(t[1]), sbox(t[2]), sbox(t[3])];
        }
        for j in 0..4 {
            w[i][j] = w[i - nk][j] ^ t[j];
        }
    }
    let mut words = [0u32; 60];
    for (out, bytes) in words.iter_mut().zip(w.iter()).take(total) {
        *out = u32::from_le_bytes(*bytes);
    }
    w.zeroize();
    Ok(RoundKeyWords {
        words,
        rounds: rounds as u32,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_key(rk: &RoundKeyWords, r: usize) -> [u8; 16] {
        let mut out = [0u8; 16];
        for k in 0..4 {
            out[4 * k..4 * k + 4].copy_from_slice(&rk.words[4 * r + k].to_le_bytes());
        }
        out
    }

    #[test]
    fn sbox_matches_fips197_values() {
        assert_eq!(sbox(0x00), 0x63);
        assert_eq!(sbox(0x01), 0x7c);
        assert_eq!(sbox(0x53), 0xed);
        assert_eq!(sbox(0xff), 0x16);
    }

    #[test]
    fn fips197_appendix_a_last_round_keys() {
        // FIPS 197 appendix A.1, A.2, A.3: the last words of each expansion.
        let k128 = hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap();
        let rk = expand(&k128).unwrap();
        assert_eq!(rk.rounds, 10);
        assert_eq!(
            hex::encode(round_key(&rk, 10)),
            "d014f9a8c9ee2589e13f0cc8b6630ca6"
        );
        let k192 = hex::decode("8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b").unwrap();
        let rk = expand(&k192).unwrap();
        assert_eq!(rk.rounds, 12);
        assert_eq!(
            hex::encode(round_key(&rk, 12)),
            "e98ba06f448c773c8ecc720401002202"
        );
        let k256 = hex::decode("603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
            .unwrap();
        let rk = expand(&k256).unwrap();
        assert_eq!(rk.rounds, 14);
        assert_eq!(
            hex::encode(round_key(&rk, 14)),
            "fe4890d1e6188d0b046df344706c631e"
        );
    }

    #[test]
    fn bad_key_length_is_an_error() {
        assert!(matches!(
            expand(&[0u8; 17]),
            Err(Error::InvalidKeyLength { len: 17 })
        ));
    }
}
