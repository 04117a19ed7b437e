//! Status codes, their messages, and the guard that keeps panics inside.

use core::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};

use aesx::Error;

/// Success.
pub const AESX_OK: c_int = 0;
/// A pointer argument is NULL where the call needs memory (a NULL data
/// pointer is accepted only together with a length of 0).
pub const AESX_ERR_NULL_POINTER: c_int = -1;
/// A length that no buffer can have: over PTRDIFF_MAX, or running past the end
/// of the address space from its pointer.
pub const AESX_ERR_INVALID_LENGTH: c_int = -2;
/// Buffers overlap in a way the call does not allow: `out` must be exactly
/// `in` or not overlap it at all, and must not overlap any other argument.
pub const AESX_ERR_OVERLAP: c_int = -3;
/// A key that is not 16, 24 or 32 bytes (XTS: 32 or 64 bytes).
pub const AESX_ERR_KEY_LENGTH: c_int = -4;
/// An IV, nonce, salt or tweak of the wrong length.
pub const AESX_ERR_IV_LENGTH: c_int = -5;
/// Data that must be a whole number of 16-byte blocks is not.
pub const AESX_ERR_NOT_BLOCK_ALIGNED: c_int = -6;
/// The output buffer is too small for the result (padding, tag).
pub const AESX_ERR_OUTPUT_TOO_SMALL: c_int = -7;
/// PKCS#7 padding did not verify on decryption; the output was zeroed.
pub const AESX_ERR_BAD_PADDING: c_int = -8;
/// A backend number that aesx does not know.
pub const AESX_ERR_UNKNOWN_BACKEND: c_int = -9;
/// A backend that this CPU or build cannot run (never a silent fallback).
pub const AESX_ERR_BACKEND_UNAVAILABLE: c_int = -10;
/// The operation would run a counter past its limit.
pub const AESX_ERR_COUNTER_OVERFLOW: c_int = -11;
/// The authentication tag did not verify; the output was zeroed.
pub const AESX_ERR_AUTH_FAILED: c_int = -12;
/// A tag length the mode does not allow (GCM: 16, 15, 14, 13, 12, 8 or 4;
/// ESP: 8, 12 or 16, and the one its key was made with).
pub const AESX_ERR_TAG_LENGTH: c_int = -13;
/// A message longer than the mode allows (GCM: 2^36 - 32 bytes).
pub const AESX_ERR_MESSAGE_TOO_LONG: c_int = -14;
/// Associated data longer than the mode allows.
pub const AESX_ERR_AAD_TOO_LONG: c_int = -15;
/// An empty GCM nonce (IV); GCM needs at least one byte.
pub const AESX_ERR_EMPTY_NONCE: c_int = -16;
/// XTS encryption with a key whose two halves are equal (refused).
pub const AESX_ERR_XTS_EQUAL_KEY_HALVES: c_int = -17;
/// An XTS data unit shorter than 16 bytes or longer than 2^24 bytes.
pub const AESX_ERR_DATA_UNIT_LENGTH: c_int = -18;
/// An XTS sector size that is zero, not a multiple of 16, or over 2^24.
pub const AESX_ERR_SECTOR_SIZE: c_int = -19;
/// Associated data of a length the mode does not allow (ESP: 8 or 12).
pub const AESX_ERR_AAD_LENGTH: c_int = -20;
/// An XTS buffer that is not a whole number of sectors.
pub const AESX_ERR_PARTIAL_SECTOR: c_int = -21;
/// An argument out of its range (e.g. a padding mode other than
/// AESX_PADDING_NONE or AESX_PADDING_PKCS7).
pub const AESX_ERR_INVALID_ARGUMENT: c_int = -22;
/// A bug in aesx (a panic, caught at the boundary) or an error this version
/// of the C interface does not name. Please report it.
pub const AESX_ERR_INTERNAL: c_int = -23;
/// Key-wrap input of a length the variant cannot take (KW: a multiple of 8,
/// at least 16 bytes to wrap and 24 to unwrap; KWP: 1 to 2^32 - 1 bytes to
/// wrap, a multiple of 8 and at least 16 to unwrap).
pub const AESX_ERR_WRAP_LENGTH: c_int = -24;
/// No usable CUDA GPU: no NVIDIA driver (libcuda), no device with that
/// ordinal, or no NVRTC (libnvrtc) to compile the kernels.
pub const AESX_ERR_NO_DEVICE: c_int = -25;
/// A device pointer that is not 16-byte aligned, not device memory of the
/// key's GPU, or whose range runs past its allocation; or a CUDA driver
/// call that failed (the stream's work may be incomplete).
pub const AESX_ERR_DEVICE: c_int = -26;

/// A C string literal, NUL-terminated at compile time.
// A macro because `concat!` takes only literals (and `env!`), which a
// function's argument cannot be; a `c"..."` literal cannot hold `env!`.
macro_rules! cstr {
    ($s:expr) => {
        concat!($s, "\0").as_ptr().cast::<c_char>()
    };
}
pub(crate) use cstr;

