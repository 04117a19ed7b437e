//! The generic kernels of `mod.rs` against the soft backend's own.

use super::*;
use crate::backend::soft::SoftAes;
use crate::key::RoundKeys;

/// A backend with only the two required kernels, so that every other
/// kernel is the generic default (the soft backend overrides CBC
/// decryption and CTR, which are the reference here).
struct OnlyBlocks(SoftAes);

impl BlockKernels for OnlyBlocks {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        self.0.encrypt_blocks(io)
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        self.0.decrypt_blocks(io)
    }
}

#[test]
fn generic_defaults_agree_with_the_soft_kernels() {
    let soft = SoftAes::new(&RoundKeys::expand(&[7u8; 16]).unwrap());
    let generic = OnlyBlocks(soft.clone());
    // Past one batch, and a counter whose low 64 bits wrap inside it.
    for blocks in [0, 1, 3, BATCH, BATCH + 1, 2 * BATCH + 5] {
        let data: Vec<u8> = (0..blocks * BLOCK_LEN).map(|i| i as u8).collect();
        let start = (u64::MAX as u128 - 2).to_be_bytes();
        let (mut a, mut b) = (data.clone(), data.clone());
        let (mut ca, mut cb) = (start, start);
        soft.ctr_apply(&mut ca, InOut::in_place(&mut a));
        generic.ctr_apply(&mut cb, InOut::in_place(&mut b));
        assert_eq!((a, ca), (b, cb), "ctr, {blocks} blocks");

        let (mut a, mut b) = (data.clone(), data.clone());
        let (mut ia, mut ib) = ([9u8; BLOCK_LEN], [9u8; BLOCK_LEN]);
        soft.cbc_decrypt(&mut ia, InOut::in_place(&mut a));
        generic.cbc_decrypt(&mut ib, InOut::in_place(&mut b));
        assert_eq!((a, ia), (b, ib), "cbc decrypt, {blocks} blocks");
    }
}
