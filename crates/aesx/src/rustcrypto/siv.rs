//! `Aes128GcmSiv`, `Aes256GcmSiv` (drop-ins for `aes_gcm_siv`'s types) and
//! [`Xaes256Gcm`] under `aead` 0.6's traits.

use core::fmt;

use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, TagPosition};

use crate::backend::Backend;
use crate::error::Result;
use crate::modes::gcm_siv::GcmSiv;
use crate::modes::xaes::Xaes256Gcm;

/// The output slice with the input copied in (no copy when in place): both
/// modes need the plaintext before the keystream pass (GCM-SIV) or run
/// in place anyway, so one copy out of place is their whole cost.
fn in_place<'a>(buffer: InOutBuf<'_, 'a, u8>) -> &'a mut [u8] {
    buffer.into_out_with_copied_in()
}

fn to_tag<T: AeadCore>(tag: &[u8]) -> aead::Tag<T> {
    let mut out = aead::Tag::<T>::default();
    out.copy_from_slice(tag);
    out
}

macro_rules! siv_type {
    ($name:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM-SIV (RFC 8452) under `aead` 0.6's traits: a drop-in")]
        #[doc = concat!("for `aes_gcm_siv::Aes", $bits, "GcmSiv`.")]
        ///
        /// `KeyInit::new` runs on the fastest backend; `with_backend` picks
        /// one. A failed decryption zeroes the buffer. Keys are zeroized on
        /// drop; `Debug` prints only the backend.
        #[derive(Clone)]
        pub struct $name {
            siv: GcmSiv,
        }

        impl $name {
            #[doc = concat!("AES-", $bits, "-GCM-SIV on the named backend; an error if this")]
            /// machine cannot run it.
            pub fn with_backend(key: &[u8; $bytes], backend: Backend) -> Result<Self> {
                Ok(Self {
                    siv: GcmSiv::with_backend(key, backend)?,
                })
            }

            /// The backend this key runs on.
            pub fn backend(&self) -> Backend {
                self.siv.backend()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl KeyInit for $name {
            fn new(key: &Key<Self>) -> Self {
                // The length is fixed by the type and the fastest backend
                // exists, so this cannot fail.
                match GcmSiv::with_backend(key.as_slice(), Backend::fastest()) {
                    Ok(siv) => Self { siv },
                    Err(e) => panic!("aesx: the fastest backend refused a valid key: {e}"),
                }
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            fn encrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                self.siv
                    .seal_in_place_detached(nonce.as_slice(), associated_data, in_place(buffer))
                    .map(|t| to_tag::<Self>(t.as_bytes()))
                    .map_err(|_| aead::Error)
            }

            fn decrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                let buf = in_place(buffer);
                self.siv
                    .open_in_place_detached(nonce.as_slice(), associated_data, buf, tag)
                    .map_err(|_| aead::Error)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name))
                    .field("backend", &self.siv.backend())
                    .finish_non_exhaustive()
            }
        }

        // The key-generating key zeroizes itself on drop.
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}

siv_type!(Aes128GcmSiv, U16, 16, "128");
siv_type!(Aes256GcmSiv, U32, 32, "256");

impl KeySizeUser for Xaes256Gcm {
    type KeySize = U32;
}

impl KeyInit for Xaes256Gcm {
    fn new(key: &Key<Self>) -> Self {
        // A 32-byte key on the fastest backend cannot fail.
        match Xaes256Gcm::with_backend(key.as_slice(), Backend::fastest()) {
            Ok(x) => x,
            Err(e) => panic!("aesx: the fastest backend refused a valid key: {e}"),
        }
    }
}

impl AeadCore for Xaes256Gcm {
    type NonceSize = U24;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl AeadInOut for Xaes256Gcm {
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        self.seal_in_place_detached(nonce.as_slice(), associated_data, in_place(buffer))
            .map(|t| to_tag::<Self>(t.as_bytes()))
            .map_err(|_| aead::Error)
    }

    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        associated_data: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        let buf = in_place(buffer);
        self.open_in_place_detached(nonce.as_slice(), associated_data, buf, tag)
            .map_err(|_| aead::Error)
    }
}

// The key and the CMAC subkey zeroize themselves on drop.
impl zeroize::ZeroizeOnDrop for Xaes256Gcm {}
