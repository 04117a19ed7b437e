//! The AES rounds on the bitsliced state of [`super::bitslice`], generic
//! over the register form of a plane ([`Word`]).

use super::bitslice::State;
use super::rows::Word;
use super::sbox::{inv_sub_bytes, sub_bytes};

/// Round keys in bitsliced form: each round key repeated for all sixteen
/// blocks, so adding it is eight word XORs.
pub(super) type RoundKey = State;

/// Multiplication by x in GF(2^8) on bit planes: a shift of plane indices,
/// with the top plane folded back by the polynomial 0x1b (bits 0, 1, 3, 4).
#[inline(always)]
fn xtime<W: Word>(a: [W; 8]) -> [W; 8] {
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

/// MixColumns. With `t_r = a_r ^ a_{r+1}` (rows, indices mod 4), output row
/// `r` is `2 a_r ^ 3 a_{r+1} ^ a_{r+2} ^ a_{r+3} = x·t_r ^ a_{r+1} ^ t_{r+2}`;
/// "row r + n" is a lane rotation of every plane.
#[inline(always)]
fn mix_columns<W: Word>(q: &mut [W; 8]) {
    let mut b = *q;
    let mut t = *q;
    for i in 0..8 {
        b[i] = q[i].rotate_rows_1();
        t[i] = q[i] ^ b[i];
    }
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
fn inv_mix_columns<W: Word>(q: &mut [W; 8]) {
    let mut s = *q;
    for i in 0..8 {
        s[i] = q[i] ^ q[i].rotate_rows_2();
    }
    let u = xtime(xtime(s));
    for i in 0..8 {
        q[i] = q[i] ^ u[i];
    }
    mix_columns(q);
}

#[inline(always)]
fn add_round_key<W: Word>(q: &mut [W; 8], k: &RoundKey) {
    for (w, k) in q.iter_mut().zip(k) {
        // A word in hand carries the proof needed to make another.
        *w = *w ^ W::load(w.cpu(), k);
    }
}

#[inline(always)]
fn load<W: Word>(cpu: W::Cpu, s: &State) -> [W; 8] {
    [
        W::load(cpu, &s[0]),
        W::load(cpu, &s[1]),
        W::load(cpu, &s[2]),
        W::load(cpu, &s[3]),
        W::load(cpu, &s[4]),
        W::load(cpu, &s[5]),
        W::load(cpu, &s[6]),
        W::load(cpu, &s[7]),
    ]
}

// Plain loops rather than `map`: the word methods must be inlined straight
// into the caller, which may be compiled with extra target features.
#[inline(always)]
fn shift_rows<W: Word>(q: &mut [W; 8]) {
    for w in q.iter_mut() {
        *w = w.shift_rows();
    }
}

#[inline(always)]
fn inv_shift_rows<W: Word>(q: &mut [W; 8]) {
    for w in q.iter_mut() {
        *w = w.inv_shift_rows();
    }
}

#[inline(always)]
fn store<W: Word>(q: [W; 8], s: &mut State) {
    for (d, w) in s.iter_mut().zip(q) {
        *d = w.store();
    }
}

/// Encrypts the sixteen blocks in `s` with round keys `rk[0..=nr]`.
#[inline(always)]
pub(super) fn encrypt<W: Word>(cpu: W::Cpu, s: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    let mut q: [W; 8] = load(cpu, s);
    add_round_key(&mut q, &rk[0]);
    for k in &rk[1..nr] {
        sub_bytes(&mut q);
        shift_rows(&mut q);
        mix_columns(&mut q);
        add_round_key(&mut q, k);
    }
    sub_bytes(&mut q);
    shift_rows(&mut q);
    add_round_key(&mut q, &rk[nr]);
    store(q, s);
}

/// Decrypts the sixteen blocks in `s` (the inverse cipher of FIPS 197 5.3,
/// with the encryption round keys).
#[inline(always)]
pub(super) fn decrypt<W: Word>(cpu: W::Cpu, s: &mut State, rk: &[RoundKey]) {
    let nr = rk.len() - 1;
    let mut q: [W; 8] = load(cpu, s);
    add_round_key(&mut q, &rk[nr]);
    for k in rk[1..nr].iter().rev() {
        inv_shift_rows(&mut q);
        inv_sub_bytes(&mut q);
        add_round_key(&mut q, k);
        inv_mix_columns(&mut q);
    }
    inv_shift_rows(&mut q);
    inv_sub_bytes(&mut q);
    add_round_key(&mut q, &rk[0]);
    store(q, s);
}
