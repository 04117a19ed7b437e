//! AES-CMAC (SP 800-38B): one-shot tags and checks, and a streaming context.

use core::ffi::c_int;
use std::sync::Arc;

use aesx::{Backend, Cmac, CmacHasher};

use crate::block_modes::handle;
use crate::buffers::{input, write, Region};
use crate::keys::{backend_id, create, destroy, keyed};
use crate::status::{guard, OrCode, Status, AESX_ERR_NULL_POINTER};

/// A CMAC key (16, 24 or 32 bytes). Create with aesx_cmac_key_new, free with
/// aesx_cmac_key_free.
pub struct AesxCmacKey {
    cmac: Arc<Cmac>,
}

impl AesxCmacKey {
    fn new(key: &[u8], b: Backend) -> Status<Self> {
        let cmac = Cmac::with_backend(key, b).or_code()?;
        Ok(AesxCmacKey {
            cmac: Arc::new(cmac),
        })
    }
}

/// A CMAC computation in progress: aesx_cmac_update any number of times,
/// then aesx_cmac_final or aesx_cmac_final_verify. It holds its own
/// reference to the key, so the key handle may be freed first. Create with
/// aesx_cmac_ctx_new, free with aesx_cmac_ctx_free.
// Clone: the copy's hasher points into the same Cmac, which the cloned Arc
// keeps alive for it.
#[derive(Clone)]
pub struct AesxCmacCtx {
    // The hasher owns a copy of the key (a C handle cannot hold a borrow);
    // `key` is kept to start over after a final call.
    hasher: CmacHasher<'static>,
    key: Arc<Cmac>,
}

impl AesxCmacCtx {
    fn start(key: &Arc<Cmac>) -> Self {
        AesxCmacCtx {
            hasher: Cmac::clone(key).into_hasher(),
            key: Arc::clone(key),
        }
    }

    /// The hasher so far, the context starting over on an empty message.
    fn restart(&mut self) -> CmacHasher<'static> {
        let fresh = AesxCmacCtx::start(&self.key);
        core::mem::replace(self, fresh).hasher
    }
}

const _: () = {
    const fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<AesxCmacKey>();
    shared_between_threads::<AesxCmacCtx>();
};

