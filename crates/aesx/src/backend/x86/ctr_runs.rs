//! CTR calls split where the low 64 bits of the counter wrap, so that the
//! kernels can count in 64-bit lanes.

use crate::backend::kernels::inout::InOut;
use crate::key::Block;

/// Splits a CTR call at the points where the low 64 bits of the counter
/// wrap, so that kernels can count in 64-bit lanes: `seg(c, io)` gets a run
/// of blocks starting at counter `c` whose low half never wraps inside it.
/// `ctr` advances by the number of blocks, modulo 2^128.
#[inline]
pub(super) fn ctr_segments(ctr: &mut Block, io: InOut<'_>, mut seg: impl FnMut(u128, InOut<'_>)) {
    let mut c = u128::from_be_bytes(*ctr);
    let mut rest = io;
    while rest.blocks() > 0 {
        let m = ctr_run(c, rest.blocks());
        let (now, later) = rest.split_at(m * 16);
        seg(c, now);
        c = c.wrapping_add(m as u128);
        rest = later;
    }
    *ctr = c.to_be_bytes();
}

/// How many of `blocks` blocks from counter `c` run before the low 64 bits
/// of the counter wrap (at least one).
#[inline(always)]
pub(super) fn ctr_run(c: u128, blocks: usize) -> usize {
    // Blocks left before the low half wraps: 2^64 - low (never zero).
    let room = (u64::MAX - c as u64) as u128 + 1;
    (blocks as u128).min(room) as usize
}
