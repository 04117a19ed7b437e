//! What the hardware families share about round keys held in vector
//! registers (x86 `__m128i`, AArch64 `uint8x16_t`): the order of the
//! inverse cipher's keys. Their wipe on drop is [`super::wipe`].

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
