//! What the RustCrypto types here share: `KeyInit` on the fastest backend
//! ([`fastest`]), and `AeadInOut` over aesx's one-shot calls
//! ([`seal_inout`], [`open_inout`]).

use aead::array::{Array, ArraySize};
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

/// `AeadInOut::encrypt_inout_detached` over an aesx AEAD's one-shot
/// kernels, in place or out of place.
#[inline]
pub(super) fn seal_inout<T: ArraySize>(
    aead: &impl AeadIo,
    nonce: &[u8],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
) -> aead::Result<Array<u8, T>> {
    let tag = aead
        .seal_io(nonce, aad, io(buffer))
        .map_err(|_| aead::Error)?;
    Array::try_from(tag.as_bytes()).map_err(|_| aead::Error)
}

/// `AeadInOut::decrypt_inout_detached` over an aesx AEAD's one-shot
/// kernels; a failed tag check zeroes the output.
#[inline]
pub(super) fn open_inout(
    aead: &impl AeadIo,
    nonce: &[u8],
    aad: &[u8],
    buffer: InOutBuf<'_, '_, u8>,
    tag: &[u8],
) -> aead::Result<()> {
    aead.open_buffer(nonce, aad, buffer, tag)
        .map_err(|_| aead::Error)
}
