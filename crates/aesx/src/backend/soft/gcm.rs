//! Constant-time portable GHASH for the soft backend.
//!
//! No table is indexed by secret data and no branch depends on it: the
//! carry-less products are [`ghash_mul`](super::ghash_mul)'s, by integer
//! multiplications. The field layout and the Montgomery-style reduction are
//! those described in `gcm_kernels`.

use zeroize::Zeroize;

use crate::backend::kernels::gcm::GcmKernels;
use crate::backend::kernels::gf128::{self, Powers};
use crate::backend::kernels::ghash_mul::{clmul64, times_y};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::BlockKernels;
use crate::backend::soft::SoftAes;
use crate::key::{Block, BLOCK_LEN};

/// H^1..H^4, each premultiplied by y, as integers (see `gcm_kernels`).
#[derive(Clone)]
pub(crate) struct SoftHKey {
    pow: Powers,
}

impl SoftHKey {
    fn new(h: u128) -> Self {
        SoftHKey {
            pow: gf128::powers(times_y(h), clmul64),
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
    use crate::backend::kernels::ghash_mul::ghash_mul_pow;

    /// x·H^m against GHASH itself: x then m zero blocks hashed under H
    /// (the slow way, fine for a check), for random x and H.
    #[test]
    fn mul_pow_matches_hashing_zero_blocks() {
        use rand::{Rng, SeedableRng};
        let mut rng = rand::rngs::StdRng::seed_from_u64(0x6d75_6c70);
        // Miri interprets each multiply: the short list still crosses every
        // bit of a small exponent and one carry past 64.
        let ms: &[u64] = if cfg!(miri) {
            &[0, 1, 2, 3, 5, 8, 65]
        } else {
            &[0, 1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 1000, 4097]
        };
        for &m in ms {
            let x: Block = rng.gen();
            let h: Block = rng.gen();
            let key = SoftHKey::new(u128::from_be_bytes(h));
            let mut want = x;
            // (x ^ 0)·H, m times: x·H^m.
            for _ in 0..m {
                let y = u128::from_be_bytes(want);
                want = gf128::absorb(y, &key.pow, &[0u8; BLOCK_LEN], u128::from_be_bytes, clmul64)
                    .to_be_bytes();
            }
            assert_eq!(ghash_mul_pow(&x, &h, m), want, "m = {m}");
        }
    }
}
