//! `Aes128Ccm<M, N>`, `Aes192Ccm<M, N>`, `Aes256Ccm<M, N>`: AES-CCM under
//! `aead`'s traits, with the tag size `M` and nonce size `N` as typenum
//! types, as RustCrypto's `ccm::Ccm<Aes128, M, N>` has them.

use core::fmt;
use core::marker::PhantomData;

use aead::array::ArraySize;
use aead::consts::{U10, U11, U12, U13, U14, U16, U24, U32, U4, U6, U7, U8, U9};
use aead::{AeadCore, Key, KeyInit, KeySizeUser, TagPosition};

use super::shell::{aead_inout, fastest};
use crate::backend::Backend;
use crate::error::Result;
use crate::key::check_key_len;
use crate::modes::ccm::Ccm;

// Only the sizes below implement these (the orphan rule keeps other crates
// from adding any).

/// The tag sizes CCM allows: `U4`, `U6`, `U8`, `U10`, `U12`, `U14`, `U16`.
pub trait CcmTagSize: ArraySize {}

/// The nonce sizes CCM allows: `U7` to `U13`.
pub trait CcmNonceSize: ArraySize {}

/// The AES key sizes: `U16`, `U24`, `U32`.
pub trait CcmKeySize: ArraySize {}

macro_rules! sizes {
    ($tr:ident: $($t:ty),*) => {
        $(
            impl $tr for $t {}
        )*
    };
}

sizes!(CcmTagSize: U4, U6, U8, U10, U12, U14, U16);
sizes!(CcmNonceSize: U7, U8, U9, U10, U11, U12, U13);
sizes!(CcmKeySize: U16, U24, U32);

/// AES-CCM under `aead` 0.6's traits; use the aliases [`Aes128Ccm`],
/// [`Aes192Ccm`], [`Aes256Ccm`].
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
pub type Aes128Ccm<M, N> = AesCcm<U16, M, N>;
/// AES-192-CCM with `M`-byte tags and `N`-byte nonces.
pub type Aes192Ccm<M, N> = AesCcm<U24, M, N>;
/// AES-256-CCM with `M`-byte tags and `N`-byte nonces.
pub type Aes256Ccm<M, N> = AesCcm<U32, M, N>;

impl<K: CcmKeySize, M: CcmTagSize, N: CcmNonceSize> AesCcm<K, M, N> {
    /// CCM on the named backend; an error if this machine cannot run it or
    /// the key is not `K` bytes.
    pub fn with_backend(key: &[u8], backend: Backend) -> Result<Self> {
        check_key_len(key, &[K::USIZE])?;
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
    type KeySize = K;
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

aead_inout!(io [K, M: CcmTagSize, N: CcmNonceSize] AesCcm<K, M, N>, ccm);

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
