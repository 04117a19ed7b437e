//! ECB, CTR and CBC decryption on the GPU, for host and device memory.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use crate::device::Gpu;
use crate::error::{CudaError, Result};
use crate::key_schedule;
use crate::plan;

/// An AES key on the GPU: the expanded schedule in device memory, zeroed
/// when dropped.
pub struct CudaAes {
    pub(crate) gpu: Gpu,
    rk: CudaSlice<u32>,
    pub(crate) rk_ptr: u64,
    pub(crate) nr: i32,
    key_size: aesx::KeySize,
}

impl core::fmt::Debug for CudaAes {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CudaAes")
            .field("key_size", &self.key_size)
            .finish_non_exhaustive()
    }
}

impl Drop for CudaAes {
    fn drop(&mut self) {
        let stream = &self.gpu.inner.stream;
        let _ = stream.memset_zeros(&mut self.rk);
        let _ = stream.synchronize();
    }
}

/// Checks that a device buffer belongs to this GPU's context.
pub(crate) fn same_context(gpu: &Gpu, ctx: &Arc<cudarc::driver::CudaContext>) -> Result<()> {
    if Arc::ptr_eq(ctx, &gpu.inner.ctx) {
        Ok(())
    } else {
        Err(CudaError::Driver(
            "device buffer belongs to another CUDA context".into(),
        ))
    }
}

fn whole_blocks(len: usize) -> Result<u64> {
    if !len.is_multiple_of(16) {
        return Err(aesx::Error::NotBlockAligned { len }.into());
    }
    Ok((len / 16) as u64)
}

impl CudaAes {
    /// Expands `key` (16, 24 or 32 bytes) on the host, constant-time, and
    /// uploads the schedule.
    pub fn new(gpu: &Gpu, key: &[u8]) -> Result<CudaAes> {
        let rk = key_schedule::expand(key)?;
        let stream = &gpu.inner.stream;
        let words = rk.rounds as usize * 4 + 4;
        let dev = stream.clone_htod(&rk.words[..words])?;
        let rk_ptr = dev.device_ptr(stream).0;
        stream.synchronize()?;
        Ok(CudaAes {
            gpu: gpu.clone(),
            rk: dev,
            rk_ptr,
            nr: rk.rounds as i32,
            key_size: aesx::KeySize::from_len(key.len())?,
        })
    }

    /// The key size.
    pub fn key_size(&self) -> aesx::KeySize {
        self.key_size
    }

    /// The GPU this key lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    // ---- data in device memory (queued on `Gpu::stream`) ----

    fn ecb_device(&self, decrypt: bool, buf: &mut CudaSlice<u8>) -> Result<()> {
        same_context(&self.gpu, buf.context())?;
        let n = whole_blocks(buf.len())?;
        let g = &self.gpu.inner;
        let (p, _record) = buf.device_ptr_mut(&g.stream);
        // SAFETY: the addresses come from the CudaSlices borrowed above (checked to be
        // of this context and of the lengths passed) and from this key's schedule;
        // their records order the work on g.stream, and neither is freed before it.
        unsafe { g.ecb(&g.stream, decrypt, p, p, n, self.rk_ptr, self.nr) }
    }

    /// ECB encryption in place of whole blocks in device memory.
    pub fn ecb_encrypt_device(&self, buf: &mut CudaSlice<u8>) -> Result<()> {
        self.ecb_device(false, buf)
    }

    /// ECB decryption in place of whole blocks in device memory.
    pub fn ecb_decrypt_device(&self, buf: &mut CudaSlice<u8>) -> Result<()> {
        self.ecb_device(true, buf)
    }

    /// CTR in place over device memory of any length, from `counter` (a
    /// 128-bit big-endian counter, wrapping modulo 2^128).
    pub fn ctr_apply_device(&self, counter: &[u8; 16], buf: &mut CudaSlice<u8>) -> Result<()> {
        same_context(&self.gpu, buf.context())?;
        let g = &self.gpu.inner;
        let len = buf.len() as u64;
        let (p, _record) = buf.device_ptr_mut(&g.stream);
        // SAFETY: the addresses come from the CudaSlices borrowed above (checked to be
        // of this context and of the lengths passed) and from this key's schedule;
        // their records order the work on g.stream, and neither is freed before it.
        unsafe { g.ctr(&g.stream, p, p, len, self.rk_ptr, self.nr, counter, false) }
    }

    /// CTR from `src` into `dst` (same length) in device memory.
    pub fn ctr_apply_device_to(
        &self,
        counter: &[u8; 16],
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
    ) -> Result<()> {
        same_context(&self.gpu, src.context())?;
        same_context(&self.gpu, dst.context())?;
        if src.len() != dst.len() {
            return Err(aesx::Error::LengthMismatch {
                input: src.len(),
                output: dst.len(),
            }
            .into());
        }
        let g = &self.gpu.inner;
        let (s, _r1) = src.device_ptr(&g.stream);
        let (d, _r2) = dst.device_ptr_mut(&g.stream);
        // SAFETY: the addresses come from the CudaSlices borrowed above (checked to be
        // of this context and of the lengths passed) and from this key's schedule;
        // their records order the work on g.stream, and neither is freed before it.
        unsafe {
            g.ctr(
                &g.stream,
                s,
                d,
                src.len() as u64,
                self.rk_ptr,
                self.nr,
                counter,
                false,
            )
        }
    }

