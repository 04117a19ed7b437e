//! Modes of operation, written once over the backends' bulk kernels.

pub(crate) mod block;
pub(crate) mod cbc;
pub(crate) mod cbc_multi;
pub(crate) mod ccm;
pub(crate) mod cfb;
pub(crate) mod cmac;
pub(crate) mod ctr;
pub(crate) mod ecb;
pub(crate) mod esp;
pub(crate) mod gcm;
pub(crate) mod gcm_owned;
pub(crate) mod gcm_siv;
pub(crate) mod gcm_stream;
pub(crate) mod keywrap;
pub(crate) mod ofb;
pub(crate) mod padding;
#[cfg(feature = "std")]
pub mod parallel;
#[cfg(all(test, feature = "std"))]
mod parallel_tests;
#[cfg(feature = "std")]
mod pool;
pub(crate) mod tag;
pub(crate) mod xaes;
pub(crate) mod xts;

/// A vector of `len` zero bytes that `write` fills, cut to the length it
/// returns: the allocating form of a mode's `*_to` call.
#[cfg(feature = "std")]
pub(crate) fn output_vec(
    len: usize,
    write: impl FnOnce(&mut [u8]) -> crate::error::Result<usize>,
) -> crate::error::Result<alloc::vec::Vec<u8>> {
    let mut out = alloc::vec![0u8; len];
    let n = write(&mut out)?;
    out.truncate(n);
    Ok(out)
}