/// Maps a library error to its status code.
pub(crate) fn code(e: Error) -> c_int {
    match e {
        Error::InvalidKeyLength { .. } => AESX_ERR_KEY_LENGTH,
        Error::InvalidIvLength { .. } => AESX_ERR_IV_LENGTH,
        Error::NotBlockAligned { .. } => AESX_ERR_NOT_BLOCK_ALIGNED,
        // The C calls take one length for equal-length input and output, so
        // the library's mismatch can only mean an impossible length pair.
        Error::LengthMismatch { .. } => AESX_ERR_INVALID_LENGTH,
        Error::OutputTooSmall { .. } => AESX_ERR_OUTPUT_TOO_SMALL,
        Error::BadPadding => AESX_ERR_BAD_PADDING,
        Error::UnknownBackend => AESX_ERR_UNKNOWN_BACKEND,
        Error::BackendUnavailable(_) => AESX_ERR_BACKEND_UNAVAILABLE,
        Error::CounterOverflow => AESX_ERR_COUNTER_OVERFLOW,
        Error::AuthenticationFailed => AESX_ERR_AUTH_FAILED,
        Error::InvalidTagLength { .. } => AESX_ERR_TAG_LENGTH,
        Error::MessageTooLong => AESX_ERR_MESSAGE_TOO_LONG,
        Error::AadTooLong => AESX_ERR_AAD_TOO_LONG,
        Error::EmptyNonce => AESX_ERR_EMPTY_NONCE,
        Error::XtsEqualKeyHalves => AESX_ERR_XTS_EQUAL_KEY_HALVES,
        Error::InvalidDataUnitLength { .. } => AESX_ERR_DATA_UNIT_LENGTH,
        Error::InvalidSectorSize { .. } => AESX_ERR_SECTOR_SIZE,
        Error::InvalidAadLength { .. } => AESX_ERR_AAD_LENGTH,
        Error::PartialSector { .. } => AESX_ERR_PARTIAL_SECTOR,
        Error::InvalidNonceLength { .. } => AESX_ERR_IV_LENGTH,
        Error::InvalidWrapLength { .. } => AESX_ERR_WRAP_LENGTH,
        // InvalidState (streaming misuse) cannot arise from one-shot calls;
        // variants added later are reported, not guessed at.
        _ => AESX_ERR_INTERNAL,
    }
}

/// The result of one C call before it becomes a status code.
pub(crate) type Status<T = ()> = Result<T, c_int>;

/// Lets `?` turn a library error into a status code.
pub(crate) trait OrCode<T> {
    fn or_code(self) -> Status<T>;
}

impl<T> OrCode<T> for aesx::Result<T> {
    fn or_code(self) -> Status<T> {
        self.map_err(code)
    }
}

/// Runs the body of an entry point; a panic becomes [`AESX_ERR_INTERNAL`]
/// instead of unwinding into C (which would be undefined behaviour).
pub(crate) fn guard(body: impl FnOnce() -> Status) -> c_int {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => AESX_OK,
        Ok(Err(c)) => c,
        Err(_) => AESX_ERR_INTERNAL,
    }
}

/// A fixed English message for a status code.
///
/// Returns a static NUL-terminated string (never NULL, never to be freed);
/// codes that aesx does not define give "unknown aesx status code".
#[no_mangle]
pub extern "C" fn aesx_strerror(status: c_int) -> *const c_char {
    match status {
        AESX_OK => cstr!("success"),
        AESX_ERR_NULL_POINTER => cstr!("null pointer argument"),
        AESX_ERR_INVALID_LENGTH => cstr!("impossible buffer length"),
        AESX_ERR_OVERLAP => cstr!("output overlaps an input (only exact in-place is allowed)"),
        AESX_ERR_KEY_LENGTH => cstr!("invalid key length"),
        AESX_ERR_IV_LENGTH => cstr!("invalid IV, nonce, salt or tweak length"),
        AESX_ERR_NOT_BLOCK_ALIGNED => cstr!("length is not a multiple of the 16-byte block size"),
        AESX_ERR_OUTPUT_TOO_SMALL => cstr!("output buffer too small"),
        AESX_ERR_BAD_PADDING => cstr!("bad padding"),
        AESX_ERR_UNKNOWN_BACKEND => cstr!("unknown backend"),
        AESX_ERR_BACKEND_UNAVAILABLE => cstr!("backend not available on this machine"),
        AESX_ERR_COUNTER_OVERFLOW => cstr!("counter space exhausted"),
        AESX_ERR_AUTH_FAILED => cstr!("authentication failed"),
        AESX_ERR_TAG_LENGTH => cstr!("invalid tag length"),
        AESX_ERR_MESSAGE_TOO_LONG => cstr!("message too long for this mode"),
        AESX_ERR_AAD_TOO_LONG => cstr!("associated data too long for this mode"),
        AESX_ERR_EMPTY_NONCE => cstr!("nonce must not be empty"),
        AESX_ERR_XTS_EQUAL_KEY_HALVES => cstr!("XTS key halves are equal (refused for encryption)"),
        AESX_ERR_DATA_UNIT_LENGTH => cstr!("invalid XTS data unit length"),
        AESX_ERR_SECTOR_SIZE => cstr!("invalid XTS sector size"),
        AESX_ERR_AAD_LENGTH => cstr!("invalid associated data length"),
        AESX_ERR_PARTIAL_SECTOR => cstr!("buffer is not a whole number of sectors"),
        AESX_ERR_INVALID_ARGUMENT => cstr!("invalid argument"),
        AESX_ERR_INTERNAL => cstr!("internal error in aesx"),
        AESX_ERR_WRAP_LENGTH => cstr!("invalid input length for key wrap"),
        AESX_ERR_NO_DEVICE => cstr!("no usable CUDA device (driver, NVRTC)"),
        AESX_ERR_DEVICE => cstr!("bad device pointer or CUDA driver error"),
        _ => cstr!("unknown aesx status code"),
    }
}
