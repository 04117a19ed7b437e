//! CMAC through OpenSSL's MAC interface (`EVP_MAC_fetch(…, "CMAC", …)`),
//! with the semantics of OpenSSL 3's `cmac_prov.c`: the `cipher` parameter
//! names the block cipher (here AES-128/192/256-CBC, by any of their names;
//! `properties` is accepted and not needed), the key comes with `init` or
//! as the `key` parameter and must be that cipher's key length, `init`
//! without a key restarts the message under the key set last, the tag is
//! the 16-byte block (`size` and `block-size` report it).

use core::ffi::{c_int, c_void};
use core::ptr;

use aesx::{Cmac, CmacHasher, BLOCK_LEN};

use crate::cipher::PROPERTY;
use crate::counter::count_bytes;
use crate::entry::{ctx_mut, dispatch, guard, DispatchTable, DISPATCH_END};
use crate::ffi::{self, OsslAlgorithm, OsslParam};
use crate::params::{self, ParamList};

/// The names of the AES-CBC ciphers (as the default provider lists them)
/// and their key lengths.
const CIPHERS: [(&str, usize); 9] = [
    ("AES-128-CBC", 16),
    ("AES128", 16),
    ("2.16.840.1.101.3.4.1.2", 16),
    ("AES-192-CBC", 24),
    ("AES192", 24),
    ("2.16.840.1.101.3.4.1.22", 24),
    ("AES-256-CBC", 32),
    ("AES256", 32),
    ("2.16.840.1.101.3.4.1.42", 32),
];

/// One CMAC computation.
#[derive(Clone, Default)]
struct MacCtx {
    /// The key length of the cipher named by `cipher`.
    keylen: Option<usize>,
    /// The key set last.
    key: Option<Cmac>,
    /// The running message under it.
    hasher: Option<CmacHasher<'static>>,
}

impl MacCtx {
    /// `cmac_setkey`: a key of the cipher's length starts a message.
    fn set_key(&mut self, key: &[u8]) -> bool {
        let Some(backend) = crate::loader::backend() else {
            return false;
        };
        if self.keylen != Some(key.len()) {
            return false;
        }
        match Cmac::with_backend(key, backend) {
            Ok(c) => {
                self.key = Some(c);
                self.restart()
            }
            Err(_) => false,
        }
    }

    /// `cmac_set_ctx_params`: `cipher` (and `properties`), then `key`.
    ///
    /// # Safety
    /// `params` is NULL or OpenSSL's terminated array.
    unsafe fn set_params(&mut self, params: *const OsslParam) -> bool {
        // SAFETY: the caller's contract for `params` covers every lookup
        // and read of its elements below.
        unsafe {
            if let Some(p) = params::locate(params, ffi::MAC_PARAM_CIPHER) {
                let Some(name) = params::get_utf8(p) else {
                    return false;
                };
                let Some(&(_, keylen)) = CIPHERS.iter().find(|(n, _)| n.eq_ignore_ascii_case(name))
                else {
                    return false;
                };
                // A new cipher drops the key of the old one.
                self.keylen = Some(keylen);
                self.key = None;
                self.hasher = None;
            }
            match params::locate(params, ffi::MAC_PARAM_KEY) {
                Some(p) => params::get_octets(p).is_some_and(|k| self.set_key(k)),
                None => true,
            }
        }
    }

    /// `cmac_init`: parameters, then the key, or a restart under the last.
    fn restart(&mut self) -> bool {
        self.hasher = self.key.clone().map(Cmac::into_hasher);
        self.hasher.is_some()
    }
}

unsafe extern "C" fn newctx(_provctx: *mut c_void) -> *mut c_void {
    guard(ptr::null_mut(), || {
        Box::into_raw(Box::new(MacCtx::default())) as *mut c_void
    })
}

