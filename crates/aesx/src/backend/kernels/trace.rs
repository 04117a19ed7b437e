//! Which kernel ran: per-kernel call counters, for tests that must prove the
//! dispatch (a forced `vaes512` key really runs `vaes512::ctr_apply`, not a
//! fallback that happens to give the same bytes). GCM and XTS are counted per
//! direction at each level's entry (`gcm_encrypt` counts every encrypting
//! GCM kernel of that level: the streaming one and the one-shot one).
//!
//! The counters exist only in the library's own unit-test build; elsewhere
//! [`hit`] is an empty inline function, so the hot paths carry nothing and
//! nothing outside the crate can see them.

/// Declares every counted kernel once: its `Kernel` variant (what the
/// kernel passes to [`hit`]) and the name tests ask for, at the same index
/// of `NAMES`. A macro because Rust cannot list an enum's variants: written
/// by hand, the enum and the name table could fall out of step silently.
macro_rules! kernels {
    ($($kernel:ident = $name:literal,)+) => {
        /// The kernels that are counted, by the name tests ask for.
        #[cfg(test)]
        pub(crate) const NAMES: &[&str] = &[$($name),+];

        /// Index of a kernel in `NAMES`; kernels name themselves with these.
        #[derive(Clone, Copy)]
        #[allow(dead_code)] // each target uses only its own backends' variants
        pub(crate) enum Kernel {
            $($kernel),+
        }
    };
}

kernels! {
    AesniEcbEnc = "aesni::encrypt_blocks",
    AesniEcbDec = "aesni::decrypt_blocks",
    AesniCbcEnc = "aesni::cbc_encrypt",
    AesniCbcDec = "aesni::cbc_decrypt",
    AesniCtr = "aesni::ctr_apply",
    AesniCbcMany = "aesni::cbc_encrypt_many",
    AesniGcmEnc = "aesni::gcm_encrypt",
    AesniGcmDec = "aesni::gcm_decrypt",
    AesniXtsEnc = "aesni::xts_encrypt",
    AesniXtsDec = "aesni::xts_decrypt",
    Vaes256EcbEnc = "vaes256::encrypt_blocks",
    Vaes256EcbDec = "vaes256::decrypt_blocks",
    Vaes256CbcEnc = "vaes256::cbc_encrypt",
    Vaes256CbcDec = "vaes256::cbc_decrypt",
    Vaes256Ctr = "vaes256::ctr_apply",
    Vaes256CbcMany = "vaes256::cbc_encrypt_many",
    Vaes256GcmEnc = "vaes256::gcm_encrypt",
    Vaes256GcmDec = "vaes256::gcm_decrypt",
    Vaes256XtsEnc = "vaes256::xts_encrypt",
    Vaes256XtsDec = "vaes256::xts_decrypt",
    Vaes512EcbEnc = "vaes512::encrypt_blocks",
    Vaes512EcbDec = "vaes512::decrypt_blocks",
    Vaes512CbcEnc = "vaes512::cbc_encrypt",
    Vaes512CbcDec = "vaes512::cbc_decrypt",
    Vaes512Ctr = "vaes512::ctr_apply",
    Vaes512CbcMany = "vaes512::cbc_encrypt_many",
    Vaes512GcmEnc = "vaes512::gcm_encrypt",
    Vaes512GcmDec = "vaes512::gcm_decrypt",
    Vaes512XtsEnc = "vaes512::xts_encrypt",
    Vaes512XtsDec = "vaes512::xts_decrypt",
    Armv8EcbEnc = "armv8::encrypt_blocks",
    Armv8EcbDec = "armv8::decrypt_blocks",
    Armv8CbcEnc = "armv8::cbc_encrypt",
    Armv8CbcDec = "armv8::cbc_decrypt",
    Armv8Ctr = "armv8::ctr_apply",
    AesniPolyval = "aesni::polyval",
    Vaes256Polyval = "vaes256::polyval",
    Vaes512Polyval = "vaes512::polyval",
    AesniCtr32le = "aesni::ctr32le",
    Vaes256Ctr32le = "vaes256::ctr32le",
    Vaes512Ctr32le = "vaes512::ctr32le",
    AesniCbcMac = "aesni::cbc_mac",
    AesniCcmEnc = "aesni::ccm_encrypt",
    AesniCcmDec = "aesni::ccm_decrypt",
    AesniKwWrap = "aesni::kw_wrap",
    AesniKwUnwrap = "aesni::kw_unwrap",
    Armv8CbcMac = "armv8::cbc_mac",
    Armv8CcmEnc = "armv8::ccm_encrypt",
    Armv8CcmDec = "armv8::ccm_decrypt",
    Armv8KwWrap = "armv8::kw_wrap",
    Armv8KwUnwrap = "armv8::kw_unwrap",
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
