//! Where the chunks of a payload are sealed and opened: on the CPU, whole
//! batches on each of the pipeline's workers (aesx-file's
//! [`payload::seal_batch_at`] and [`payload::open_batch_at`]), or with
//! `--backend cuda` on the GPU, many chunks per launch (`gpu.rs`).

#[cfg(feature = "cuda")]
use std::sync::Mutex;

use aesx_file::payload::{self, ChunkCipher, CHUNK_LEN, ENC_CHUNK_LEN, SALT_LEN};

#[cfg(feature = "cuda")]
use super::gpu;
use super::output::Output;
use super::pipeline::{pipeline_to, Source};
use super::{open_failure, payload_err};
use crate::backend_arg::Choice;
use crate::CommandError;

/// Chunks per CPU batch: a worker's unit of work (aesx-file's pipeline).
pub(super) const BATCH_CHUNKS: usize = aesx_file::pipeline::BATCH_CHUNKS;

/// The GPU when `--backend cuda` (or `AESX_BACKEND=cuda`) asked for it,
/// opened before anything is read or written; nothing otherwise.
pub(super) struct Device {
    #[cfg(feature = "cuda")]
    gpu: Option<aesx_cuda::Gpu>,
}

impl Device {
    /// The GPU, when the command runs on it.
    #[cfg(feature = "cuda")]
    pub(super) fn gpu(&self) -> Option<&aesx_cuda::Gpu> {
        self.gpu.as_ref()
    }

    /// Opens the GPU if `choice` names it.
    pub(super) fn open(choice: Choice) -> Result<Device, CommandError> {
        match choice {
            Choice::Cpu(_) => Ok(Device {
                #[cfg(feature = "cuda")]
                gpu: None,
            }),
            #[cfg(feature = "cuda")]
            Choice::Cuda => crate::backend_arg::open_gpu().map(|g| Device { gpu: Some(g) }),
        }
    }

    /// What seals a new payload: `cipher` from `payload::seal_header`, or on
    /// the GPU the same chunk key derived again from the input key, the
    /// header (`context`) and the payload's salt.
    pub(super) fn sealer(
        &self,
        cipher: ChunkCipher,
        threads: usize,
        input_key: &[u8],
        context: &[u8],
        salt: &[u8; SALT_LEN],
    ) -> Result<ChunkSealer, CommandError> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            let chunks = gpu::GpuChunks::new(g, input_key, context, salt)?;
            return Ok(ChunkSealer::Gpu(chunks));
        }
        #[cfg(not(feature = "cuda"))]
        let _ = (input_key, context, salt);
        Ok(ChunkSealer::Cpu { cipher, threads })
    }

    /// What opens a payload whose header `payload::open_header` verified
    /// (`payload_header`), giving `cipher`.
    pub(super) fn opener(
        &self,
        cipher: &ChunkCipher,
        threads: usize,
        input_key: &[u8],
        context: &[u8],
        payload_header: &[u8],
    ) -> Result<ChunkOpener, CommandError> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            let chunks = gpu::GpuChunks::for_header(g, input_key, context, payload_header)?;
            return Ok(ChunkOpener::Gpu {
                chunks,
                cpu: Box::new(cipher.clone()),
                threads,
            });
        }
        #[cfg(not(feature = "cuda"))]
        let _ = (input_key, context, payload_header);
        Ok(ChunkOpener::Cpu {
            cipher: cipher.clone(),
            threads,
        })
    }
}

/// Seals the chunks of one payload.
pub(super) enum ChunkSealer {
    /// On `threads` workers, each sealing whole batches of its own.
    Cpu { cipher: ChunkCipher, threads: usize },
    /// On the GPU, one batch after another (it keeps the chunk counter).
    #[cfg(feature = "cuda")]
    Gpu(gpu::GpuChunks),
}

impl ChunkSealer {
    /// Seals the plaintext read from `source` into `out`.
    pub(super) fn run(
        self,
        source: Source,
        out: &mut Output,
        pb: &indicatif::ProgressBar,
    ) -> Result<(), CommandError> {
        match self {
            ChunkSealer::Cpu { cipher, threads } => {
                let step = |b: u64, pt: &[u8], last: bool, o: &mut Vec<u8>| {
                    let first = b * BATCH_CHUNKS as u64;
                    payload::seal_batch_at(&cipher, first, pt, last, o, 1)
                        .map(drop)
                        .map_err(|e| (0, payload_err(e)))
                };
                pipeline_to(source, BATCH_CHUNKS * CHUNK_LEN, threads, out, pb, &step)
            }
            #[cfg(feature = "cuda")]
            ChunkSealer::Gpu(g) => {
                // One worker takes the batches in order; the GPU path on a
                // regular file is `offload.rs`, this one serves pipes.
                let g = Mutex::new(g);
                let step = |_: u64, pt: &[u8], last: bool, o: &mut Vec<u8>| {
                    let mut g = g.lock().unwrap_or_else(|p| p.into_inner());
                    g.seal_batch(pt, last, o).map_err(|e| (0, payload_err(e)))
                };
                pipeline_to(source, gpu::BATCH_CHUNKS * CHUNK_LEN, 1, out, pb, &step)
            }
        }
    }
}

/// Opens the chunks of one payload; only verified chunks are written.
pub(super) enum ChunkOpener {
    /// On `threads` workers, each opening whole batches of its own.
    Cpu { cipher: ChunkCipher, threads: usize },
    /// A batch that fails on the GPU is opened again by the CPU (`cpu`) for
    /// its exact error and verified prefix.
    #[cfg(feature = "cuda")]
    Gpu {
        chunks: gpu::GpuChunks,
        cpu: Box<ChunkCipher>,
        threads: usize,
    },
}

impl ChunkOpener {
    /// Opens the payload read from `source` into `out`, which gets the
    /// verified prefix when a chunk fails.
    pub(super) fn run(
        self,
        source: Source,
        out: &mut Output,
        pb: &indicatif::ProgressBar,
    ) -> Result<(), CommandError> {
        match self {
            ChunkOpener::Cpu { cipher, threads } => {
                let step = |b: u64, ct: &[u8], eof: bool, o: &mut Vec<u8>| {
                    let first = b * BATCH_CHUNKS as u64;
                    payload::open_batch_at(&cipher, first, ct, eof, o, 1)
                        .map(drop)
                        .map_err(|e| (e.valid, open_failure(&cipher, e, ct)))
                };
                pipeline_to(
                    source,
                    BATCH_CHUNKS * ENC_CHUNK_LEN,
                    threads,
                    out,
                    pb,
                    &step,
                )
            }
            #[cfg(feature = "cuda")]
            ChunkOpener::Gpu {
                chunks,
                cpu,
                threads,
            } => {
                let chunks = Mutex::new(chunks);
                let step = |_: u64, ct: &[u8], eof: bool, o: &mut Vec<u8>| {
                    let mut g = chunks.lock().unwrap_or_else(|p| p.into_inner());
                    g.open_batch(ct, eof, o, &cpu, threads)
                        .map_err(|e| (e.valid, open_failure(&cpu, e, ct)))
                };
                let batch = gpu::BATCH_CHUNKS * ENC_CHUNK_LEN;
                pipeline_to(source, batch, 1, out, pb, &step)
            }
        }
    }
}