unsafe extern "C" fn dupctx(vctx: *mut c_void) -> *mut c_void {
    guard(ptr::null_mut(), || {
        // SAFETY: OpenSSL passes a context it got from us.
        match unsafe { ctx_mut::<MacCtx>(vctx) } {
            Some(c) => Box::into_raw(Box::new(c.clone())) as *mut c_void,
            None => ptr::null_mut(),
        }
    })
}

unsafe extern "C" fn freectx(vctx: *mut c_void) {
    guard((), || {
        if !vctx.is_null() {
            // SAFETY: a pointer from Box::into_raw in newctx/dupctx, freed
            // once (OpenSSL's contract); the key zeroizes itself.
            drop(unsafe { Box::from_raw(vctx as *mut MacCtx) });
        }
    })
}

unsafe extern "C" fn init(
    vctx: *mut c_void,
    key: *const u8,
    keylen: usize,
    params: *const OsslParam,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(vctx) }) else {
            return 0;
        };
        // SAFETY: `params` is NULL or OpenSSL's terminated array.
        if !unsafe { ctx.set_params(params) } {
            return 0;
        }
        let ok = if key.is_null() {
            ctx.restart()
        } else if keylen > isize::MAX as usize {
            false
        } else {
            // SAFETY: OpenSSL's key buffer of `keylen` bytes (non-NULL).
            ctx.set_key(unsafe { core::slice::from_raw_parts(key, keylen) })
        };
        ok as c_int
    })
}

unsafe extern "C" fn update(vctx: *mut c_void, inp: *const u8, inl: usize) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a context it got from us.
        let Some(h) = (unsafe { ctx_mut::<MacCtx>(vctx) }).and_then(|c| c.hasher.as_mut()) else {
            return 0;
        };
        if inl == 0 {
            return 1;
        }
        if inp.is_null() || inl > isize::MAX as usize {
            return 0;
        }
        // SAFETY: OpenSSL's input buffer of `inl` bytes (non-NULL).
        h.update(unsafe { core::slice::from_raw_parts(inp, inl) });
        count_bytes(inl);
        1
    })
}

unsafe extern "C" fn final_(
    vctx: *mut c_void,
    out: *mut u8,
    outl: *mut usize,
    outsize: usize,
) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a context it got from us.
        let Some(h) = (unsafe { ctx_mut::<MacCtx>(vctx) }).and_then(|c| c.hasher.as_ref()) else {
            return 0;
        };
        if outl.is_null() || out.is_null() || outsize < BLOCK_LEN {
            return 0;
        }
        let tag = h.clone().finalize();
        // SAFETY: `out` has `outsize >= 16` writable bytes and `outl` is
        // OpenSSL's size_t, both checked non-NULL.
        unsafe {
            ptr::copy_nonoverlapping(tag.as_ptr(), out, BLOCK_LEN);
            *outl = BLOCK_LEN;
        }
        1
    })
}

unsafe extern "C" fn get_ctx_params(_vctx: *mut c_void, params: *mut OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: `params` is NULL or OpenSSL's terminated array.
        unsafe {
            (params::put_u64(params, ffi::MAC_PARAM_SIZE, BLOCK_LEN as u64)
                && params::put_u64(params, ffi::MAC_PARAM_BLOCK_SIZE, BLOCK_LEN as u64))
                as c_int
        }
    })
}

unsafe extern "C" fn set_ctx_params(vctx: *mut c_void, params: *const OsslParam) -> c_int {
    guard(0, || {
        // SAFETY: OpenSSL passes a context it got from us.
        let Some(ctx) = (unsafe { ctx_mut::<MacCtx>(vctx) }) else {
            return 0;
        };
        // SAFETY: `params` is NULL or OpenSSL's terminated array.
        unsafe { ctx.set_params(params) as c_int }
    })
}

static GETTABLE_CTX: ParamList<3> = ParamList([
    params::size_t(ffi::MAC_PARAM_SIZE),
    params::size_t(ffi::MAC_PARAM_BLOCK_SIZE),
    params::END,
]);

