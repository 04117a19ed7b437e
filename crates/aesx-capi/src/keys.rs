//! Key handles, backend choice and the version string.
//!
//! A handle is a `Box` of the library's key objects, handed to C as an opaque
//! pointer. It is never mutated after creation (the GCM contexts for short
//! tags are filled in once, through `OnceLock`), so any number of threads may
//! use one handle at the same time; only the `_free` call needs exclusivity.

use core::ffi::{c_char, c_int};
use std::ffi::CString;
use std::sync::OnceLock;

use aesx::{Backend, Cbc, Esp, Gcm, Xts};

use crate::buffers::input;
use crate::status::{cstr, guard, OrCode, Status, AESX_ERR_NULL_POINTER, AESX_ERR_TAG_LENGTH};

/// Let aesx choose: the fastest backend this CPU has (the library reads no
/// environment variable; force a backend by passing its number).
///
/// The header spells this and one `AESX_BACKEND_<NAME>` per backend, with
/// `AESX_BACKEND_LAST`, from the library's list (`Backend::ALL`, `name`,
/// `number`): `tests/header.rs` writes them, so a new backend needs no line
/// here.
pub const AESX_BACKEND_AUTO: c_int = 0;

/// The backend a C number names; `None` for AESX_BACKEND_AUTO. The numbers
/// are the library's list's (`Backend::number`).
pub(crate) fn backend_of(id: c_int) -> Status<Option<Backend>> {
    if id == AESX_BACKEND_AUTO {
        return Ok(None);
    }
    u8::try_from(id)
        .ok()
        .and_then(Backend::from_number)
        .map(Some)
        .ok_or(crate::status::AESX_ERR_UNKNOWN_BACKEND)
}

/// The backend a C number names, AESX_BACKEND_AUTO resolved to the fastest
/// this CPU has.
pub(crate) fn resolve(id: c_int) -> Status<Backend> {
    match backend_of(id)? {
        Some(b) => Ok(b),
        None => Backend::preferred().or_code(),
    }
}

/// The C number of a backend.
pub(crate) fn id_of(b: Backend) -> c_int {
    c_int::from(b.number())
}

/// An AES key (16, 24 or 32 bytes) for ECB, CBC, CTR, GCM and multi-buffer
/// CBC. Create with aesx_key_new, free with aesx_key_free.
pub struct AesxKey {
    /// The expanded key (ECB, CTR and multi-buffer CBC use its `Aes`).
    pub(crate) cbc: Cbc,
    /// GCM with 16-byte tags: H and its powers, computed once.
    gcm: Gcm,
    /// GCM contexts for shorter tags, made on first use from `gcm`; indexed
    /// by tag length (the library decides which lengths are valid).
    short_tags: [OnceLock<Box<Gcm>>; 16],
}

impl AesxKey {
    fn new(key: &[u8], b: Backend) -> Status<Self> {
        Ok(AesxKey {
            cbc: Cbc::with_backend(key, b).or_code()?,
            gcm: Gcm::with_backend(key, b).or_code()?,
            short_tags: Default::default(),
        })
    }

    /// The GCM context for tags of `tag_len` bytes.
    pub(crate) fn gcm(&self, tag_len: usize) -> Status<&Gcm> {
        if tag_len == self.gcm.tag_len() {
            return Ok(&self.gcm);
        }
        let slot = self.short_tags.get(tag_len).ok_or(AESX_ERR_TAG_LENGTH)?;
        if let Some(g) = slot.get() {
            return Ok(g);
        }
        let g = self.gcm.clone().with_tag_len(tag_len).or_code()?;
        // Another thread may have filled the slot meanwhile: either copy is
        // the same context, and the one stored is the one used.
        let _ = slot.set(Box::new(g));
        slot.get()
            .map(|g| &**g)
            .ok_or(crate::status::AESX_ERR_INTERNAL)
    }
}

/// An XTS key (32 bytes for XTS-AES-128, 64 for XTS-AES-256: the data key
/// followed by the tweak key). Create with aesx_xts_key_new, free with
/// aesx_xts_key_free.
pub struct AesxXtsKey {
    pub(crate) xts: Xts,
}

impl AesxXtsKey {
    fn new(key: &[u8], b: Backend) -> Status<Self> {
        Ok(AesxXtsKey {
            xts: Xts::with_backend(key, b).or_code()?,
        })
    }
}

/// An RFC 4106 (AES-GCM for IPsec ESP) context: AES key, 4-byte salt and ICV
/// length. Create with aesx_esp_key_new, free with aesx_esp_key_free.
pub struct AesxEspKey {
    pub(crate) esp: Esp,
}

// The thread rule of the header rests on this.
const _: () = {
    const fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<AesxKey>();
    shared_between_threads::<AesxXtsKey>();
    shared_between_threads::<AesxEspKey>();
};

