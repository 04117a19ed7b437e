//! `AesGcmSiv<Aes>` with `Aes128GcmSiv`, `Aes256GcmSiv` (drop-ins for
//! `aes_gcm_siv`'s types) and [`Xaes256Gcm`] under `aead` 0.6's traits.

use core::fmt;
use core::marker::PhantomData;

use aead::array::typenum::Unsigned;
use aead::consts::{U12, U16, U24, U32};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, TagPosition};

use super::block::AesCipher;
use super::shell::{fastest, open_inout, seal_inout};
use super::{Aes128, Aes128Enc, Aes192, Aes192Enc, Aes256, Aes256Enc};
use crate::backend::Backend;
use crate::error::Result;
use crate::key::check_key_len;
use crate::modes::gcm_siv::GcmSiv;
use crate::modes::xaes::Xaes256Gcm;

/// The ciphers AES-GCM-SIV runs on: [`Aes128`] and [`Aes256`] (RFC 8452),
/// [`Aes192`] (as OpenSSL, pyca and `aes-gcm-siv` take it, with a 24-byte
/// message-encryption key) and their `Enc` halves. Implemented only here.
pub trait GcmSivCipher: AesCipher {}

impl GcmSivCipher for Aes128 {}
impl GcmSivCipher for Aes128Enc {}
impl GcmSivCipher for Aes192 {}
impl GcmSivCipher for Aes192Enc {}
impl GcmSivCipher for Aes256 {}
impl GcmSivCipher for Aes256Enc {}

/// AES-GCM-SIV (RFC 8452) under `aead` 0.6's traits, generic as
/// `aes_gcm_siv::AesGcmSiv` is: `Aes` names the key size ([`Aes128`],
/// [`Aes192`] or [`Aes256`]); 96-bit nonces and 128-bit tags. Use the aliases
/// [`Aes128GcmSiv`] and [`Aes256GcmSiv`].
///
/// `KeyInit::new` runs on the fastest backend; `with_backend` picks one. A
/// failed decryption zeroes the buffer (aes-gcm-siv restores the
/// ciphertext). Keys are zeroized on drop; `Debug` prints only the backend.
pub struct AesGcmSiv<Aes> {
    siv: GcmSiv,
    // Only the key size: no value of `Aes` is held.
    _aes: PhantomData<fn() -> Aes>,
}

/// AES-128-GCM-SIV: a drop-in for `aes_gcm_siv::Aes128GcmSiv`.
pub type Aes128GcmSiv = AesGcmSiv<Aes128>;
/// AES-256-GCM-SIV: a drop-in for `aes_gcm_siv::Aes256GcmSiv`.
pub type Aes256GcmSiv = AesGcmSiv<Aes256>;

impl<A: GcmSivCipher> AesGcmSiv<A> {
    /// GCM-SIV on the named backend; an error if this machine cannot run
    /// it or the key is not the length `A` names.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[A::KeySize::USIZE])?;
        Ok(AesGcmSiv {
            siv: GcmSiv::with_backend(key, backend)?,
            _aes: PhantomData,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.siv.backend()
    }
}

impl<A> Clone for AesGcmSiv<A> {
    fn clone(&self) -> Self {
        AesGcmSiv {
            siv: self.siv.clone(),
            _aes: PhantomData,
        }
    }
}

impl<A: GcmSivCipher> KeySizeUser for AesGcmSiv<A> {
    type KeySize = A::KeySize;
}

impl<A: GcmSivCipher> KeyInit for AesGcmSiv<A> {
    #[inline]
    fn new(key: &Key<Self>) -> Self {
        // The key length is fixed by the type and the fastest backend
        // exists: this cannot fail.
        fastest(Self::with_backend, key.as_slice())
    }
}

impl<A> AeadCore for AesGcmSiv<A> {
    type NonceSize = U12;
    type TagSize = U16;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

// In place on the output with the input copied in (no copy when in place
// already), through the mode's own in-place calls.
impl<A> AeadInOut for AesGcmSiv<A> {
    #[inline]
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        let buf = buffer.into_out_with_copied_in();
        let tag = self
            .siv
            .seal_in_place_detached(nonce, aad, buf)
            .map_err(|_| aead::Error)?;
        aead::Tag::<Self>::try_from(tag.as_bytes()).map_err(|_| aead::Error)
    }

    #[inline]
    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        let buf = buffer.into_out_with_copied_in();
        self.siv
            .open_in_place_detached(nonce, aad, buf, tag)
            .map_err(|_| aead::Error)
    }
}

impl<A> fmt::Debug for AesGcmSiv<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("AesGcmSiv")
            .field("backend", &self.siv.backend())
            .finish_non_exhaustive()
    }
}

// The key-generating key zeroizes itself on drop.
impl<A> zeroize::ZeroizeOnDrop for AesGcmSiv<A> {}

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

impl AeadInOut for Xaes256Gcm {
    #[inline]
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        seal_inout(self, nonce, aad, buffer)
    }

    #[inline]
    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        open_inout(self, nonce, aad, buffer, tag)
    }
}

// The key and the CMAC subkey zeroize themselves on drop.
impl zeroize::ZeroizeOnDrop for Xaes256Gcm {}
