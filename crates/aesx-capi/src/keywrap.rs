//! AES key wrap: RFC 3394 (KW) and RFC 5649 (KWP, with padding).

use core::ffi::c_int;

use aesx::{Backend, Error, KeyWrap};
use zeroize::{Zeroize, Zeroizing};

use crate::block_modes::handle;
use crate::buffers::{Io, Resized};
use crate::keys::{backend_id, destroy, keyed};
use crate::status::{code, guard, OrCode, Status, AESX_ERR_AUTH_FAILED, AESX_ERR_INVALID_ARGUMENT};

/// RFC 3394 key wrap (KW): the key to wrap is 16 bytes or more and a
/// multiple of 8; the wrapped key is 8 bytes longer.
pub const AESX_KW: c_int = 1;
/// RFC 5649 key wrap with padding (KWP): a key to wrap of 1 to 2^32 - 1
/// bytes; the wrapped key is its length rounded up to a multiple of 8, plus 8.
pub const AESX_KWP: c_int = 2;

/// A key-encryption key (16, 24 or 32 bytes) for KW and KWP. Create with
/// aesx_keywrap_new, free with aesx_keywrap_free.
pub struct AesxKeywrap {
    kw: KeyWrap,
}

impl AesxKeywrap {
    fn new(key: &[u8], b: Backend) -> Status<Self> {
        Ok(AesxKeywrap {
            kw: KeyWrap::with_backend(key, b).or_code()?,
        })
    }
}

const _: () = {
    const fn shared_between_threads<T: Send + Sync>() {}
    shared_between_threads::<AesxKeywrap>();
};

/// Expands a key-encryption key of 16, 24 or 32 bytes for aesx_key_wrap and
/// aesx_key_unwrap. `backend` and `out` as for aesx_key_new. Free with
/// aesx_keywrap_free.
///
/// Requires: `key` readable for `key_len` bytes; `out` writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_keywrap_new(
    key: *const u8,
    key_len: usize,
    backend: c_int,
    out: *mut *mut AesxKeywrap,
) -> c_int {
    // SAFETY: `key` readable for `key_len` bytes; `out` writable (aesx_keywrap_new's contract).
    unsafe { keyed(key, key_len, backend, out, AesxKeywrap::new) }
}

/// Zeroizes and frees a key-encryption key. NULL is a no-op.
///
/// Requires: `kek` NULL or a live handle, not used afterwards.
#[no_mangle]
pub unsafe extern "C" fn aesx_keywrap_free(kek: *mut AesxKeywrap) {
    // SAFETY: `kek` NULL or a live handle, not used afterwards (aesx_keywrap_free's contract).
    unsafe { destroy(kek) }
}

/// The AESX_BACKEND_* value a key-encryption key runs on, or
/// AESX_ERR_NULL_POINTER.
///
/// Requires: `kek` NULL or a live handle.
#[no_mangle]
pub unsafe extern "C" fn aesx_keywrap_backend(kek: *const AesxKeywrap) -> c_int {
    // SAFETY: `kek` NULL or a live handle (aesx_keywrap_backend's contract).
    unsafe { backend_id(kek, |k| k.kw.backend()) }
}

/// Runs one wrap or unwrap into `b.out`. On a failed unwrap
/// (AESX_ERR_AUTH_FAILED) all `out_cap` bytes of `out` are zeroed.
///
/// Requires: `kek` NULL or a live handle; as [`Resized::run`].
unsafe fn run(kek: *const AesxKeywrap, op: Op, b: Resized) -> Status {
    // SAFETY: `kek` NULL or a live handle (run's contract).
    let kw = unsafe { &handle(kek)?.kw };
    let body = |io: Io<'_>| match io {
        Io::Split(s, d) => finish(kw, op, s, d),
        // In place: the input is read whole before the output is written
        // (Zeroizing: it may be an unwrapped key).
        Io::InPlace(buf) => {
            let copy = Zeroizing::new(buf[..b.in_len].to_vec());
            finish(kw, op, &copy, &mut buf[..b.out_cap])
        }
    };
    // SAFETY: `b`'s `inp` readable for `in_len` bytes, `out` writable for `out_cap` bytes,
    // `out_len` NULL or writable (run's contract, as Resized::run's).
    unsafe { b.run(&[], body) }
}

/// One of the library's four calls into a caller's buffer.
type Op = fn(&KeyWrap, &[u8], &mut [u8]) -> aesx::Result<usize>;

fn op(variant: c_int, wrap: bool) -> Status<Op> {
    Ok(match (variant, wrap) {
        (AESX_KW, true) => KeyWrap::wrap_to,
        (AESX_KW, false) => KeyWrap::unwrap_to,
        (AESX_KWP, true) => KeyWrap::wrap_pad_to,
        (AESX_KWP, false) => KeyWrap::unwrap_pad_to,
        _ => return Err(AESX_ERR_INVALID_ARGUMENT),
    })
}

fn finish(kw: &KeyWrap, op: Op, src: &[u8], dst: &mut [u8]) -> Status<usize> {
    match op(kw, src, dst) {
        Ok(n) => Ok(n),
        Err(Error::AuthenticationFailed) => {
            // The library zeroes what it wrote; the rule here is all of `out`.
            dst.zeroize();
            Err(AESX_ERR_AUTH_FAILED)
        }
        Err(e) => Err(code(e)),
    }
}

/// Wraps the key `in` (`in_len` bytes) under `kek` with `variant` (AESX_KW
/// or AESX_KWP, else AESX_ERR_INVALID_ARGUMENT), writing the wrapped key to
/// `out` (`out_cap` bytes: `in_len` + 8 for KW, `in_len` rounded up to 8,
/// plus 8, for KWP) and its length to `*out_len` (may be NULL). `out` may
/// equal `in` (with room for the result); otherwise they must not overlap.
/// A key of a length the variant cannot wrap is refused with an error.
///
/// Requires: `kek` a live handle; `in` readable for `in_len` bytes, `out`
/// writable for `out_cap` bytes; `out_len` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn aesx_key_wrap(
    kek: *const AesxKeywrap,
    variant: c_int,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    let b = Resized::new(r#in, in_len, out, out_cap, out_len);
    // SAFETY: `kek` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `out_len` NULL or writable (aesx_key_wrap's contract).
    guard(|| unsafe { run(kek, op(variant, true)?, b) })
}

/// Unwraps `in` (`in_len` bytes, a wrapped key from aesx_key_wrap with the
/// same variant), checking its integrity value in constant time, and writes
/// the key to `out` (`out_cap` bytes; `in_len` - 8 always suffice) and its
/// length to `*out_len` (may be NULL). On AESX_ERR_AUTH_FAILED (wrong key,
/// modified data, bad KWP padding) nothing is released: all `out_cap` bytes
/// of `out` are zeroed. `out` may equal `in`; otherwise no overlap.
///
/// Requires: As aesx_key_wrap.
#[no_mangle]
pub unsafe extern "C" fn aesx_key_unwrap(
    kek: *const AesxKeywrap,
    variant: c_int,
    r#in: *const u8,
    in_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> c_int {
    let b = Resized::new(r#in, in_len, out, out_cap, out_len);
    // SAFETY: `kek` a live handle; `in` readable for `in_len` bytes, `out` writable for `out_cap`
    // bytes; `out_len` NULL or writable (aesx_key_unwrap's contract).
    guard(|| unsafe { run(kek, op(variant, false)?, b) })
}
