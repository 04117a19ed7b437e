//! Where the chunks of a payload are sealed and opened: on the CPU, each
//! batch split over the threads (aesx-file's [`Sealer`] and [`Opener`]), or
//! with `--backend cuda` on the GPU, many chunks per launch (`gpu.rs`).

use aesx_file::payload::{BatchError, ChunkCipher, Opener, PayloadError, Sealer, SALT_LEN};

#[cfg(feature = "cuda")]
use super::gpu;
use crate::backend_arg::Choice;
use crate::CliError;

/// Chunks per CPU batch: 2 MiB of plaintext, split over the threads.
pub(super) const BATCH_CHUNKS: usize = 128;

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
    pub(super) fn open(choice: Choice) -> Result<Device, CliError> {
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
    ) -> Result<ChunkSealer, CliError> {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            let chunks = gpu::GpuChunks::new(g, input_key, context, salt)?;
            return Ok(ChunkSealer::Gpu(chunks));
        }
        #[cfg(not(feature = "cuda"))]
        let _ = (input_key, context, salt);
        Ok(ChunkSealer::Cpu {
            sealer: Sealer::new(cipher),
            threads,
        })
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
    ) -> Result<ChunkOpener, CliError> {
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
            opener: Opener::new(cipher.clone()),
            threads,
        })
    }
}

/// Seals the chunks of one payload in order, a batch at a time.
pub(super) enum ChunkSealer {
    Cpu {
        sealer: Sealer,
        threads: usize,
    },
    #[cfg(feature = "cuda")]
    Gpu(gpu::GpuChunks),
}

impl ChunkSealer {
    /// Chunks per batch: enough to keep the threads or the GPU busy.
    pub(super) fn batch_chunks(&self) -> usize {
        match self {
            ChunkSealer::Cpu { .. } => BATCH_CHUNKS,
            #[cfg(feature = "cuda")]
            ChunkSealer::Gpu(_) => gpu::BATCH_CHUNKS,
        }
    }

    /// See [`Sealer::seal_batch`].
    pub(super) fn seal_batch(
        &mut self,
        pt: &[u8],
        last: bool,
        out: &mut Vec<u8>,
    ) -> Result<(), PayloadError> {
        match self {
            ChunkSealer::Cpu { sealer, threads } => sealer.seal_batch(pt, last, out, *threads),
            #[cfg(feature = "cuda")]
            ChunkSealer::Gpu(g) => g.seal_batch(pt, last, out),
        }
    }
}

/// Opens the chunks of one payload in order, a batch at a time.
pub(super) enum ChunkOpener {
    Cpu {
        opener: Opener,
        threads: usize,
    },
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
    /// Chunks per batch: enough to keep the threads or the GPU busy.
    pub(super) fn batch_chunks(&self) -> usize {
        match self {
            ChunkOpener::Cpu { .. } => BATCH_CHUNKS,
            #[cfg(feature = "cuda")]
            ChunkOpener::Gpu { .. } => gpu::BATCH_CHUNKS,
        }
    }

    /// See [`Opener::open_batch`].
    pub(super) fn open_batch(
        &mut self,
        ct: &[u8],
        at_eof: bool,
        pt: &mut Vec<u8>,
    ) -> Result<(), BatchError> {
        match self {
            ChunkOpener::Cpu { opener, threads } => opener.open_batch(ct, at_eof, pt, *threads),
            #[cfg(feature = "cuda")]
            ChunkOpener::Gpu {
                chunks,
                cpu,
                threads,
            } => chunks.open_batch(ct, at_eof, pt, cpu, *threads),
        }
    }
}
