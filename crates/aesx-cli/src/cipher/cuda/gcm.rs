//! GCM on the GPU, one-shot over the gathered input.

use super::super::gcm::GcmJob;
use super::super::{Op, Stream};
use super::BulkGcm;
use crate::backend_arg::gpu_error;
use crate::CommandError;

/// GCM on the GPU: the whole message in memory, as on the CPU, so that
/// nothing is written before the tag is checked.
pub(super) struct GpuGcm {
    pub(super) gcm: Box<dyn BulkGcm>,
    pub(super) op: Op,
    pub(super) iv: Vec<u8>,
    pub(super) aad: Vec<u8>,
    pub(super) tag_len: usize,
    pub(super) data: Vec<u8>,
    pub(super) cpu: Box<GcmJob>,
}

impl Drop for GpuGcm {
    fn drop(&mut self) {
        self.data.fill(0);
    }
}

impl Stream for GpuGcm {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        self.cpu.check_len(len)
    }

    fn update(&mut self, input: &[u8], _out: &mut Vec<u8>) -> Result<(), CommandError> {
        self.cpu
            .check_len(self.data.len() as u64 + input.len() as u64)?;
        self.data.extend_from_slice(input);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError> {
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
                        Err(CommandError::failure(format!(
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
