//! What loaded the provider and what it runs on: the OpenSSL release of
//! the core (read once at init), and the aesx backend of this process.

use core::ffi::{c_int, c_void, CStr};
use core::ptr;
use std::sync::OnceLock;

use aesx::Backend;

use crate::ffi::{self, OsslDispatch, OsslParam};
use crate::params;

/// The OpenSSL release whose default provider the parameter lists mirror
/// when the core does not say which it is.
const FIRST_RELEASE: (u32, u32) = (3, 0);

/// The release of the OpenSSL that loaded the provider, (major, minor),
/// read once at init (one process has one libcrypto).
static CORE_RELEASE: OnceLock<(u32, u32)> = OnceLock::new();

/// Reads the core's release once, at init (the first release the lists
/// mirror when the core does not say).
///
/// # Safety
/// As [`read_core_release`].
pub(crate) unsafe fn note_core_release(handle: *const c_void, core: *const OsslDispatch) {
    // SAFETY: the caller's contract, passed on.
    let release = unsafe { read_core_release(handle, core) };
    CORE_RELEASE.get_or_init(|| release.unwrap_or(FIRST_RELEASE));
}

/// Whether the loading OpenSSL is 3.6 or later, whose default provider
/// reports more parameters (see `cipher.rs`'s lists).
pub(crate) fn core_is_3_6() -> bool {
    *CORE_RELEASE.get().unwrap_or(&FIRST_RELEASE) >= (3, 6)
}

/// The core's `openssl-version` ("3.6.3") as (3, 6), through the
/// `core_get_params` of its dispatch table; None if it does not answer.
///
/// # Safety
/// `core` is NULL or a dispatch table ended by function id 0, whose
/// `core_get_params` entry takes `handle`.
unsafe fn read_core_release(
    handle: *const c_void,
    core: *const OsslDispatch,
) -> Option<(u32, u32)> {
    type CoreGetParams = unsafe extern "C" fn(*const c_void, *mut OsslParam) -> c_int;
    let mut d = core;
    let get = loop {
        // SAFETY: `d` walks the terminated table (NULL checked first).
        let entry = unsafe { d.as_ref() }?;
        if entry.function_id == 0 {
            return None;
        }
        if entry.function_id == ffi::FUNC_CORE_GET_PARAMS {
            break entry.function?;
        }
        // SAFETY: not the terminator, so the next entry exists.
        d = unsafe { d.add(1) };
    };
    // SAFETY: OSSL_FUNC_CORE_GET_PARAMS has this signature
    // (`OSSL_FUNC_core_get_params_fn`); the table stores it type-erased.
    let get: CoreGetParams = unsafe { core::mem::transmute(get) };
    let mut version: *const core::ffi::c_char = ptr::null();
    let mut req = [
        OsslParam {
            key: ffi::PROV_PARAM_CORE_VERSION.as_ptr(),
            data_type: ffi::PARAM_UTF8_PTR,
            data: (&mut version as *mut *const core::ffi::c_char).cast(),
            data_size: core::mem::size_of::<*const core::ffi::c_char>(),
            return_size: ffi::PARAM_UNMODIFIED,
        },
        params::END,
    ];
    // SAFETY: the core's own function, its handle, a terminated array
    // whose one element points to a pointer-sized slot.
    if unsafe { get(handle, req.as_mut_ptr()) } == 0 || version.is_null() {
        return None;
    }
    // SAFETY: the core wrote a pointer to its NUL-terminated version
    // string, which lives as long as libcrypto.
    let text = unsafe { CStr::from_ptr(version) }.to_str().ok()?;
    let mut parts = text.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// The backend every key of this process runs on: `AESX_BACKEND` if set
/// (an unknown or unavailable name makes the provider refuse to load),
/// else the fastest this machine has.
pub(crate) fn backend() -> Option<Backend> {
    static CHOSEN: OnceLock<Option<Backend>> = OnceLock::new();
    *CHOSEN.get_or_init(|| match std::env::var("AESX_BACKEND") {
        Ok(name) if !name.is_empty() => name.parse::<Backend>().and_then(Backend::require).ok(),
        _ => Some(Backend::fastest()),
    })
}
