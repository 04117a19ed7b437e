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
//! Every entry point OpenSSL calls is wrapped by [`guard`]: a panic
//! returns 0/NULL instead of unwinding into C.

#![allow(clippy::missing_safety_doc)]

pub mod block;
pub mod ccm;
mod cipher;
pub mod ffi;
pub mod gcm;
pub mod gcm_siv;
mod mac;
pub mod params;
pub mod wrap;
pub mod xts;

use core::cell::Cell;
use core::ffi::{c_int, c_void, CStr};
use core::ptr;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

use aesx::Backend;

use ffi::{OsslAlgorithm, OsslDispatch, OsslParam};
use params::ParamList;

/// Bytes aesx has encrypted, decrypted or authenticated through this
/// provider in this process: the `aesx-bytes` provider parameter. Each
/// thread counts in its own cell (a locked add per 16-byte call would cost
/// more than a fifth of it) and adds to this total every [`FLUSH`] bytes
/// and when it ends; a read adds the reading thread's own cell, so another
/// running thread's last bytes (under 1 MiB) may not show yet.
static BYTES: AtomicU64 = AtomicU64::new(0);

/// A thread's count is added to [`BYTES`] at least this often.
const FLUSH: u64 = 1 << 20;

/// One thread's bytes not yet in [`BYTES`]; added when the thread ends.
struct Pending(Cell<u64>);

impl Drop for Pending {
    fn drop(&mut self) {
        BYTES.fetch_add(self.0.get(), Ordering::Relaxed);
    }
}

thread_local! {
    static PENDING: Pending = const { Pending(Cell::new(0)) };
}

/// Adds `n` to the work counter.
pub(crate) fn count_bytes(n: usize) {
    // (During thread teardown the cell may be gone: then count directly.)
    let direct = PENDING
        .try_with(|p| {
            let v = p.0.get() + n as u64;
            if v >= FLUSH {
                BYTES.fetch_add(v, Ordering::Relaxed);
                p.0.set(0);
            } else {
                p.0.set(v);
            }
        })
        .is_err();
    if direct {
        BYTES.fetch_add(n as u64, Ordering::Relaxed);
    }
}

/// The counter's value: the total plus this thread's pending bytes.
pub fn bytes_done() -> u64 {
    let mine = PENDING.try_with(|p| p.0.get()).unwrap_or(0);
    BYTES.load(Ordering::Relaxed) + mine
}

/// Runs an entry point's body; a panic becomes `default`.
pub(crate) fn guard<T>(default: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(default)
}

/// The OpenSSL release whose default provider the parameter lists mirror
/// when the core does not say which it is.
const FIRST_RELEASE: (u32, u32) = (3, 0);

/// The release of the OpenSSL that loaded the provider, (major, minor),
/// read once at init (one process has one libcrypto).
static CORE_RELEASE: OnceLock<(u32, u32)> = OnceLock::new();

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

/// A static dispatch table.
#[repr(transparent)]
pub(crate) struct DispatchTable<const N: usize>(pub [OsslDispatch; N]);

// SAFETY: immutable tables of function pointers; OpenSSL only reads them.
unsafe impl<const N: usize> Sync for DispatchTable<N> {}

/// One dispatch entry: `f` (any `unsafe extern "C" fn`) under `id`.
macro_rules! dispatch {
    ($id:expr, $f:expr, $ty:ty) => {
        $crate::ffi::OsslDispatch {
            function_id: $id,
            // SAFETY: OpenSSL calls the function back through the type
            // the id stands for, which is `$ty`, the function's own type;
            // function pointers of any signature have one size.
            function: Some(unsafe { core::mem::transmute::<$ty, unsafe extern "C" fn()>($f) }),
        }
    };
}
pub(crate) use dispatch;

/// The context behind OpenSSL's `algctx` pointer (a cipher's or a MAC's),
/// or None for NULL.
///
/// # Safety
/// `vctx` is NULL or a pointer to a `T` that the operation's `newctx` or
/// `dupctx` boxed and that is not yet freed, used by one thread at a time
/// (OpenSSL's rule for algorithm contexts).
pub(crate) unsafe fn ctx_mut<'a, T>(vctx: *mut c_void) -> Option<&'a mut T> {
    // SAFETY: the caller's contract: a live, exclusively used Box<T>.
    unsafe { (vctx as *mut T).as_mut() }
}

/// The terminator of a dispatch table.
pub(crate) const DISPATCH_END: OsslDispatch = OsslDispatch {
    function_id: 0,
    function: None,
};

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
        let release = unsafe { read_core_release(handle, core) };
        CORE_RELEASE.get_or_init(|| release.unwrap_or(FIRST_RELEASE));
        // SAFETY: both checked non-NULL; OpenSSL hands us these slots to
        // fill. The provider context is unused, so a non-NULL marker.
        unsafe {
            *out = PROVIDER_DISPATCH.0.as_ptr();
            *provctx = PROVIDER_DISPATCH.0.as_ptr() as *mut c_void;
        }
        1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_counter_sees_this_thread_at_once_and_others_when_they_end() {
        let before = bytes_done();
        count_bytes(5);
        assert!(bytes_done() >= before + 5);
        let t = std::thread::spawn(|| count_bytes(1000));
        t.join().unwrap();
        assert!(bytes_done() >= before + 1005);
        let before = BYTES.load(Ordering::Relaxed);
        count_bytes(FLUSH as usize);
        assert!(BYTES.load(Ordering::Relaxed) >= before + FLUSH);
    }
}
