//! `aesx cipher ... --backend cuda`: the same modes on the GPU (aesx-cuda).
//!
//! The CPU stream for the mode is built first, so every option, key and IV
//! is checked with the same messages; the GPU stream then replaces it (CBC
//! encryption, serial by nature, keeps the CPU stream). Input is gathered
//! into large batches before it goes to the GPU, since every launch costs
//! copies and latency; padding, the stolen XTS blocks and GCM's J0 and tag
//! are done on the host.
//!
//! `blocks`: ECB, CBC decryption and CTR; `xts`; `gcm`: the streams that
//! call the GPU. `tests`: all of them against a CPU model of the GPU.

use aesx::{Cbc, Ecb, Padding};
use aesx_cuda::{CudaAes, CudaGcm, CudaXts};

use super::blockwise::Blockwise;
use super::{hex_arg, Job, Mode, Op, Params, Stream};
use crate::backend_arg::{gpu_error, open_gpu};
use crate::CommandError;

mod blocks;
mod gcm;
#[cfg(test)]
mod tests;
mod xts;

use blocks::{GpuCbcDec, GpuCtr, GpuEcb};
use gcm::GpuGcm;
use xts::{GpuXts, XtsShape};

/// Bytes gathered before a GPU call.
const BATCH: usize = 64 << 20;

/// Bulk AES as the streams use it: aesx-cuda's [`CudaAes`], or in the tests
/// a model on the CPU, so that the streaming around the GPU calls (batches,
/// chaining, counters across calls, padding, stealing, tags) is tested on
/// machines without a GPU.
pub trait BulkAes: Send {
    fn ecb(&self, decrypt: bool, buf: &mut [u8]) -> aesx_cuda::Result<()>;
    fn ctr(&self, counter: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()>;
    fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()>;
}

/// Bulk XTS (see [`BulkAes`]): one data unit, or whole sectors from a
/// sector number, as the stream's [`XtsShape`] says.
pub trait BulkXts: Send {
    fn xts(&self, decrypt: bool, shape: &XtsShape, buf: &mut [u8]) -> aesx_cuda::Result<()>;
}

/// One-shot GCM (see [`BulkAes`]).
pub trait BulkGcm: Send {
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesx_cuda::Result<[u8; 16]>;
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> aesx_cuda::Result<()>;
}

impl BulkAes for CudaAes {
    fn ecb(&self, decrypt: bool, buf: &mut [u8]) -> aesx_cuda::Result<()> {
        if decrypt {
            self.ecb_decrypt(buf)
        } else {
            self.ecb_encrypt(buf)
        }
    }
    fn ctr(&self, counter: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
        self.ctr_apply(counter, buf)
    }
    fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
        CudaAes::cbc_decrypt(self, iv, buf)
    }
}

impl BulkXts for CudaXts {
    fn xts(&self, decrypt: bool, shape: &XtsShape, buf: &mut [u8]) -> aesx_cuda::Result<()> {
        match *shape {
            XtsShape::Unit(t) if decrypt => self.decrypt_unit(&t, buf),
            XtsShape::Unit(t) => self.encrypt_unit(&t, buf),
            XtsShape::Sectors { size, next } if decrypt => self.decrypt_sectors(next, size, buf),
            XtsShape::Sectors { size, next } => self.encrypt_sectors(next, size, buf),
        }
    }
}

impl BulkGcm for CudaGcm {
    fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesx_cuda::Result<[u8; 16]> {
        self.seal_in_place(nonce, aad, buf)
    }
    fn open(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8], tag: &[u8]) -> aesx_cuda::Result<()> {
        self.open_in_place(nonce, aad, buf, tag)
    }
}

