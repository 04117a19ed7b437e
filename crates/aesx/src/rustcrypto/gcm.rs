//! `AesGcm<Aes, NonceSize, TagSize>`: AES-GCM under `aead`'s traits, generic
//! over the key size (named by an aesx block cipher type), the nonce size and
//! the tag size, as `aes_gcm::AesGcm` is; `Aes128Gcm`, `Aes192Gcm` and
//! `Aes256Gcm` are its 96-bit-nonce, 128-bit-tag instances.

use core::fmt;
use core::marker::PhantomData;

use aead::array::typenum::Unsigned;
use aead::array::{Array, ArraySize};
use aead::consts::{U12, U13, U14, U15, U16, U4, U8};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, TagPosition};

use super::block::AesCipher;
use super::shell::{fastest, open_inout, seal_inout};
use super::{Aes128, Aes192, Aes256};
use crate::backend::Backend;
use crate::error::Result;
use crate::key::check_key_len;
use crate::modes::gcm::Gcm;

/// A GCM nonce: 12 bytes unless stated otherwise, as in `aes-gcm`
/// (`aes_gcm::Nonce<U12>`).
pub type Nonce<NonceSize = U12> = Array<u8, NonceSize>;

mod sealed {
    pub trait Sealed {}
}

/// The tag sizes GCM allows (SP 800-38D 5.2.1.2): `U16`, `U15`, `U14`,
/// `U13`, `U12`, and the short `U8` and `U4`.
///
/// `aes_gcm::TagSize` allows the short two only with its `hazmat`
/// feature; here they are always there, as they are in [`Gcm`](crate::Gcm).
/// A key used with 32- or 64-bit tags must stay within the decryption
/// limits of SP 800-38D Appendix C.
pub trait GcmTagSize: ArraySize + sealed::Sealed {}

impl sealed::Sealed for U4 {}
impl GcmTagSize for U4 {}
impl sealed::Sealed for U8 {}
impl GcmTagSize for U8 {}
impl sealed::Sealed for U12 {}
impl GcmTagSize for U12 {}
impl sealed::Sealed for U13 {}
impl GcmTagSize for U13 {}
impl sealed::Sealed for U14 {}
impl GcmTagSize for U14 {}
impl sealed::Sealed for U15 {}
impl GcmTagSize for U15 {}
impl sealed::Sealed for U16 {}
impl GcmTagSize for U16 {}

/// AES-GCM under `aead` 0.6's traits, generic as `aes_gcm::AesGcm` is: `Aes`
/// is the key size as one of aesx's block cipher types ([`Aes128`],
/// [`Aes192`], [`Aes256`] or their `Enc` halves), `NonceSize` the nonce
/// length and `TagSize` the tag length ([`GcmTagSize`], 16 bytes unless
/// stated).
///
/// Any nonce length of one byte or more works (nonces other than 12 bytes
/// are GHASHed into the counter block, SP 800-38D 7.1); 12 bytes is the
/// one to use unless a protocol says otherwise. A zero-length nonce
/// (`NonceSize = U0`) is refused by every call with `aead::Error`.
///
/// `encrypt_inout_detached` and `decrypt_inout_detached` run aesx's
/// one-shot GCM kernels directly (in place or out of place);
/// `Aead::encrypt`/`decrypt` (with `alloc`) and the in-place `Buffer`
/// methods come from `aead`'s blanket impls. On a failed decryption the
/// output is zeroed (aes-gcm leaves it untouched), so no unauthenticated
/// plaintext is ever released.
///
/// `KeyInit::new` runs on the fastest backend; `with_backend` picks one.
/// Key and GHASH key are zeroized on drop; `Debug` prints only the
/// backend.
///
/// ```
/// use aesx::aead::{Aead, KeyInit, array::Array, consts::U16};
/// use aesx::{Aes128, AesGcm};
///
/// // 128-bit nonces, as some protocols have them.
/// let gcm = AesGcm::<Aes128, U16>::new(&Array([7u8; 16]));
/// let nonce = Array([1u8; 16]);
/// let sealed = gcm.encrypt(&nonce, &b"secret"[..]).unwrap();
/// assert_eq!(gcm.decrypt(&nonce, &sealed[..]).unwrap(), b"secret");
/// ```
pub struct AesGcm<Aes, NonceSize, TagSize = U16> {
    gcm: Gcm,
    _sizes: Sizes<Aes, NonceSize, TagSize>,
}

/// The parameters only pick sizes: no value of theirs is held, so they take
/// no part in `Send`, `Sync` or drop.
type Sizes<A, N, T> = PhantomData<fn() -> (A, N, T)>;

/// AES-128-GCM with 96-bit nonces and 128-bit tags: a drop-in for
/// `aes_gcm::Aes128Gcm` (also `AesGcm<Aes128, U12>`, as there).
pub type Aes128Gcm = AesGcm<Aes128, U12>;
/// AES-192-GCM with 96-bit nonces and 128-bit tags.
pub type Aes192Gcm = AesGcm<Aes192, U12>;
/// AES-256-GCM with 96-bit nonces and 128-bit tags: a drop-in for
/// `aes_gcm::Aes256Gcm`.
pub type Aes256Gcm = AesGcm<Aes256, U12>;

impl<A: AesCipher, N: ArraySize, T: GcmTagSize> AesGcm<A, N, T> {
    /// GCM on the named backend; an error if this machine cannot run it or
    /// the key is not the length `A` names.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[A::KeySize::USIZE])?;
        Ok(AesGcm {
            gcm: Gcm::with_backend(key, backend)?.with_tag_len(T::USIZE)?,
            _sizes: PhantomData,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.gcm.backend()
    }
}

impl<A, N, T> Clone for AesGcm<A, N, T> {
    fn clone(&self) -> Self {
        AesGcm {
            gcm: self.gcm.clone(),
            _sizes: PhantomData,
        }
    }
}

impl<A: AesCipher, N, T> KeySizeUser for AesGcm<A, N, T> {
    type KeySize = A::KeySize;
}

impl<A: AesCipher, N: ArraySize, T: GcmTagSize> KeyInit for AesGcm<A, N, T> {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        // The key length is fixed by the type, the tag length by `T`, and
        // the fastest backend exists: this cannot fail.
        fastest(Self::with_backend, key.as_slice())
    }
}

impl<A, N: ArraySize, T: GcmTagSize> AeadCore for AesGcm<A, N, T> {
    type NonceSize = N;
    type TagSize = T;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<A, N: ArraySize, T: GcmTagSize> AeadInOut for AesGcm<A, N, T> {
    #[inline]
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        seal_inout(&self.gcm, nonce, aad, buffer)
    }

    #[inline]
    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        open_inout(&self.gcm, nonce, aad, buffer, tag)
    }
}

impl<A, N, T> fmt::Debug for AesGcm<A, N, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("AesGcm")
            .field("backend", &self.gcm.backend())
            .field("tag_len", &self.gcm.tag_len())
            .finish_non_exhaustive()
    }
}

// The key and the GHASH key zeroize themselves on drop.
impl<A, N, T> zeroize::ZeroizeOnDrop for AesGcm<A, N, T> {}
