//! `aesx cipher ... --backend cuda`: the same modes on the GPU (aesx-cuda).
//!
//! The CPU stream for the mode is built first, so every option, key and IV
//! is checked with the same messages; the GPU stream then replaces it (CBC
//! encryption, serial by nature, keeps the CPU stream). Input is gathered
//! into large batches before it goes to the GPU, since every launch costs
//! copies and latency; padding, the stolen XTS blocks and GCM's J0 and tag
//! are done on the host.

use aesx::{Block, Cbc, Ecb, Padding};
use aesx_cuda::{CudaAes, CudaGcm, CudaXts};

use super::blockwise::{BlockOp, Blockwise};
use super::gcm::GcmJob;
use super::{hex_arg, Job, Mode, Op, Params, Stream};
use crate::backend_arg::{gpu_error, open_gpu};
use crate::CliError;

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

/// Bulk XTS (see [`BulkAes`]).
pub trait BulkXts: Send {
    fn unit(&self, decrypt: bool, tweak: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()>;
    fn sectors(
        &self,
        decrypt: bool,
        first: u128,
        size: usize,
        buf: &mut [u8],
    ) -> aesx_cuda::Result<()>;
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
    fn unit(&self, decrypt: bool, tweak: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
        if decrypt {
            self.decrypt_unit(tweak, buf)
        } else {
            self.encrypt_unit(tweak, buf)
        }
    }
    fn sectors(
        &self,
        decrypt: bool,
        first: u128,
        size: usize,
        buf: &mut [u8],
    ) -> aesx_cuda::Result<()> {
        if decrypt {
            self.decrypt_sectors(first, size, buf)
        } else {
            self.encrypt_sectors(first, size, buf)
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
pub fn job(mode: Mode, p: &Params, cpu: Job) -> Result<Job, CliError> {
    let gpu = open_gpu()?;
    job_on(&Cuda(gpu), mode, p, cpu)
}

/// The job for `mode` on `engine`.
pub fn job_on(engine: &dyn Engine, mode: Mode, p: &Params, cpu: Job) -> Result<Job, CliError> {
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
) -> Result<Box<dyn Stream>, CliError> {
    let e = gpu_error;
    let batch = engine.batch();
    Ok(match (mode, p.op) {
        (Mode::Cbc, Op::Encrypt) => cpu,
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
                next: u128::from_be_bytes(p.iv16()?),
                ks: [0; 16],
                used: 16,
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
                        CliError::usage("--tweak: XTS tweaks are 16 bytes (32 hex digits)")
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
        // GCM arrives as a Job::Gcm and is handled by job_on().
        (Mode::Gcm, _) => cpu,
        // Refused before any job is built (`cipher::run`); never streams.
        (m, _) if m.cpu_only() => return Err(super::cpu_only(p)),
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
    fn check_len(&self, len: u64) -> Result<(), CliError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CliError> {
        self.pending.extend_from_slice(input);
        if self.pending.len() >= self.batch {
            let batch = std::mem::take(&mut self.pending);
            self.inner.update(&batch, out)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        let batch = std::mem::take(&mut self.pending);
        self.inner.update(&batch, out)?;
        self.inner.finish(out)
    }
}

fn aes_err(e: aesx_cuda::CudaError) -> aesx::Error {
    match e {
        aesx_cuda::CudaError::Aes(e) => e,
        // BlockOp speaks aesx::Error; a GPU failure has no variant of its
        // own there, so it is reported as the state error, after the
        // device's own message.
        other => {
            crate::write_stderr(format_args!("aesx: GPU: {other}"));
            aesx::Error::InvalidState
        }
    }
}

struct GpuEcb {
    aes: Box<dyn BulkAes>,
    cpu: Ecb,
}

impl BlockOp for GpuEcb {
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        self.aes.ecb(op == Op::Decrypt, buf).map_err(aes_err)
    }

    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8], pad: Padding) -> aesx::Result<usize> {
        match op {
            Op::Encrypt => self.cpu.encrypt(piece, out, pad),
            Op::Decrypt => self.cpu.decrypt(piece, out, pad),
        }
    }
}

struct GpuCbcDec {
    aes: Box<dyn BulkAes>,
    cpu: Cbc,
    chain: Block,
}

impl BlockOp for GpuCbcDec {
    fn blocks(&mut self, _op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        if buf.len() < 16 {
            return Ok(());
        }
        let mut next = [0u8; 16];
        next.copy_from_slice(&buf[buf.len() - 16..]);
        self.aes.cbc_decrypt(&self.chain, buf).map_err(aes_err)?;
        self.chain = next;
        Ok(())
    }

    fn last(&mut self, _op: Op, piece: &[u8], out: &mut [u8], pad: Padding) -> aesx::Result<usize> {
        self.cpu.decrypt(&self.chain, piece, out, pad)
    }
}

/// CTR as one stream: whole blocks on the GPU from the running counter; a
/// partial block keeps the rest of its keystream for the next call.
struct GpuCtr {
    aes: Box<dyn BulkAes>,
    next: u128,
    ks: [u8; 16],
    used: usize,
}

impl Stream for GpuCtr {
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CliError> {
        let start = out.len();
        out.extend_from_slice(input);
        let buf = &mut out[start..];
        let head = (16 - self.used).min(buf.len());
        for (b, k) in buf[..head].iter_mut().zip(&self.ks[self.used..]) {
            *b ^= k;
        }
        self.used += head;
        let rest = &mut buf[head..];
        let whole = rest.len() / 16 * 16;
        if whole > 0 {
            self.aes
                .ctr(&self.next.to_be_bytes(), &mut rest[..whole])
                .map_err(gpu_error)?;
            self.next = self.next.wrapping_add((whole / 16) as u128);
        }
        let tail = &mut rest[whole..];
        if !tail.is_empty() {
            self.ks = [0; 16];
            self.aes
                .ctr(&self.next.to_be_bytes(), &mut self.ks)
                .map_err(gpu_error)?;
            self.next = self.next.wrapping_add(1);
            for (b, k) in tail.iter_mut().zip(&self.ks) {
                *b ^= k;
            }
            self.used = tail.len();
        }
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<u8>) -> Result<(), CliError> {
        self.ks = [0; 16];
        Ok(())
    }
}

enum XtsShape {
    Unit([u8; 16]),
    Sectors { size: usize, next: u128 },
}

/// XTS on the GPU; length rules and messages are the CPU stream's (it sees
/// the same input, without doing any AES, through `check_len`).
struct GpuXts {
    xts: Box<dyn BulkXts>,
    op: Op,
    shape: XtsShape,
    buf: Vec<u8>,
    /// Input bytes seen, for the CPU stream's length messages.
    seen: u64,
    batch: usize,
    cpu: Box<dyn Stream>,
}

impl GpuXts {
    fn flush_sectors(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        let XtsShape::Sectors { size, next } = self.shape else {
            return Ok(());
        };
        let count = self.buf.len() / size;
        if count == 0 {
            return Ok(());
        }
        let mut whole: Vec<u8> = self.buf.drain(..count * size).collect();
        self.xts
            .sectors(self.op == Op::Decrypt, next, size, &mut whole)
            .map_err(gpu_error)?;
        out.extend_from_slice(&whole);
        self.shape = XtsShape::Sectors {
            size,
            next: next
                .checked_add(count as u128)
                .ok_or_else(|| CliError::failure("xts: sector numbers pass 2^128 - 1"))?,
        };
        Ok(())
    }
}

impl Stream for GpuXts {
    fn check_len(&self, len: u64) -> Result<(), CliError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CliError> {
        self.seen += input.len() as u64;
        self.buf.extend_from_slice(input);
        match self.shape {
            XtsShape::Unit(_) => self.cpu.check_len(self.buf.len() as u64).or_else(|e| {
                // Too short is only known at the end.
                if self.buf.len() < aesx::Xts::MIN_DATA_UNIT_LEN {
                    Ok(())
                } else {
                    Err(e)
                }
            }),
            XtsShape::Sectors { .. } if self.buf.len() >= self.batch => self.flush_sectors(out),
            XtsShape::Sectors { .. } => Ok(()),
        }
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        match self.shape {
            XtsShape::Unit(tweak) => {
                self.cpu.check_len(self.buf.len() as u64)?;
                let mut unit = std::mem::take(&mut self.buf);
                self.xts
                    .unit(self.op == Op::Decrypt, &tweak, &mut unit)
                    .map_err(gpu_error)?;
                out.extend_from_slice(&unit);
                Ok(())
            }
            XtsShape::Sectors { .. } => {
                self.flush_sectors(out)?;
                if !self.buf.is_empty() {
                    return self.cpu.check_len(self.seen).and(Err(CliError::failure(
                        "xts: the input is not a whole number of sectors",
                    )));
                }
                Ok(())
            }
        }
    }
}

/// GCM on the GPU: the whole message in memory, as on the CPU, so that
/// nothing is written before the tag is checked.
struct GpuGcm {
    gcm: Box<dyn BulkGcm>,
    op: Op,
    iv: Vec<u8>,
    aad: Vec<u8>,
    tag_len: usize,
    data: Vec<u8>,
    cpu: Box<GcmJob>,
}

impl Drop for GpuGcm {
    fn drop(&mut self) {
        self.data.fill(0);
    }
}

impl Stream for GpuGcm {
    fn check_len(&self, len: u64) -> Result<(), CliError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], _out: &mut Vec<u8>) -> Result<(), CliError> {
        self.cpu
            .check_len(self.data.len() as u64 + input.len() as u64)?;
        self.data.extend_from_slice(input);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        match self.op {
            Op::Encrypt => {
                let tag = self
                    .gcm
                    .seal(&self.iv, &self.aad, &mut self.data)
                    .map_err(gpu_error)?;
                out.extend_from_slice(&self.data);
                out.extend_from_slice(&tag[..self.tag_len]);
                Ok(())
            }
            Op::Decrypt => {
                // The CPU job words the short-input error.
                self.cpu.check_len(self.data.len() as u64)?;
                let n = self.data.len() - self.tag_len;
                let (body, tag) = self.data.split_at_mut(n);
                let tag = tag.to_vec();
                match self.gcm.open(&self.iv, &self.aad, body, &tag) {
                    Ok(()) => {
                        out.extend_from_slice(body);
                        Ok(())
                    }
                    Err(aesx_cuda::CudaError::Aes(aesx::Error::AuthenticationFailed)) => {
                        Err(CliError::failure(format!(
                            "authentication failed: the {}-byte tag at the end of the \
                             input does not match (wrong key, IV, AAD or tag length, or \
                             altered data); nothing written",
                            self.tag_len
                        )))
                    }
                    Err(e) => Err(gpu_error(e)),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aesx::Backend;
    use clap::Parser;

    /// aesx's soft backend behind the GPU's traits, with small batches.
    struct Model;

    fn aes_e(e: aesx::Error) -> aesx_cuda::CudaError {
        aesx_cuda::CudaError::Aes(e)
    }

    struct ModelAes(Vec<u8>);
    struct ModelXts(aesx::Xts);
    struct ModelGcm(Vec<u8>);

    impl BulkAes for ModelAes {
        fn ecb(&self, decrypt: bool, buf: &mut [u8]) -> aesx_cuda::Result<()> {
            let a = aesx::Aes::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
            if decrypt {
                a.decrypt_blocks(buf)
            } else {
                a.encrypt_blocks(buf)
            }
            .map_err(aes_e)
        }
        fn ctr(&self, counter: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
            let mut c = aesx::Ctr::with_backend(&self.0, counter, Backend::Soft).map_err(aes_e)?;
            c.apply_keystream(buf);
            Ok(())
        }
        fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
            let c = aesx::Cbc::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
            c.decrypt_chained(&mut iv.clone(), buf).map_err(aes_e)
        }
    }

    impl BulkXts for ModelXts {
        fn unit(&self, decrypt: bool, tweak: &[u8; 16], buf: &mut [u8]) -> aesx_cuda::Result<()> {
            if decrypt {
                self.0.decrypt(tweak, buf)
            } else {
                self.0.encrypt(tweak, buf)
            }
            .map_err(aes_e)
        }
        fn sectors(
            &self,
            decrypt: bool,
            first: u128,
            size: usize,
            buf: &mut [u8],
        ) -> aesx_cuda::Result<()> {
            if decrypt {
                self.0.decrypt_sectors(size, first, buf)
            } else {
                self.0.encrypt_sectors(size, first, buf)
            }
            .map_err(aes_e)
        }
    }

    impl BulkGcm for ModelGcm {
        fn seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> aesx_cuda::Result<[u8; 16]> {
            let g = aesx::Gcm::with_backend(&self.0, Backend::Soft).map_err(aes_e)?;
            let t = g.seal_in_place_detached(nonce, aad, buf).map_err(aes_e)?;
            Ok(t.as_bytes().try_into().unwrap())
        }
        fn open(
            &self,
            nonce: &[u8],
            aad: &[u8],
            buf: &mut [u8],
            tag: &[u8],
        ) -> aesx_cuda::Result<()> {
            let g = aesx::Gcm::with_backend(&self.0, Backend::Soft)
                .and_then(|g| g.with_tag_len(tag.len()))
                .map_err(aes_e)?;
            g.open_in_place_detached(nonce, aad, buf, tag).map_err(|e| {
                buf.fill(0);
                aes_e(e)
            })
        }
    }

    impl Engine for Model {
        fn aes(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkAes>> {
            Ok(Box::new(ModelAes(key.to_vec())))
        }
        fn xts(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkXts>> {
            Ok(Box::new(ModelXts(
                aesx::Xts::with_backend(key, Backend::Soft).map_err(aes_e)?,
            )))
        }
        fn gcm(&self, key: &[u8]) -> aesx_cuda::Result<Box<dyn BulkGcm>> {
            Ok(Box::new(ModelGcm(key.to_vec())))
        }
        fn batch(&self) -> usize {
            1000
        }
    }

    #[derive(Parser)]
    struct Cmd {
        #[command(flatten)]
        args: super::super::Args,
    }

    fn params(args: &super::super::Args) -> Params<'_> {
        Params {
            args,
            op: args.op,
            mode: format!("{:?}", args.mode).to_lowercase(),
            key: hex::decode(&args.key).unwrap(),
            iv: args.iv.as_deref().map(|s| hex::decode(s).unwrap()),
            padding: args.padding.map(|p| match p {
                super::super::PaddingArg::Pkcs7 => Padding::Pkcs7,
                super::super::PaddingArg::None => Padding::None,
            }),
            backend: Backend::Soft,
        }
    }

    /// Feeds `input` in pieces of varying sizes; the output or the error text.
    fn drive(s: &mut dyn Stream, input: &[u8], seed: usize) -> Result<Vec<u8>, String> {
        s.check_len(input.len() as u64).map_err(|e| e.to_string())?;
        let mut out = Vec::new();
        let mut off = 0;
        let mut k = seed;
        while off < input.len() {
            k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let n = (k >> 8) % 1500 + 1;
            let end = (off + n).min(input.len());
            s.update(&input[off..end], &mut out)
                .map_err(|e| e.to_string())?;
            off = end;
        }
        s.finish(&mut out).map_err(|e| e.to_string())?;
        Ok(out)
    }

    fn run_both(
        argv: &[&str],
        input: &[u8],
        seed: usize,
    ) -> (Result<Vec<u8>, String>, Result<Vec<u8>, String>) {
        let mut full = vec!["cipher"];
        full.extend(argv);
        let cmd = Cmd::try_parse_from(&full).unwrap();
        let p = params(&cmd.args);
        let cpu = super::super::build(cmd.args.mode, &p).unwrap();
        let inner = super::super::build(cmd.args.mode, &p).unwrap();
        let Job::Stream(mut gpu) = job_on(&Model, cmd.args.mode, &p, inner).unwrap() else {
            panic!("the GPU job is a stream");
        };
        let gpu = drive(gpu.as_mut(), input, seed);
        match cpu {
            Job::Stream(mut cpu) => (drive(cpu.as_mut(), input, seed), gpu),
            // The CPU's GCM streams through files; compare with the
            // library's one-shot GCM, errors by kind only.
            Job::Gcm(_) => {
                let tag_len = cmd.args.tag_len.unwrap_or(16);
                let gcm = aesx::Gcm::new(&p.key)
                    .unwrap()
                    .with_tag_len(tag_len)
                    .unwrap();
                let iv = p.iv.clone().unwrap();
                let aad = cmd.args.aad.as_deref().map(|a| hex::decode(a).unwrap());
                let aad = aad.unwrap_or_default();
                let want = match p.op {
                    Op::Encrypt => gcm.seal(&iv, &aad, input),
                    Op::Decrypt => gcm.open(&iv, &aad, input),
                };
                (
                    want.map_err(|_| "GCM failed".to_string()),
                    gpu.map_err(|_| "GCM failed".to_string()),
                )
            }
            Job::Whole(_) => panic!("job_on refuses the CPU-only modes"),
        }
    }

    const K16: &str = "2b7e151628aed2a6abf7158809cf4f3c";
    const K64: &str = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f\
                       f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff00112233445566778899aabbccddeeff";
    const IV: &str = "000102030405060708090a0b0c0dfffe";

    #[test]
    fn gpu_streams_match_the_cpu_streams_for_any_chunking() {
        let modes: Vec<Vec<&str>> = vec![
            vec!["--mode", "ecb", "--key", K16],
            vec!["--mode", "ecb", "--key", K16, "--padding", "none"],
            vec!["--mode", "cbc", "--key", K16, "--iv", IV],
            vec![
                "--mode",
                "cbc",
                "--key",
                K16,
                "--iv",
                IV,
                "--padding",
                "none",
            ],
            vec![
                "--mode",
                "ctr",
                "--key",
                K16,
                "--iv",
                "ffffffffffffffffffffffffffffffff",
            ],
            vec!["--mode", "xts", "--key", K64, "--tweak", IV],
            vec!["--mode", "xts", "--key", K64, "--sector", "12345"],
            vec![
                "--mode",
                "xts",
                "--key",
                K64,
                "--sector-size",
                "512",
                "--sector",
                "9",
            ],
            vec![
                "--mode",
                "gcm",
                "--key",
                K16,
                "--iv",
                "cafebabefacedbaddecaf888",
            ],
            vec![
                "--mode",
                "gcm",
                "--key",
                K16,
                "--iv",
                "01",
                "--aad",
                "feedface",
                "--tag-len",
                "12",
            ],
        ];
        for (mi, m) in modes.iter().enumerate() {
            for len in [0usize, 1, 15, 16, 17, 512, 1000, 4096, 5003, 5120] {
                let data: Vec<u8> = (0..len).map(|i| (i * 13 + mi) as u8).collect();
                let mut enc = vec!["encrypt"];
                enc.extend(m);
                let (want, got) = run_both(&enc, &data, len + mi);
                assert_eq!(
                    got.is_ok(),
                    want.is_ok(),
                    "{m:?} {len}: {got:?} vs {want:?}"
                );
                assert_eq!(got, want, "{m:?} encrypt {len}");
                let Ok(ct) = want else { continue };
                let mut dec = vec!["decrypt"];
                dec.extend(m);
                let (want, got) = run_both(&dec, &ct, 7 * len + mi);
                assert_eq!(got, want, "{m:?} decrypt {len}");
                assert_eq!(got.as_deref(), Ok(&data[..]), "{m:?} round trip {len}");
                if !ct.is_empty() {
                    // A flipped last byte: GCM refuses, padding may fail;
                    // either way both paths agree.
                    let mut bad = ct.clone();
                    *bad.last_mut().unwrap() ^= 0x41;
                    let (want, got) = run_both(&dec, &bad, len);
                    assert_eq!(got, want, "{m:?} tampered {len}");
                }
            }
        }
    }
}
