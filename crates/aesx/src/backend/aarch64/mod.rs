//! AArch64 backend: the Armv8 Crypto Extensions (AESE/AESD/AESMC/AESIMC)
//! and PMULL.
//!
//! An [`ArmAes`] holds a [`cpu::ArmCrypto`] token (FEAT_AES and FEAT_PMULL),
//! which only the cached detection in `backend::cpu` can make, and, where
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
//! flight fit with room to spare).

use core::arch::aarch64::*;

use super::cpu::{self, ArmCrypto, ArmSha3};
use super::engine::Family;
use super::inout::InOut;
use super::kernels::{BlockKernels, CbcManyKernels};
use super::trace::{self, Kernel};
use super::{Backend, BackendSet};
use crate::error::{Error, Result};
use crate::key::{Block, RoundKeys, MAX_ROUNDS};

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

impl Family for ArmAes {
    fn new(_: Backend, rk: &RoundKeys) -> Result<Self> {
        ArmAes::new(rk)
    }

    fn available() -> BackendSet {
        BackendSet(if available() { Backend::Armv8.bit() } else { 0 })
    }
}

// No multi-buffer kernel yet: one message after another.
impl CbcManyKernels for ArmAes {}

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
    rounds: usize,
    crypto: ArmCrypto,
    /// `None` where the CPU lacks FEAT_SHA3 (or a test asked for the
    /// two-EOR kernels): then only the `"aes"` flavours run.
    sha3: Option<ArmSha3>,
}

impl ArmAes {
    /// Expands `rk`; fails unless the CPU has FEAT_AES and FEAT_PMULL.
    pub(crate) fn new(rk: &RoundKeys) -> Result<Self> {
        let f = cpu::features();
        let crypto = f.crypto.ok_or(Error::BackendUnavailable(Backend::Armv8))?;
        // SAFETY: `crypto` proves FEAT_AES, which `expand` enables.
        Ok(unsafe { Self::expand(crypto, f.sha3, rk) })
    }

    #[target_feature(enable = "aes")]
    unsafe fn expand(crypto: ArmCrypto, sha3: Option<ArmSha3>, rk: &RoundKeys) -> Self {
        let rounds = rk.rounds();
        let mut enc = [vdupq_n_u8(0); MAX_ROUNDS + 1];
        let mut dec = [vdupq_n_u8(0); MAX_ROUNDS + 1];
        for (e, k) in enc.iter_mut().zip(rk.rk.iter()).take(rounds + 1) {
            // SAFETY: `k` is 16 readable bytes; LD1 has no alignment need.
            *e = unsafe { vld1q_u8(k.as_ptr()) };
        }
        dec[0] = enc[rounds];
        for i in 1..rounds {
            dec[i] = vaesimcq_u8(enc[rounds - i]);
        }
        dec[rounds] = enc[0];
        ArmAes {
            enc,
            dec,
            rounds,
            crypto,
            sha3,
        }
    }

    /// The token this key was built with: FEAT_AES and FEAT_PMULL.
    pub(crate) fn crypto(&self) -> ArmCrypto {
        self.crypto
    }

    /// The FEAT_SHA3 token, where detection found it.
    pub(crate) fn sha3(&self) -> Option<ArmSha3> {
        self.sha3
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
        for k in self.enc.iter_mut().chain(self.dec.iter_mut()) {
            // SAFETY: `k` is a valid, aligned, exclusive reference; a volatile
            // write keeps the compiler from eliding the wipe.
            unsafe { core::ptr::write_volatile(k, vdupq_n_u8(0)) };
        }
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
    }
}

// Each entry point records itself in the debug-build kernel counters
// (`backend::trace`), so that tests can prove a forced `armv8` key reaches
// these kernels; in release builds `hit` is empty.
impl BlockKernels for ArmAes {
    fn encrypt_blocks(&self, io: InOut<'_>) {
        trace::hit(Kernel::Armv8EcbEnc);
        // SAFETY: `self` holds the `ArmCrypto` token, so FEAT_AES is present.
        unsafe { by_rounds!(self, blocks::ecb_encrypt, io) }
    }

    fn decrypt_blocks(&self, io: InOut<'_>) {
        trace::hit(Kernel::Armv8EcbDec);
        // SAFETY: as above.
        unsafe { by_rounds!(self, blocks::ecb_decrypt, io) }
    }

    fn cbc_encrypt(&self, iv: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CbcEnc);
        // SAFETY: as above.
        unsafe { by_rounds!(self, blocks::cbc_encrypt, iv, io) }
    }

    fn cbc_decrypt(&self, iv: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8CbcDec);
        if let Some(sha3) = self.sha3 {
            // SAFETY: as above, and the `ArmSha3` token handed over proves
            // FEAT_SHA3.
            unsafe { by_rounds!(self, blocks::cbc_decrypt_eor3, sha3, iv, io) }
        } else {
            // SAFETY: as above.
            unsafe { by_rounds!(self, blocks::cbc_decrypt, self.crypto, iv, io) }
        }
    }

    fn ctr_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8Ctr);
        if let Some(sha3) = self.sha3 {
            // SAFETY: as above, and the `ArmSha3` token handed over proves
            // FEAT_SHA3.
            unsafe { by_rounds!(self, ctr::ctr_apply_eor3, sha3, ctr, io) }
        } else {
            // SAFETY: as above.
            unsafe { by_rounds!(self, ctr::ctr_apply, self.crypto, ctr, io) }
        }
    }
}
