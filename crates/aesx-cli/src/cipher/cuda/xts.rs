//! XTS on the GPU: one data unit with a given tweak, or whole sectors in
//! batches from a sector number.

use super::super::{Op, Stream};
use super::BulkXts;
use crate::backend_arg::gpu_error;
use crate::CommandError;

/// What one XTS call covers.
pub enum XtsShape {
    /// One data unit under this tweak.
    Unit([u8; 16]),
    /// Whole sectors of `size` bytes, the first numbered `next`.
    Sectors { size: usize, next: u128 },
}

/// XTS on the GPU; length rules and messages are the CPU stream's (it sees
/// the same input, without doing any AES, through `check_len`).
pub(super) struct GpuXts {
    pub(super) xts: Box<dyn BulkXts>,
    pub(super) op: Op,
    pub(super) shape: XtsShape,
    pub(super) buf: Vec<u8>,
    /// Input bytes seen, for the CPU stream's length messages.
    pub(super) seen: u64,
    pub(super) batch: usize,
    pub(super) cpu: Box<dyn Stream>,
}

impl GpuXts {
    fn flush_sectors(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
        let XtsShape::Sectors { size, next } = self.shape else {
            return Ok(());
        };
        let count = self.buf.len() / size;
        if count == 0 {
            return Ok(());
        }
        let mut whole: Vec<u8> = self.buf.drain(..count * size).collect();
        self.xts
            .xts(self.op == Op::Decrypt, &self.shape, &mut whole)
            .map_err(gpu_error)?;
        out.extend_from_slice(&whole);
        self.shape = XtsShape::Sectors {
            size,
            next: next
                .checked_add(count as u128)
                .ok_or_else(|| CommandError::failure("xts: sector numbers pass 2^128 - 1"))?,
        };
        Ok(())
    }
}

impl Stream for GpuXts {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError> {
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

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
        match self.shape {
            XtsShape::Unit(_) => {
                self.cpu.check_len(self.buf.len() as u64)?;
                let mut unit = std::mem::take(&mut self.buf);
                self.xts
                    .xts(self.op == Op::Decrypt, &self.shape, &mut unit)
                    .map_err(gpu_error)?;
                out.extend_from_slice(&unit);
                Ok(())
            }
            XtsShape::Sectors { .. } => {
                self.flush_sectors(out)?;
                if !self.buf.is_empty() {
                    return self.cpu.check_len(self.seen).and(Err(CommandError::failure(
                        "xts: the input is not a whole number of sectors",
                    )));
                }
                Ok(())
            }
        }
    }
}
