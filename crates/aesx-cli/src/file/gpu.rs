//! `aesx encrypt/decrypt --backend cuda`: the same file format, with the
//! chunks sealed and opened on the GPU many at a time (aesx-cuda's batched
//! GCM: every 16 KiB chunk its own nonce, base nonce XOR chunk index, in
//! one launch per batch).
//!
//! The header, the key derivation and the commitment check stay on the CPU
//! (aesx-file). On the success path a batch goes through the GPU only; any
//! batch that does not open cleanly (a bad tag, a truncated or extended
//! stream) is handed to the CPU [`Opener`] at the same chunk index, so the
//! errors, and the verified prefix released before them, are exactly the
//! CPU path's.

use aesx_cuda::{CudaGcm, Gpu};
use aesx_file::payload::{
    self, chunk_nonce, BatchError, ChunkCipher, Opener, PayloadError, Suite, CHUNK_LEN,
    ENC_CHUNK_LEN, MAX_CHUNKS, NONCE_LEN, SALT_LEN, TAG_LEN,
};

use crate::backend_arg;
use crate::CommandError;

/// Chunks per GPU batch: 32 MiB of plaintext, enough to fill the GPU.
pub const BATCH_CHUNKS: usize = 2048;

fn gpu_failure(e: aesx_cuda::CudaError) -> PayloadError {
    PayloadError::Io(backend_arg::gpu_error(e).to_string())
}

/// One batch of chunks as the GPU takes it: a nonce per chunk, the chunk
/// bodies back to back (`CHUNK_LEN` bytes each, the last possibly shorter)
/// and their tags.
pub struct ChunkBatch {
    nonces: Vec<[u8; NONCE_LEN]>,
    body: Vec<u8>,
    tags: Vec<[u8; TAG_LEN]>,
}

