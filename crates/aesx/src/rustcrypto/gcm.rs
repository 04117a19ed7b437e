//! `Aes128Gcm`, `Aes192Gcm`, `Aes256Gcm`: AES-GCM under `aead`'s traits.

use aead::array::Array;
use aead::consts::{U12, U16, U24, U32};

use super::shell::aead_types;
use crate::modes::gcm::Gcm;

pub use aead::Key;

/// A GCM nonce: 12 bytes unless stated otherwise, as in `aes-gcm`
/// (`aes_gcm::Nonce<U12>`).
pub type Nonce<NonceSize = U12> = Array<u8, NonceSize>;

aead_types! {
    ///
    /// `encrypt_inout_detached` and `decrypt_inout_detached` run aesx's
    /// one-shot GCM kernels directly (in place or out of place);
    /// `Aead::encrypt`/`decrypt` (with `alloc`) and the in-place
    /// `Buffer` methods come from `aead`'s blanket impls. On a failed
    /// decryption the output is zeroed (aes-gcm leaves it untouched),
    /// so no unauthenticated plaintext is ever released.
    ///
    /// `KeyInit::new` runs on the fastest backend; `with_backend` picks
    /// one. Key and GHASH key are zeroized on drop; `Debug` prints only
    /// the backend.
    "-GCM" " with 96-bit nonces and 128-bit tags under `aead` 0.6's traits: a drop-in for \
    `aes_gcm::Aes" "Gcm`.";
    io { gcm: Gcm };
    Aes128Gcm(U16, 16, "128"), Aes192Gcm(U24, 24, "192"), Aes256Gcm(U32, 32, "256")
}
