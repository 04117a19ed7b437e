//! Which kernel ran: per-kernel call counters, for tests that must prove the
//! dispatch (a forced `vaes512` key really runs `vaes512::ctr_apply`, not a
//! fallback that happens to give the same bytes). GCM and XTS are counted per
//! direction at each level's entry (`gcm_encrypt` counts every encrypting
//! GCM kernel of that level: the streaming one and the one-shot one).
//!
//! The counters exist only in the library's own unit-test build; elsewhere
//! [`hit`] is an empty inline function, so the hot paths carry nothing and
//! nothing outside the crate can see them.

/// The kernels that are counted, by the name tests ask for.
#[cfg(test)]
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
    "aesni::polyval",
    "vaes256::polyval",
    "vaes512::polyval",
    "aesni::ctr32le",
    "vaes256::ctr32le",
    "vaes512::ctr32le",
    "aesni::cbc_mac",
    "aesni::ccm_encrypt",
    "aesni::ccm_decrypt",
    "aesni::kw_wrap",
    "aesni::kw_unwrap",
    "armv8::cbc_mac",
    "armv8::ccm_encrypt",
    "armv8::ccm_decrypt",
    "armv8::kw_wrap",
    "armv8::kw_unwrap",
];

/// Index of a kernel in `NAMES`; kernels name themselves with these.
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
    AesniPolyval,
    Vaes256Polyval,
    Vaes512Polyval,
    AesniCtr32le,
    Vaes256Ctr32le,
    Vaes512Ctr32le,
    AesniCbcMac,
    AesniCcmEnc,
    AesniCcmDec,
    AesniKwWrap,
    AesniKwUnwrap,
    Armv8CbcMac,
    Armv8CcmEnc,
    Armv8CcmDec,
    Armv8KwWrap,
    Armv8KwUnwrap,
}

/// Records one entry into `k` (test builds only).
#[inline(always)]
pub(crate) fn hit(k: Kernel) {
    #[cfg(test)]
    counters::bump(k as usize);
    #[cfg(not(test))]
    let _ = k;
}

/// How many times the kernel `name` (e.g. `"vaes512::ctr_apply"`) has been
/// entered on this thread; `None` for an unknown name.
#[cfg(test)]
pub(crate) fn count(name: &str) -> Option<u64> {
    let i = NAMES.iter().position(|n| *n == name)?;
    Some(counters::get(i))
}

/// Whether this build counts kernel entries (the library's unit tests do).
#[cfg(test)]
pub(crate) fn enabled() -> bool {
    true
}

// Per thread, so that the library's other unit tests, running on other
// threads at the same time, cannot move the counts a test is looking at (the
// kernels run on the caller's thread).
#[cfg(test)]
mod counters {
    use std::cell::Cell;

    std::thread_local! {
        static COUNTS: [Cell<u64>; super::NAMES.len()] =
            const { [const { Cell::new(0) }; super::NAMES.len()] };
    }

    pub(super) fn bump(i: usize) {
        COUNTS.with(|c| c[i].set(c[i].get() + 1));
    }

    pub(super) fn get(i: usize) -> u64 {
        COUNTS.with(|c| c[i].get())
    }
}
