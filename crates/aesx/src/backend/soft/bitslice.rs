//! The bitsliced layout: sixteen blocks as 32 words of 64 bits.
//!
//! Word `8 * r + i` holds bit `i` (0 = least significant) of every byte in
//! row `r` of the AES state, for all sixteen blocks. Inside a word, bit
//! `16 * c + k` belongs to column `c` of block `k`.
//!
//! Why this shape: rows live in separate words, so the row mixing of
//! MixColumns is plain XOR between words (no shifts at all), and the four
//! columns of a row sit in 16-bit groups, so ShiftRows is one rotation of a
//! whole word. The S-box circuit then sees eight planes of 64 bytes each.
//! Compared with the 8-word layouts (BearSSL ct64, fixslicing), this spends
//! one S-box circuit per row but almost nothing on the linear layer; the cost
//! is a batch of sixteen blocks, padded when fewer are at hand.
//!
//! Getting there is a 2048-bit transpose done with five layers of
//! "swapmoves", each of which exchanges one bit of the word index with one
//! bit of the position inside the word. Everything here is data-independent:
//! fixed shifts, masks and indices.

use crate::key::Block;

/// Blocks processed together.
pub(crate) const PAR: usize = 16;

/// Sixteen blocks in bitsliced form, see the module notes.
pub(super) type State = [u64; 32];

/// Column `c` (four bytes, row 0 lowest) of block `b` as a 32-bit value.
#[inline(always)]
fn column(b: &Block, c: usize) -> u64 {
    u32::from_le_bytes([b[4 * c], b[4 * c + 1], b[4 * c + 2], b[4 * c + 3]]) as u64
}

/// Exchanges bit `bit` of the word index with bit `log2(shift)` of the
/// position inside each word (a transpose of those two coordinates).
/// `mask` selects the positions whose exchanged bit is 0.
#[inline(always)]
fn exchange(w: &mut State, bit: usize, shift: u32, mask: u64) {
    for lo in 0..32 {
        if lo & (1 << bit) != 0 {
            continue;
        }
        let hi = lo | (1 << bit);
        // Bits of `w[hi]` at positions with the coordinate 0 trade places
        // with bits of `w[lo]` at positions with the coordinate 1.
        let t = ((w[lo] >> shift) ^ w[hi]) & mask;
        w[hi] ^= t;
        w[lo] ^= t << shift;
    }
}

/// The five exchanges between the loaded layout and the bitsliced one. They
/// commute and each is its own inverse, so one function does both ways.
///
/// Loaded: word `16 * (c & 1) + k`, position `32 * (c >> 1) + 8 * r + i`.
/// Bitsliced: word `8 * r + i`, position `16 * c + k`.
#[inline(always)]
fn transpose(w: &mut State) {
    exchange(w, 4, 16, 0x0000_ffff_0000_ffff);
    exchange(w, 3, 8, 0x00ff_00ff_00ff_00ff);
    exchange(w, 2, 4, 0x0f0f_0f0f_0f0f_0f0f);
    exchange(w, 1, 2, 0x3333_3333_3333_3333);
    exchange(w, 0, 1, 0x5555_5555_5555_5555);
}

/// Bitslices sixteen blocks.
#[inline(always)]
pub(super) fn pack(blocks: &[Block; PAR]) -> State {
    let mut w = [0u64; 32];
    for (k, b) in blocks.iter().enumerate() {
        // Columns 0 and 2 share a word, as do 1 and 3: the column's high bit
        // is then already a position bit, which saves a sixth exchange.
        w[k] = column(b, 0) | (column(b, 2) << 32);
        w[16 + k] = column(b, 1) | (column(b, 3) << 32);
    }
    transpose(&mut w);
    w
}

/// Undoes [`pack`]; `w` is left scrambled.
#[inline(always)]
pub(super) fn unpack(w: &mut State, blocks: &mut [Block; PAR]) {
    transpose(w);
    for (k, b) in blocks.iter_mut().enumerate() {
        let (even, odd) = (w[k], w[16 + k]);
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
                    for i in 0..8 {
                        let want = (b[4 * c + r] >> i) & 1;
                        let got = (w[8 * r + i] >> (16 * c + k)) & 1;
                        assert_eq!(got as u8, want, "block {k} row {r} col {c} bit {i}");
                    }
                }
            }
        }
        let mut w = w;
        let mut back = [[0u8; BLOCK_LEN]; PAR];
        unpack(&mut w, &mut back);
        assert_eq!(back, blocks);
    }
}
