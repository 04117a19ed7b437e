//! The one volatile wipe: secrets that the `zeroize` crate's byte loop
//! would wipe too slowly, or whose type it does not know.

use core::sync::atomic::{compiler_fence, Ordering};

/// Overwrites every item with `zero`, with writes the compiler may not
/// elide (a plain store to memory about to be freed is dead code to it).
///
/// One volatile store per item, of the item's whole width: round keys in
/// vector registers (`wipe(enc.iter_mut(), zero)`) and secret stack arrays
/// (`wipe([&mut block], [0; N])`, where the `zeroize` crate's
/// byte-at-a-time loop would cost as much as a short message).
pub(crate) fn wipe<'k, T: Copy + 'k>(keys: impl IntoIterator<Item = &'k mut T>, zero: T) {
    for k in keys {
        // SAFETY: `k` is a valid, aligned, exclusive reference.
        unsafe { core::ptr::write_volatile(k, zero) };
    }
    compiler_fence(Ordering::SeqCst);
}
