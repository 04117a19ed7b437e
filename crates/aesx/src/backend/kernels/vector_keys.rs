//! What the hardware families share about round keys held in vector
//! registers (x86 `__m128i`, AArch64 `uint8x16_t`): the order of the
//! inverse cipher's keys, and the wipe on drop.

use core::sync::atomic::{compiler_fence, Ordering};

use crate::key::MAX_ROUNDS;

/// The decryption keys of the equivalent inverse cipher (FIPS 197 section
/// 5.3.5) from the encryption keys `enc[0..=rounds]`, in the order AESDEC
/// and AESD consume them: `dec[0] = enc[rounds]`, `dec[i] =
/// InvMixColumns(enc[rounds - i])`, `dec[rounds] = enc[0]`. The entries
/// past `rounds` are copied from `enc` (unused, zero there).
#[inline(always)]
pub(crate) fn inverse_keys<T: Copy>(
    enc: &[T; MAX_ROUNDS + 1],
    rounds: usize,
    inv_mix_columns: impl Fn(T) -> T,
) -> [T; MAX_ROUNDS + 1] {
    let mut dec = *enc;
    dec[0] = enc[rounds];
    for i in 1..rounds {
        dec[i] = inv_mix_columns(enc[rounds - i]);
    }
    dec[rounds] = enc[0];
    dec
}

/// Overwrites every key with `zero`, with writes the compiler may not
/// elide (a plain store to memory about to be freed is dead code to it).
pub(crate) fn wipe<'k, T: Copy + 'k>(keys: impl IntoIterator<Item = &'k mut T>, zero: T) {
    for k in keys {
        // SAFETY: `k` is a valid, aligned, exclusive reference.
        unsafe { core::ptr::write_volatile(k, zero) };
    }
    compiler_fence(Ordering::SeqCst);
}
