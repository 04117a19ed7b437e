//! The FIPS 197 key schedule on the host, in the layout the kernels read,
//! and the same key on the CPU ([`cpu_aes`]) for what the host computes.
//!
//! The expansion itself is aesx's (`aesx::ExpandedKey`: constant-time, the
//! S-box computed, never looked up); this file only lays the round keys out
//! as the kernels want them. The result is zeroized on drop.

use zeroize::Zeroize;

use aesx::Error;

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

/// Slices per round key: one per bit of the 16-byte state.
pub(crate) const SLICES: usize = 128;

/// The round keys as the kernels XOR them into the bitsliced state: mask
/// `128 r + 32 k + b` is all ones when bit `b` of word `k` of round key `r`
/// is set, else zero (slice `32 k + b` is bit `b % 8` of byte `4 k + b / 8`,
/// the kernels' register order). Made here once per key, without a branch
/// on a key bit, so that the kernels spend no instruction per round on it.
///
/// Rounds 0..=Nr of the encryption schedule come first, then the same for
/// FIPS 197's equivalent inverse cipher (5.3.5: rounds 1..Nr-1 through
/// InvMixColumns), whose keys the decryption kernels fold into their
/// InvMixColumns as the encryption kernels do into MixColumns.
pub(crate) struct RoundKeyMasks {
    pub(crate) masks: Vec<u32>,
}

impl Drop for RoundKeyMasks {
    fn drop(&mut self) {
        self.masks.zeroize();
    }
}

/// 2 b in GF(2^8), without a branch on b.
fn xtime(b: u8) -> u8 {
    (b << 1) ^ (0x1b & 0u8.wrapping_sub(b >> 7))
}

/// InvMixColumns of one 4-byte column: b_i = 14 a_i + 11 a_{i+1} +
/// 13 a_{i+2} + 9 a_{i+3}, from 2 a, 4 a and 8 a (no table).
fn inv_mix_column(a: [u8; 4]) -> [u8; 4] {
    let x2 = a.map(xtime);
    let x4 = x2.map(xtime);
    let x8 = x4.map(xtime);
    let mut out = [0u8; 4];
    for (i, o) in out.iter_mut().enumerate() {
        let (j, k, l) = ((i + 1) % 4, (i + 2) % 4, (i + 3) % 4);
        *o = (x8[i] ^ x4[i] ^ x2[i])
            ^ (x8[j] ^ x2[j] ^ a[j])
            ^ (x8[k] ^ x4[k] ^ a[k])
            ^ (x8[l] ^ a[l]);
    }
    out
}

fn push_masks(masks: &mut Vec<u32>, w: u32) {
    for b in 0..32 {
        masks.push(0u32.wrapping_sub((w >> b) & 1));
    }
}

impl RoundKeyWords {
    /// The masks of rounds 0..=rounds, encryption then equivalent
    /// decryption schedule.
    pub(crate) fn masks(&self) -> RoundKeyMasks {
        let nr = self.rounds as usize;
        let words = (nr + 1) * 4;
        let mut masks = Vec::with_capacity(2 * (nr + 1) * SLICES);
        for &w in &self.words[..words] {
            push_masks(&mut masks, w);
        }
        for (i, &w) in self.words[..words].iter().enumerate() {
            let r = i / 4;
            let w = if r == 0 || r == nr {
                w
            } else {
                // A word is a column (little-endian bytes = rows 0..3).
                u32::from_le_bytes(inv_mix_column(w.to_le_bytes()))
            };
            push_masks(&mut masks, w);
        }
        RoundKeyMasks { masks }
    }
}

/// Expands a 16, 24 or 32-byte key.
pub(crate) fn expand(key: &[u8]) -> Result<RoundKeyWords, Error> {
    let ek = aesx::ExpandedKey::new(key)?;
    let mut words = [0u32; 60];
    for (out, word) in words
        .iter_mut()
        .zip(ek.round_keys().iter().flat_map(|rk| rk.chunks_exact(4)))
    {
        *out = u32::from_le_bytes([word[0], word[1], word[2], word[3]]);
    }
    Ok(RoundKeyWords {
        words,
        rounds: ek.rounds() as u32,
    })
}

/// The same key on the CPU for the little the host computes (H, E_K(J0),
/// self-test references): the fastest CPU backend, chosen without reading
/// `AESX_BACKEND`, which may name the GPU in a caller's environment.
pub(crate) fn cpu_aes(key: &[u8]) -> Result<aesx::Aes, Error> {
    aesx::Aes::with_backend(key, aesx::Backend::fastest())
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
    fn fips197_appendix_a_last_round_keys() {
        // FIPS 197 appendix A.1, A.2, A.3: the last words of each expansion.
        for (key, rounds, last) in [
            (
                "2b7e151628aed2a6abf7158809cf4f3c",
                10,
                "d014f9a8c9ee2589e13f0cc8b6630ca6",
            ),
            (
                "8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
                12,
                "e98ba06f448c773c8ecc720401002202",
            ),
            (
                "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
                14,
                "fe4890d1e6188d0b046df344706c631e",
            ),
        ] {
            let rk = expand(&hex::decode(key).unwrap()).unwrap();
            assert_eq!(rk.rounds, rounds);
            assert_eq!(hex::encode(round_key(&rk, rounds as usize)), last);
        }
    }

    #[test]
    fn masks_are_the_key_bits_in_slice_order() {
        let rk = expand(&hex::decode("2b7e151628aed2a6abf7158809cf4f3c").unwrap()).unwrap();
        let m = rk.masks();
        assert_eq!(m.masks.len(), 2 * 11 * SLICES);
        for r in 0..11 {
            let bytes = round_key(&rk, r);
            for s in 0..SLICES {
                let bit = (bytes[s / 8] >> (s % 8)) & 1;
                assert_eq!(m.masks[SLICES * r + s], if bit == 1 { !0 } else { 0 });
            }
        }
    }

    #[test]
    fn inverse_schedule_is_inv_mix_columns_of_the_middle_rounds() {
        // FIPS 197 4.2.1 / 5.1.3 example column: InvMixColumns of
        // (8e 4d a1 bc) is (db 13 53 45).
        assert_eq!(
            inv_mix_column([0x8e, 0x4d, 0xa1, 0xbc]),
            [0xdb, 0x13, 0x53, 0x45]
        );
        let rk = expand(&[7u8; 32]).unwrap();
        let m = rk.masks();
        let dec = &m.masks[15 * SLICES..];
        assert_eq!(dec.len(), 15 * SLICES);
        assert_eq!(dec[..SLICES], m.masks[..SLICES]);
        assert_eq!(dec[14 * SLICES..], m.masks[14 * SLICES..15 * SLICES]);
        assert_ne!(dec[5 * SLICES..6 * SLICES], m.masks[5 * SLICES..6 * SLICES]);
    }

    #[test]
    fn bad_key_length_is_an_error() {
        assert!(matches!(
            expand(&[0u8; 17]),
            Err(Error::InvalidKeyLength { len: 17 })
        ));
    }
}
