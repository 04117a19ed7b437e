//! ECB, CBC decryption and CTR on the GPU: whole blocks in bulk, the last
//! (padded) block and the partial CTR block on the host.

use aesx::{Block, Cbc, Ecb, Padding};

use super::super::blockwise::BlockOp;
use super::super::{Op, Stream};
use super::BulkAes;
use crate::backend_arg::gpu_error;
use crate::CommandError;

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

pub(super) struct GpuEcb {
    pub(super) aes: Box<dyn BulkAes>,
    pub(super) cpu: Ecb,
}

impl BlockOp for GpuEcb {
    fn blocks(&mut self, op: Op, buf: &mut [u8]) -> aesx::Result<()> {
        self.aes.ecb(op == Op::Decrypt, buf).map_err(aes_err)
    }

    fn last(&mut self, op: Op, piece: &[u8], out: &mut [u8]) -> aesx::Result<usize> {
        match op {
            Op::Encrypt => self.cpu.encrypt(piece, out, Padding::Pkcs7),
            Op::Decrypt => self.cpu.decrypt(piece, out, Padding::Pkcs7),
        }
    }
}

pub(super) struct GpuCbcDec {
    pub(super) aes: Box<dyn BulkAes>,
    pub(super) cpu: Cbc,
    pub(super) chain: Block,
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

    fn last(&mut self, _op: Op, piece: &[u8], out: &mut [u8]) -> aesx::Result<usize> {
        self.cpu.decrypt(&self.chain, piece, out, Padding::Pkcs7)
    }
}

/// CTR as one stream: whole blocks on the GPU from the running counter; a
/// partial block keeps the rest of its keystream for the next call.
pub(super) struct GpuCtr {
    pub(super) aes: Box<dyn BulkAes>,
    pub(super) ctr: aesx_cuda::CtrStream,
}

impl Stream for GpuCtr {
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
        let start = out.len();
        out.extend_from_slice(input);
        let aes = &self.aes;
        self.ctr
            .apply(&mut out[start..], |c, blocks| aes.ctr(c, blocks))
            .map_err(gpu_error)
    }

    fn finish(&mut self, _out: &mut Vec<u8>) -> Result<(), CommandError> {
        self.ctr.wipe();
        Ok(())
    }
}
