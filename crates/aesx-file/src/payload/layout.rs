//! Where the chunks of a payload of known length lie, for random access.

use super::{PayloadError, CHUNK_LEN, ENC_CHUNK_LEN, MAX_CHUNKS, TAG_LEN};

/// Where the chunks of a payload of known length lie: for random access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// Number of chunks, the final short one included.
    pub chunks: u64,
    /// Plaintext length of the message.
    pub plaintext_len: u64,
}

impl Layout {
    /// The layout of chunks totalling `enc_len` bytes (after salt and
    /// commitment); an error for lengths no message has.
    pub fn from_len(enc_len: u64) -> Result<Layout, PayloadError> {
        let e = ENC_CHUNK_LEN as u64;
        let full = enc_len / e;
        let rem = enc_len % e;
        if rem == 0 {
            return Err(PayloadError::Truncated);
        }
        if rem < TAG_LEN as u64 {
            return Err(PayloadError::TruncatedInTag);
        }
        let chunks = full + 1;
        if chunks > MAX_CHUNKS {
            return Err(PayloadError::TooManyChunks);
        }
        Ok(Layout {
            chunks,
            plaintext_len: full * CHUNK_LEN as u64 + rem - TAG_LEN as u64,
        })
    }

    /// Offset of chunk `i` from the start of the chunks, and its encrypted length.
    pub fn chunk_span(&self, i: u64, enc_len: u64) -> (u64, usize) {
        let start = i * ENC_CHUNK_LEN as u64;
        let end = (start + ENC_CHUNK_LEN as u64).min(enc_len);
        (start, (end - start) as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_lengths() {
        let e = ENC_CHUNK_LEN as u64;
        assert_eq!(Layout::from_len(0), Err(PayloadError::Truncated));
        assert_eq!(Layout::from_len(15), Err(PayloadError::TruncatedInTag));
        assert_eq!(
            Layout::from_len(16),
            Ok(Layout {
                chunks: 1,
                plaintext_len: 0
            })
        );
        assert_eq!(Layout::from_len(e), Err(PayloadError::Truncated));
        assert_eq!(
            Layout::from_len(e + 16),
            Ok(Layout {
                chunks: 2,
                plaintext_len: CHUNK_LEN as u64
            })
        );
    }
}
