//! What the key-size types here share: the shell around one aesx object
//! (`keyed!`: the struct, `with_backend`, `backend`, the key size,
//! `KeyInit` on the fastest backend, a `Debug` without key material,
//! `ZeroizeOnDrop`), and `AeadInOut` over aesx's one-shot calls
//! (`aead_inout!`).

use aead::inout::InOutBuf;

use crate::backend::{Backend, InOut};
use crate::error::{Error, Result};
use crate::modes::tag::AeadIo;

/// The key on the fastest backend, for `KeyInit::new`. It cannot fail: the
/// key length is fixed by the type and the fastest backend is one this
/// machine has, so an error here is a bug in aesx, not a caller's mistake.
#[inline]
pub(super) fn fastest<T>(with_backend: impl FnOnce(&[u8], Backend) -> Result<T>, key: &[u8]) -> T {
    match with_backend(key, Backend::fastest()) {
        Ok(t) => t,
        Err(e) => panic!("aesx: the fastest backend refused a valid key: {e}"),
    }
}

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

/// Decrypting `buffer` through an AEAD's one-shot kernel: a failed tag
/// check zeroes the output, so no unauthenticated plaintext is released.
pub(super) trait OpenIo: AeadIo {
    #[inline]
    fn open_buffer(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buffer: InOutBuf<'_, '_, u8>,
        tag: &[u8],
    ) -> Result<()> {
        let mut io = io(buffer);
        let r = self.open_io(nonce, aad, io.reborrow(), tag);
        if r == Err(Error::AuthenticationFailed) {
            io.zero_out();
        }
        r
    }
}

impl<T: AeadIo> OpenIo for T {}

/// `AeadInOut` for `$ty` (generic over `[$g]`) over the aesx AEAD in
/// `self.$field` (or `self`). `io`: straight onto its one-shot kernels, in
/// place or out of place. `in_place` (GCM-SIV, which reads its plaintext
/// back to recompute the tag): on the output with the input copied in (no
/// copy when in place). A failed tag check zeroes the output.
macro_rules! aead_inout {
    (io [$($g:tt)*] $ty:ty $(, $field:ident)?) => {
        $crate::rustcrypto::shell::aead_inout! {
            [$($g)*] $ty; self nonce associated_data buffer tag;
            seal => {
                use $crate::modes::tag::AeadIo as _;
                self$(.$field)?.seal_io(nonce, associated_data, $crate::rustcrypto::shell::io(buffer))
            };
            open => {
                use $crate::rustcrypto::shell::OpenIo as _;
                self$(.$field)?.open_buffer(nonce, associated_data, buffer, tag)
            }
        }
    };
    (in_place [$($g:tt)*] $ty:ty, $field:ident) => {
        $crate::rustcrypto::shell::aead_inout! {
            [$($g)*] $ty; self nonce associated_data buffer tag;
            seal => self.$field.seal_in_place_detached(nonce, associated_data, buffer.into_out_with_copied_in());
            open => self.$field.open_in_place_detached(nonce, associated_data, buffer.into_out_with_copied_in(), tag)
        }
    };
    (
        [$($g:tt)*] $ty:ty; $this:ident $nonce:ident $aad:ident $buffer:ident $tag:ident;
        seal => $seal:expr; open => $open:expr
    ) => {
        impl<$($g)*> aead::AeadInOut for $ty {
            #[inline]
            fn encrypt_inout_detached(
                &$this,
                nonce: &aead::Nonce<Self>,
                $aad: &[u8],
                $buffer: aead::inout::InOutBuf<'_, '_, u8>,
            ) -> aead::Result<aead::Tag<Self>> {
                let $nonce = nonce.as_slice();
                let tag = $seal.map_err(|_| aead::Error)?;
                aead::Tag::<Self>::try_from(tag.as_bytes()).map_err(|_| aead::Error)
            }

            #[inline]
            fn decrypt_inout_detached(
                &$this,
                nonce: &aead::Nonce<Self>,
                $aad: &[u8],
                $buffer: aead::inout::InOutBuf<'_, '_, u8>,
                tag: &aead::Tag<Self>,
            ) -> aead::Result<()> {
                let ($nonce, $tag) = (nonce.as_slice(), tag.as_slice());
                $open.map_err(|_| aead::Error)
            }
        }
    };
}
pub(super) use aead_inout;
