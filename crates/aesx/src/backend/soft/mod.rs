//! The portable backend: constant-time AES without tables.
//!
//! PLACEHOLDER LAYOUT: a straightforward byte-oriented implementation whose
//! S-box is computed (no secret-indexed lookups, no secret branches). It is
//! correct and constant-time but slow; the bitsliced kernels replace it.

use super::inout::InOut;
use super::kernels::BlockKernels;
use crate::key::{inv_sbox, sbox, xtime, Block, RoundKeys, BLOCK_LEN};

#[derive(Clone)]
pub(crate) struct SoftAes {
    rk: RoundKeys,
}

impl SoftAes {
    pub(crate) fn new(rk: &RoundKeys) -> Self {
        SoftAes { rk: rk.clone() }
    }

    fn encrypt_block(&self, b: &mut Block) {
        let nr = self.rk.rounds();
        xor(b, &self.rk.rk[0]);
        for r in 1..=nr {
            for x in b.iter_mut() {
                *x = sbox(*x);
            }
            shift_rows(b);
            if r != nr {
                mix_columns(b);
            }
            xor(b, &self.rk.rk[r]);
        }
    }

    fn decrypt_block(&self, b: &mut Block) {
        let nr = self.rk.rounds();
        xor(b, &self.rk.rk[nr]);
        for r in (0..nr).rev() {
            inv_shift_rows(b);
            for x in b.iter_mut() {
                *x = inv_sbox(*x);
            }
            xor(b, &self.rk.rk[r]);
            if r != 0 {
                inv_mix_columns(b);
            }
        }
    }
}

fn xor(b: &mut Block, k: &Block) {
    for (x, y) in b.iter_mut().zip(k) {
        *x ^= y;
    }
}

fn shift_rows(b: &mut Block) {
    let s = *b;
    for c in 0..4 {
        for r in 0..4 {
            b[4 * c + r] = s[4 * ((c + r) % 4) + r];
        }
    }
}

fn inv_shift_rows(b: &mut Block) {
    let s = *b;
    for c in 0..4 {
        for r in 0..4 {
            b[4 * ((c + r) % 4) + r] = s[4 * c + r];
        }
    }
}

fn mix_columns(b: &mut Block) {
    for c in b.chunks_exact_mut(4) {
        let (a0, a1, a2, a3) = (c[0], c[1], c[2], c[3]);
        let t = a0 ^ a1 ^ a2 ^ a3;
        c[0] ^= t ^ xtime(a0 ^ a1);
        c[1] ^= t ^ xtime(a1 ^ a2);
        c[2] ^= t ^ xtime(a2 ^ a3);
        c[3] ^= t ^ xtime(a3 ^ a0);
    }
}

fn inv_mix_columns(b: &mut Block) {
    for c in b.chunks_exact_mut(4) {
        // InvMixColumns = MixColumns after a pre-multiplication by
        // (04 x^2 + 05) (see the "Design of Rijndael", 4.1.3).
        let u = xtime(xtime(c[0] ^ c[2]));
        let v = xtime(xtime(c[1] ^ c[3]));
        c[0] ^= u;
        c[1] ^= v;
        c[2] ^= u;
        c[3] ^= v;
    }
    mix_columns(b);
}

impl BlockKernels for SoftAes {
    fn encrypt_blocks(&self, mut io: InOut<'_>) {
        for i in 0..io.len() / BLOCK_LEN {
            let mut b = io.read_block(i);
            self.encrypt_block(&mut b);
            io.write_block(i, &b);
        }
    }

    fn decrypt_blocks(&self, mut io: InOut<'_>) {
        for i in 0..io.len() / BLOCK_LEN {
            let mut b = io.read_block(i);
            self.decrypt_block(&mut b);
            io.write_block(i, &b);
        }
    }
}
