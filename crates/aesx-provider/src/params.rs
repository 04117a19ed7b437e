//! `OSSL_PARAM` arrays: finding a key, reading and writing integers, octet
//! and UTF-8 strings with OpenSSL's rules (`OSSL_PARAM_set_size_t`,
//! `OSSL_PARAM_set_octet_string`, ...), and the static descriptor lists the
//! `gettable`/`settable` functions return.
//!
//! Every function takes the array or the element as a raw pointer from
//! OpenSSL; they check for NULL and for sizes before touching memory.

use core::ffi::{c_char, c_uint, c_void, CStr};
use core::ptr;

use crate::ffi::{
    OsslParam, PARAM_INTEGER, PARAM_OCTET_PTR, PARAM_OCTET_STRING, PARAM_UNMODIFIED,
    PARAM_UNSIGNED_INTEGER, PARAM_UTF8_PTR, PARAM_UTF8_STRING,
};

/// A static, NULL-key-terminated `OSSL_PARAM` descriptor list.
#[repr(transparent)]
pub struct ParamList<const N: usize>(pub [OsslParam; N]);

// SAFETY: the lists are immutable after construction and only hold
// pointers to 'static C strings; OpenSSL only reads them.
unsafe impl<const N: usize> Sync for ParamList<N> {}

impl<const N: usize> ParamList<N> {
    /// The list as OpenSSL's `const OSSL_PARAM *`.
    pub const fn as_ptr(&'static self) -> *const OsslParam {
        self.0.as_ptr()
    }
}

/// A descriptor: `key` of type `data_type`, no data.
pub const fn desc(key: &'static CStr, data_type: c_uint, data_size: usize) -> OsslParam {
    OsslParam {
        key: key.as_ptr(),
        data_type,
        data: ptr::null_mut(),
        data_size,
        return_size: PARAM_UNMODIFIED,
    }
}

/// The terminator (`OSSL_PARAM_END`).
pub const END: OsslParam = OsslParam {
    key: ptr::null(),
    data_type: 0,
    data: ptr::null_mut(),
    data_size: 0,
    return_size: 0,
};

/// `OSSL_PARAM_uint`/`size_t`/`int` descriptors (their C sizes on LP64).
pub const fn uint(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_UNSIGNED_INTEGER, 4)
}
pub const fn size_t(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_UNSIGNED_INTEGER, core::mem::size_of::<usize>())
}
pub const fn int(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_INTEGER, 4)
}
pub const fn octets(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_OCTET_STRING, 0)
}
pub const fn octet_ptr(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_OCTET_PTR, 0)
}
pub const fn utf8(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_UTF8_STRING, 0)
}
pub const fn utf8_ptr(key: &'static CStr) -> OsslParam {
    desc(key, PARAM_UTF8_PTR, 0)
}

/// The element of `params` whose key is `key` (`OSSL_PARAM_locate`), or
/// None (also for a NULL array).
///
/// # Safety
/// `params` is NULL or an `OSSL_PARAM` array ended by a NULL key, each key
/// a NUL-terminated string.
pub unsafe fn locate(params: *const OsslParam, key: &CStr) -> Option<*mut OsslParam> {
    if params.is_null() {
        return None;
    }
    let mut p = params;
    loop {
        // SAFETY: `p` points into the caller's terminated array (checked
        // non-NULL above; we stop at the terminator).
        let k = unsafe { (*p).key };
        if k.is_null() {
            return None;
        }
        // SAFETY: a non-NULL key is a NUL-terminated string (OpenSSL's
        // contract for OSSL_PARAM).
        if unsafe { CStr::from_ptr(k) } == key {
            return Some(p as *mut OsslParam);
        }
        // SAFETY: not the terminator, so the next element exists.
        p = unsafe { p.add(1) };
    }
}

