//! `aesx-provider`: an OpenSSL 3 provider named "aesx" whose AES ciphers run
//! on the aesx crate, with its run-time backend dispatch (`AESX_BACKEND`
//! forces one). Built as a cdylib that OpenSSL loads (copy
//! `libaesx_provider.so` to `aesx.so` in a modules directory); no
//! libcrypto is linked: the core ABI is written by hand in [`ffi`].
//!
//! Offered under property `provider=aesx`, with the default provider's
//! names, aliases and OIDs: AES-128/192/256 in ECB, CBC, CTR, GCM, CCM and
//! key wrap (KW, KWP, each also with the inverse cipher), and
//! AES-128/256-XTS (see `README.md` for what is not there yet).
//!
//! Every entry point OpenSSL calls is wrapped by `guard` (`entry.rs`): a panic
//! returns 0/NULL instead of unwinding into C.

#![allow(clippy::missing_safety_doc)]

pub mod block;
pub mod ccm;
mod cipher;
mod counter;
mod entry;
pub mod ffi;
pub mod gcm;
pub mod gcm_siv;
mod loader;
mod mac;
pub mod params;
pub mod wrap;
pub mod xts;

use core::ffi::{c_int, c_void, CStr};
use core::ptr;
use std::sync::OnceLock;

use aesx::Backend;

use entry::{dispatch, guard, DispatchTable, DISPATCH_END};
use ffi::{OsslAlgorithm, OsslDispatch, OsslParam};
use loader::backend;
use params::ParamList;

pub use counter::bytes_done;

/// The backend's name as a 'static C string.
fn backend_cname(b: Backend) -> &'static CStr {
    static NAMES: OnceLock<Vec<(Backend, std::ffi::CString)>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        Backend::ALL
            .iter()
            .map(|&b| (b, std::ffi::CString::new(b.name()).unwrap_or_default()))
            .collect()
    });
    names
        .iter()
        .find(|(x, _)| *x == b)
        .map(|(_, n)| n.as_c_str())
        .unwrap_or(c"unknown")
}

const NAME: &CStr = c"aesx";
const VERSION: &CStr =
    match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
        Ok(s) => s,
        Err(_) => c"unknown",
    };
const BUILDINFO: &CStr = match CStr::from_bytes_with_nul(
    concat!(
        "aesx-provider ",
        env!("CARGO_PKG_VERSION"),
        " (Rust, no libcrypto)\0"
    )
    .as_bytes(),
) {
    Ok(s) => s,
    Err(_) => c"aesx-provider",
};

static PROV_GETTABLE: ParamList<7> = ParamList([
    params::utf8_ptr(ffi::PROV_NAME),
    params::utf8_ptr(ffi::PROV_VERSION),
    params::utf8_ptr(ffi::PROV_BUILDINFO),
    params::int(ffi::PROV_STATUS),
    params::desc(ffi::PROV_AESX_BYTES, ffi::PARAM_UNSIGNED_INTEGER, 8),
    params::utf8_ptr(ffi::PROV_AESX_BACKEND),
    params::END,
]);

unsafe extern "C" fn prov_gettable_params(_provctx: *mut c_void) -> *const OsslParam {
    PROV_GETTABLE.as_ptr()
}

unsafe extern "C" fn prov_get_params(_provctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        let strings = [
            (ffi::PROV_NAME, NAME),
            (ffi::PROV_VERSION, VERSION),
            (ffi::PROV_BUILDINFO, BUILDINFO),
            (
                ffi::PROV_AESX_BACKEND,
                backend_cname(backend().unwrap_or(Backend::Soft)),
            ),
        ];
        for (key, value) in strings {
            // SAFETY: `params` is OpenSSL's terminated array (or NULL,
            // which `locate` handles); an element found is valid.
            if let Some(p) = unsafe { params::locate(params, key) } {
                // SAFETY: `p` is a valid element of OpenSSL's array and
                // `value` a 'static C string.
                if !unsafe { params::set_utf8(p, value) } {
                    return 0;
                }
            }
        }
        // SAFETY: `params` is OpenSSL's terminated array or NULL.
        let ok = unsafe {
            params::put_u64(params, ffi::PROV_STATUS, 1)
                && params::put_u64(params, ffi::PROV_AESX_BYTES, bytes_done())
        };
        ok as c_int
    })
}

unsafe extern "C" fn prov_query_operation(
    _provctx: *mut c_void,
    operation_id: c_int,
    no_cache: *mut c_int,
) -> *const OsslAlgorithm {
    guard(ptr::null(), || {
        if !no_cache.is_null() {
            // SAFETY: a non-NULL `no_cache` is OpenSSL's int to write.
            unsafe { *no_cache = 0 };
        }
        match operation_id {
            ffi::OP_CIPHER => cipher::algorithms(),
            ffi::OP_MAC => mac::algorithms(),
            _ => ptr::null(),
        }
    })
}

/// Unloading: with `AESX_PROVIDER_TRACE` set, says on stderr how many bytes
/// aesx processed and on which backend (proof for programs such as the
/// `openssl` CLI that cannot read the `aesx-bytes` parameter).
unsafe extern "C" fn prov_teardown(_provctx: *mut c_void) {
    guard((), || {
        if std::env::var_os("AESX_PROVIDER_TRACE").is_some() {
            eprintln!(
                "aesx-provider: {} bytes through aesx (backend {})",
                bytes_done(),
                backend().map_or("none", Backend::name)
            );
        }
    })
}

static PROVIDER_DISPATCH: DispatchTable<5> = DispatchTable([
    dispatch!(
        ffi::FUNC_PROVIDER_TEARDOWN,
        prov_teardown,
        unsafe extern "C" fn(*mut c_void)
    ),
    dispatch!(
        ffi::FUNC_PROVIDER_GETTABLE_PARAMS,
        prov_gettable_params,
        unsafe extern "C" fn(*mut c_void) -> *const OsslParam
    ),
    dispatch!(
        ffi::FUNC_PROVIDER_GET_PARAMS,
        prov_get_params,
        unsafe extern "C" fn(*mut c_void, *mut OsslParam) -> c_int
    ),
    dispatch!(
        ffi::FUNC_PROVIDER_QUERY_OPERATION,
        prov_query_operation,
        unsafe extern "C" fn(*mut c_void, c_int, *mut c_int) -> *const OsslAlgorithm
    ),
    DISPATCH_END,
]);

/// The provider's entry point, which OpenSSL looks up by name.
///
/// # Safety
/// Called by OpenSSL with its handle, its dispatch table, and two places
/// to write ours and our provider context; `out` and `provctx` are
/// checked for NULL.
#[no_mangle]
pub unsafe extern "C" fn OSSL_provider_init(
    handle: *const c_void,
    core: *const OsslDispatch,
    out: *mut *const OsslDispatch,
    provctx: *mut *mut c_void,
) -> c_int {
    guard(0, || {
        if out.is_null() || provctx.is_null() || backend().is_none() {
            return 0;
        }
        // SAFETY: OpenSSL's handle and its terminated core dispatch table.
        unsafe { loader::note_core_release(handle, core) };
        // SAFETY: both checked non-NULL; OpenSSL hands us these slots to
        // fill. The provider context is unused, so a non-NULL marker.
        unsafe {
            *out = PROVIDER_DISPATCH.0.as_ptr();
            *provctx = PROVIDER_DISPATCH.0.as_ptr() as *mut c_void;
        }
        1
    })
}
