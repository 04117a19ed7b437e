//! The pieces every kernel file shares: the AES round sequences (generic over
//! the direction [`Dir`], the round count `R` and the number of blocks in
//! flight `N`), the two ways of XORing three values ([`Flavour`]), and the
//! macro that stamps a flavour-generic kernel's two entry points.
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
//! How the code reaches the instructions: Rust does not allow
//! `#[inline(always)]` together with `#[target_feature]`. The instructions
//! themselves sit in tiny `#[inline]` functions with the feature (the
//! leaves below), which LLVM always inlines into a caller that has it; the
//! sequences and kernel bodies are `#[inline(always)]` without features, so
//! they land inside the `#[target_feature]` kernel that calls them, leaves
//! and all. A leaf is called only through a token ([`ArmCrypto`],
//! [`ArmSha3`]) whose existence proves its feature, so the sequences are
//! safe functions.

use core::arch::aarch64::*;

use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::key::MAX_ROUNDS;

/// A round key schedule in vector registers.
pub(super) type Schedule = [uint8x16_t; MAX_ROUNDS + 1];

#[inline]
#[target_feature(enable = "aes")]
fn aese_aesmc(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    vaesmcq_u8(vaeseq_u8(x, k))
}

#[inline]
#[target_feature(enable = "aes")]
fn aesd_aesimc(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    vaesimcq_u8(vaesdq_u8(x, k))
}

#[inline]
#[target_feature(enable = "aes")]
fn aese(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    vaeseq_u8(x, k)
}

#[inline]
#[target_feature(enable = "aes")]
fn aesd(x: uint8x16_t, k: uint8x16_t) -> uint8x16_t {
    vaesdq_u8(x, k)
}

#[inline]
#[target_feature(enable = "sha3")]
fn eor3(a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
    veor3q_u8(a, b, c)
}

#[inline]
#[target_feature(enable = "sha3")]
fn eor3_64(a: uint64x2_t, b: uint64x2_t, c: uint64x2_t) -> uint64x2_t {
    veor3q_u64(a, b, c)
}

/// `a ^ b` (Advanced SIMD, part of the AArch64 baseline).
#[inline(always)]
pub(super) fn xor(a: uint8x16_t, b: uint8x16_t) -> uint8x16_t {
    // SAFETY: EOR needs only Advanced SIMD, which every AArch64 CPU has.
    unsafe { veorq_u8(a, b) }
}

/// `N` zero vectors, to be filled.
#[inline(always)]
pub(super) fn zeros<const N: usize>() -> [uint8x16_t; N] {
    // SAFETY: MOVI needs only Advanced SIMD, which every AArch64 CPU has.
    [unsafe { vdupq_n_u8(0) }; N]
}

