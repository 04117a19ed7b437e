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
//!
//! The kernel files share more than the rounds, and it lives here too (the
//! one module of the backend whose macros the others see): the two XOR3
//! flavours (`xor3_eor2!` for the `"aes"` kernels, `xor3_eor3!` for the
//! `"aes,sha3"` ones), the keystream XOR of CTR and GCM (`xor_keystream!`),
//! the dispatch on the round count (`by_rounds!`) and the definition of a
//! block-state kernel in both flavours (`state_kernels!`). The direction of
//! the round macros is a token, `enc` or `dec`.

/// One middle round on the block `$x` with key `$rk`: AESE + AESMC for
/// `enc`, AESD + AESIMC (the equivalent inverse cipher) for `dec`.
macro_rules! round {
    (enc, $x:expr, $rk:expr) => {
        vaesmcq_u8(vaeseq_u8($x, $rk))
    };
    (dec, $x:expr, $rk:expr) => {
        vaesimcq_u8(vaesdq_u8($x, $rk))
    };
}

/// The last round without its final key XOR: AESE (`enc`) or AESD (`dec`)
/// alone, since the last round has no (Inv)MixColumns.
macro_rules! last_round {
    (enc, $x:expr, $rk:expr) => {
        vaeseq_u8($x, $rk)
    };
    (dec, $x:expr, $rk:expr) => {
        vaesdq_u8($x, $rk)
    };
}

/// One middle round of direction `$dir` with key `$rk` on every block of
/// the array `$b`.
macro_rules! round_lanes {
    ($dir:tt, $rk:expr, $b:ident) => {{
        let rk = $rk;
        for x in $b.iter_mut() {
            *x = round!($dir, *x, rk);
        }
    }};
}

/// Runs rounds `0..R-1` of direction `$dir` (`R` = `$r`, a constant 10, 12
/// or 14) over `$b` with keys `$k`.
macro_rules! middle_rounds {
    ($dir:tt, $k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        round_lanes!($dir, k[0], $b);
        rounds_after_first!($dir, k, $r, $b);
    }};
}

/// Middle rounds 1..R-1 (keys `k[1..=R-2]`), for kernels that do the first
/// round themselves (XTS puts the tweak into its key operand).
macro_rules! rounds_after_first {
    ($dir:tt, $k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        round_lanes!($dir, k[1], $b);
        round_lanes!($dir, k[2], $b);
        round_lanes!($dir, k[3], $b);
        round_lanes!($dir, k[4], $b);
        round_lanes!($dir, k[5], $b);
        round_lanes!($dir, k[6], $b);
        round_lanes!($dir, k[7], $b);
        round_lanes!($dir, k[8], $b);
        if $r >= 12 {
            round_lanes!($dir, k[9], $b);
            round_lanes!($dir, k[10], $b);
        }
        if $r >= 14 {
            round_lanes!($dir, k[11], $b);
            round_lanes!($dir, k[12], $b);
        }
    }};
}

/// Runs every round of direction `$dir` with keys `$k[0..=$r]` on every
/// block of the array `$b`, the last one (no (Inv)MixColumns) up to its
/// final key XOR, then sets each block `x` to `$fin` with `$y` naming that
/// last round's output.
macro_rules! rounds_then {
    ($dir:tt, $k:expr, $r:expr, $b:ident, |$y:ident| $fin:expr) => {{
        let k = $k;
        middle_rounds!($dir, k, $r, $b);
        for x in $b.iter_mut() {
            let $y = last_round!($dir, *x, k[$r - 1]);
            *x = $fin;
        }
    }};
}

/// Every round but the final key XOR: afterwards each block of `$b` still
/// needs `^ $k[$r]`, which the caller folds into a later XOR (with the data
/// in CTR, with EOR3 where there is one).
macro_rules! lanes_open {
    ($dir:tt, $k:expr, $r:expr, $b:ident) => {
        rounds_then!($dir, $k, $r, $b, |y| y)
    };
}

/// Encrypts (`enc`, keys `enc`) or decrypts (`dec`, the equivalent inverse
/// cipher keys `dec`) every block of the array `$b` in place with
/// `$k[0..=$r]`, the final key XOR included.
macro_rules! lanes {
    ($dir:tt, $k:expr, $r:expr, $b:ident) => {{
        let k = $k;
        rounds_then!($dir, k, $r, $b, |y| veorq_u8(y, k[$r]))
    }};
}

/// `a ^ b ^ c` on bytes in two EORs (baseline Armv8): the XOR of the
/// `"aes"` kernels.
macro_rules! xor3_eor2 {
    ($a:expr, $b:expr, $c:expr) => {
        veorq_u8(veorq_u8($a, $b), $c)
    };
}

/// `a ^ b ^ c` on bytes in one EOR3 (FEAT_SHA3): the XOR of the
/// `"aes,sha3"` kernels.
macro_rules! xor3_eor3 {
    ($a:expr, $b:expr, $c:expr) => {
        veor3q_u8($a, $b, $c)
    };
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

/// Writes `in ^ $last ^ $ks[j]` (`$xor3`: `xor3_eor2` or `xor3_eor3`) to
/// block `$i + j` of the output for every keystream block `$ks[j]`, each
/// input block loaded before the store to it. Expands to raw-pointer loads
/// and stores: the caller's `unsafe` block vouches that blocks
/// `$i..$i + $ks.len()` lie inside both regions.
macro_rules! xor_keystream {
    ($xor3:ident, $src:expr, $dst:expr, $i:expr, $last:expr, $ks:expr) => {
        for (j, x) in $ks.iter().enumerate() {
            let d = vld1q_u8($src.add(16 * ($i + j)));
            vst1q_u8($dst.add(16 * ($i + j)), $xor3!(d, $last, *x));
        }
    };
}

/// Defines a kernel over the whole blocks of an `InOut` that carries one
/// block of state from call to call (an IV, a counter, a tweak), in its two
/// flavours: `$plain` for `"aes"`, handed the `ArmCrypto` token, combining
/// with `xor3_eor2!`, and `$eor3` for `"aes,sha3"`, handed `ArmSha3`, with
/// `xor3_eor3!`. `$body` names a macro taking `(key, R, state, n, src,
/// dst, xor3)` (`n` whole blocks from `src` to `dst`, which may be equal),
/// then any `$extra` tokens, that expands to the kernel's body.
macro_rules! state_kernels {
    (
        $(#[$doc:meta])* $plain:ident;
        $(#[$doc3:meta])* $eor3:ident;
        $body:ident $(, $extra:tt)*
    ) => {
        state_kernels!(@one $(#[$doc])* $plain, "aes", ArmCrypto, xor3_eor2, $body $(, $extra)*);
        state_kernels!(@one $(#[$doc3])* $eor3, "aes,sha3", ArmSha3, xor3_eor3, $body $(, $extra)*);
    };
    (
        @one $(#[$doc:meta])* $name:ident, $features:literal, $tok:ident, $xor3:ident,
        $body:ident $(, $extra:tt)*
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU must have FEAT_AES, and FEAT_SHA3 for the EOR3 flavour;
        /// the token argument (`ArmCrypto` for "aes", `ArmSha3` for
        /// "aes,sha3") proves it.
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name<const R: usize>(
            k: &ArmAes,
            _: $tok,
            state: &mut Block,
            mut io: InOut<'_>,
        ) {
            let n = io.blocks();
            let (src, dst) = (io.src_ptr(), io.dst_ptr());
            $body!(k, R, state, n, src, dst, $xor3 $(, $extra)*)
        }
    };
}