/// Stores a new handle in `*out`, which is set to NULL first so that a
/// failed call leaves NULL behind.
///
/// Requires: `out` NULL or valid for a pointer write.
pub(crate) unsafe fn create<T>(out: *mut *mut T, make: impl FnOnce() -> Status<T>) -> c_int {
    guard(|| {
        if out.is_null() {
            return Err(AESX_ERR_NULL_POINTER);
        }
        // SAFETY: non-NULL, valid for a write by the caller's contract.
        unsafe { out.write_unaligned(core::ptr::null_mut()) };
        let handle = Box::into_raw(Box::new(make()?));
        // SAFETY: `out` non-NULL (checked) and valid for a write (the caller's contract).
        unsafe { out.write_unaligned(handle) };
        Ok(())
    })
}

/// Makes a handle from `key_len` key bytes at `key` and the backend numbered
/// `backend` (see `create`).
///
/// Requires: `key` readable for `key_len` bytes; `out` NULL or writable.
pub(crate) unsafe fn keyed<T>(
    key: *const u8,
    key_len: usize,
    backend: c_int,
    out: *mut *mut T,
    make: impl FnOnce(&[u8], Backend) -> Status<T>,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` NULL or writable (keyed's contract).
    unsafe { create(out, || make(input(key, key_len)?, resolve(backend)?)) }
}

/// The AESX_BACKEND_* value of the handle at `p`, or AESX_ERR_NULL_POINTER.
///
/// Requires: `p` NULL or a live handle.
pub(crate) unsafe fn backend_id<T>(p: *const T, of: impl FnOnce(&T) -> Backend) -> c_int {
    // SAFETY: NULL or live, by the caller's contract.
    match unsafe { p.as_ref() } {
        Some(k) => id_of(of(k)),
        None => AESX_ERR_NULL_POINTER,
    }
}

/// Frees a handle made by `create`; NULL is a no-op. The library's key types
/// zeroize their round keys (and GCM's H powers) when dropped.
///
/// Requires: `handle` NULL or a live handle from `create`, used by no other thread.
pub(crate) unsafe fn destroy<T>(handle: *mut T) {
    if handle.is_null() {
        return;
    }
    // A panic in a destructor must not reach C either; there is nothing to
    // report from a void function, and the memory is gone either way.
    let _ = guard(|| {
        // SAFETY: the caller's contract: a pointer from Box::into_raw, freed
        // once.
        drop(unsafe { Box::from_raw(handle) });
        Ok(())
    });
}

/// Expands an AES key for ECB, CBC, CTR, GCM (any tag length) and multi-buffer
/// CBC.
///
/// - `key`, `key_len`: 16, 24 or 32 bytes (AES-128/192/256); copied, so the
///   caller may wipe its buffer right after the call.
/// - `backend`: AESX_BACKEND_AUTO or one AESX_BACKEND_* value; forcing one
///   this CPU lacks fails with AESX_ERR_BACKEND_UNAVAILABLE.
/// - `out`: receives the new handle, or NULL on failure.
///
/// Returns AESX_OK or an error code. Free the handle with aesx_key_free.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_key_new(
    key: *const u8,
    key_len: usize,
    backend: c_int,
    out: *mut *mut AesxKey,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` writable (aesx_key_new's contract).
    unsafe { keyed(key, key_len, backend, out, AesxKey::new) }
}

/// Zeroizes and frees a key from aesx_key_new. NULL is a no-op. No other
/// thread may be using the key.
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_key_free(key: *mut AesxKey) {
    // SAFETY: `key` NULL or a live handle, not used afterwards (aesx_key_free's contract).
    unsafe { destroy(key) }
}

/// Expands an XTS key: 32 bytes (XTS-AES-128) or 64 bytes (XTS-AES-256), the
/// data key followed by the tweak key. A key with equal halves is accepted
/// here but refused for encryption (AESX_ERR_XTS_EQUAL_KEY_HALVES).
/// `backend` and `out` as for aesx_key_new. Free with aesx_xts_key_free.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_key_new(
    key: *const u8,
    key_len: usize,
    backend: c_int,
    out: *mut *mut AesxXtsKey,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` writable (aesx_xts_key_new's contract).
    unsafe { keyed(key, key_len, backend, out, AesxXtsKey::new) }
}

/// Zeroizes and frees an XTS key. NULL is a no-op.
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_key_free(key: *mut AesxXtsKey) {
    // SAFETY: `key` NULL or a live handle, not used afterwards (aesx_xts_key_free's contract).
    unsafe { destroy(key) }
}

/// Makes an RFC 4106 ESP context.
///
/// - `key`, `key_len`: the AES key, 16, 24 or 32 bytes;
/// - `salt`, `salt_len`: the 4-byte salt (RFC 4106 keying material is the key
///   followed by the salt: pass its first `len - 4` bytes and its last 4);
/// - `icv_len`: the tag (ICV) length, 8, 12 or 16 bytes;
/// - `backend`, `out` as for aesx_key_new.
///
/// Free with aesx_esp_key_free.
///
/// Requires: `key` and `salt` readable for their lengths; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_esp_key_new(
    key: *const u8,
    key_len: usize,
    salt: *const u8,
    salt_len: usize,
    icv_len: usize,
    backend: c_int,
    out: *mut *mut AesxEspKey,
) -> c_int {
    // SAFETY: `key` and `salt` readable for their lengths; `out` writable (aesx_esp_key_new's
    // contract).
    unsafe {
        keyed(key, key_len, backend, out, |key, b| {
            let esp = Esp::with_backend(key, input(salt, salt_len)?, icv_len, b);
            Ok(AesxEspKey {
                esp: esp.or_code()?,
            })
        })
    }
}

/// Zeroizes and frees an ESP context. NULL is a no-op.
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_esp_key_free(key: *mut AesxEspKey) {
    // SAFETY: `key` NULL or a live handle, not used afterwards (aesx_esp_key_free's contract).
    unsafe { destroy(key) }
}

/// The AESX_BACKEND_* value a key runs on, or AESX_ERR_NULL_POINTER.
///
/// Requires: `key` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_key_backend(key: *const AesxKey) -> c_int {
    // SAFETY: `key` NULL or a live handle (aesx_key_backend's contract).
    unsafe { backend_id(key, |k| k.cbc.aes().backend()) }
}

/// The AESX_BACKEND_* value an XTS key runs on, or AESX_ERR_NULL_POINTER.
///
/// Requires: `key` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_xts_key_backend(key: *const AesxXtsKey) -> c_int {
    // SAFETY: `key` NULL or a live handle (aesx_xts_key_backend's contract).
    unsafe { backend_id(key, |k| k.xts.backend()) }
}

/// The AESX_BACKEND_* value an ESP context runs on, or AESX_ERR_NULL_POINTER.
///
/// Requires: `key` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_esp_key_backend(key: *const AesxEspKey) -> c_int {
    // SAFETY: `key` NULL or a live handle (aesx_esp_key_backend's contract).
    unsafe { backend_id(key, |k| k.esp.backend()) }
}

/// `b`'s name as a C string that lives as long as the process (made once
/// from the library's list).
fn c_name(b: Backend) -> *const c_char {
    static NAMES: OnceLock<Vec<CString>> = OnceLock::new();
    let names = NAMES.get_or_init(|| {
        // A name is ASCII letters and digits: never an interior NUL.
        let c = |b: Backend| CString::new(b.name()).unwrap_or_default();
        Backend::ALL.into_iter().map(c).collect()
    });
    let i = Backend::ALL.iter().position(|x| *x == b);
    i.map_or(core::ptr::null(), |i| names[i].as_ptr())
}

/// The name of a backend: its AESX_BACKEND_<NAME> in lower case (e.g.
/// "soft"), the name AESX_BACKEND and the aesx CLI take. For
/// AESX_BACKEND_AUTO, the name of the backend that AUTO picks on this
/// machine. NULL for a number aesx does not know. A static string: never
/// free it.
#[no_mangle]
pub extern "C" fn aesx_backend_name(backend: c_int) -> *const c_char {
    let mut name = core::ptr::null();
    let _ = guard(|| {
        let b = match backend_of(backend)? {
            Some(b) => b,
            None => Backend::preferred().or_code()?,
        };
        name = c_name(b);
        Ok(())
    });
    name
}

/// 1 if this CPU and build can run `backend` (AESX_BACKEND_AUTO: always),
/// 0 if not or if the number is unknown.
#[no_mangle]
pub extern "C" fn aesx_backend_available(backend: c_int) -> c_int {
    let mut yes = 0;
    let _ = guard(|| {
        yes = match backend_of(backend)? {
            Some(b) => c_int::from(b.is_available()),
            None => 1,
        };
        Ok(())
    });
    yes
}

/// The AESX_BACKEND_* value that AESX_BACKEND_AUTO resolves to on this
/// machine (the fastest it has), or a negative error code if none can run.
#[no_mangle]
pub extern "C" fn aesx_backend_default() -> c_int {
    let mut id = 0;
    let rc = guard(|| {
        id = id_of(Backend::preferred().or_code()?);
        Ok(())
    });
    if rc == 0 {
        id
    } else {
        rc
    }
}

/// The version of libaesx, e.g. "0.1.0": a static string, never free it.
#[no_mangle]
pub extern "C" fn aesx_version() -> *const c_char {
    cstr!(env!("CARGO_PKG_VERSION"))
}
