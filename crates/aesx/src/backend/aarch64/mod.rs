//! AArch64 backend: the Armv8 Crypto Extensions (AESE/AESD/AESMC/AESIMC)
//! and PMULL.
//!
//! An [`ArmAes`] is only built after run-time detection (or, without std,
//! the build's target features) has confirmed FEAT_AES and FEAT_PMULL;
//! holding one is the proof that makes calling the `#[target_feature]`
//! kernels sound, as holding an `X86Aes` is on x86. Every `unsafe` call of a
//! kernel below relies on that.
//!
//! Kernels are monomorphised per round count (`R` = 10, 12, 14) so that the
//! round loops unroll completely and the whole key schedule stays in
//! registers (AArch64 has 32 vector registers: 15 round keys plus 8 blocks in
//! flight fit with room to spare).

use core::arch::aarch64::*;

use super::inout::InOut;
use super::kernels::BlockKernels;
use super::trace::{self, Kernel};
use super::Backend;
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

/// What this CPU offers beyond the baseline AES + PMULL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Features {
    /// FEAT_AES and FEAT_PMULL: the backend needs both.
    pub(crate) aes: bool,
    /// FEAT_SHA3, for EOR3 (three-way XOR in one instruction).
    pub(crate) sha3: bool,
}

#[cfg(feature = "std")]
pub(crate) fn detect() -> Features {
    // Rust's "aes" feature covers FEAT_AES and FEAT_PMULL together; asking for
    // "pmull" as well costs nothing (the result is cached by std) and keeps
    // the requirement explicit.
    let aes = std::arch::is_aarch64_feature_detected!("aes")
        && std::arch::is_aarch64_feature_detected!("pmull");
    let sha3 = aes && std::arch::is_aarch64_feature_detected!("sha3");
    Features { aes, sha3 }
}

/// Without std there is no run-time detection: only what the build enables.
#[cfg(not(feature = "std"))]
pub(crate) fn detect() -> Features {
    let aes = cfg!(target_feature = "aes");
    let sha3 = aes && cfg!(target_feature = "sha3");
    Features { aes, sha3 }
}

/// Whether the `armv8` backend can run here.
pub(crate) fn available() -> bool {
    detect().aes
}

/// Round keys in vector registers for the Crypto Extensions.
///
/// `enc[0..=rounds]` are the FIPS 197 encryption round keys. `dec[0..=rounds]`
/// are those of the equivalent inverse cipher (FIPS 197 section 5.3.5) in the
/// order AESD consumes them: `dec[0] = enc[rounds]`, `dec[i] =
/// InvMixColumns(enc[rounds - i])`, `dec[rounds] = enc[0]`.
#[derive(Clone)]
pub(crate) struct ArmAes {
    pub(crate) enc: [uint8x16_t; MAX_ROUNDS + 1],
    pub(crate) dec: [uint8x16_t; MAX_ROUNDS + 1],
    pub(crate) rounds: usize,
    pub(crate) features: Features,
}

impl ArmAes {
    /// Expands `rk`; fails unless the CPU has FEAT_AES and FEAT_PMULL.
    pub(crate) fn new(rk: &RoundKeys) -> Result<Self> {
        let features = detect();
        if !features.aes {
            return Err(Error::BackendUnavailable(Backend::Armv8));
        }
        // SAFETY: FEAT_AES was detected just above.
        Ok(unsafe { Self::expand(rk, features) })
    }

    #[target_feature(enable = "aes")]
    unsafe fn expand(rk: &RoundKeys, features: Features) -> Self {
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
            features,
        }
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
        // SAFETY: an ArmAes exists only if FEAT_AES was detected.
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
        if self.features.sha3 {
            // SAFETY: as above, and FEAT_SHA3 was detected with the key.
            unsafe { by_rounds!(self, blocks::cbc_decrypt_eor3, iv, io) }
        } else {
            // SAFETY: as above.
            unsafe { by_rounds!(self, blocks::cbc_decrypt, iv, io) }
        }
    }

    fn ctr_apply(&self, ctr: &mut Block, io: InOut<'_>) {
        trace::hit(Kernel::Armv8Ctr);
        if self.features.sha3 {
            // SAFETY: as above, and FEAT_SHA3 was detected with the key.
            unsafe { by_rounds!(self, ctr::ctr_apply_eor3, ctr, io) }
        } else {
            // SAFETY: as above.
            unsafe { by_rounds!(self, ctr::ctr_apply, ctr, io) }
        }
    }
}
