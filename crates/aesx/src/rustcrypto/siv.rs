//! `Aes128GcmSiv`, `Aes256GcmSiv` (drop-ins for `aes_gcm_siv`'s types) and
//! [`Xaes256Gcm`] under `aead` 0.6's traits.

use aead::consts::{U16, U24, U32};
use aead::{AeadCore, Key, KeyInit, KeySizeUser, TagPosition};

use super::shell::{aead_inout, aead_types, fastest};
use crate::modes::gcm_siv::GcmSiv;
use crate::modes::xaes::Xaes256Gcm;

aead_types! {
    ///
    /// `KeyInit::new` runs on the fastest backend; `with_backend` picks
    /// one. A failed decryption zeroes the buffer. Keys are zeroized on
    /// drop; `Debug` prints only the backend.
    "-GCM-SIV" " (RFC 8452) under `aead` 0.6's traits: a drop-in for `aes_gcm_siv::Aes" "GcmSiv`.";
    in_place { siv: GcmSiv };
    Aes128GcmSiv(U16, 16, "128"), Aes256GcmSiv(U32, 32, "256")
}

impl KeySizeUser for Xaes256Gcm {
    type KeySize = U32;
}

impl KeyInit for Xaes256Gcm {
    fn new(key: &Key<Self>) -> Self {
        // A 32-byte key on the fastest backend cannot fail.
        fastest(Xaes256Gcm::with_backend, key.as_slice())
    }
}

impl AeadCore for Xaes256Gcm {
    type NonceSize = U24;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

aead_inout!(io [] Xaes256Gcm);

// The key and the CMAC subkey zeroize themselves on drop.
impl zeroize::ZeroizeOnDrop for Xaes256Gcm {}
