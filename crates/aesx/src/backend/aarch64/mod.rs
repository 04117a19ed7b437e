//! AArch64 backend: the Armv8 Crypto Extensions (AESE/AESD/AESMC/AESIMC)
//! and PMULL.
//!
//! An [`ArmAes`] holds a [`cpu::ArmCrypto`] token (FEAT_AES and FEAT_PMULL),
//! which only the cached detection in `backend::kernels::cpu` can make, and, where
//! the CPU has FEAT_SHA3, a [`cpu::ArmSha3`] token. Its fields are private
//! to this module and its children, which cannot make tokens either, so
//! holding an `ArmAes` is the proof that calling the `"aes"` kernels is
//! sound, as holding an `X86Aes` is on x86. The kernels generated in two
//! flavours (`"aes"` and `"aes,sha3"`, EOR3) also take the token for their
//! features as an argument, so the EOR3 ones cannot be called without an
//! `ArmSha3` in hand.
//!
//! Kernels are monomorphised per round count (`R` = 10, 12, 14) so that the
//! round loops unroll completely and the whole key schedule stays in
//! registers (AArch64 has 32 vector registers: 15 round keys plus 8 blocks in
//! flight fit with room to spare). Each entry point below matches
//! exhaustively on the key's [`KeySize`] (and, for the kernels with an EOR3
//! flavour, on its `ArmSha3` token) and calls the kernel for that case.

use core::arch::aarch64::*;

use super::kernels::cpu::{self, ArmCrypto, ArmSha3};
use super::kernels::family::Family;
use super::kernels::inout::InOut;
use super::kernels::polyval::PolyvalKernels;
use super::kernels::siv::SivKernels;
use super::kernels::trace::{self, Kernel};
use super::kernels::vector_keys::inverse_keys;
use super::kernels::wipe;
use super::kernels::{BlockKernels, CbcManyKernels};
use crate::error::Result;
use crate::key::{Block, KeySize, RoundKeys, MAX_ROUNDS};
use rounds::{Dec, Enc};

#[macro_use]
mod rounds;
mod blocks;
mod cbc_mac;
mod ctr;
pub(crate) mod gcm;
pub(crate) mod ghash;
pub(crate) mod polyval;
// Only the tests read the generic timer (to check that it ticks); nothing
// outside the crate sees it.
#[cfg(test)]
mod timer;
pub(crate) mod xts;

#[cfg(test)]
mod tests;

/// Whether the `armv8` backend can run here.
pub(crate) fn available() -> bool {
    cpu::features().crypto.is_some()
}

// One tier: the Crypto Extensions.
impl Family for ArmAes {
    fn with_tier(tier: u8, rk: &RoundKeys) -> Option<Self> {
        if tier == 0 {
            ArmAes::new(rk)
        } else {
            None
        }
    }

    fn runs(tier: u8) -> bool {
        tier == 0 && available()
    }
}

// No multi-buffer kernel yet: one message after another.
impl CbcManyKernels for ArmAes {}

impl SivKernels for ArmAes {
    type Polyval = polyval::ArmPolyvalKey;

    fn message_key(&self, key: &[u8]) -> Result<Self> {
        let rk = RoundKeys::expand(key)?;
        // SAFETY: `self.crypto`, detection's token that this key was built
        // with, proves FEAT_AES, which `expand` enables.
        Ok(unsafe { Self::expand(self.crypto, self.sha3, &rk) })
    }

    fn polyval_key(&self, h: &Block, blocks: usize) -> polyval::ArmPolyvalKey {
        polyval::ArmPolyvalKey::new(self, h, blocks)
    }
}

impl PolyvalKernels for polyval::ArmPolyvalKey {
    fn update_blocks(&self, acc: &mut Block, data: &[u8]) {
        self.update(acc, data)
    }
}

/// Round keys in vector registers for the Crypto Extensions.
///
/// `enc[0..=rounds]` are the FIPS 197 encryption round keys. `dec[0..=rounds]`
/// are those of the equivalent inverse cipher (FIPS 197 section 5.3.5) in the
/// order AESD consumes them: `dec[0] = enc[rounds]`, `dec[i] =
/// InvMixColumns(enc[rounds - i])`, `dec[rounds] = enc[0]`.
#[derive(Clone)]
pub(crate) struct ArmAes {
    enc: [uint8x16_t; MAX_ROUNDS + 1],
    dec: [uint8x16_t; MAX_ROUNDS + 1],
    size: KeySize,
    crypto: ArmCrypto,
    /// `None` where the CPU lacks FEAT_SHA3 (or a test asked for the
    /// two-EOR kernels): then only the `"aes"` flavours run.
    sha3: Option<ArmSha3>,
}

impl ArmAes {
    /// Expands `rk`; `None` unless the CPU has FEAT_AES and FEAT_PMULL.
    pub(crate) fn new(rk: &RoundKeys) -> Option<Self> {
        let f = cpu::features();
        let crypto = f.crypto?;
        // SAFETY: `crypto` proves FEAT_AES, which `expand` enables.
        Some(unsafe { Self::expand(crypto, f.sha3, rk) })
    }

