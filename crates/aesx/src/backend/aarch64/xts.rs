//! XTS (IEEE 1619) over whole blocks with the data key, 8 blocks at a time.
//!
//! The tweak sequence T, T*x, T*x^2, ... is computed in general registers
//! (a 128-bit shift and a masked XOR of 0x87, no branch on the secret top
//! bit) and moved into vectors: the vector pipes are what limits AES on
//! every current core, so the tweak arithmetic goes to the integer pipes,
//! which are otherwise idle here. Per block the vector work is the rounds
//! plus two XORs: `T ^ k[0]` enters as the first AESE's key operand (AESE
//! XORs its operands first), and the output whitening `^ T` merges with the
//! last round key, in one EOR3 where FEAT_SHA3 is present.

use core::arch::aarch64::*;

use super::blocks::LANES;
use super::rounds::{xor, zeros, Dec, Dir, Enc, Flavour};
use super::ArmAes;
use crate::backend::kernels::cpu::{ArmCrypto, ArmSha3};
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::xts::XtsKernels;
use crate::key::{Block, KeySize};

/// T * x in GF(2^128), IEEE 1619 bit order (little-endian), by mask.
#[inline(always)]
fn mul_x(t: u128) -> u128 {
    (t << 1) ^ (0u128.wrapping_sub(t >> 127) & 0x87)
}

/// The tweak `t` as a vector (its bytes in little-endian order).
#[inline]
#[target_feature(enable = "aes")]
fn tweak_vector(t: u128) -> uint8x16_t {
    vreinterpretq_u8_p128(t)
}

/// The XTS kernel body in direction `D`, 8 blocks at a time: `T ^ k[0]`
/// is the first round's key operand, and the output whitening `^ T` joins
/// the last round key in one [`Flavour::xor3`].
#[inline(always)]
fn xts_body<D: Dir, X: Flavour, const R: usize>(
    x: X,
    k: &ArmAes,
    tweak: &mut Block,
    mut io: InOut<'_>,
) {
    let n = io.blocks();
    let (src, dst) = (io.src_ptr(), io.dst_ptr());
    let key = D::schedule(k);
    let (k0, last) = (key[0], key[R]);
    let mut t = u128::from_le_bytes(*tweak);
    let mut i = 0;
    while i + LANES <= n {
        let mut tw = zeros::<LANES>();
        for v in tw.iter_mut() {
            // SAFETY: `k.crypto` proves FEAT_AES.
            *v = unsafe { tweak_vector(t) };
            t = mul_x(t);
        }
        let mut b = zeros::<LANES>();
        for (j, v) in b.iter_mut().enumerate() {
            // SAFETY: blocks i..i+LANES lie inside the input (i + LANES <= n).
            let d = unsafe { vld1q_u8(src.add(16 * (i + j))) };
            *v = D::round(k.crypto, d, xor(tw[j], k0));
        }
        k.rounds_after_first::<D, R, LANES>(&mut b);
        for (j, v) in b.iter().enumerate() {
            let y = D::last(k.crypto, *v, key[R - 1]);
            // SAFETY: blocks i..i+LANES lie inside the output; all loads of
            // the batch came before the first store.
            unsafe { vst1q_u8(dst.add(16 * (i + j)), x.xor3(y, last, tw[j])) };
        }
        i += LANES;
    }
    while i < n {
        // SAFETY: `k.crypto` proves FEAT_AES.
        let tv = unsafe { tweak_vector(t) };
        // SAFETY: block i < n lies inside the input.
        let d = unsafe { vld1q_u8(src.add(16 * i)) };
        let mut b = [D::round(k.crypto, d, xor(tv, k0))];
        k.rounds_after_first::<D, R, 1>(&mut b);
        let y = D::last(k.crypto, b[0], key[R - 1]);
        // SAFETY: block i < n lies inside the output; its input was read.
        unsafe { vst1q_u8(dst.add(16 * i), x.xor3(y, last, tv)) };
        t = mul_x(t);
        i += 1;
    }
    *tweak = t.to_le_bytes();
}

/// XTS encryption body for `flavours!`.
#[inline(always)]
fn xts_encrypt_body<X: Flavour, const R: usize>(
    x: X,
    k: &ArmAes,
    tweak: &mut Block,
    io: InOut<'_>,
) {
    xts_body::<Enc, X, R>(x, k, tweak, io)
}

/// XTS decryption body for `flavours!`.
#[inline(always)]
fn xts_decrypt_body<X: Flavour, const R: usize>(
    x: X,
    k: &ArmAes,
    tweak: &mut Block,
    io: InOut<'_>,
) {
    xts_body::<Dec, X, R>(x, k, tweak, io)
}

flavours!(
    /// XTS-encrypts whole blocks from the encrypted tweak `tweak`, which
    /// becomes the tweak of the next block.
    xts_encrypt, xts_encrypt_eor3 =
        xts_encrypt_body<R>(k: &ArmAes, tweak: &mut Block, io: InOut<'_>)
);
flavours!(
    /// XTS-decrypts whole blocks; `tweak` advances as in encryption.
    xts_decrypt, xts_decrypt_eor3 =
        xts_decrypt_body<R>(k: &ArmAes, tweak: &mut Block, io: InOut<'_>)
);

// The sector kernels are the trait's: one tweak encryption batch per group
// of sectors, each sector through these kernels.
impl XtsKernels for ArmAes {
    fn xts_encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        // SAFETY: `self.crypto` proves FEAT_AES, and the `ArmSha3` token
        // handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => xts_encrypt_eor3::<10>(t, self, tweak, io),
                (Some(t), KeySize::Aes192) => xts_encrypt_eor3::<12>(t, self, tweak, io),
                (Some(t), KeySize::Aes256) => xts_encrypt_eor3::<14>(t, self, tweak, io),
                (None, KeySize::Aes128) => xts_encrypt::<10>(self.crypto, self, tweak, io),
                (None, KeySize::Aes192) => xts_encrypt::<12>(self.crypto, self, tweak, io),
                (None, KeySize::Aes256) => xts_encrypt::<14>(self.crypto, self, tweak, io),
            }
        }
    }

    fn xts_decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        // SAFETY: `self.crypto` proves FEAT_AES, and the `ArmSha3` token
        // handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => xts_decrypt_eor3::<10>(t, self, tweak, io),
                (Some(t), KeySize::Aes192) => xts_decrypt_eor3::<12>(t, self, tweak, io),
                (Some(t), KeySize::Aes256) => xts_decrypt_eor3::<14>(t, self, tweak, io),
                (None, KeySize::Aes128) => xts_decrypt::<10>(self.crypto, self, tweak, io),
                (None, KeySize::Aes192) => xts_decrypt::<12>(self.crypto, self, tweak, io),
                (None, KeySize::Aes256) => xts_decrypt::<14>(self.crypto, self, tweak, io),
            }
        }
    }
}
