//! The payload layer: c2sp.org/chunked-encryption v1 ("Cobblestone").
//!
//! ```text
//! key || base_nonce || commitment = HKDF-Expand-SHA-512(input_key,
//!     "c2sp.org/chunked-encryption@v1+" || aead_name || 0x00 || salt || context)
//! payload = salt (24) || commitment (32) || chunk_0 || ... || chunk_n
//! chunk_i = AES-GCM(key, base_nonce XOR be96(i), aad = "", 16 KiB of plaintext) || tag
//! ```
//!
//! Every chunk but the last holds exactly 16 KiB of plaintext; the last holds
//! less (possibly nothing), which is how the end of the message is
//! authenticated: a stream cut at a chunk boundary ends in a full chunk and is
//! rejected as truncated, a stream cut inside a chunk ends in a chunk whose
//! tag fails.
//!
//! [`Opener`] and [`Sealer`] work on batches of whole chunks so that a batch
//! can be spread over threads; they keep the chunk counter and, for the
//! opener, a sticky state: once it has failed it keeps failing, once it has
//! seen the final chunk any further data is an error.
//!
//! - `derive`: HKDF-SHA-512 key derivation, the payload header (salt and
//!   key commitment).
//! - `chunk`: one chunk's AEAD ([`ChunkCipher`], "raw mode").
//! - `batch`: [`Sealer`] and [`Opener`], batches of chunks over threads.
//! - `layout`: where the chunks of a payload of known length lie (random
//!   access).

use std::fmt;
use std::io::{self, Read};

mod batch;
mod chunk;
mod derive;
mod layout;

pub use batch::{open_batch_at, seal_batch_at, BatchError, Opener, Sealer};
pub use chunk::{chunk_nonce, explain_failure, ChunkCipher};
pub use derive::{derive, open_header, seal_header, Derived};
pub use layout::Layout;

/// Plaintext bytes in every chunk but the last.
pub const CHUNK_LEN: usize = 16384;
/// GCM tag bytes after each chunk.
pub const TAG_LEN: usize = 16;
/// Encrypted bytes of a full chunk.
pub const ENC_CHUNK_LEN: usize = CHUNK_LEN + TAG_LEN;
/// Random salt at the start of the payload.
pub const SALT_LEN: usize = 24;
/// Key commitment after the salt.
pub const COMMITMENT_LEN: usize = 32;
/// Salt and commitment.
pub const PAYLOAD_HEADER_LEN: usize = SALT_LEN + COMMITMENT_LEN;
/// GCM nonce bytes.
pub const NONCE_LEN: usize = 12;
/// Chunk indices must stay below 2^38 (the spec's counter limit).
pub const MAX_CHUNKS: u64 = 1 << 38;

/// The two Cobblestone instantiations. aesx files use [`Suite::Aes256Gcm`];
/// the 128-bit one exists for the Wycheproof vectors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Suite {
    /// Cobblestone-128: AEAD_AES_128_GCM, 16-byte input key.
    Aes128Gcm,
    /// Cobblestone-256: AEAD_AES_256_GCM, 32-byte input key.
    Aes256Gcm,
}

impl Suite {
    /// The IANA AEAD name that goes into the key derivation.
    pub fn aead_name(self) -> &'static str {
        match self {
            Suite::Aes128Gcm => "AEAD_AES_128_GCM",
            Suite::Aes256Gcm => "AEAD_AES_256_GCM",
        }
    }

    /// AEAD key length, which is also the required input key length.
    pub fn key_len(self) -> usize {
        match self {
            Suite::Aes128Gcm => 16,
            Suite::Aes256Gcm => 32,
        }
    }

    /// Ok if `input_key` is [`Suite::key_len`] bytes long.
    pub fn check_key(self, input_key: &[u8]) -> Result<(), PayloadError> {
        if input_key.len() == self.key_len() {
            Ok(())
        } else {
            Err(PayloadError::InvalidKeySize {
                expected: self.key_len(),
                got: input_key.len(),
            })
        }
    }
}

/// What can go wrong in the payload layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PayloadError {
    /// The input key is not the AEAD key size.
    InvalidKeySize { expected: usize, got: usize },
    /// Fewer than 56 bytes: no salt and commitment.
    HeaderTruncated,
    /// The commitment does not match: wrong key, or a changed header/context.
    CommitmentMismatch,
    /// The stream ends at a chunk boundary without the short final chunk.
    Truncated,
    /// The stream ends with fewer bytes than a tag after the last full chunk.
    TruncatedInTag,
    /// A chunk's tag did not verify. `last` says it was read as the final chunk.
    ChunkAuth { index: u64, last: bool },
    /// Data after the final chunk.
    TrailingData,
    /// More chunks than the 2^38 the nonce counter allows.
    TooManyChunks,
    /// A read or write error (message only, so that the error stays `Clone`).
    Io(String),
}

impl fmt::Display for PayloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PayloadError::InvalidKeySize { expected, got } => {
                write!(f, "invalid key size: {got} bytes, expected {expected}")
            }
            PayloadError::HeaderTruncated => {
                f.write_str("file too short: truncated inside the header")
            }
            PayloadError::CommitmentMismatch => f.write_str(
                "wrong key or passphrase, or the header was modified (key commitment mismatch)",
            ),
            PayloadError::Truncated => {
                f.write_str("file truncated: it ends at a chunk boundary without its final chunk")
            }
            PayloadError::TruncatedInTag => {
                f.write_str("file truncated: it ends inside a chunk's authentication tag")
            }
            PayloadError::ChunkAuth { index, last: true } => write!(
                f,
                "final chunk {index} failed authentication: the file was truncated, extended or modified"
            ),
            PayloadError::ChunkAuth { index, last: false } => write!(
                f,
                "chunk {index} failed authentication: the file was modified, or chunks were reordered or duplicated"
            ),
            PayloadError::TrailingData => {
                f.write_str("unexpected data after the final chunk: something was appended to the file")
            }
            PayloadError::TooManyChunks => {
                f.write_str("message too long: more than 2^38 chunks")
            }
            PayloadError::Io(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for PayloadError {}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
pub fn read_full(r: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}
