//! GCM's argument checks without a device, for bindings that report
//! argument errors before looking for a GPU: one message's lengths, and a
//! batch's layout ([`BatchError`]).

use crate::{gcm_batch, gcm_math};

/// The checks of [`CudaGcm::seal_raw`](crate::CudaGcm::seal_raw)/[`CudaGcm::open_raw`](crate::CudaGcm::open_raw) on their
/// parameters (nonce, associated data and message lengths, and when
/// opening the tag length), without a device: for bindings that report
/// argument errors before looking for a GPU.
pub fn check_gcm_args(
    nonce: &[u8],
    aad_len: usize,
    len: usize,
    tag_len: Option<usize>,
) -> core::result::Result<(), aesx::Error> {
    if let Some(t) = tag_len {
        gcm_math::check_tag_len(t)?;
    }
    gcm_math::check_limits(nonce, aad_len, len)
}

/// What is wrong with the layout of a batch of GCM messages
/// ([`check_many_args`]); its text names the rule that was broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchError {
    /// A stride that is zero, not a multiple of 16 or over
    /// [`crate::MAX_MESSAGE_STRIDE`].
    Stride {
        /// The stride given.
        stride: usize,
    },
    /// No message (no nonce).
    Empty,
    /// `len` bytes are not `count` messages every `stride` bytes with only
    /// the last one shorter (possibly empty); also when `count * stride`
    /// does not fit the address space.
    Layout {
        /// Messages (nonces).
        count: usize,
        /// The stride.
        stride: usize,
        /// The buffer length given.
        len: usize,
    },
}

impl core::fmt::Display for BatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            BatchError::Stride { stride } => write!(
                f,
                "invalid stride {stride}: the stride of a batch must be a multiple of 16 from 16 to {} bytes",
                gcm_batch::MAX_STRIDE
            ),
            BatchError::Empty => {
                f.write_str("a batch needs at least one message (one nonce per message)")
            }
            BatchError::Layout { count, stride, len } => {
                // In u128: count * stride may not fit a usize.
                let lo = (count as u128).saturating_sub(1) * stride as u128;
                let hi = count as u128 * stride as u128;
                let messages = if count == 1 { "message" } else { "messages" };
                write!(
                    f,
                    "{len} bytes do not hold {count} {messages} every {stride} bytes: the length must be from {lo} to {hi} bytes (only the last message shorter)"
                )
            }
        }
    }
}

impl std::error::Error for BatchError {}

/// The layout check of [`CudaGcm::seal_many_raw`](crate::CudaGcm::seal_many_raw) (`count` messages every
/// `stride` bytes in `len` bytes, the last shorter), without a device and
/// without overflow for any count: the stride first, then the count, then
/// the length.
pub fn check_many_args(
    count: usize,
    stride: usize,
    len: usize,
) -> core::result::Result<(), BatchError> {
    if stride == 0 || !stride.is_multiple_of(16) || stride > gcm_batch::MAX_STRIDE {
        return Err(BatchError::Stride { stride });
    }
    if count == 0 {
        return Err(BatchError::Empty);
    }
    let layout = BatchError::Layout { count, stride, len };
    let full = (count - 1).checked_mul(stride).ok_or(layout)?;
    if len < full || len - full > stride {
        return Err(layout);
    }
    Ok(())
}
