//! Which kernel ran: per-kernel call counters, for tests that must prove the
//! dispatch (a forced `vaes512` key really runs `vaes512::ctr_apply`, not a
//! fallback that happens to give the same bytes). GCM and XTS are counted per
//! direction at each level's entry (`gcm_encrypt` counts every encrypting
//! GCM kernel of that level: the streaming one and the one-shot one).
//!
//! The counters exist only in `debug_assertions` builds (tests, dev builds);
//! in release builds [`hit`] is an empty inline function and [`count`] always
//! returns `None`, so the hot paths carry no atomic traffic.

/// The kernels that are counted, by the name tests ask for.
pub(crate) const NAMES: &[&str] = &[
    "aesni::encrypt_blocks",
    "aesni::decrypt_blocks",
    "aesni::cbc_encrypt",
    "aesni::cbc_decrypt",
    "aesni::ctr_apply",
    "aesni::cbc_encrypt_many",
    "aesni::gcm_encrypt",
    "aesni::gcm_decrypt",
    "aesni::xts_encrypt",
    "aesni::xts_decrypt",
    "vaes256::encrypt_blocks",
    "vaes256::decrypt_blocks",
    "vaes256::cbc_encrypt",
    "vaes256::cbc_decrypt",
    "vaes256::ctr_apply",
    "vaes256::cbc_encrypt_many",
    "vaes256::gcm_encrypt",
    "vaes256::gcm_decrypt",
    "vaes256::xts_encrypt",
    "vaes256::xts_decrypt",
    "vaes512::encrypt_blocks",
    "vaes512::decrypt_blocks",
    "vaes512::cbc_encrypt",
    "vaes512::cbc_decrypt",
    "vaes512::ctr_apply",
    "vaes512::cbc_encrypt_many",
    "vaes512::gcm_encrypt",
    "vaes512::gcm_decrypt",
    "vaes512::xts_encrypt",
    "vaes512::xts_decrypt",
    "armv8::encrypt_blocks",
    "armv8::decrypt_blocks",
    "armv8::cbc_encrypt",
    "armv8::cbc_decrypt",
    "armv8::ctr_apply",
];

/// Index of a kernel in [`NAMES`]; kernels name themselves with these.
#[derive(Clone, Copy)]
#[allow(dead_code)] // each target uses only its own backends' variants
pub(crate) enum Kernel {
    AesniEcbEnc,
    AesniEcbDec,
    AesniCbcEnc,
    AesniCbcDec,
    AesniCtr,
    AesniCbcMany,
    AesniGcmEnc,
    AesniGcmDec,
    AesniXtsEnc,
    AesniXtsDec,
    Vaes256EcbEnc,
    Vaes256EcbDec,
    Vaes256CbcEnc,
    Vaes256CbcDec,
    Vaes256Ctr,
    Vaes256CbcMany,
    Vaes256GcmEnc,
    Vaes256GcmDec,
    Vaes256XtsEnc,
    Vaes256XtsDec,
    Vaes512EcbEnc,
    Vaes512EcbDec,
    Vaes512CbcEnc,
    Vaes512CbcDec,
    Vaes512Ctr,
    Vaes512CbcMany,
    Vaes512GcmEnc,
    Vaes512GcmDec,
    Vaes512XtsEnc,
    Vaes512XtsDec,
    Armv8EcbEnc,
    Armv8EcbDec,
    Armv8CbcEnc,
    Armv8CbcDec,
    Armv8Ctr,
}

#[cfg(debug_assertions)]
mod counters {
    use core::sync::atomic::{AtomicU64, Ordering};

    #[allow(clippy::declare_interior_mutable_const)]
    const ZERO: AtomicU64 = AtomicU64::new(0);
    pub(super) static COUNTS: [AtomicU64; super::NAMES.len()] = [ZERO; super::NAMES.len()];

    pub(super) fn bump(i: usize) {
        COUNTS[i].fetch_add(1, Ordering::Relaxed);
    }

    pub(super) fn get(i: usize) -> u64 {
        COUNTS[i].load(Ordering::Relaxed)
    }
}

/// Records one entry into `k` (debug builds only).
#[inline(always)]
pub(crate) fn hit(k: Kernel) {
    #[cfg(debug_assertions)]
    counters::bump(k as usize);
    #[cfg(not(debug_assertions))]
    let _ = k;
}

/// How many times the kernel `name` (e.g. `"vaes512::ctr_apply"`) has been
/// entered in this process; `None` for an unknown name or in builds without
/// the counters (release). For tests only.
#[doc(hidden)]
pub fn count(name: &str) -> Option<u64> {
    let i = NAMES.iter().position(|n| *n == name)?;
    #[cfg(debug_assertions)]
    {
        Some(counters::get(i))
    }
    #[cfg(not(debug_assertions))]
    {
        let _ = i;
        None
    }
}

/// Whether this build counts kernel entries. For tests only.
#[doc(hidden)]
pub fn enabled() -> bool {
    cfg!(debug_assertions)
}
