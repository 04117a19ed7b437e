//! `Aes128Ccm<M, N>`, `Aes192Ccm<M, N>`, `Aes256Ccm<M, N>`: AES-CCM under
//! `aead`'s traits, with the tag size `M` and nonce size `N` as typenum
//! types, as RustCrypto's `ccm::Ccm<Aes128, M, N>` has them.

use core::fmt;
use core::marker::PhantomData;

use aead::array::typenum::Unsigned;
use aead::array::ArraySize;
use aead::consts::{U10, U11, U12, U13, U14, U16, U24, U32, U4, U6, U7, U8, U9};
use aead::inout::InOutBuf;
use aead::{AeadCore, AeadInOut, Key, KeyInit, KeySizeUser, TagPosition};

use super::shell::{fastest, open_inout, seal_inout};
use super::{Aes128, Aes128Enc, Aes192, Aes192Enc, Aes256, Aes256Enc};
use crate::backend::Backend;
use crate::error::Result;
use crate::key::check_key_len;
use crate::modes::ccm::Ccm;
use sealed::Sealed;

mod sealed {
    pub trait Sealed {}
}

/// The tag sizes CCM allows: `U4`, `U6`, `U8`, `U10`, `U12`, `U14`, `U16`.
/// Implemented only here.
pub trait CcmTagSize: ArraySize + sealed::Sealed {}

/// The nonce sizes CCM allows: `U7` to `U13`. Implemented only here.
pub trait CcmNonceSize: ArraySize + sealed::Sealed {}

/// What names the AES key size of [`AesCcm`]: a key size (`U16`, `U24`,
/// `U32`) or, as `ccm::Ccm<aes::Aes256, M, N>` has it, an aesx block cipher
/// type ([`Aes256`](crate::Aes256), ..., see [`AesCipher`](crate::AesCipher)). Implemented
/// only here.
pub trait CcmKeySize {
    /// The key length in bytes.
    type KeySize: ArraySize;
}

impl Sealed for U4 {}
impl Sealed for U6 {}
impl Sealed for U7 {}
impl Sealed for U8 {}
impl Sealed for U9 {}
impl Sealed for U10 {}
impl Sealed for U11 {}
impl Sealed for U12 {}
impl Sealed for U13 {}
impl Sealed for U14 {}
impl Sealed for U16 {}

impl CcmTagSize for U4 {}
impl CcmTagSize for U6 {}
impl CcmTagSize for U8 {}
impl CcmTagSize for U10 {}
impl CcmTagSize for U12 {}
impl CcmTagSize for U14 {}
impl CcmTagSize for U16 {}

impl CcmNonceSize for U7 {}
impl CcmNonceSize for U8 {}
impl CcmNonceSize for U9 {}
impl CcmNonceSize for U10 {}
impl CcmNonceSize for U11 {}
impl CcmNonceSize for U12 {}
impl CcmNonceSize for U13 {}

impl CcmKeySize for U16 {
    type KeySize = U16;
}

impl CcmKeySize for U24 {
    type KeySize = U24;
}

impl CcmKeySize for U32 {
    type KeySize = U32;
}

impl CcmKeySize for Aes128 {
    type KeySize = U16;
}

impl CcmKeySize for Aes192 {
    type KeySize = U24;
}

impl CcmKeySize for Aes256 {
    type KeySize = U32;
}

impl CcmKeySize for Aes128Enc {
    type KeySize = U16;
}

impl CcmKeySize for Aes192Enc {
    type KeySize = U24;
}

impl CcmKeySize for Aes256Enc {
    type KeySize = U32;
}

/// AES-CCM under `aead` 0.6's traits; use the aliases [`Aes128Ccm`],
/// [`Aes192Ccm`], [`Aes256Ccm`], or name the cipher as `ccm::Ccm` does:
/// `AesCcm<aesx::Aes256, U10, U13>` (which is `Aes256Ccm<U10, U13>`) for
/// `ccm::Ccm<aes::Aes256, U10, U13>`. The key size types `U16`, `U24`,
/// `U32` are accepted in the first place too.
///
/// `encrypt_inout_detached` and `decrypt_inout_detached` run aesx's CCM
/// kernels directly (in place or out of place); `Aead::encrypt`/`decrypt`
/// (with `alloc`) and the in-place `Buffer` methods come from `aead`'s
/// blanket impls. A message too long for the nonce size, like a failed
/// tag check, is `aead::Error`; on a failed check the output is zeroed.
/// `KeyInit::new` runs on the fastest backend; `with_backend` picks one.
pub struct AesCcm<K, M, N> {
    ccm: Ccm,
    _sizes: PhantomData<(K, M, N)>,
}

/// AES-128-CCM with `M`-byte tags and `N`-byte nonces: a drop-in for
/// `ccm::Ccm<aes::Aes128, M, N>`.
pub type Aes128Ccm<M, N> = AesCcm<Aes128, M, N>;
/// AES-192-CCM with `M`-byte tags and `N`-byte nonces.
pub type Aes192Ccm<M, N> = AesCcm<Aes192, M, N>;
/// AES-256-CCM with `M`-byte tags and `N`-byte nonces.
pub type Aes256Ccm<M, N> = AesCcm<Aes256, M, N>;

impl<K: CcmKeySize, M: CcmTagSize, N: CcmNonceSize> AesCcm<K, M, N> {
    /// CCM on the named backend; an error if this machine cannot run it or
    /// the key is not `K` bytes.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[K::KeySize::USIZE])?;
        Ok(AesCcm {
            ccm: Ccm::with_backend(key, M::USIZE, backend)?,
            _sizes: PhantomData,
        })
    }

    /// The backend this key runs on.
    pub fn backend(&self) -> Backend {
        self.ccm.backend()
    }
}

impl<K, M, N> Clone for AesCcm<K, M, N> {
    fn clone(&self) -> Self {
        AesCcm {
            ccm: self.ccm.clone(),
            _sizes: PhantomData,
        }
    }
}

impl<K: CcmKeySize, M, N> KeySizeUser for AesCcm<K, M, N> {
    type KeySize = K::KeySize;
}

impl<K: CcmKeySize, M: CcmTagSize, N: CcmNonceSize> KeyInit for AesCcm<K, M, N> {
    fn new(key: &Key<Self>) -> Self {
        // The key length is fixed by the type, the tag length by `M`, and
        // the fastest backend exists: this cannot fail.
        fastest(Self::with_backend, key.as_slice())
    }
}

impl<K, M: CcmTagSize, N: CcmNonceSize> AeadCore for AesCcm<K, M, N> {
    type NonceSize = N;
    type TagSize = M;
    const TAG_POSITION: TagPosition = TagPosition::Postfix;
}

impl<K, M: CcmTagSize, N: CcmNonceSize> AeadInOut for AesCcm<K, M, N> {
    #[inline]
    fn encrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
    ) -> aead::Result<aead::Tag<Self>> {
        seal_inout(&self.ccm, nonce, aad, buffer)
    }

    #[inline]
    fn decrypt_inout_detached(
        &self,
        nonce: &aead::Nonce<Self>,
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &aead::Tag<Self>,
    ) -> aead::Result<()> {
        open_inout(&self.ccm, nonce, aad, buffer, tag)
    }
}

impl<K, M, N> fmt::Debug for AesCcm<K, M, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print key material.
        f.debug_struct("AesCcm")
            .field("ccm", &self.ccm)
            .finish_non_exhaustive()
    }
}

// The round keys zeroize themselves on drop.
impl<K, M, N> zeroize::ZeroizeOnDrop for AesCcm<K, M, N> {}