/// What the GPU path needs of a batched GCM: aesx-cuda's [`CudaGcm`]; in
/// the tests a model on the CPU, so that the batching, the nonces, the
/// interleaving of tags and the fallback are checked without a GPU.
pub trait ChunkGcm {
    /// Seals the body in place and sets the tags (see
    /// [`CudaGcm::seal_messages`]).
    fn seal(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<()>;
    /// Opens the body in place against the tags; how many chunks verified,
    /// the body zeroed from the first that did not (see
    /// [`CudaGcm::open_messages`]).
    fn open(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<usize>;
}

impl ChunkGcm for CudaGcm {
    fn seal(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<()> {
        b.tags = self.seal_messages(&b.nonces, CHUNK_LEN, &mut b.body)?;
        Ok(())
    }

    fn open(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<usize> {
        self.open_messages(&b.nonces, CHUNK_LEN, &mut b.body, &b.tags)
    }
}

/// The chunk key and base nonce on the GPU, and the next chunk index.
pub struct GpuChunks<G = CudaGcm> {
    gcm: G,
    base_nonce: [u8; NONCE_LEN],
    next: u64,
}

impl GpuChunks<CudaGcm> {
    /// Derives the chunk key and base nonce (as aesx-file does) for the
    /// payload with this salt; the commitment was written or checked by the
    /// caller through aesx-file.
    pub fn new(
        gpu: &Gpu,
        input_key: &[u8],
        context: &[u8],
        salt: &[u8; SALT_LEN],
    ) -> Result<GpuChunks, CommandError> {
        let d = payload::derive(Suite::Aes256Gcm, input_key, salt, context)
            .map_err(|e| CommandError::failure(e.to_string()))?;
        let gcm = CudaGcm::new(gpu, &d.key).map_err(backend_arg::gpu_error)?;
        Ok(GpuChunks {
            gcm,
            base_nonce: d.base_nonce,
            next: 0,
        })
    }

    /// The same, from a payload header already verified by
    /// `payload::open_header`.
    pub fn for_header(
        gpu: &Gpu,
        input_key: &[u8],
        context: &[u8],
        header: &[u8],
    ) -> Result<GpuChunks, CommandError> {
        let salt: [u8; SALT_LEN] = header
            .get(..SALT_LEN)
            .and_then(|s| s.try_into().ok())
            .ok_or_else(|| CommandError::failure(PayloadError::HeaderTruncated.to_string()))?;
        Self::new(gpu, input_key, context, &salt)
    }
}

impl GpuChunks<CudaGcm> {
    /// The chunk key on the GPU and the base nonce, for the offload path.
    pub fn into_parts(self) -> (CudaGcm, [u8; NONCE_LEN]) {
        (self.gcm, self.base_nonce)
    }
}

impl<G: ChunkGcm> GpuChunks<G> {
    fn nonces(&self, n: usize) -> Result<Vec<[u8; NONCE_LEN]>, PayloadError> {
        if self.next + n as u64 > MAX_CHUNKS {
            return Err(PayloadError::TooManyChunks);
        }
        Ok((0..n as u64)
            .map(|i| chunk_nonce(&self.base_nonce, self.next + i))
            .collect())
    }

    /// As `Sealer::seal_batch`: `pt` is whole chunks unless `last`, when its
    /// tail (possibly empty) becomes the final short chunk.
    pub fn seal_batch(
        &mut self,
        pt: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), PayloadError> {
        if !last && !pt.len().is_multiple_of(CHUNK_LEN) {
            return Err(PayloadError::Io(
                "internal: partial chunk in a batch".into(),
            ));
        }
        let n = pt.len() / CHUNK_LEN + usize::from(last);
        out.clear();
        if n == 0 {
            return Ok(());
        }
        let mut batch = ChunkBatch {
            nonces: self.nonces(n)?,
            body: pt.to_vec(),
            tags: Vec::new(),
        };
        self.gcm.seal(&mut batch).map_err(gpu_failure)?;
        out.reserve(pt.len() + n * TAG_LEN);
        for (i, tag) in batch.tags.iter().enumerate() {
            let a = i * CHUNK_LEN;
            let b = (a + CHUNK_LEN).min(batch.body.len());
            out.extend_from_slice(&batch.body[a..b]);
            out.extend_from_slice(tag);
        }
        self.next += n as u64;
        Ok(())
    }

    /// As `Opener::open_batch`. A batch that fails in any way is opened
    /// again by the CPU opener at the same index, for its exact error and
    /// verified prefix.
    pub fn open_batch(
        &mut self,
        ct: &[u8],
        at_eof: bool,
        pt: &mut Vec<u8>,
        cpu: &ChunkCipher,
        threads: usize,
    ) -> Result<(), BatchError> {
        let full = ct.len() / ENC_CHUNK_LEN;
        let rem = ct.len() % ENC_CHUNK_LEN;
        let clean_shape = if at_eof { rem >= TAG_LEN } else { rem == 0 };
        let n = full + usize::from(at_eof);
        if clean_shape && n > 0 {
            if let Ok(nonces) = self.nonces(n) {
                let mut body = Vec::with_capacity(ct.len());
                let mut tags = Vec::with_capacity(n);
                for i in 0..n {
                    let c0 = i * ENC_CHUNK_LEN;
                    let c1 = (c0 + ENC_CHUNK_LEN).min(ct.len());
                    body.extend_from_slice(&ct[c0..c1 - TAG_LEN]);
                    let mut t = [0u8; TAG_LEN];
                    t.copy_from_slice(&ct[c1 - TAG_LEN..c1]);
                    tags.push(t);
                }
                let mut batch = ChunkBatch { nonces, body, tags };
                match self.gcm.open(&mut batch) {
                    Ok(k) if k == n => {
                        *pt = batch.body;
                        self.next += n as u64;
                        return Ok(());
                    }
                    Ok(_) => {}
                    Err(e) => {
                        pt.clear();
                        return Err(BatchError {
                            valid: 0,
                            error: gpu_failure(e),
                        });
                    }
                }
            }
        }
        let mut opener = Opener::at(cpu.clone(), self.next);
        let r = opener.open_batch(ct, at_eof, pt, threads);
        if r.is_ok() {
            // The CPU opened what the GPU refused: never release it.
            pt.fill(0);
            pt.clear();
            return Err(BatchError {
                valid: 0,
                error: PayloadError::Io(
                    "GPU and CPU disagree on a chunk's tag; nothing written".into(),
                ),
            });
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use payload::Sealer;

    /// aesx's GCM message by message, with CudaGcm's contract.
    struct CpuModel(aesx::Gcm);

    /// The byte range of each chunk of the batch's body.
    fn spans(b: &ChunkBatch) -> impl Iterator<Item = std::ops::Range<usize>> {
        let len = b.body.len();
        (0..b.nonces.len()).map(move |i| (i * CHUNK_LEN).min(len)..((i + 1) * CHUNK_LEN).min(len))
    }

    impl ChunkGcm for CpuModel {
        fn seal(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<()> {
            aesx_cuda::testing::check_layout(b.nonces.len(), CHUNK_LEN, b.body.len())?;
            b.tags.clear();
            for (r, n) in spans(b).zip(&b.nonces) {
                let t = self.0.seal_in_place_detached(n, &[], &mut b.body[r])?;
                b.tags.push(t.as_bytes().try_into().unwrap());
            }
            Ok(())
        }

        fn open(&self, b: &mut ChunkBatch) -> aesx_cuda::Result<usize> {
            aesx_cuda::testing::check_layout(b.nonces.len(), CHUNK_LEN, b.body.len())?;
            for (i, r) in spans(b).enumerate() {
                let ct = b.body[r.clone()].to_vec();
                let (n, tag) = (&b.nonces[i], &b.tags[i]);
                if self
                    .0
                    .open_to_detached(n, &[], &ct, tag, &mut b.body[r.clone()])
                    .is_err()
                {
                    b.body[r.start..].fill(0);
                    return Ok(i);
                }
            }
            Ok(b.nonces.len())
        }
    }

    const KEY: [u8; 32] = [7u8; 32];
    const BASE: [u8; NONCE_LEN] = [9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0xff, 0x80];

    fn model() -> GpuChunks<CpuModel> {
        GpuChunks {
            gcm: CpuModel(aesx::Gcm::with_backend(&KEY, aesx::Backend::Soft).unwrap()),
            base_nonce: BASE,
            next: 0,
        }
    }

    fn cpu() -> ChunkCipher {
        ChunkCipher::new(&KEY, BASE, aesx::Backend::Soft).unwrap()
    }

    /// The byte ranges of a stream of `len` bytes cut into batches of
    /// `step`, each with whether it is the last: as the pipeline reads, the
    /// last is shorter than `step` (possibly empty).
    fn batches(len: usize, step: usize) -> impl Iterator<Item = (std::ops::Range<usize>, bool)> {
        (0..=len / step).map(move |i| {
            let (a, b) = (i * step, ((i + 1) * step).min(len));
            (a..b, b - a < step)
        })
    }

    /// Seals `pt` in batches of `batch` chunks, as the pipeline does.
    fn seal_all(pt: &[u8], batch: usize, gpu: bool) -> Vec<u8> {
        let mut g = model();
        let mut s = Sealer::new(cpu());
        let mut all = Vec::new();
        for (r, last) in batches(pt.len(), batch * CHUNK_LEN) {
            let mut o = Vec::new();
            if gpu {
                g.seal_batch(&pt[r], last, &mut o).unwrap();
            } else {
                s.seal_batch(&pt[r], last, &mut o, 1).unwrap();
            }
            all.extend_from_slice(&o);
        }
        all
    }

    /// Opens in batches; returns the released plaintext and the error.
    fn open_all(ct: &[u8], batch: usize, gpu: bool) -> (Vec<u8>, Option<String>) {
        let mut g = model();
        let mut o = Opener::new(cpu());
        let cipher = cpu();
        let mut all = Vec::new();
        for (r, eof) in batches(ct.len(), batch * ENC_CHUNK_LEN) {
            let mut pt = Vec::new();
            let r = if gpu {
                g.open_batch(&ct[r], eof, &mut pt, &cipher, 1)
            } else {
                o.open_batch(&ct[r], eof, &mut pt, 1)
            };
            match r {
                Ok(()) => all.extend_from_slice(&pt),
                Err(e) => {
                    all.extend_from_slice(&pt[..e.valid]);
                    return (all, Some(e.error.to_string()));
                }
            }
        }
        (all, None)
    }

    const SIZES: [usize; 8] = [
        0,
        1,
        CHUNK_LEN - 1,
        CHUNK_LEN,
        CHUNK_LEN + 1,
        3 * CHUNK_LEN,
        4 * CHUNK_LEN,
        5 * CHUNK_LEN + 17,
    ];

    #[test]
    fn gpu_batches_seal_and_open_byte_identical_with_the_cpu_path() {
        for len in SIZES {
            let pt: Vec<u8> = (0..len).map(|i| (i * 31 + i / 977) as u8).collect();
            for batch in [1, 2, 3] {
                let want = seal_all(&pt, batch, false);
                assert!(seal_all(&pt, batch, true) == want, "seal {len} {batch}");
                let (back, err) = open_all(&want, batch, true);
                assert_eq!(err, None, "open {len} {batch}");
                assert!(back == pt, "open {len} {batch}");
            }
        }
    }

    #[test]
    fn gpu_path_fails_as_the_cpu_path_does() {
        let pt: Vec<u8> = (0..5 * CHUNK_LEN + 17).map(|i| i as u8).collect();
        let ct = seal_all(&pt, 2, false);
        let mut bad = Vec::new();
        // A flipped bit in chunk 3, a cut at a chunk boundary, a cut in a
        // tag, an appended byte, a dropped chunk.
        let mut flipped = ct.clone();
        flipped[3 * ENC_CHUNK_LEN + 100] ^= 4;
        bad.push(flipped);
        bad.push(ct[..4 * ENC_CHUNK_LEN].to_vec());
        bad.push(ct[..4 * ENC_CHUNK_LEN + 5].to_vec());
        let mut longer = ct.clone();
        longer.push(0);
        bad.push(longer);
        let mut dropped = ct[..ENC_CHUNK_LEN].to_vec();
        dropped.extend_from_slice(&ct[2 * ENC_CHUNK_LEN..]);
        bad.push(dropped);
        for (k, c) in bad.iter().enumerate() {
            for batch in [1, 2, 3] {
                let want = open_all(c, batch, false);
                assert!(want.1.is_some(), "case {k} must fail");
                let got = open_all(c, batch, true);
                assert_eq!(got.1, want.1, "case {k} batch {batch}");
                assert!(got.0 == want.0, "released prefix, case {k} batch {batch}");
            }
        }
    }
}