/// Writes `v` to an integer parameter of 4 or 8 bytes, signed or unsigned
/// (`OSSL_PARAM_set_uint64` and friends): false if the type or size does
/// not fit or `v` is out of its range. A NULL `data` only learns the size.
///
/// # Safety
/// `p` is a valid element of an `OSSL_PARAM` array; a non-NULL `data`
/// points to `data_size` writable bytes.
pub unsafe fn set_u64(p: *mut OsslParam, v: u64) -> bool {
    // SAFETY: the caller's contract: `p` is a valid element.
    let p = unsafe { &mut *p };
    let signed = match p.data_type {
        PARAM_INTEGER => true,
        PARAM_UNSIGNED_INTEGER => false,
        _ => return false,
    };
    match p.data_size {
        4 => {
            let fits = if signed {
                v <= i32::MAX as u64
            } else {
                v <= u32::MAX as u64
            };
            if !fits {
                return false;
            }
            p.return_size = 4;
            if !p.data.is_null() {
                // SAFETY: non-NULL data of data_size (4) writable bytes;
                // unaligned write since OpenSSL promises no alignment.
                unsafe { ptr::write_unaligned(p.data as *mut u32, v as u32) };
            }
            true
        }
        8 => {
            if signed && v > i64::MAX as u64 {
                return false;
            }
            p.return_size = 8;
            if !p.data.is_null() {
                // SAFETY: non-NULL data of data_size (8) writable bytes.
                unsafe { ptr::write_unaligned(p.data as *mut u64, v) };
            }
            true
        }
        _ => false,
    }
}

/// Reads a non-negative integer parameter of 4 or 8 bytes
/// (`OSSL_PARAM_get_uint64`); None for another type, a NULL buffer or a
/// negative value.
///
/// # Safety
/// `p` is a valid element; a non-NULL `data` holds `data_size` bytes.
pub unsafe fn get_u64(p: *const OsslParam) -> Option<u64> {
    // SAFETY: the caller's contract: `p` is a valid element.
    let p = unsafe { &*p };
    if p.data.is_null() {
        return None;
    }
    if p.data_size != 4 && p.data_size != 8 {
        return None;
    }
    // SAFETY: non-NULL data with data_size (4 or 8) readable bytes, the
    // caller's contract.
    let bytes = unsafe { core::slice::from_raw_parts(p.data as *const u8, p.data_size) };
    match (p.data_type, bytes.len()) {
        (PARAM_UNSIGNED_INTEGER, 4) => Some(u64::from(u32::from_ne_bytes(bytes.try_into().ok()?))),
        (PARAM_UNSIGNED_INTEGER, _) => Some(u64::from_ne_bytes(bytes.try_into().ok()?)),
        (PARAM_INTEGER, 4) => u64::try_from(i32::from_ne_bytes(bytes.try_into().ok()?)).ok(),
        (PARAM_INTEGER, _) => u64::try_from(i64::from_ne_bytes(bytes.try_into().ok()?)).ok(),
        _ => None,
    }
}

/// Writes `bytes` to an octet-string parameter (copied; false if its
/// buffer is smaller) or an octet-pointer one (pointed at; `bytes` must
/// then outlive the caller's use, i.e. live in the context). A NULL `data`
/// of an octet string only learns the length.
///
/// # Safety
/// `p` is a valid element; a non-NULL `data` has `data_size` writable
/// bytes (a pointer's worth for `OCTET_PTR`).
pub unsafe fn set_octets(p: *mut OsslParam, bytes: &[u8]) -> bool {
    // SAFETY: the caller's contract: `p` is a valid element.
    let p = unsafe { &mut *p };
    match p.data_type {
        PARAM_OCTET_STRING => {
            p.return_size = bytes.len();
            if p.data.is_null() {
                return true;
            }
            if p.data_size < bytes.len() {
                return false;
            }
            // SAFETY: data has data_size >= bytes.len() writable bytes and
            // cannot overlap our own buffer (OpenSSL's caller owns it).
            unsafe { ptr::copy_nonoverlapping(bytes.as_ptr(), p.data as *mut u8, bytes.len()) };
            true
        }
        PARAM_OCTET_PTR => {
            p.return_size = bytes.len();
            if p.data.is_null() {
                return true;
            }
            // SAFETY: an OCTET_PTR's data is a `const void *` slot.
            unsafe { ptr::write_unaligned(p.data as *mut *const c_void, bytes.as_ptr() as _) };
            true
        }
        _ => false,
    }
}

