//! The AES rounds on the bitsliced state of [`super::bitslice`].

use super::bitslice::State;
use super::sbox::{inv_sub_bytes, sub_bytes};

/// Round keys in bitsliced form: each round key repeated for all sixteen
/// blocks, so adding it is 32 XORs.
pub(super) type RoundKey = State;

/// The eight planes of row `r`.
#[inline(always)]
fn row(q: &mut State, r: usize) -> &mut [u64; 8] {
    let s: &mut [u64] = &mut q[8 * r..8 * r + 8];
    s.try_into().expect("a row is eight words")
}

#[inline(always)]
fn sub_state(q: &mut State) {
    for r in 0..4 {
        sub_bytes(row(q, r));
    }
}

#[inline(always)]
fn inv_sub_state(q: &mut State) {
    for r in 0..4 {
        inv_sub_bytes(row(q, r));
    }
}

/// Row `r` moves `r` columns left: column `c` takes column `c + r`, and with
/// columns in 16-bit groups that is one rotation right by `16 * r`.
#[inline(always)]
fn shift_rows(q: &mut State) {
    for r in 1..4 {
        for w in &mut q[8 * r..8 * r + 8] {
            *w = w.rotate_right(16 * r as u32);
        }
    }
}

#[inline(always)]
fn inv_shift_rows(q: &mut State) {
    for r in 1..4 {
        for w in &mut q[8 * r..8 * r + 8] {
            *w = w.rotate_left(16 * r as u32);
        }
    }
}

/// Multiplication by x in GF(2^8) on bit planes: a shift of plane indices,
/// with the top plane folded back by the polynomial 0x1b (bits 0, 1, 3, 4).
#[inline(always)]
fn xtime(a: [u64; 8]) -> [u64; 8] {
    [
        a[7],
        a[0] ^ a[7],
        a[1],
        a[2] ^ a[7],
        a[3] ^ a[7],
        a[4],
        a[5],
        a[6],
    ]
}

#[inline(always)]
fn planes(q: &State, r: usize) -> [u64; 8] {
    core::array::from_fn(|i| q[8 * r + i])
}

/// MixColumns. With `t_r = a_r ^ a_{r+1}` (rows, indices mod 4), output row
/// `r` is `2 a_r ^ 3 a_{r+1} ^ a_{r+2} ^ a_{r+3} = x·t_r ^ a_{r+1} ^ t_{r+2}`.
#[inline(always)]
fn mix_columns(q: &mut State) {
    let a: [[u64; 8]; 4] = core::array::from_fn(|r| planes(q, r));
    let t: [[u64; 8]; 4] =
        core::array::from_fn(|r| core::array::from_fn(|i| a[r][i] ^ a[(r + 1) % 4][i]));
    for r in 0..4 {
        let x = xtime(t[r]);
        for i in 0..8 {
            q[8 * r + i] = x[i] ^ a[(r + 1) % 4][i] ^ t[(r + 2) % 4][i];
        }
    }
}

/// InvMixColumns as MixColumns after multiplying each column by
/// `04 x^2 + 05` ("The Design of Rijndael", 4.1.3): rows 0 and 2 gain
/// `4 (a_0 ^ a_2)`, rows 1 and 3 gain `4 (a_1 ^ a_3)`.
#[inline(always)]
fn inv_mix_columns(q: &mut State) {
    for r in 0..2 {
        let s: [u64; 8] = core::array::from_fn(|i| q[8 * r + i] ^ q[8 * (r + 2) + i]);
        let u = xtime(xtime(s));
        for i in 0..8 {
            q[8 * r + i] ^= u[i];
            q[8 * (r + 2) + i] ^= u[i];
        }
    }
    mix_columns(q);
}

#[inline(always)]
fn add_round_key(q: &mut State, k: &RoundKey) {
    for (w, k) in q.iter_mut().zip(k) {
        *w ^= k;
    }
}

/// Encrypts the sixteen blocks in `q` with round keys `rk[0..=nr]`.
// Not inlined: one copy of the round loop serves every kernel.
#[inline(never)]
pub(super) fn encrypt(q: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    add_round_key(q, &rk[0]);
    for k in &rk[1..nr] {
        sub_state(q);
        shift_rows(q);
        mix_columns(q);
        add_round_key(q, k);
    }
    sub_state(q);
    shift_rows(q);
    add_round_key(q, &rk[nr]);
}

/// Decrypts the sixteen blocks in `q` (the inverse cipher of FIPS 197 5.3,
/// with the encryption round keys).
#[inline(never)]
pub(super) fn decrypt(q: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    add_round_key(q, &rk[nr]);
    for k in rk[1..nr].iter().rev() {
        inv_shift_rows(q);
        inv_sub_state(q);
        add_round_key(q, k);
        inv_mix_columns(q);
    }
    inv_shift_rows(q);
    inv_sub_state(q);
    add_round_key(q, &rk[0]);
}
