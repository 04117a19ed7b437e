//! What every entry point and dispatch table shares: [`guard`] around each
//! body OpenSSL calls, the `dispatch!` entries and their tables, and the
//! algorithm context behind OpenSSL's pointer.

use core::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::OsslDispatch;

/// Runs an entry point's body; a panic becomes `default`.
pub(crate) fn guard<T>(default: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(default)
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