/// Writes the NUL-terminated `s` to a UTF-8 string parameter (copied, NUL
/// added when it fits) or a UTF-8 pointer one (`s` must be 'static).
///
/// # Safety
/// `p` is a valid element; a non-NULL `data` has `data_size` writable
/// bytes (a pointer's worth for `UTF8_PTR`).
pub unsafe fn set_utf8(p: *mut OsslParam, s: &'static CStr) -> bool {
    // SAFETY: the caller's contract: `p` is a valid element.
    let p = unsafe { &mut *p };
    let bytes = s.to_bytes();
    match p.data_type {
        PARAM_UTF8_PTR => {
            p.return_size = bytes.len();
            if !p.data.is_null() {
                // SAFETY: a UTF8_PTR's data is a `const char *` slot.
                unsafe { ptr::write_unaligned(p.data as *mut *const c_char, s.as_ptr()) };
            }
            true
        }
        PARAM_UTF8_STRING => {
            p.return_size = bytes.len();
            if p.data.is_null() {
                return true;
            }
            if p.data_size < bytes.len() {
                return false;
            }
            let n = if p.data_size > bytes.len() {
                bytes.len() + 1
            } else {
                bytes.len()
            };
            // SAFETY: n <= data_size writable bytes; `s` has len+1 bytes.
            unsafe { ptr::copy_nonoverlapping(s.as_ptr() as *const u8, p.data as *mut u8, n) };
            true
        }
        _ => false,
    }
}

/// The bytes of an octet-string parameter (`OSSL_PARAM_get_octet_string`
/// without the copy); None for another type or a NULL buffer.
///
/// # Safety
/// `p` is a valid element whose non-NULL `data` has `data_size` readable
/// bytes that stay valid for `'a`.
pub unsafe fn get_octets<'a>(p: *const OsslParam) -> Option<&'a [u8]> {
    // SAFETY: the caller's contract: `p` is a valid element.
    let p = unsafe { &*p };
    if p.data_type != PARAM_OCTET_STRING || p.data.is_null() || p.data_size > isize::MAX as usize {
        return None;
    }
    // SAFETY: non-NULL data with data_size readable bytes (caller).
    Some(unsafe { core::slice::from_raw_parts(p.data as *const u8, p.data_size) })
}

/// The text of a UTF-8 string parameter (`OSSL_PARAM_get_utf8_string`
/// without the copy); None for another type, a NULL buffer or bytes that
/// are not UTF-8.
///
/// # Safety
/// As for [`get_octets`].
pub unsafe fn get_utf8<'a>(p: *const OsslParam) -> Option<&'a str> {
    // SAFETY: the caller's contract: `p` is a valid element.
    let q = unsafe { &*p };
    if q.data_type != PARAM_UTF8_STRING || q.data.is_null() || q.data_size > isize::MAX as usize {
        return None;
    }
    // SAFETY: non-NULL data with data_size readable bytes (caller).
    let bytes = unsafe { core::slice::from_raw_parts(q.data as *const u8, q.data_size) };
    // The size may count a terminating NUL.
    let text = bytes.split(|&b| b == 0).next().unwrap_or(&[]);
    core::str::from_utf8(text).ok()
}

