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
use super::{hex_arg, Mode, Op, Params, Stream};
use crate::backend_arg::{gpu_error, open_gpu};
use crate::CliError;

/// Bytes gathered before a GPU call.
const BATCH: usize = 64 << 20;

/// The GPU stream for `mode`, given the already validated CPU stream.
pub fn stream(mode: Mode, p: &Params, cpu: Box<dyn Stream>) -> Result<Box<dyn Stream>, CliError> {
    let gpu = open_gpu()?;
    let e = gpu_error;
    Ok(match (mode, p.op) {
        (Mode::Cbc, Op::Encrypt) => cpu,
        (Mode::Ecb, _) => {
            let inner = GpuEcb {
                aes: CudaAes::new(&gpu, p.aes_key()?).map_err(e)?,
                cpu: Ecb::with_backend(p.aes_key()?, p.backend)?,
            };
            let padding = p.padding.unwrap_or(Padding::Pkcs7);
            gather(cpu, Blockwise::new(inner, p.op, padding, &p.mode))
        }
        (Mode::Cbc, Op::Decrypt) => {
            let inner = GpuCbcDec {
                aes: CudaAes::new(&gpu, p.aes_key()?).map_err(e)?,
                cpu: Cbc::with_backend(p.aes_key()?, p.backend)?,
                chain: p.iv16()?,
            };
            let padding = p.padding.unwrap_or(Padding::Pkcs7);
            gather(cpu, Blockwise::new(inner, p.op, padding, &p.mode))
        }
        (Mode::Ctr, _) => gather(
            cpu,
            GpuCtr {
                aes: CudaAes::new(&gpu, p.aes_key()?).map_err(e)?,
                next: u128::from_be_bytes(p.iv16()?),
                ks: [0; 16],
                used: 16,
            },
        ),
        (Mode::Xts, _) => {
            let xts = CudaXts::new(&gpu, &p.key).map_err(e)?;
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
                cpu,
            })
        }
        (Mode::Gcm, _) => Box::new(GpuGcm {
            gcm: CudaGcm::new(&gpu, p.aes_key()?).map_err(e)?,
            op: p.op,
            iv: p.iv.clone().unwrap_or_default(),
            aad: match &p.args.aad {
                Some(s) => hex_arg("--aad", s)?,
                None => Vec::new(),
            },
            tag_len: p.args.tag_len.unwrap_or(16),
            data: Vec::new(),
            cpu,
        }),
    })
}

/// Gathers input into batches of [`BATCH`] bytes for `inner`; lengths are
/// checked by the CPU stream of the same mode.
fn gather(cpu: Box<dyn Stream>, inner: impl Stream + 'static) -> Box<dyn Stream> {
    Box::new(Gather {
        cpu,
        inner: Box::new(inner),
        pending: Vec::new(),
    })
}

struct Gather {
    cpu: Box<dyn Stream>,
    inner: Box<dyn Stream>,
    pending: Vec<u8>,
}

impl Stream for Gather {
    fn check_len(&self, len: u64) -> Result<(), CliError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CliError> {
        self.pending.extend_from_slice(input);
        if self.pending.len() >= BATCH {
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
    aes: CudaAes,
    cpu: Ecb,
}

impl BlockOp for GpuEcb {
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        match op {
            Op::Encrypt => self.aes.ecb_encrypt(buf),
            Op::Decrypt => self.aes.ecb_decrypt(buf),
        }
        .map_err(aes_err)
    }

    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8], pad: Padding) -> aesx::Result<usize> {
        match op {
            Op::Encrypt => self.cpu.encrypt(piece, out, pad),
            Op::Decrypt => self.cpu.decrypt(piece, out, pad),
        }
    }
}

struct GpuCbcDec {
    aes: CudaAes,
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
    aes: CudaAes,
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
                .ctr_apply(&self.next.to_be_bytes(), &mut rest[..whole])
                .map_err(gpu_error)?;
            self.next = self.next.wrapping_add((whole / 16) as u128);
        }
        let tail = &mut rest[whole..];
        if !tail.is_empty() {
            self.ks = [0; 16];
            self.aes
                .ctr_apply(&self.next.to_be_bytes(), &mut self.ks)
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
    xts: CudaXts,
    op: Op,
    shape: XtsShape,
    buf: Vec<u8>,
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
        match self.op {
            Op::Encrypt => self.xts.encrypt_sectors(next, size, &mut whole),
            Op::Decrypt => self.xts.decrypt_sectors(next, size, &mut whole),
        }
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
            XtsShape::Sectors { .. } if self.buf.len() >= BATCH => self.flush_sectors(out),
            XtsShape::Sectors { .. } => Ok(()),
        }
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError> {
        match self.shape {
            XtsShape::Unit(tweak) => {
                self.cpu.check_len(self.buf.len() as u64)?;
                let mut unit = std::mem::take(&mut self.buf);
                match self.op {
                    Op::Encrypt => self.xts.encrypt_unit(&tweak, &mut unit),
                    Op::Decrypt => self.xts.decrypt_unit(&tweak, &mut unit),
                }
                .map_err(gpu_error)?;
                out.extend_from_slice(&unit);
                Ok(())
            }
            XtsShape::Sectors { .. } => {
                let seen = self.buf.len() as u64;
                self.flush_sectors(out)?;
                if !self.buf.is_empty() {
                    return self.cpu.check_len(seen).and(Err(CliError::failure(
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
    gcm: CudaGcm,
    op: Op,
    iv: Vec<u8>,
    aad: Vec<u8>,
    tag_len: usize,
    data: Vec<u8>,
    cpu: Box<dyn Stream>,
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
                    .seal_in_place(&self.iv, &self.aad, &mut self.data)
                    .map_err(gpu_error)?;
                out.extend_from_slice(&self.data);
                out.extend_from_slice(&tag[..self.tag_len]);
                Ok(())
            }
            Op::Decrypt => {
                if self.data.len() < self.tag_len {
                    // The CPU stream words this error.
                    let data = std::mem::take(&mut self.data);
                    self.cpu.update(&data, out)?;
                    return self.cpu.finish(out);
                }
                let n = self.data.len() - self.tag_len;
                let (body, tag) = self.data.split_at_mut(n);
                let tag = tag.to_vec();
                match self.gcm.open_in_place(&self.iv, &self.aad, body, &tag) {
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
