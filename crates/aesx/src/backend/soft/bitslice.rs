//! The bitsliced layout: sixteen blocks as 32 words of 64 bits.
//!
//! The state is eight [`Plane`]s, one per bit plane `i` (0 = least
//! significant); lane `r` of plane `i` holds bit `i` of every byte in row `r`
//! of the AES state, for all sixteen blocks. Inside a lane, bit `16 * c + s`
//! belongs to column `c` of the block in slot `s`; block `k` of a batch sits
//! in slot `8 (k & 1) + (k >> 1)`, an order the transpose finds convenient
//! and undoes on the way out.
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

use zeroize::Zeroize;

use super::rows::{Plane, Word};
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

/// Swaps the bits of `hi` at positions with the exchanged coordinate 0
/// (`mask`) with the bits of `lo` at positions `shift` higher.
#[inline(always)]
fn swap_move(lo: &mut u64, hi: &mut u64, shift: u32, mask: u64) {
    let t = ((*lo >> shift) ^ *hi) & mask;
    *hi ^= t;
    *lo ^= t << shift;
}

/// The transpose, word-index bits 0 and 1 (the lane inside a plane): they
/// trade places with position bits 4 and 3. Works on groups of four words,
/// which stay in registers.
#[inline(always)]
fn exchange_lanes(w: &mut [u64; 32]) {
    for g in w.chunks_exact_mut(4) {
        let [a, b, c, d] = g else { unreachable!() };
        // c & 1 <-> r >> 1
        swap_move(a, c, 16, 0x0000_ffff_0000_ffff);
        swap_move(b, d, 16, 0x0000_ffff_0000_ffff);
        // k & 1 <-> r & 1
        swap_move(a, b, 8, 0x00ff_00ff_00ff_00ff);
        swap_move(c, d, 8, 0x00ff_00ff_00ff_00ff);
    }
}

/// The transpose, word-index bits 2..4 (the plane index): they trade places
/// with position bits 0..2, whole planes at a time, so each step is a few
/// vector instructions. Plane index bit `j` goes with position bit `j`, so
/// the plane distance `S` is also the shift.
#[inline(always)]
fn exchange_planes_step<W: Word, const S: i32>(v: &mut [W; 8], mask: u64) {
    let m = W::splat(v[0].cpu(), mask);
    let d = S as usize;
    for lo in 0..8 {
        if lo & d == 0 {
            let hi = lo + d;
            let t = (v[lo].shr::<S>() ^ v[hi]) & m;
            v[hi] = v[hi] ^ t;
            v[lo] = v[lo] ^ t.shl::<S>();
        }
    }
}

#[inline(always)]
fn exchange_planes<W: Word>(v: &mut [W; 8]) {
    exchange_planes_step::<W, 4>(v, 0x0f0f_0f0f_0f0f_0f0f); // k >> 3 <-> i >> 2
    exchange_planes_step::<W, 2>(v, 0x3333_3333_3333_3333); // (k >> 2) & 1 <-> (i >> 1) & 1
    exchange_planes_step::<W, 1>(v, 0x5555_5555_5555_5555); // (k >> 1) & 1 <-> i & 1
}

// The five exchanges between the loaded layout and the bitsliced one commute
// and each is its own inverse, so `pack` and `unpack` run the same two
// functions.
//
// Loaded ([`loaded_index`]): word `k0 + 2 (c & 1) + 4 (k >> 1)` for block
// `k`, position `32 (c >> 1) + 8 r + i`. Bitsliced: word `4 i + r` (plane
// `i`, lane `r`), position `16 c + slot(k)`.

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

/// Bitslices sixteen blocks; `W` is the register form used for the plane
/// steps, `cpu` the proof that it may be used.
#[inline(always)]
pub(super) fn pack<W: Word>(cpu: W::Cpu, blocks: &[Block; PAR]) -> State {
    let mut w = [0u64; 32];
    for (k, b) in blocks.iter().enumerate() {
        // Columns 0 and 2 share a word, as do 1 and 3: the column's high bit
        // is then already a position bit, which saves a sixth exchange.
        w[loaded_index(k, 0)] = column(b, 0) | (column(b, 2) << 32);
        w[loaded_index(k, 1)] = column(b, 1) | (column(b, 3) << 32);
    }
    exchange_lanes(&mut w);
    let mut v: [W; 8] = core::array::from_fn(|i| {
        W::load(
            cpu,
            &Plane([w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]]),
        )
    });
    exchange_planes(&mut v);
    let mut q = State::default();
    for (p, x) in q.iter_mut().zip(v) {
        *p = x.store();
    }
    w.zeroize();
    q
}

/// Undoes [`pack`].
#[inline(always)]
pub(super) fn unpack<W: Word>(cpu: W::Cpu, q: &State, blocks: &mut [Block; PAR]) {
    let mut v: [W; 8] = core::array::from_fn(|i| W::load(cpu, &q[i]));
    exchange_planes(&mut v);
    let mut w = [0u64; 32];
    for (i, x) in v.into_iter().enumerate() {
        w[4 * i..4 * i + 4].copy_from_slice(&x.store().0);
    }
    exchange_lanes(&mut w);
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

    fn layout_is_as_documented<W: Word<Cpu = ()>>() {
        // Distinct bytes everywhere; check where each bit lands.
        let blocks: [Block; PAR] =
            core::array::from_fn(|k| core::array::from_fn(|j| (k * 16 + j) as u8 ^ 0xa5));
        let w = pack::<W>((), &blocks);
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
        unpack::<W>((), &w, &mut back);
        assert_eq!(back, blocks);
    }

    #[test]
    fn layout_portable_words() {
        layout_is_as_documented::<crate::backend::soft::rows::portable::Rows>();
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn layout_sse2_words() {
        layout_is_as_documented::<crate::backend::soft::rows::sse2::Rows>();
    }
}
