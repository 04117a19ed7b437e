//! `Aes128Gcm`, `Aes192Gcm`, `Aes256Gcm`: AES-GCM under `aead`'s traits.

use core::fmt;

use aead::array::Array;
use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, KeyInit, KeySizeUser, TagPosition};

use crate::backend::{Backend, InOut};
use crate::error::Result;
use crate::modes::gcm::Gcm;

pub use aead::Key;

/// A GCM nonce: 12 bytes unless stated otherwise, as in `aes-gcm`
/// (`aes_gcm::Nonce<U12>`).
pub type Nonce<NonceSize = U12> = Array<u8, NonceSize>;

/// The raw parts of an `InOutBuf` as our `InOut`.
#[inline(always)]
pub(super) fn io<'a>(buf: InOutBuf<'a, 'a, u8>) -> InOut<'a> {
    let len = buf.len();
    let (src, dst) = buf.into_raw();
    // SAFETY: `InOutBuf` guarantees `src` is readable and `dst` writable for
    // `len` bytes for its lifetime, and that the two are either the same
    // memory or disjoint: our `InOut`'s contract.
    unsafe { InOut::from_raw(src, dst, len) }
}

macro_rules! aead_type {
    ($name:ident, $ks:ty, $bytes:literal, $bits:literal) => {
        #[doc = concat!("AES-", $bits, "-GCM with 96-bit nonces and 128-bit tags under `aead`")]
        #[doc = concat!("0.6's traits: a drop-in for `aes_gcm::Aes", $bits, "Gcm`.")]
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
        #[derive(Clone)]
        pub struct $name {
            gcm: Gcm,
        }

        impl $name {
            #[doc = concat!("AES-", $bits, "-GCM on the named backend; an error if this")]
            /// machine cannot run it.
            pub fn with_backend(key: &[u8; $bytes], backend: Backend) -> Result<Self> {
                Ok(Self {
                    gcm: Gcm::with_backend(key, backend)?,
                })
            }

            /// The backend this key runs on.
            pub fn backend(&self) -> Backend {
                self.gcm.backend()
            }
        }

        impl KeySizeUser for $name {
            type KeySize = $ks;
        }

        impl KeyInit for $name {
            #[inline]
            fn new(key: &Key<Self>) -> Self {
                Self {
                    gcm: fastest_gcm(key.as_slice()),
                }
            }
        }

        impl AeadCore for $name {
            type NonceSize = U12;
            type TagSize = U16;
            const TAG_POSITION: TagPosition = TagPosition::Postfix;
        }

        impl AeadInOut for $name {
            #[inline]
            fn encrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                let tag = self
                    .gcm
                    .seal_io(nonce.as_slice(), associated_data, io(buffer))
                    .map_err(|_| aead::Error)?;
                let mut out = aead::Tag::<Self>::default();
                out.copy_from_slice(tag.as_bytes());
                Ok(out)
            }

            #[inline]
            fn decrypt_inout_detached(
                &self,
                nonce: &aead::Nonce<Self>,
                associated_data: &[u8],
                buffer: InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                let mut io = io(buffer);
                let r = self.gcm.open_io(
                    nonce.as_slice(),
                    associated_data,
                    io.reborrow(),
                    tag.as_slice(),
                );
                if r.is_err() {
                    io.zero_out();
                    return Err(aead::Error);
                }
                Ok(())
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                // Never print key material.
                f.debug_struct(stringify!($name))
                    .field("backend", &self.gcm.backend())
                    .finish_non_exhaustive()
            }
        }

        // The AES round keys and the GHASH key zeroize themselves on drop.
        impl zeroize::ZeroizeOnDrop for $name {}
    };
}

aead_type!(Aes128Gcm, U16, 16, "128");
aead_type!(Aes192Gcm, U24, 24, "192");
aead_type!(Aes256Gcm, U32, 32, "256");

/// See `block::fastest_aes`: the key length is fixed by the type and the
/// fastest backend exists, so this cannot fail.
fn fastest_gcm(key: &[u8]) -> Gcm {
    match Gcm::with_backend(key, Backend::fastest()) {
        Ok(gcm) => gcm,
        Err(e) => panic!("aesx: the fastest backend refused a valid key: {e}"),
    }
}