/// Makes the keyed objects: the GPU, or a model in the tests.
pub trait Engine {
    fn aes(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkAes>>;
    fn xts(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkXts>>;
    fn gcm(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkGcm>>;
    /// Bytes gathered before a call.
    fn batch(&self) -> usize {
        BATCH
    }
}

struct Cuda(aesx_cuda::Gpu);

impl Engine for Cuda {
    fn aes(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkAes>> {
        Ok(Box::new(CudaAes::new(&self.0, key)?))
    }
    fn xts(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkXts>> {
        Ok(Box::new(CudaXts::new(&self.0, key)?))
    }
    fn gcm(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkGcm>> {
        Ok(Box::new(CudaGcm::new(&self.0, key)?))
    }
}

/// The GPU job for `mode`, given the already validated CPU job.
pub fn job(mode: Mode, p: &Params, cpu: Job) -> Result<Job, CommandError> {
    let gpu = open_gpu()?;
    job_on(&Cuda(gpu), mode, p, cpu)
}

/// The job for `mode` on `engine`.
pub fn job_on(engine: &dyn Engine, mode: Mode, p: &Params, cpu: Job) -> Result<Job, CommandError> {
    Ok(match cpu {
        Job::Stream(cpu) => Job::Stream(stream_on(engine, mode, p, cpu)?),
        // GCM on the GPU is one-shot: the whole input is gathered, then
        // sealed or opened in one call (decryption releases nothing before
        // the tag verifies).
        Job::Gcm(cpu) => Job::Stream(Box::new(GpuGcm {
            gcm: engine.gcm(p.aes_key()?).map_err(gpu_error)?,
            op: p.op,
            iv: p.iv.clone().unwrap_or_default(),
            aad: match &p.args.aad {
                Some(s) => hex_arg("--aad", s)?,
                None => Vec::new(),
            },
            tag_len: p.args.tag_len.unwrap_or(16),
            data: Vec::new(),
            cpu,
        })),
        Job::Whole(_) => return Err(super::cpu_only(p)),
    })
}

/// The stream for a non-GCM `mode` on `engine`.
fn stream_on(
    engine: &dyn Engine,
    mode: Mode,
    p: &Params,
    cpu: Box<dyn Stream>,
) -> Result<Box<dyn Stream>, CommandError> {
    let e = gpu_error;
    let batch = engine.batch();
    Ok(match (mode, p.op) {
        (Mode::Ecb, _) => {
            let inner = GpuEcb {
                aes: engine.aes(p.aes_key()?).map_err(e)?,
                cpu: Ecb::with_backend(p.aes_key()?, p.backend)?,
            };
            let padding = p.padding.unwrap_or(Padding::Pkcs7);
            gather(cpu, Blockwise::new(inner, p.op, padding, &p.mode), batch)
        }
        (Mode::Cbc, Op::Decrypt) => {
            let inner = GpuCbcDec {
                aes: engine.aes(p.aes_key()?).map_err(e)?,
                cpu: Cbc::with_backend(p.aes_key()?, p.backend)?,
                chain: p.iv16()?,
            };
            let padding = p.padding.unwrap_or(Padding::Pkcs7);
            gather(cpu, Blockwise::new(inner, p.op, padding, &p.mode), batch)
        }
        (Mode::Ctr, _) => gather(
            cpu,
            GpuCtr {
                aes: engine.aes(p.aes_key()?).map_err(e)?,
                ctr: aesx_cuda::CtrStream::new(&p.iv16()?),
            },
            batch,
        ),
        (Mode::Xts, _) => {
            let xts = engine.xts(&p.key).map_err(e)?;
            let a = p.args;
            let shape = match (a.tweak.as_deref(), a.sector, a.sector_size) {
                (_, n, Some(size)) => XtsShape::Sectors {
                    size,
                    next: n.unwrap_or(0),
                },
                (Some(t), _, None) => {
                    let t = hex_arg("--tweak", t)?;
                    XtsShape::Unit(t.as_slice().try_into().map_err(|_| {
                        CommandError::usage("--tweak: XTS tweaks are 16 bytes (32 hex digits)")
                    })?)
                }
                (None, n, None) => XtsShape::Unit(aesx::Xts::sector_tweak(n.unwrap_or(0))),
            };
            Box::new(GpuXts {
                xts,
                op: p.op,
                shape,
                buf: Vec::new(),
                seen: 0,
                batch,
                cpu,
            })
        }
        // Refused before any job is built (`cipher::run`); never streams.
        (m, _) if m.cpu_only() => return Err(super::cpu_only(p)),
        // CBC encryption is serial: it stays on the CPU, as does any mode
        // without a GPU stream (GCM arrives as a Job::Gcm, see job_on).
        _ => cpu,
    })
}

/// Gathers input into batches of `batch` bytes for `inner`; lengths are
/// checked by the CPU stream of the same mode.
fn gather(cpu: Box<dyn Stream>, inner: impl Stream + 'static, batch: usize) -> Box<dyn Stream> {
    Box::new(Gather {
        cpu,
        inner: Box::new(inner),
        pending: Vec::new(),
        batch,
    })
}

struct Gather {
    cpu: Box<dyn Stream>,
    inner: Box<dyn Stream>,
    pending: Vec<u8>,
    batch: usize,
}

impl Stream for Gather {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        self.pending.extend_from_slice(input);
        if self.pending.len() >= self.batch {
            let batch = std::mem::take(&mut self.pending);
            self.inner.update(&batch, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
        let batch = std::mem::take(&mut self.pending);
        self.inner.update(&batch, out)?;
        self.inner.finish(out)
    }
}
