//! One chunk's AEAD: AES-GCM under the derived key, nonce = base nonce XOR
//! the chunk index (big-endian, in the last 8 bytes).

use aesx::{Backend, Gcm};
use zeroize::Zeroizing;

use super::{PayloadError, CHUNK_LEN, ENC_CHUNK_LEN, MAX_CHUNKS, NONCE_LEN, TAG_LEN};

/// Chunk `index`'s nonce: the base nonce XOR the index as a 64-bit
/// big-endian number in the last eight bytes (c2sp.org/chunked-encryption).
/// The GPU paths seal and open chunks with it outside [`ChunkCipher`]; the
/// caller keeps `index` below `MAX_CHUNKS`.
pub fn chunk_nonce(base: &[u8; NONCE_LEN], index: u64) -> [u8; NONCE_LEN] {
    let mut n = *base;
    for (b, c) in n[4..].iter_mut().zip(index.to_be_bytes()) {
        *b ^= c;
    }
    n
}

/// The AEAD key and base nonce: seals and opens single chunks ("raw mode").
#[derive(Clone)]
pub struct ChunkCipher {
    gcm: Gcm,
    base_nonce: [u8; NONCE_LEN],
}

impl ChunkCipher {
    /// Raw mode: an AEAD key and base nonce given directly.
    pub fn new(
        aead_key: &[u8],
        base_nonce: [u8; NONCE_LEN],
        backend: Backend,
    ) -> Result<Self, aesx::Error> {
        Ok(ChunkCipher {
            gcm: Gcm::with_backend(aead_key, backend)?,
            base_nonce,
        })
    }

    fn nonce(&self, index: u64) -> Result<[u8; NONCE_LEN], PayloadError> {
        if index >= MAX_CHUNKS {
            return Err(PayloadError::TooManyChunks);
        }
        Ok(chunk_nonce(&self.base_nonce, index))
    }

    /// Encrypts `pt` (at most one chunk) as chunk `index` into `out`
    /// (`pt.len() + 16` bytes: ciphertext then tag).
    pub fn seal_chunk(&self, index: u64, pt: &[u8], out: &mut [u8]) -> Result<(), PayloadError> {
        let nonce = self.nonce(index)?;
        self.gcm
            .seal_to(&nonce, &[], pt, out)
            .map(|_| ())
            .map_err(|e| PayloadError::Io(format!("encryption failed: {e}")))
    }

    /// Decrypts encrypted chunk `index` (ciphertext then tag) into `pt`
    /// (`ct.len() - 16` bytes); `last` only shapes the error.
    pub fn open_chunk(
        &self,
        index: u64,
        ct: &[u8],
        pt: &mut [u8],
        last: bool,
    ) -> Result<(), PayloadError> {
        let nonce = self.nonce(index)?;
        let auth = PayloadError::ChunkAuth { index, last };
        if ct.len() < TAG_LEN || ct.len() > ENC_CHUNK_LEN {
            return Err(auth);
        }
        let (body, tag) = ct.split_at(ct.len() - TAG_LEN);
        self.gcm
            .open_to_detached(&nonce, &[], body, tag, pt)
            .map_err(|_| auth)
    }
}

/// Explains a chunk that failed authentication, on the error path only: if
/// a proper prefix of its bytes opens as the *final* chunk at that index,
/// the message really ended there and the rest was appended, so the error
/// becomes [`PayloadError::TrailingData`]. Otherwise the error stands.
/// Costs up to one GCM open per prefix length (about 134 MB of AES-GCM for a
/// full chunk), which is fine once per failed run; no plaintext escapes.
pub fn explain_failure(
    cipher: &ChunkCipher,
    error: PayloadError,
    enc_chunk: &[u8],
) -> PayloadError {
    let PayloadError::ChunkAuth { index, .. } = error else {
        return error;
    };
    let mut scratch = Zeroizing::new(vec![0u8; CHUNK_LEN]);
    for len in TAG_LEN..enc_chunk.len().min(ENC_CHUNK_LEN) {
        let pt = &mut scratch[..len - TAG_LEN];
        if cipher
            .open_chunk(index, &enc_chunk[..len], pt, true)
            .is_ok()
        {
            return PayloadError::TrailingData;
        }
    }
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nonce_xors_big_endian_index() {
        let c = ChunkCipher::new(&[0u8; 32], [0xff; 12], Backend::Soft).unwrap();
        let n = c.nonce(0x01_0203_0405).unwrap();
        assert_eq!(
            n,
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 0xfd, 0xfc, 0xfb, 0xfa]
        );
        assert_eq!(c.nonce(MAX_CHUNKS), Err(PayloadError::TooManyChunks));
        assert!(c.nonce(MAX_CHUNKS - 1).is_ok());
    }
}