static SETTABLE_CTX: ParamList<4> = ParamList([
    params::utf8(ffi::MAC_PARAM_CIPHER),
    params::utf8(ffi::MAC_PARAM_PROPERTIES),
    params::octets(ffi::MAC_PARAM_KEY),
    params::END,
]);

unsafe extern "C" fn gettable_ctx(_cctx: *mut c_void, _provctx: *mut c_void) -> *const OsslParam {
    GETTABLE_CTX.as_ptr()
}

unsafe extern "C" fn settable_ctx(_cctx: *mut c_void, _provctx: *mut c_void) -> *const OsslParam {
    SETTABLE_CTX.as_ptr()
}

static DISPATCH: DispatchTable<11> = DispatchTable([
    dispatch!(ffi::FUNC_MAC_NEWCTX, newctx, ffi::NewCtx),
    dispatch!(ffi::FUNC_MAC_DUPCTX, dupctx, ffi::DupCtx),
    dispatch!(ffi::FUNC_MAC_FREECTX, freectx, ffi::FreeCtx),
    dispatch!(ffi::FUNC_MAC_INIT, init, ffi::MacInit),
    dispatch!(ffi::FUNC_MAC_UPDATE, update, ffi::MacUpdate),
    dispatch!(ffi::FUNC_MAC_FINAL, final_, ffi::Final),
    dispatch!(
        ffi::FUNC_MAC_GET_CTX_PARAMS,
        get_ctx_params,
        ffi::GetCtxParams
    ),
    dispatch!(
        ffi::FUNC_MAC_SET_CTX_PARAMS,
        set_ctx_params,
        ffi::SetCtxParams
    ),
    dispatch!(
        ffi::FUNC_MAC_GETTABLE_CTX_PARAMS,
        gettable_ctx,
        ffi::GettableCtx
    ),
    dispatch!(
        ffi::FUNC_MAC_SETTABLE_CTX_PARAMS,
        settable_ctx,
        ffi::GettableCtx
    ),
    DISPATCH_END,
]);

#[repr(transparent)]
struct MacList([OsslAlgorithm; 2]);

// SAFETY: immutable, pointing only at 'static strings and tables.
unsafe impl Sync for MacList {}

static ALGORITHMS: MacList = MacList([
    OsslAlgorithm {
        algorithm_names: c"CMAC".as_ptr(),
        property_definition: PROPERTY.as_ptr(),
        implementation: DISPATCH.0.as_ptr(),
        algorithm_description: ptr::null(),
    },
    OsslAlgorithm {
        algorithm_names: ptr::null(),
        property_definition: ptr::null(),
        implementation: ptr::null(),
        algorithm_description: ptr::null(),
    },
]);

/// The MAC algorithms, for `query_operation`.
pub(crate) fn algorithms() -> *const OsslAlgorithm {
    ALGORITHMS.0.as_ptr()
}

/// The algorithm's name, for tests.
#[cfg(test)]
fn name() -> &'static core::ffi::CStr {
    // SAFETY: a 'static C string of the table.
    unsafe { core::ffi::CStr::from_ptr(ALGORITHMS.0[0].algorithm_names) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 4493's AES-128 example 2 (16 bytes), in two updates, restarted
    /// by an init without a key; a key of the wrong length refused.
    #[test]
    fn rfc4493_and_restart() {
        assert_eq!(name(), c"CMAC");
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c");
        let msg = hex("6bc1bee22e409f96e93d7e117393172a");
        let want = hex("070a16b46b4d4144f79bdd9dd04a287c");
        let mut c = MacCtx {
            keylen: Some(16),
            ..MacCtx::default()
        };
        assert!(!c.set_key(&key[..15]));
        assert!(c.set_key(&key));
        for _ in 0..2 {
            let h = c.hasher.as_mut().unwrap();
            h.update(&msg[..5]);
            h.update(&msg[5..]);
            assert_eq!(h.clone().finalize().to_vec(), want);
            assert!(c.restart());
        }
    }

    fn hex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }
}
