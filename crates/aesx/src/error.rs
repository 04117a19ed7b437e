//! The one error type of the library.

use core::fmt;

use crate::backend::list::Backend;

/// Everything that can go wrong in aesx, as a value.
///
/// Every variant is a caller's mistake or a verification failure; the library
/// never panics on input of any length or content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
#[allow(missing_docs)] // the fields are named for what they hold
pub enum Error {
    /// A key that is not 16, 24 or 32 bytes (or 32/64 for XTS).
    InvalidKeyLength { len: usize },
    /// An IV, nonce or tweak of the wrong length.
    InvalidIvLength { expected: usize, got: usize },
    /// Input that must be a whole number of 16-byte blocks is not.
    NotBlockAligned { len: usize },
    /// Input and output buffers of different lengths.
    LengthMismatch { input: usize, output: usize },
    /// An output buffer too small for the result (e.g. padding, tag).
    OutputTooSmall { needed: usize, got: usize },
    /// PKCS#7 padding that does not verify on decryption.
    BadPadding,
    /// A backend name that aesx does not know.
    UnknownBackend,
    /// A backend that this CPU (or build) cannot run, forced by the caller.
    BackendUnavailable(Backend),
    /// The requested operation would run the counter past its limit.
    CounterOverflow,
    /// The authentication tag did not verify; no plaintext was released.
    AuthenticationFailed,
    /// A tag length that the mode does not allow.
    InvalidTagLength { len: usize },
    /// A message longer than the mode allows (e.g. GCM: 2^36 - 32 bytes).
    MessageTooLong,
    /// Associated data longer than the mode allows.
    AadTooLong,
    /// An empty nonce where the mode needs at least one byte.
    EmptyNonce,
    /// XTS encryption with a key whose two halves are equal.
    XtsEqualKeyHalves,
    /// An XTS data unit shorter than one block or longer than 2^20 blocks.
    InvalidDataUnitLength { len: usize },
    /// A sector size that is zero, not a multiple of 16 bytes, or over 2^24.
    InvalidSectorSize { size: usize },
    /// Associated data of a length the mode does not allow (ESP: 8 or 12).
    InvalidAadLength { len: usize },
    /// An API used out of order (e.g. AAD after data in a streaming AEAD).
    InvalidState,
    /// A sector buffer whose length is not a whole number of sectors.
    PartialSector { len: usize, sector_size: usize },
    /// A nonce outside the lengths the mode allows (CCM: 7 to 13 bytes).
    InvalidNonceLength { min: usize, max: usize, got: usize },
    /// Key-wrap input of a length the algorithm cannot take (KW: a multiple
    /// of 8 bytes, at least 16 to wrap and 24 to unwrap; KWP: 1 to 2^32 - 1
    /// bytes to wrap, a multiple of 8 and at least 16 to unwrap).
    InvalidWrapLength { len: usize },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Error::InvalidKeyLength { len } => write!(f, "invalid key length: {len} bytes"),
            Error::InvalidIvLength { expected, got } => {
                write!(f, "invalid IV length: expected {expected} bytes, got {got}")
            }
            Error::NotBlockAligned { len } => {
                write!(
                    f,
                    "length {len} is not a multiple of the 16-byte block size"
                )
            }
            Error::LengthMismatch { input, output } => write!(
                f,
                "input and output lengths differ ({input} and {output} bytes)"
            ),
            Error::OutputTooSmall { needed, got } => {
                write!(f, "output buffer too small: need {needed} bytes, got {got}")
            }
            Error::BadPadding => f.write_str("bad padding"),
            Error::UnknownBackend => {
                f.write_str("unknown backend (expected one of ")?;
                for (i, b) in Backend::ALL.iter().enumerate() {
                    let sep = if i == 0 { "" } else { ", " };
                    write!(f, "{sep}{b}")?;
                }
                f.write_str(")")
            }
            Error::BackendUnavailable(b) => {
                write!(f, "backend {} is not available on this machine", b.name())
            }
            Error::CounterOverflow => f.write_str("counter space exhausted"),
            Error::AuthenticationFailed => f.write_str("authentication failed"),
            Error::InvalidTagLength { len } => write!(f, "invalid tag length: {len} bytes"),
            Error::MessageTooLong => f.write_str("message too long for this mode"),
            Error::AadTooLong => f.write_str("associated data too long for this mode"),
            Error::EmptyNonce => f.write_str("nonce must not be empty"),
            Error::XtsEqualKeyHalves => {
                f.write_str("XTS key halves are equal (refused for encryption)")
            }
            Error::InvalidDataUnitLength { len } => write!(
                f,
                "invalid XTS data unit length: {len} bytes (must be 16 bytes to 2^24 bytes)"
            ),
            Error::InvalidSectorSize { size } => write!(
                f,
                "invalid sector size {size}: must be a non-zero multiple of 16, at most 2^24"
            ),
            Error::InvalidAadLength { len } => {
                write!(f, "invalid associated data length: {len} bytes")
            }
            Error::InvalidState => f.write_str("operation not allowed in the current state"),
            Error::PartialSector { len, sector_size } => write!(
                f,
                "buffer of {len} bytes is not a whole number of {sector_size}-byte sectors"
            ),
            Error::InvalidNonceLength { min, max, got } => write!(
                f,
                "invalid nonce length: {got} bytes (must be {min} to {max})"
            ),
            Error::InvalidWrapLength { len } => {
                write!(f, "invalid length for key wrap: {len} bytes")
            }
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// Shorthand for results whose error is [`Error`].
pub type Result<T> = core::result::Result<T, Error>;