/// Expands a CMAC key of 16, 24 or 32 bytes. `backend` and `out` as for
/// aesx_key_new. Free with aesx_cmac_key_free.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_key_new(
    key: *const u8,
    key_len: usize,
    backend: c_int,
    out: *mut *mut AesxCmacKey,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` writable (aesx_cmac_key_new's contract).
    unsafe { keyed(key, key_len, backend, out, AesxCmacKey::new) }
}

/// Frees a CMAC key (zeroized once no context made from it is left). NULL is
/// a no-op.
///
/// Requires: `key` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_key_free(key: *mut AesxCmacKey) {
    // SAFETY: `key` NULL or a live handle, not used afterwards (aesx_cmac_key_free's contract).
    unsafe { destroy(key) }
}

/// The AESX_BACKEND_* value a CMAC key runs on, or AESX_ERR_NULL_POINTER.
///
/// Requires: `key` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_key_backend(key: *const AesxCmacKey) -> c_int {
    // SAFETY: `key` NULL or a live handle (aesx_cmac_key_backend's contract).
    unsafe { backend_id(key, |k| k.cmac.backend()) }
}

/// The 16-byte CMAC tag of `data` (`len` bytes), written to `tag`.
///
/// Requires: `key` a live handle; `data` readable for `len` bytes; `tag`
/// writable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac(
    key: *const AesxCmacKey,
    data: *const u8,
    len: usize,
    tag: *mut u8,
) -> c_int {
    guard(|| {
        // SAFETY: `key` a live handle; `data` readable for `len` bytes; `tag` writable for 16 bytes
        // (aesx_cmac's contract).
        unsafe {
            let (k, data) = (handle(key)?, input(data, len)?);
            Region::new(tag, Cmac::TAG_LEN)?;
            write(tag, &k.cmac.mac(data))
        }
    })
}

/// Checks `tag` (`tag_len` bytes, 1 to 16: a truncated tag is compared with
/// as many leading bytes of the full one) against the CMAC of `data` in
/// constant time: AESX_OK, AESX_ERR_AUTH_FAILED, or AESX_ERR_TAG_LENGTH.
///
/// Requires: `key` a live handle; `data` and `tag` readable for their lengths.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_verify(
    key: *const AesxCmacKey,
    data: *const u8,
    len: usize,
    tag: *const u8,
    tag_len: usize,
) -> c_int {
    guard(|| {
        // SAFETY: `key` a live handle; `data` and `tag` readable for their lengths
        // (aesx_cmac_verify's contract).
        unsafe {
            let k = handle(key)?;
            k.cmac
                .verify(input(data, len)?, input(tag, tag_len)?)
                .or_code()
        }
    })
}

/// Starts a streaming CMAC under `key`, stored in `*out` (NULL on failure).
/// The context keeps the key alive by itself. Free with aesx_cmac_ctx_free.
///
/// Requires: `key` a live handle; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_ctx_new(
    key: *const AesxCmacKey,
    out: *mut *mut AesxCmacCtx,
) -> c_int {
    // SAFETY: `key` a live handle; `out` writable (aesx_cmac_ctx_new's contract).
    unsafe { create(out, || Ok(AesxCmacCtx::start(&handle(key)?.cmac))) }
}

/// A copy of a context, with the message so far (to finish two messages that
/// share a prefix), stored in `*out` (NULL on failure).
///
/// Requires: `ctx` a live context; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_ctx_copy(
    ctx: *const AesxCmacCtx,
    out: *mut *mut AesxCmacCtx,
) -> c_int {
    // SAFETY: `ctx` a live context; `out` writable (aesx_cmac_ctx_copy's contract).
    unsafe { create(out, || handle(ctx).cloned()) }
}

/// Zeroizes and frees a context. NULL is a no-op.
///
/// Requires: `ctx` NULL or a live context, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_ctx_free(ctx: *mut AesxCmacCtx) {
    // SAFETY: `ctx` NULL or a live context, not used afterwards (aesx_cmac_ctx_free's contract).
    unsafe { destroy(ctx) }
}

/// The context of a streaming call, borrowed mutably for the call.
///
/// Requires: `ctx` NULL or a live context that no other thread uses.
unsafe fn context<'a>(ctx: *mut AesxCmacCtx) -> Status<&'a mut AesxCmacCtx> {
    // SAFETY: NULL or live and unshared, by the caller's contract.
    unsafe { ctx.as_mut() }.ok_or(AESX_ERR_NULL_POINTER)
}

/// One streaming call: `len` bytes at `data`, checked before the context is
/// touched (a refused buffer leaves the message as it was), then `f` on the
/// context.
///
/// Requires: as [`context`]; `data` readable for `len` bytes.
unsafe fn streaming(
    ctx: *mut AesxCmacCtx,
    data: *const u8,
    len: usize,
    f: impl FnOnce(&mut AesxCmacCtx, &[u8]) -> Status,
) -> c_int {
    guard(|| {
        // SAFETY: `ctx` NULL or a live context no other thread uses, `data` readable for `len`
        // bytes (streaming's contract).
        let (data, ctx) = unsafe { (input(data, len)?, context(ctx)?) };
        f(ctx, data)
    })
}

/// Appends `data` (`len` bytes) to the message.
///
/// Requires: `ctx` a live context, used by no other thread during the call;
/// `data` readable for `len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_update(
    ctx: *mut AesxCmacCtx,
    data: *const u8,
    len: usize,
) -> c_int {
    // SAFETY: `ctx` a live context, used by no other thread during the call; `data` readable for
    // `len` bytes (aesx_cmac_update's contract).
    unsafe {
        streaming(ctx, data, len, |c, data| {
            c.hasher.update(data);
            Ok(())
        })
    }
}

/// Writes the 16-byte tag of the message to `tag`; the context then starts
/// over on an empty message under the same key.
///
/// Requires: `ctx` a live context, used by no other thread during the call;
/// `tag` writable for 16 bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_final(ctx: *mut AesxCmacCtx, tag: *mut u8) -> c_int {
    guard(|| {
        // SAFETY: `ctx` a live context, used by no other thread during the call; `tag` writable for
        // 16 bytes (aesx_cmac_final's contract).
        unsafe {
            Region::new(tag, Cmac::TAG_LEN)?;
            let t = context(ctx)?.restart().finalize();
            write(tag, &t)
        }
    })
}

/// Checks `tag` (1 to 16 bytes, as aesx_cmac_verify) against the message in
/// constant time; the context then starts over on an empty message.
///
/// Requires: `ctx` a live context, used by no other thread during the call;
/// `tag` readable for `tag_len` bytes.
#[no_mangle]
pub unsafe extern "C" fn aesx_cmac_final_verify(
    ctx: *mut AesxCmacCtx,
    tag: *const u8,
    tag_len: usize,
) -> c_int {
    // SAFETY: `ctx` a live context, used by no other thread during the call; `tag` readable for
    // `tag_len` bytes (aesx_cmac_final_verify's contract).
    unsafe {
        streaming(ctx, tag, tag_len, |c, tag| {
            c.restart().verify(tag).or_code()
        })
    }
}
