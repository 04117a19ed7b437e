//! The aesx file header: what comes before the Cobblestone payload.
//!
//! ```text
//! "aesx" | version (1 byte, = 1) | key source (1 byte)
//!   key source 1, raw key:   nothing more
//!   key source 2, Argon2id:  memory KiB (u32 BE) | iterations (u32 BE) |
//!                            parallelism (u32 BE) | salt (16 bytes)
//! ```
//!
//! The whole header is the payload's `context`, so the key commitment
//! authenticates it: a changed cost, salt or key source fails the commitment
//! check before any chunk is decrypted.

use std::io::Read;

use crate::payload::read_full;

/// The magic bytes.
pub const MAGIC: &[u8; 4] = b"aesx";
/// The format version this code writes and reads.
pub const VERSION: u8 = 1;
/// Key source byte: a 32-byte key from a key file.
pub const SOURCE_KEY: u8 = 1;
/// Key source byte: a passphrase through Argon2id.
pub const SOURCE_ARGON2ID: u8 = 2;
/// Argon2id salt length.
pub const KDF_SALT_LEN: usize = 16;

/// Argon2id parameters as stored in the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Argon2Params {
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Iterations (passes).
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
    /// Random salt.
    pub salt: [u8; KDF_SALT_LEN],
}

/// Where the 32-byte input key comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeySource {
    /// A raw key (`aesx keygen`).
    Key,
    /// A passphrase stretched by Argon2id.
    Argon2id(Argon2Params),
}

/// A parsed header and its exact bytes (the payload context).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// Key source and KDF parameters.
    pub source: KeySource,
    /// The serialized header.
    pub bytes: Vec<u8>,
}

/// Why a header was rejected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeaderError {
    /// Not starting with the magic.
    NotAesx,
    /// Ends inside the header.
    Truncated,
    /// A version this code does not read.
    UnsupportedVersion(u8),
    /// An unknown key source byte.
    UnknownKeySource(u8),
    /// Reading failed.
    Io(String),
}

impl std::fmt::Display for HeaderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HeaderError::NotAesx => f.write_str("not an aesx encrypted file (no \"aesx\" magic)"),
            HeaderError::Truncated => f.write_str("file truncated inside the aesx header"),
            HeaderError::UnsupportedVersion(v) => {
                write!(
                    f,
                    "unsupported aesx format version {v} (this aesx reads version {VERSION})"
                )
            }
            HeaderError::UnknownKeySource(s) => write!(f, "unknown key source {s} in the header"),
            HeaderError::Io(m) => write!(f, "reading input: {m}"),
        }
    }
}

impl Header {
    /// The header for `source`.
    pub fn new(source: KeySource) -> Header {
        let mut bytes = Vec::with_capacity(34);
        bytes.extend_from_slice(MAGIC);
        bytes.push(VERSION);
        match source {
            KeySource::Key => bytes.push(SOURCE_KEY),
            KeySource::Argon2id(p) => {
                bytes.push(SOURCE_ARGON2ID);
                bytes.extend_from_slice(&p.memory_kib.to_be_bytes());
                bytes.extend_from_slice(&p.iterations.to_be_bytes());
                bytes.extend_from_slice(&p.parallelism.to_be_bytes());
                bytes.extend_from_slice(&p.salt);
            }
        }
        Header { source, bytes }
    }

    /// Reads a header from the start of `r`, consuming exactly its bytes.
    pub fn read(r: &mut impl Read) -> Result<Header, HeaderError> {
        let io = |e: std::io::Error| HeaderError::Io(e.to_string());
        let mut fixed = [0u8; 6];
        let n = read_full(r, &mut fixed).map_err(io)?;
        if fixed[..n.min(4)] != MAGIC[..n.min(4)] {
            return Err(HeaderError::NotAesx);
        }
        if n < 4 {
            // A prefix of the magic, or nothing at all.
            return Err(if n == 0 {
                HeaderError::NotAesx
            } else {
                HeaderError::Truncated
            });
        }
        if n < 6 {
            return Err(HeaderError::Truncated);
        }
        if fixed[4] != VERSION {
            return Err(HeaderError::UnsupportedVersion(fixed[4]));
        }
        match fixed[5] {
            SOURCE_KEY => Ok(Header::new(KeySource::Key)),
            SOURCE_ARGON2ID => {
                let mut rest = [0u8; 12 + KDF_SALT_LEN];
                if read_full(r, &mut rest).map_err(io)? < rest.len() {
                    return Err(HeaderError::Truncated);
                }
                let u =
                    |i: usize| u32::from_be_bytes([rest[i], rest[i + 1], rest[i + 2], rest[i + 3]]);
                let mut salt = [0u8; KDF_SALT_LEN];
                salt.copy_from_slice(&rest[12..]);
                Ok(Header::new(KeySource::Argon2id(Argon2Params {
                    memory_kib: u(0),
                    iterations: u(4),
                    parallelism: u(8),
                    salt,
                })))
            }
            s => Err(HeaderError::UnknownKeySource(s)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        for source in [
            KeySource::Key,
            KeySource::Argon2id(Argon2Params {
                memory_kib: 1 << 18,
                iterations: 3,
                parallelism: 4,
                salt: [9; 16],
            }),
        ] {
            let h = Header::new(source);
            let mut data = h.bytes.clone();
            data.extend_from_slice(b"payload");
            let mut r = &data[..];
            assert_eq!(Header::read(&mut r).unwrap(), h);
            assert_eq!(r, b"payload");
        }
    }

    #[test]
    fn rejects() {
        let read = |b: &[u8]| Header::read(&mut &b[..]);
        assert_eq!(read(b""), Err(HeaderError::NotAesx));
        assert_eq!(read(b"hello world"), Err(HeaderError::NotAesx));
        assert_eq!(read(b"aes"), Err(HeaderError::Truncated));
        assert_eq!(read(b"aesx\x01"), Err(HeaderError::Truncated));
        assert_eq!(
            read(b"aesx\x02\x01"),
            Err(HeaderError::UnsupportedVersion(2))
        );
        assert_eq!(read(b"aesx\x01\x07"), Err(HeaderError::UnknownKeySource(7)));
        assert_eq!(read(b"aesx\x01\x02\x00\x00"), Err(HeaderError::Truncated));
    }
}
