//! The bitsliced layout: sixteen blocks as 32 words of 64 bits.
//!
//! The state is eight [`Plane`]s, one per bit plane `i` (0 = least
//! significant); lane `r` of plane `i` holds bit `i` of every byte in row `r`
//! of the AES state, for all sixteen blocks. Inside a lane, bit `16 * c + s`
//! belongs to column `c` of the block in slot `s` (see [`slot`]).
//!
//! Why this shape: with rows in separate lanes, the row mixing of
//! MixColumns is a lane permutation and XOR (no bit shifts), and with the four
//! columns of a row in 16-bit groups, ShiftRows is one rotation per lane. The
//! S-box circuit runs once over all 256 bytes. Compared with the 8-word
//! layouts (BearSSL ct64, fixslicing), this spends almost nothing on the
//! linear layer; the cost is a batch of sixteen blocks, padded when fewer are
//! at hand.
//!
//! Getting there is a 2048-bit transpose done with five layers of
//! "swapmoves", each of which exchanges one bit of the word index with one
//! bit of the position inside the word. Everything here is data-independent:
//! fixed shifts, masks and indices.

use super::rows::Plane;
use crate::key::Block;

/// Blocks processed together.
pub(crate) const PAR: usize = 16;

/// Sixteen blocks in bitsliced form, see the module notes.
pub(super) type State = [Plane; 8];

/// Column `c` (four bytes, row 0 lowest) of block `b` as a 32-bit value.
#[inline(always)]
fn column(b: &Block, c: usize) -> u64 {
    u32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]]) as u64
}

/// Exchanges bit `bit` of the word index with bit `log2(shift)` of the
/// position inside each word (a transpose of those two coordinates).
/// `mask` selects the positions whose exchanged bit is 0.
// Written as runs of word pairs `2^bit` apart, without branches, so that the
// loops unroll and, for the wide distances, vectorize.
#[inline(always)]
fn exchange(w: &mut [u64; 32], bit: usize, shift: u32, mask: u64) {
    let d = 1 << bit;
    for run in w.chunks_exact_mut(2 * d) {
        let (lo, hi) = run.split_at_mut(d);
        for (lo, hi) in lo.iter_mut().zip(hi) {
            // Bits of `hi` at positions with the coordinate 0 trade places
            // with bits of `lo` at positions with the coordinate 1.
            let t = ((*lo >> shift) ^ *hi) & mask;
            *hi ^= t;
            *lo ^= t << shift;
        }
    }
}

/// The five exchanges between the loaded layout and the bitsliced one. They
/// commute and each is its own inverse, so one function does both ways.
///
/// Loaded ([`loaded_index`]): word `k0 + 2 (c & 1) + 4 (k >> 1)` for block
/// `k`, position `32 (c >> 1) + 8 r + i`. Bitsliced: word `4 i + r`, position
/// `16 c + slot(k)`.
#[inline(always)]
fn transpose(w: &mut [u64; 32]) {
    exchange(w, 1, 16, 0x0000_ffff_0000_ffff); // c & 1 <-> r >> 1
    exchange(w, 0, 8, 0x00ff_00ff_00ff_00ff); // k & 1 <-> r & 1
    exchange(w, 4, 4, 0x0f0f_0f0f_0f0f_0f0f); // k >> 3 <-> i >> 2
    exchange(w, 3, 2, 0x3333_3333_3333_3333); // (k >> 2) & 1 <-> (i >> 1) & 1
    exchange(w, 2, 1, 0x5555_5555_5555_5555); // (k >> 1) & 1 <-> i & 1
}

/// Where block `k`'s column-`c` word starts out, for `c` in 0..2 (columns 2
/// and 3 share those words, in the upper halves).
#[inline(always)]
const fn loaded_index(k: usize, c: usize) -> usize {
    (k & 1) | (c << 1) | ((k >> 1) << 2)
}

/// The bit position (within each 16-bit column group) that block `k` ends
/// up in: the transpose shuffles the block order, harmlessly, since
/// [`unpack`] shuffles it back.
#[cfg(test)]
pub(super) const fn slot(k: usize) -> usize {
    ((k & 1) << 3) | (k >> 1)
}

/// Bitslices sixteen blocks.
#[inline(always)]
pub(super) fn pack(blocks: &[Block; PAR]) -> State {
    let mut w = [0u64; 32];
    for (k, b) in blocks.iter().enumerate() {
        // Columns 0 and 2 share a word, as do 1 and 3: the column's high bit
        // is then already a position bit, which saves a sixth exchange.
        w[loaded_index(k, 0)] = column(b, 0) | (column(b, 2) << 32);
        w[loaded_index(k, 1)] = column(b, 1) | (column(b, 3) << 32);
    }
    transpose(&mut w);
    core::array::from_fn(|i| Plane([w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]]))
}

/// Undoes [`pack`].
#[inline(always)]
pub(super) fn unpack(q: &State, blocks: &mut [Block; PAR]) {
    let mut w = [0u64; 32];
    for (i, plane) in q.iter().enumerate() {
        w[4 * i..4 * i + 4].copy_from_slice(&plane.0);
    }
    transpose(&mut w);
    for (k, b) in blocks.iter_mut().enumerate() {
        let (even, odd) = (w[loaded_index(k, 0)], w[loaded_index(k, 1)]);
        b[0..4].copy_from_slice(&(even as u32).to_le_bytes());
        b[4..8].copy_from_slice(&(odd as u32).to_le_bytes());
        b[8..12].copy_from_slice(&((even >> 32) as u32).to_le_bytes());
        b[12..16].copy_from_slice(&((odd >> 32) as u32).to_le_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::BLOCK_LEN;

    #[test]
    fn layout_is_as_documented() {
        // Distinct bytes everywhere; check where each bit lands.
        let blocks: [Block; PAR] =
            core::array::from_fn(|k| core::array::from_fn(|j| (k * 16 + j) as u8 ^ 0xa5));
        let w = pack(&blocks);
        for (k, b) in blocks.iter().enumerate() {
            for c in 0..4 {
                for r in 0..4 {
                    for (i, plane) in w.iter().enumerate() {
                        let want = (b[4 * c + r] >> i) & 1;
                        let got = (plane.0[r] >> (16 * c + slot(k))) & 1;
                        assert_eq!(got as u8, want, "block {k} row {r} col {c} bit {i}");
                    }
                }
            }
        }
        let mut back = [[0u8; BLOCK_LEN]; PAR];
        unpack(&w, &mut back);
        assert_eq!(back, blocks);
    }
}