    #[target_feature(enable = "aes")]
    unsafe fn expand(crypto: ArmCrypto, sha3: Option<ArmSha3>, rk: &RoundKeys) -> Self {
        let size = rk.size;
        let rounds = size.rounds();
        let mut enc = [vdupq_n_u8(0); MAX_ROUNDS + 1];
        for (e, k) in enc.iter_mut().zip(rk.rk.iter()).take(rounds + 1) {
            // SAFETY: `k` is 16 readable bytes; LD1 has no alignment need.
            *e = unsafe { vld1q_u8(k.as_ptr()) };
        }
        let dec = inverse_keys(&enc, rounds, |k| vaesimcq_u8(k));
        ArmAes {
            enc,
            dec,
            size,
            crypto,
            sha3,
        }
    }

    /// The token this key was built with: FEAT_AES and FEAT_PMULL.
    pub(crate) fn crypto(&self) -> ArmCrypto {
        self.crypto
    }

    /// The same key without its FEAT_SHA3 token, so that tests can run the
    /// two-EOR kernels on a CPU that has EOR3 (dropping a token is sound).
    #[cfg(test)]
    pub(crate) fn without_sha3(&self) -> Self {
        let mut k = self.clone();
        k.sha3 = None;
        k
    }
}

impl Drop for ArmAes {
    fn drop(&mut self) {
        // SAFETY: Advanced SIMD is part of the AArch64 baseline.
        let zero = unsafe { vdupq_n_u8(0) };
        wipe(self.enc.iter_mut().chain(self.dec.iter_mut()), zero);
    }
}

// Each entry point records itself in the debug-build kernel counters
// (`backend::kernels::trace`), so that tests can prove a forced `armv8` key
// reaches these kernels; in release builds `hit` is empty.
impl BlockKernels for ArmAes {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        trace::hit(Kernel::Armv8EcbEnc);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => blocks::ecb::<Enc, 10>(self, io),
                KeySize::Aes192 => blocks::ecb::<Enc, 12>(self, io),
                KeySize::Aes256 => blocks::ecb::<Enc, 14>(self, io),
            }
        }
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        trace::hit(Kernel::Armv8EcbDec);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => blocks::ecb::<Dec, 10>(self, io),
                KeySize::Aes192 => blocks::ecb::<Dec, 12>(self, io),
                KeySize::Aes256 => blocks::ecb::<Dec, 14>(self, io),
            }
        }
    }

    fn cbc_encrypt(&self, iv: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CbcEnc);
        // SAFETY: `self.crypto` proves FEAT_AES, all the kernel needs.
        unsafe {
            match self.size {
                KeySize::Aes128 => blocks::cbc_encrypt::<10>(self, iv, io),
                KeySize::Aes192 => blocks::cbc_encrypt::<12>(self, iv, io),
                KeySize::Aes256 => blocks::cbc_encrypt::<14>(self, iv, io),
            }
        }
    }

    fn cbc_decrypt(&self, iv: &mut Block, io: InOut<'_>) {
        use blocks::{cbc_decrypt, cbc_decrypt_eor3};
        trace::hit(Kernel::Armv8CbcDec);
        let c = self.crypto;
        // SAFETY: `self.crypto` proves FEAT_AES, and the `ArmSha3` token
        // handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => cbc_decrypt_eor3::<10>(t, self, iv, io),
                (Some(t), KeySize::Aes192) => cbc_decrypt_eor3::<12>(t, self, iv, io),
                (Some(t), KeySize::Aes256) => cbc_decrypt_eor3::<14>(t, self, iv, io),
                (None, KeySize::Aes128) => cbc_decrypt::<10>(c, self, iv, io),
                (None, KeySize::Aes192) => cbc_decrypt::<12>(c, self, iv, io),
                (None, KeySize::Aes256) => cbc_decrypt::<14>(c, self, iv, io),
            }
        }
    }

    fn ctr_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        use ctr::{ctr_apply, ctr_apply_eor3};
        trace::hit(Kernel::Armv8Ctr);
        let c = self.crypto;
        // SAFETY: `self.crypto` proves FEAT_AES, and the `ArmSha3` token
        // handed to the EOR3 kernels proves FEAT_SHA3.
        unsafe {
            match (self.sha3, self.size) {
                (Some(t), KeySize::Aes128) => ctr_apply_eor3::<10>(t, self, ctr, io),
                (Some(t), KeySize::Aes192) => ctr_apply_eor3::<12>(t, self, ctr, io),
                (Some(t), KeySize::Aes256) => ctr_apply_eor3::<14>(t, self, ctr, io),
                (None, KeySize::Aes128) => ctr_apply::<10>(c, self, ctr, io),
                (None, KeySize::Aes192) => ctr_apply::<12>(c, self, ctr, io),
                (None, KeySize::Aes256) => ctr_apply::<14>(c, self, ctr, io),
            }
        }
    }
}
