//! The host's share of GCM over many messages at once (the file format's
//! chunks): the layout checks, the first counter block of every message,
//! and the tags from the GPU's per-message digests. Pure functions, so that
//! the emulation tests run them with the emulated kernels.

use crate::gcm_math;
use crate::gf;
use crate::plan::GHASH_RUN;

/// Largest message stride: two GHASH levels of `GHASH_RUN` fold at most
/// 32 * 32 blocks per message.
pub const MAX_STRIDE: usize = 16 * (GHASH_RUN * GHASH_RUN) as usize;

/// Checks that `len` bytes are `nmsgs` messages back to back every `stride`
/// bytes, only the last shorter (possibly empty).
pub fn check_layout(nmsgs: usize, stride: usize, len: usize) -> Result<(), aesx::Error> {
    if stride == 0 || !stride.is_multiple_of(16) || stride > MAX_STRIDE {
        return Err(aesx::Error::InvalidSectorSize { size: stride });
    }
    if nmsgs == 0 {
        return Err(aesx::Error::InvalidState);
    }
    let full = (nmsgs - 1)
        .checked_mul(stride)
        .ok_or(aesx::Error::MessageTooLong)?;
    if len < full || len - full > stride {
        return Err(aesx::Error::LengthMismatch {
            input: len,
            output: full.saturating_add(stride),
        });
    }
    Ok(())
}

/// Bytes of message `i`.
pub fn msg_len(i: usize, stride: usize, len: usize) -> usize {
    len.saturating_sub(i * stride).min(stride)
}

/// GHASH runs per message in the first level (ceil(blocks / 32)).
pub fn runs_per_msg(stride: usize) -> u64 {
    ((stride / 16) as u64).div_ceil(GHASH_RUN)
}

/// J0 of every nonce, back to back (16 bytes each).
pub fn j0s(h: u128, nonces: &[[u8; 12]]) -> Vec<u8> {
    let mut v = Vec::with_capacity(16 * nonces.len());
    for n in nonces {
        v.extend_from_slice(&gcm_math::j0(h, n));
    }
    v
}

/// inc32 of every J0: the counter block of each message's first data block.
pub fn first_counters(j0s: &[u8]) -> Vec<u8> {
    let mut v = j0s.to_vec();
    for b in v.chunks_exact_mut(16) {
        let c = u32::from_be_bytes([b[12], b[13], b[14], b[15]]).wrapping_add(1);
        b[12..].copy_from_slice(&c.to_be_bytes());
    }
    v
}

/// The tags of the messages from their digests P(C_m; H) (16 bytes each,
/// the GPU's normal-form little-endian words) and E_K(J0_m) (16 bytes each);
/// the associated data is `aad` for every message.
///
/// GHASH(A, C) = P(A)·H^(c+2) + P(C)·H^2 + L·H, for c blocks of C and the
/// length block L: everything but P(C)·H^2 depends only on the message's
/// length, which all messages but the last share. So each tag costs one
/// multiplication (a file's 16 KiB chunks come by the million; the generic
/// GHASH finish took about fourteen, and capped the GPU file path near
/// 3 GB/s on one host thread).
pub fn tags(
    h: u128,
    aad: &[u8],
    stride: usize,
    len: usize,
    digests: &[u8],
    ek_j0s: &[u8],
) -> Vec<[u8; 16]> {
    let h2 = gf::mul(h, h);
    // The length-only part for the last length seen, as GHASH with P(C) = 0.
    let mut part: Option<(usize, [u8; 16])> = None;
    digests
        .chunks_exact(16)
        .zip(ek_j0s.chunks_exact(16))
        .enumerate()
        .map(|(i, (d, ek))| {
            let n = msg_len(i, stride, len);
            let fixed = match part {
                Some((m, p)) if m == n => p,
                _ => {
                    let p = gcm_math::ghash_with_lengths(h, aad, n as u64, 0);
                    part = Some((n, p));
                    p
                }
            };
            let mut w = [0u8; 16];
            w.copy_from_slice(d);
            let varying = gf::to_gcm_block(gf::mul(u128::from_le_bytes(w), h2));
            let mut tag = [0u8; 16];
            for k in 0..16 {
                tag[k] = fixed[k] ^ varying[k] ^ ek[k];
            }
            tag
        })
        .collect()
}

/// The number of leading messages whose tags verify (all of them: `want.len()`).
/// Every tag is compared in constant time; only the count is revealed.
pub fn verified_prefix(want: &[[u8; 16]], got: &[[u8; 16]]) -> usize {
    let mut prefix = want.len();
    for (i, (w, g)) in want.iter().zip(got).enumerate().rev() {
        if !aesx::ct_eq(w, g) {
            prefix = i;
        }
    }
    prefix
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_rules() {
        assert!(check_layout(1, 16384, 0).is_ok());
        assert!(check_layout(3, 16384, 2 * 16384).is_ok());
        assert!(check_layout(3, 16384, 3 * 16384).is_ok());
        assert!(check_layout(3, 16384, 3 * 16384 + 1).is_err());
        assert!(check_layout(3, 16384, 2 * 16384 - 1).is_err());
        assert!(check_layout(1, 16400, 5).is_err());
        assert!(check_layout(1, 32768, 5).is_err());
        assert!(check_layout(0, 16384, 0).is_err());
        // Counts near the top of usize neither panic nor wrap.
        assert!(check_layout(usize::MAX, 16, 0).is_err());
        assert!(check_layout(usize::MAX / 16 + 2, 16, usize::MAX).is_err());
        assert!(check_layout(usize::MAX / 16, 16, usize::MAX).is_err());
        assert!(check_layout(usize::MAX / 16 + 1, 16, usize::MAX - 15).is_ok());
        assert_eq!(msg_len(2, 100 * 16, 2 * 1600 + 7), 7);
        assert_eq!(runs_per_msg(16384), 32);
        assert_eq!(runs_per_msg(16), 1);
    }

    /// The one-multiplication tags equal GHASH's own finish, message by
    /// message, for every length mix (whole, short and empty last
    /// messages), with and without associated data.
    #[test]
    fn tags_equal_the_generic_ghash_finish() {
        let mut x = 0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c834u128;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (stride, len, n) in [
            (16384, 3 * 16384, 4),
            (16384, 2 * 16384 + 5, 3),
            (16384, 0, 1),
            (160, 1000, 7),
        ] {
            for aad in [&b""[..], b"associated data of 29 bytes!!"] {
                let h = next();
                let digests: Vec<u8> = (0..n).flat_map(|_| next().to_le_bytes()).collect();
                let eks: Vec<u8> = (0..n).flat_map(|_| next().to_le_bytes()).collect();
                let got = tags(h, aad, stride, len, &digests, &eks);
                for i in 0..n {
                    let mut w = [0u8; 16];
                    w.copy_from_slice(&digests[16 * i..16 * i + 16]);
                    let s = gcm_math::ghash_with_lengths(
                        h,
                        aad,
                        msg_len(i, stride, len) as u64,
                        u128::from_le_bytes(w),
                    );
                    let want: Vec<u8> = s.iter().zip(&eks[16 * i..]).map(|(a, b)| a ^ b).collect();
                    assert_eq!(
                        got[i].to_vec(),
                        want,
                        "message {i} of {n}, stride {stride}, len {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn prefix_stops_at_first_bad_tag() {
        let a = [[1u8; 16], [2; 16], [3; 16]];
        assert_eq!(verified_prefix(&a, &a), 3);
        let mut b = a;
        b[1][15] ^= 1;
        b[2][0] ^= 1;
        assert_eq!(verified_prefix(&a, &b), 1);
    }
}
