//! The AES round sequences, as macros so that they expand inside each
//! `#[target_feature]` kernel (a helper function would need
//! `#[inline(always)]`, which Rust does not allow together with
//! `#[target_feature]`; an ordinary call per block would cost more than the
//! rounds).
//!
//! AESE is AddRoundKey + ShiftRows + SubBytes and AESMC is MixColumns, so a
//! round is an AESE/AESMC pair writing the same register: cores from
//! Cortex-A57 on fuse such a back-to-back pair into one operation. Rounds run
//! outermost and blocks innermost, which emits the pairs adjacent and
//! interleaves independent blocks to hide the instruction latency.
//!
//! The rounds are spelled out rather than looped: with 8 blocks in flight a
//! `for` over 9 to 13 rounds is larger than LLVM's full-unroll threshold, and
//! the rolled loop then reloads a round key and spends a compare and branch
//! per round. Spelled out, with `R` a constant, every key index is constant,
//! the `if`s fold away, and the keys stay in registers across batches.

/// One middle round (AESE + AESMC) with key `$rk` on every block of `$b`.
macro_rules! enc_round {
    ($rk:expr, $b:ident) => {{
        let rk = $rk;
        for x in $b.iter_mut() {
            *x = vaesmcq_u8(vaeseq_u8(*x, rk));
        }
    }};
}

/// One middle round of the equivalent inverse cipher (AESD + AESIMC).
macro_rules! dec_round {
    ($rk:expr, $b:ident) => {{
        let rk = $rk;
        for x in $b.iter_mut() {
            *x = vaesimcq_u8(vaesdq_u8(*x, rk));
        }
    }};
}

/// Runs rounds `0..R-1` of `$round` (`R` = `$r`, a constant 10, 12 or 14)
/// over `$b` with keys `$k`.
macro_rules! middle_rounds {
    ($round:ident, $k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        $round!(k[0], $b);
        $round!(k[1], $b);
        $round!(k[2], $b);
        $round!(k[3], $b);
        $round!(k[4], $b);
        $round!(k[5], $b);
        $round!(k[6], $b);
        $round!(k[7], $b);
        $round!(k[8], $b);
        if $r >= 12 {
            $round!(k[9], $b);
            $round!(k[10], $b);
        }
        if $r >= 14 {
            $round!(k[11], $b);
            $round!(k[12], $b);
        }
    }};
}

/// Encrypts every block of the array `$b` in place with `$k[0..=$r]`. The
/// last round has no MixColumns and ends with the final key XOR.
macro_rules! encrypt_lanes {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        middle_rounds!(enc_round, k, $r, $b);
        for x in $b.iter_mut() {
            *x = veorq_u8(vaeseq_u8(*x, k[$r - 1]), k[$r]);
        }
    }};
}

/// Runs every round but the final key XOR: afterwards each block of `$b`
/// still needs `^ $k[$r]`, which the caller folds into a later XOR (with the
/// data in CTR, with EOR3 where there is one).
macro_rules! encrypt_lanes_open {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        middle_rounds!(enc_round, k, $r, $b);
        for x in $b.iter_mut() {
            *x = vaeseq_u8(*x, k[$r - 1]);
        }
    }};
}

/// Runs every inverse round but the final key XOR (see
/// `encrypt_lanes_open!`); each block of `$b` still needs `^ $k[$r]`.
macro_rules! decrypt_lanes_open {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        middle_rounds!(dec_round, k, $r, $b);
        for x in $b.iter_mut() {
            *x = vaesdq_u8(*x, k[$r - 1]);
        }
    }};
}

/// Decrypts every block of the array `$b` in place with the equivalent
/// inverse cipher keys `$k[0..=$r]` (AESD is AddRoundKey + InvShiftRows +
/// InvSubBytes, AESIMC is InvMixColumns).
macro_rules! decrypt_lanes {
    ($k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        middle_rounds!(dec_round, k, $r, $b);
        for x in $b.iter_mut() {
            *x = veorq_u8(vaesdq_u8(*x, k[$r - 1]), k[$r]);
        }
    }};
}

/// Calls `$f::<R>($args)` for the key's round count: one branch per call, so
/// that each kernel is compiled with its round loop fully unrolled.
macro_rules! by_rounds {
    ($k:expr, $($f:ident)::+, $($arg:expr),*) => {
        match $k.rounds {
            10 => $($f)::+::<10>($k, $($arg),*),
            12 => $($f)::+::<12>($k, $($arg),*),
            // RoundKeys only ever has 10, 12 or 14 rounds.
            _ => $($f)::+::<14>($k, $($arg),*),
        }
    };
}
