//! The AES rounds on the bitsliced state of [`super::bitslice`].

use super::bitslice::State;
use super::rows::Rows;
use super::sbox::{inv_sub_bytes, sub_bytes};

/// Round keys in bitsliced form: each round key repeated for all sixteen
/// blocks, so adding it is eight word XORs.
pub(super) type RoundKey = State;

/// Multiplication by x in GF(2^8) on bit planes: a shift of plane indices,
/// with the top plane folded back by the polynomial 0x1b (bits 0, 1, 3, 4).
#[inline(always)]
fn xtime(a: State) -> State {
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
fn shift_rows(q: &mut State) {
    for w in q.iter_mut() {
        *w = w.shift_rows();
    }
}

#[inline(always)]
fn inv_shift_rows(q: &mut State) {
    for w in q.iter_mut() {
        *w = w.inv_shift_rows();
    }
}

/// MixColumns. With `t_r = a_r ^ a_{r+1}` (rows, indices mod 4), output row
/// `r` is `2 a_r ^ 3 a_{r+1} ^ a_{r+2} ^ a_{r+3} = x·t_r ^ a_{r+1} ^ t_{r+2}`;
/// "row r + n" is a lane rotation of every plane.
#[inline(always)]
fn mix_columns(q: &mut State) {
    let b: State = q.map(Rows::rotate_rows_1);
    let t: State = core::array::from_fn(|i| q[i] ^ b[i]);
    let x = xtime(t);
    for i in 0..8 {
        q[i] = x[i] ^ b[i] ^ t[i].rotate_rows_2();
    }
}

/// InvMixColumns as MixColumns after multiplying each column by
/// `04 x^2 + 05` ("The Design of Rijndael", 4.1.3): rows 0 and 2 gain
/// `4 (a_0 ^ a_2)`, rows 1 and 3 gain `4 (a_1 ^ a_3)`, which is
/// `4 (a_r ^ a_{r+2})` for every row `r`.
#[inline(always)]
fn inv_mix_columns(q: &mut State) {
    let s: State = core::array::from_fn(|i| q[i] ^ q[i].rotate_rows_2());
    let u = xtime(xtime(s));
    for i in 0..8 {
        q[i] ^= u[i];
    }
    mix_columns(q);
}

#[inline(always)]
fn add_round_key(q: &mut State, k: &RoundKey) {
    for (w, k) in q.iter_mut().zip(k) {
        *w ^= *k;
    }
}

/// Encrypts the sixteen blocks in `q` with round keys `rk[0..=nr]`.
#[inline(always)]
pub(super) fn encrypt(q: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    add_round_key(q, &rk[0]);
    for k in &rk[1..nr] {
        sub_bytes(q);
        shift_rows(q);
        mix_columns(q);
        add_round_key(q, k);
    }
    sub_bytes(q);
    shift_rows(q);
    add_round_key(q, &rk[nr]);
}

/// Decrypts the sixteen blocks in `q` (the inverse cipher of FIPS 197 5.3,
/// with the encryption round keys).
#[inline(always)]
pub(super) fn decrypt(q: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    add_round_key(q, &rk[nr]);
    for k in rk[1..nr].iter().rev() {
        inv_shift_rows(q);
        inv_sub_bytes(q);
        add_round_key(q, k);
        inv_mix_columns(q);
    }
    inv_shift_rows(q);
    inv_sub_bytes(q);
    add_round_key(q, &rk[0]);
}