/// A cipher direction: encryption (AESE/AESMC on the FIPS 197 schedule) or
/// decryption (AESD/AESIMC on the equivalent inverse cipher's schedule).
pub(super) trait Dir {
    /// The round keys this direction runs on.
    fn schedule(k: &ArmAes) -> &Schedule;
    /// One middle round (with (Inv)MixColumns) of `x` with key `rk`.
    fn round(c: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t;
    /// The last round without its final key XOR: AESE or AESD alone.
    fn last(c: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t;
}

/// Encryption.
pub(super) enum Enc {}

/// Decryption by the equivalent inverse cipher.
pub(super) enum Dec {}

impl Dir for Enc {
    #[inline(always)]
    fn schedule(k: &ArmAes) -> &Schedule {
        &k.enc
    }

    #[inline(always)]
    fn round(_: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES.
        unsafe { aese_aesmc(x, rk) }
    }

    #[inline(always)]
    fn last(_: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES.
        unsafe { aese(x, rk) }
    }
}

impl Dir for Dec {
    #[inline(always)]
    fn schedule(k: &ArmAes) -> &Schedule {
        &k.dec
    }

    #[inline(always)]
    fn round(_: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES.
        unsafe { aesd_aesimc(x, rk) }
    }

    #[inline(always)]
    fn last(_: ArmCrypto, x: uint8x16_t, rk: uint8x16_t) -> uint8x16_t {
        // SAFETY: the `ArmCrypto` token proves FEAT_AES.
        unsafe { aesd(x, rk) }
    }
}

/// How a kernel XORs three values, with the token that proves it may:
/// two EORs ([`ArmCrypto`], baseline Armv8) or one EOR3 ([`ArmSha3`],
/// FEAT_SHA3). Both tokens also prove FEAT_AES and FEAT_PMULL (detection
/// makes `ArmSha3` only where it makes `ArmCrypto`).
pub(super) trait Flavour: Copy {
    /// `a ^ b ^ c` on bytes.
    fn xor3(self, a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t;
    /// `a ^ b ^ c` on 64-bit lanes.
    fn xor3_64(self, a: uint64x2_t, b: uint64x2_t, c: uint64x2_t) -> uint64x2_t;
}

impl Flavour for ArmCrypto {
    #[inline(always)]
    fn xor3(self, a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
        xor(xor(a, b), c)
    }

    #[inline(always)]
    fn xor3_64(self, a: uint64x2_t, b: uint64x2_t, c: uint64x2_t) -> uint64x2_t {
        // SAFETY: EOR needs only Advanced SIMD, which every AArch64 CPU has.
        unsafe { veorq_u64(veorq_u64(a, b), c) }
    }
}

impl Flavour for ArmSha3 {
    #[inline(always)]
    fn xor3(self, a: uint8x16_t, b: uint8x16_t, c: uint8x16_t) -> uint8x16_t {
        // SAFETY: the `ArmSha3` token proves FEAT_SHA3.
        unsafe { eor3(a, b, c) }
    }

    #[inline(always)]
    fn xor3_64(self, a: uint64x2_t, b: uint64x2_t, c: uint64x2_t) -> uint64x2_t {
        // SAFETY: the `ArmSha3` token proves FEAT_SHA3.
        unsafe { eor3_64(a, b, c) }
    }
}

impl ArmAes {
    /// One middle round of direction `D` with key `rk` on every block of `b`.
    #[inline(always)]
    pub(super) fn round_lanes<D: Dir, const N: usize>(
        &self,
        rk: uint8x16_t,
        b: &mut [uint8x16_t; N],
    ) {
        for x in b.iter_mut() {
            *x = D::round(self.crypto, *x, rk);
        }
    }

    /// Middle rounds 1..R-1 (keys `1..=R-2`), for kernels that do the first
    /// round themselves (XTS puts the tweak into its key operand).
    #[inline(always)]
    pub(super) fn rounds_after_first<D: Dir, const R: usize, const N: usize>(
        &self,
        b: &mut [uint8x16_t; N],
    ) {
        let k = D::schedule(self);
        self.round_lanes::<D, N>(k[1], b);
        self.round_lanes::<D, N>(k[2], b);
        self.round_lanes::<D, N>(k[3], b);
        self.round_lanes::<D, N>(k[4], b);
        self.round_lanes::<D, N>(k[5], b);
        self.round_lanes::<D, N>(k[6], b);
        self.round_lanes::<D, N>(k[7], b);
        self.round_lanes::<D, N>(k[8], b);
        if R >= 12 {
            self.round_lanes::<D, N>(k[9], b);
            self.round_lanes::<D, N>(k[10], b);
        }
        if R >= 14 {
            self.round_lanes::<D, N>(k[11], b);
            self.round_lanes::<D, N>(k[12], b);
        }
    }

    /// Every round of direction `D` on every block of `b` but the final key
    /// XOR: afterwards each block still needs `^ k[R]`, which the caller
    /// folds into a later XOR (with the data in CTR, with EOR3 where there
    /// is one).
    #[inline(always)]
    pub(super) fn lanes_open<D: Dir, const R: usize, const N: usize>(
        &self,
        b: &mut [uint8x16_t; N],
    ) {
        let k = D::schedule(self);
        self.round_lanes::<D, N>(k[0], b);
        self.rounds_after_first::<D, R, N>(b);
        for x in b.iter_mut() {
            *x = D::last(self.crypto, *x, k[R - 1]);
        }
    }

    /// Encrypts (`Enc`) or decrypts (`Dec`) every block of `b` in place,
    /// the final key XOR included.
    #[inline(always)]
    pub(super) fn lanes<D: Dir, const R: usize, const N: usize>(&self, b: &mut [uint8x16_t; N]) {
        self.lanes_open::<D, R, N>(b);
        let last = D::schedule(self)[R];
        for x in b.iter_mut() {
            *x = xor(*x, last);
        }
    }
}

/// Writes `in ^ last ^ ks[j]` to block `i + j` of the output for every
/// keystream block `ks[j]`, each input block loaded before the store to it.
///
/// # Safety
/// Blocks `i..i + N` (16 bytes each) must be readable at `src` and writable
/// at `dst`.
#[inline(always)]
pub(super) unsafe fn xor_keystream<X: Flavour, const N: usize>(
    x: X,
    src: *const u8,
    dst: *mut u8,
    i: usize,
    last: uint8x16_t,
    ks: &[uint8x16_t; N],
) {
    for (j, k) in ks.iter().enumerate() {
        // SAFETY: block i + j lies inside both regions (the caller's
        // contract); LD1/ST1 need only Advanced SIMD and no alignment.
        unsafe {
            let d = vld1q_u8(src.add(16 * (i + j)));
            vst1q_u8(dst.add(16 * (i + j)), x.xor3(d, last, *k));
        }
    }
}

/// Defines the two entry points of a kernel whose body is written once,
/// generic over its [`Flavour`]: `$plain` with the features `"aes"`, taking
/// the `ArmCrypto` token, and `$eor3` with `"aes,sha3"`, taking `ArmSha3`.
/// Each forwards to `$body::<Token, $const...>`, which is
/// `#[inline(always)]` and so compiled inside it, with its features.
///
/// A macro because `#[target_feature]` takes a string literal that no
/// generic parameter can choose: the two entry points differ only in that
/// literal and the token type.
macro_rules! flavours {
    (
        $(#[$doc:meta])* $plain:ident, $eor3:ident =
        $body:ident<$($c:ident),*>($($arg:ident: $ty:ty),* $(,)?)
    ) => {
        $(#[$doc])*
        #[target_feature(enable = "aes")]
        pub(super) fn $plain<$(const $c: usize),*>(x: ArmCrypto, $($arg: $ty),*) {
            $body::<_ $(, $c)*>(x, $($arg),*)
        }

        $(#[$doc])*
        ///
        /// With EOR3 (FEAT_SHA3).
        #[target_feature(enable = "aes,sha3")]
        pub(super) fn $eor3<$(const $c: usize),*>(x: ArmSha3, $($arg: $ty),*) {
            $body::<_ $(, $c)*>(x, $($arg),*)
        }
    };
}
