//! ECB, CTR and CBC decryption on the GPU, for host and device memory.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use crate::device::CipherLaunch;
use crate::device::Gpu;
use crate::error::{CudaError, Result};
use crate::key_schedule;
use crate::pipeline::Slot;
use crate::plan::{self, Chunk};

/// An AES key on the GPU: the expanded schedule in device memory, as the
/// bitsliced kernels' masks and as plain words, zeroed when dropped.
pub struct CudaAes {
    pub(crate) gpu: Gpu,
    masks: CudaSlice<u32>,
    /// The round-key masks (128 words per round; the encryption schedule,
    /// then the equivalent inverse cipher's) that every bitsliced kernel
    /// takes.
    pub(crate) rk_ptr: u64,
    words: CudaSlice<u32>,
    /// The round keys as 4 words per round: only the T-table comparison
    /// kernel of the benchmark reads them.
    pub(crate) words_ptr: u64,
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
        let _ = stream.memset_zeros(&mut self.masks);
        let _ = stream.memset_zeros(&mut self.words);
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

/// Checks an out-of-place pair of device buffers: both of this GPU's
/// context, of the same length.
fn same_pair(gpu: &Gpu, src: &CudaSlice<u8>, dst: &CudaSlice<u8>) -> Result<()> {
    same_context(gpu, src.context())?;
    same_context(gpu, dst.context())?;
    if src.len() != dst.len() {
        return Err(aesx::Error::LengthMismatch {
            input: src.len(),
            output: dst.len(),
        }
        .into());
    }
    Ok(())
}

impl CudaAes {
    /// Expands `key` (16, 24 or 32 bytes) on the host, constant-time, and
    /// uploads the schedule.
    pub fn new(gpu: &Gpu, key: &[u8]) -> Result<CudaAes> {
        let rk = key_schedule::expand(key)?;
        let stream = &gpu.inner.stream;
        let nwords = rk.rounds as usize * 4 + 4;
        let host_masks = rk.masks();
        let masks = stream.clone_htod(&host_masks.masks[..])?;
        let rk_ptr = masks.device_ptr(stream).0;
        let words = stream.clone_htod(&rk.words[..nwords])?;
        let words_ptr = words.device_ptr(stream).0;
        // The copies read host memory that is zeroized when this returns.
        stream.synchronize()?;
        Ok(CudaAes {
            gpu: gpu.clone(),
            masks,
            rk_ptr,
            words,
            words_ptr,
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

    /// Queues on the device stream the launch that `launch` builds over
    /// `buf`'s address, in place (`launch` takes its sizes from `buf`).
    fn device_in_place(
        &self,
        buf: &mut CudaSlice<u8>,
        launch: impl FnOnce(u64, u64) -> CipherLaunch,
    ) -> Result<()> {
        same_context(&self.gpu, buf.context())?;
        let g = &self.gpu.inner;
        let len = buf.len() as u64;
        let (p, _record) = buf.device_ptr_mut(&g.stream);
        // SAFETY: the address comes from the CudaSlice borrowed above (checked to be
        // of this context; every caller sizes the launch from its length) and the
        // launch's schedule is this key's; the record orders the work on g.stream,
        // and the buffer is not freed before it.
        unsafe { g.cipher(&g.stream, launch(p, len)) }
    }

    /// Queues on the device stream the launch that `launch` builds from
    /// `src`'s address into `dst`'s (same length, `launch` takes its sizes
    /// from `src`).
    fn device_to(
        &self,
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
        launch: impl FnOnce(u64, u64) -> CipherLaunch,
    ) -> Result<()> {
        same_pair(&self.gpu, src, dst)?;
        let g = &self.gpu.inner;
        let (s, _r1) = src.device_ptr(&g.stream);
        let (d, _r2) = dst.device_ptr_mut(&g.stream);
        // SAFETY: the addresses come from the CudaSlices borrowed above (checked to be
        // of this context and of one length, from which every caller sizes the
        // launch) and the launch's schedule is this key's; their records order the
        // work on g.stream, and neither is freed before it.
        unsafe { g.cipher(&g.stream, launch(s, d)) }
    }

    fn ecb_device(&self, decrypt: bool, buf: &mut CudaSlice<u8>) -> Result<()> {
        let n = plan::whole_blocks(buf.len())?;
        self.device_in_place(buf, |p, _| {
            CipherLaunch::ecb(decrypt, p, p, n, self.rk_ptr, self.nr)
        })
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
        self.device_in_place(buf, |p, len| {
            CipherLaunch::ctr(p, p, len, self.rk_ptr, self.nr, counter, false)
        })
    }

    /// CTR from `src` into `dst` (same length) in device memory.
    pub fn ctr_apply_device_to(
        &self,
        counter: &[u8; 16],
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
    ) -> Result<()> {
        let len = src.len() as u64;
        self.device_to(src, dst, |s, d| {
            CipherLaunch::ctr(s, d, len, self.rk_ptr, self.nr, counter, false)
        })
    }

    /// CBC decryption from `src` into `dst` (distinct buffers of the same
    /// length, whole blocks) in device memory.
    pub fn cbc_decrypt_device(
        &self,
        iv: &[u8; 16],
        src: &CudaSlice<u8>,
        dst: &mut CudaSlice<u8>,
    ) -> Result<()> {
        let n = plan::whole_blocks(src.len())?;
        self.device_to(src, dst, |s, d| {
            CipherLaunch::cbc_decrypt(s, d, n, self.rk_ptr, self.nr, iv)
        })
    }

    // ---- data in host memory (pipelined, synchronous) ----

    /// Runs `buf` through the staging pipeline in chunks of `chunk_len`
    /// bytes (0: the slots' capacity), each chunk one launch that `launch`
    /// builds from the slot's `d_in` into its `d_out`.
    fn host_run(
        &self,
        buf: &mut [u8],
        chunk_len: usize,
        launch: impl Fn(&Slot, &Chunk) -> CipherLaunch,
    ) -> Result<()> {
        let g = &self.gpu.inner;
        g.staging.run(
            &g.ctx,
            buf,
            chunk_len,
            |slot, chunk| {
                // SAFETY: the slot's device buffers hold capacity >= chunk.len
                // bytes (the sizes every caller's launch takes from the chunk)
                // and live as long as the staging; the pipeline synchronises
                // the slot's stream before it reuses or frees them; rk_ptr is
                // this key's live schedule.
                unsafe { g.cipher(&slot.stream, launch(slot, chunk)) }
            },
            |_, _| Ok(()),
        )
    }

    /// The CTR launch of one pipeline chunk, from the slot's `d_in` into its
    /// `d_out`, with the counter advanced to the chunk's first block (GCM
    /// launches it too, before its GHASH tree).
    pub(crate) fn ctr_chunk(
        &self,
        slot: &Slot,
        chunk: &Chunk,
        counter: &[u8; 16],
        ctr32: bool,
    ) -> CipherLaunch {
        let c = plan::chunk_counter(counter, chunk, ctr32);
        CipherLaunch::ctr(
            slot.d_in,
            slot.d_out,
            chunk.len as u64,
            self.rk_ptr,
            self.nr,
            &c,
            ctr32,
        )
    }

    fn ecb_host(&self, decrypt: bool, buf: &mut [u8]) -> Result<()> {
        plan::whole_blocks(buf.len())?;
        self.host_run(buf, 0, |slot, chunk| {
            let n = (chunk.len / 16) as u64;
            CipherLaunch::ecb(decrypt, slot.d_in, slot.d_out, n, self.rk_ptr, self.nr)
        })
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
        self.host_run(buf, 0, |slot, chunk| {
            self.ctr_chunk(slot, chunk, counter, ctr32)
        })
    }

    /// CBC decryption in place of whole blocks in host memory.
    pub fn cbc_decrypt(&self, iv: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        plan::whole_blocks(buf.len())?;
        // Chunk k chains from the last ciphertext block of chunk k-1: take
        // them all before the buffer is overwritten.
        let chunk_len = self.gpu.inner.staging.chunk_len;
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
        self.host_run(buf, chunk_len, |slot, chunk| {
            let n = (chunk.len / 16) as u64;
            let iv = &ivs[chunk.index];
            CipherLaunch::cbc_decrypt(slot.d_in, slot.d_out, n, self.rk_ptr, self.nr, iv)
        })
    }
}