    /// CBC decryption from `src` into `dst` (distinct buffers of the same
    /// length, whole blocks) in device memory.
    pub fn cbc_decrypt_device(
        &self,
        iv: &[u8; 16],
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
    ) -> Result<()> {
        same_context(&self.gpu, src.context())?;
        same_context(&self.gpu, dst.context())?;
        if src.len() != dst.len() {
            return Err(aesx::Error::LengthMismatch {
                input: src.len(),
                output: dst.len(),
            }
            .into());
        }
        let n = whole_blocks(src.len())?;
        let g = &self.gpu.inner;
        let (s, _r1) = src.device_ptr(&g.stream);
        let (d, _r2) = dst.device_ptr_mut(&g.stream);
        // SAFETY: the addresses come from the CudaSlices borrowed above (checked to be
        // of this context and of the lengths passed) and from this key's schedule;
        // their records order the work on g.stream, and neither is freed before it.
        unsafe { g.cbc_decrypt(&g.stream, s, d, n, self.rk_ptr, self.nr, iv) }
    }

    // ---- data in host memory (pipelined, synchronous) ----

    fn ecb_host(&self, decrypt: bool, buf: &mut [u8]) -> Result<()> {
        whole_blocks(buf.len())?;
        let g = &self.gpu.inner;
        g.staging.run(
            &g.ctx,
            buf,
            0,
            |slot, chunk| {
                // SAFETY: the slot's device buffers hold capacity >= chunk.len bytes and live
                // as long as the staging; the pipeline synchronises the slot's stream
                // before it reuses or frees them; rk_ptr is this key's live schedule.
                unsafe {
                    g.ecb(
                        &slot.stream,
                        decrypt,
                        slot.d_in,
                        slot.d_out,
                        (chunk.len / 16) as u64,
                        self.rk_ptr,
                        self.nr,
                    )
                }
            },
            |_, _| Ok(()),
        )
    }

    /// ECB encryption in place of whole blocks in host memory.
    pub fn ecb_encrypt(&self, buf: &mut [u8]) -> Result<()> {
        self.ecb_host(false, buf)
    }

    /// ECB decryption in place of whole blocks in host memory.
    pub fn ecb_decrypt(&self, buf: &mut [u8]) -> Result<()> {
        self.ecb_host(true, buf)
    }

    /// CTR in place over host memory of any length, from `counter`.
    pub fn ctr_apply(&self, counter: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        self.ctr_host(counter, false, buf)
    }

    pub(crate) fn ctr_host(&self, counter: &[u8; 16], ctr32: bool, buf: &mut [u8]) -> Result<()> {
        let g = &self.gpu.inner;
        g.staging.run(
            &g.ctx,
            buf,
            0,
            |slot, chunk| {
                let c = plan::chunk_counter(counter, chunk, ctr32);
                // SAFETY: the slot's device buffers hold capacity >= chunk.len bytes and live
                // as long as the staging; the pipeline synchronises the slot's stream
                // before it reuses or frees them; rk_ptr is this key's live schedule.
                unsafe {
                    g.ctr(
                        &slot.stream,
                        slot.d_in,
                        slot.d_out,
                        chunk.len as u64,
                        self.rk_ptr,
                        self.nr,
                        &c,
                        ctr32,
                    )
                }
            },
            |_, _| Ok(()),
        )
    }

    /// CBC decryption in place of whole blocks in host memory.
    pub fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        whole_blocks(buf.len())?;
        let g = &self.gpu.inner;
        // Chunk k chains from the last ciphertext block of chunk k-1: take
        // them all before the buffer is overwritten.
        let chunk_len = g.staging.chunk_len;
        let ivs: Vec<[u8; 16]> = plan::split_chunks(buf.len(), chunk_len)?
            .iter()
            .map(|c| {
                if c.offset == 0 {
                    *iv
                } else {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(&buf[c.offset - 16..c.offset]);
                    b
                }
            })
            .collect();
        g.staging.run(
            &g.ctx,
            buf,
            chunk_len,
            |slot, chunk| {
                // SAFETY: the slot's device buffers hold capacity >= chunk.len bytes and live
                // as long as the staging; the pipeline synchronises the slot's stream
                // before it reuses or frees them; rk_ptr is this key's live schedule.
                unsafe {
                    g.cbc_decrypt(
                        &slot.stream,
                        slot.d_in,
                        slot.d_out,
                        (chunk.len / 16) as u64,
                        self.rk_ptr,
                        self.nr,
                        &ivs[chunk.index],
                    )
                }
            },
            |_, _| Ok(()),
        )
    }
}