/// Writes `v` to `key` in `params` if it is asked for: true when absent or
/// written.
///
/// # Safety
/// As for [`locate`] and [`set_u64`].
pub unsafe fn put_u64(params: *const OsslParam, key: &CStr, v: u64) -> bool {
    // SAFETY: the caller's contract covers both calls.
    unsafe { locate(params, key).is_none_or(|p| set_u64(p, v)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn param(key: &'static CStr, data_type: c_uint, data: *mut c_void, size: usize) -> OsslParam {
        OsslParam {
            key: key.as_ptr(),
            data_type,
            data,
            data_size: size,
            return_size: PARAM_UNMODIFIED,
        }
    }

    #[test]
    fn locate_finds_keys_and_stops_at_the_end() {
        let list = [uint(c"a"), size_t(c"bb"), END];
        // SAFETY: a terminated array of 'static keys.
        unsafe {
            assert_eq!(
                locate(list.as_ptr(), c"bb"),
                Some(list.as_ptr().add(1) as *mut _)
            );
            assert_eq!(locate(list.as_ptr(), c"b"), None);
            assert_eq!(locate(ptr::null(), c"a"), None);
        }
    }

    #[test]
    fn integers_by_size_and_sign() {
        let mut u32v = 0u32;
        let mut i32v = 0i32;
        let mut u64v = 0u64;
        let mut small = 0u16;
        let mut ps = [
            param(c"u", PARAM_UNSIGNED_INTEGER, &mut u32v as *mut _ as _, 4),
            param(c"i", PARAM_INTEGER, &mut i32v as *mut _ as _, 4),
            param(c"l", PARAM_UNSIGNED_INTEGER, &mut u64v as *mut _ as _, 8),
            param(c"s", PARAM_UNSIGNED_INTEGER, &mut small as *mut _ as _, 2),
            param(c"o", PARAM_OCTET_STRING, &mut u64v as *mut _ as _, 8),
            END,
        ];
        let base = ps.as_mut_ptr();
        // SAFETY: each element's data points at a live local of its size.
        unsafe {
            assert!(set_u64(base, 7));
            assert!(set_u64(base.add(1), 9));
            assert!(!set_u64(base.add(1), 1 << 31), "beyond i32");
            assert!(set_u64(base.add(2), u64::MAX));
            assert!(!set_u64(base.add(3), 1), "2-byte integers are not ours");
            assert!(!set_u64(base.add(4), 1), "not an integer");
            assert_eq!(get_u64(base), Some(7));
            assert_eq!(get_u64(base.add(2)), Some(u64::MAX));
            ptr::write((*base.add(1)).data as *mut i32, -1);
            assert_eq!(get_u64(base.add(1)), None, "negative");
            assert!(!set_u64(base, 1 << 32), "beyond u32");
            assert!(put_u64(base, c"absent", 1));
            assert!(put_u64(base, c"u", 11));
        }
        assert_eq!((u32v, u64v, ps[0].return_size), (11, u64::MAX, 4));
    }

    #[test]
    fn octets_copy_point_and_refuse_short_buffers() {
        let mut buf = [0u8; 4];
        let mut slot: *const c_void = ptr::null();
        let mut ps = [
            param(c"s", PARAM_OCTET_STRING, buf.as_mut_ptr() as _, 4),
            param(c"p", PARAM_OCTET_PTR, &mut slot as *mut _ as _, 8),
            param(c"n", PARAM_OCTET_STRING, ptr::null_mut(), 0),
        ];
        let src = [1u8, 2, 3];
        let base = ps.as_mut_ptr();
        // SAFETY: data points at live locals of the stated sizes.
        unsafe {
            assert!(set_octets(base, &src));
            assert!(!set_octets(base, &[0u8; 5]));
            assert!(set_octets(base.add(1), &src));
            assert!(set_octets(base.add(2), &src));
            assert_eq!(get_octets(base).map(|s| s.len()), Some(4));
            assert_eq!(get_octets(base.add(2)), None);
        }
        assert_eq!(&buf[..3], &src);
        assert_eq!(slot, src.as_ptr() as *const c_void);
        assert_eq!(ps[2].return_size, 3);
    }

    #[test]
    fn utf8_strings_and_pointers() {
        let mut buf = [0xffu8; 8];
        let mut short = [0xffu8; 2];
        let mut slot: *const c_char = ptr::null();
        let mut ps = [
            param(c"s", PARAM_UTF8_STRING, buf.as_mut_ptr() as _, 8),
            param(c"t", PARAM_UTF8_STRING, short.as_mut_ptr() as _, 2),
            param(c"p", PARAM_UTF8_PTR, &mut slot as *mut _ as _, 8),
        ];
        let base = ps.as_mut_ptr();
        // SAFETY: data points at live locals of the stated sizes.
        unsafe {
            assert!(set_utf8(base, c"aesx"));
            assert!(!set_utf8(base.add(1), c"aesx"));
            assert!(set_utf8(base.add(2), c"aesx"));
        }
        assert_eq!(&buf[..5], b"aesx\0");
        assert_eq!(slot, c"aesx".as_ptr());
        assert_eq!(ps[0].return_size, 4);
    }
}
