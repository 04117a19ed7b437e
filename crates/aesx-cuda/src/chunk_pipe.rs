//! The file format's chunks through the GPU as a stream of batches, with
//! no host copy besides the caller's own reads and writes.
//!
//! A batch is up to `batch` chunks in the file's own layout: plaintext
//! chunks back to back when sealing, records of chunk and tag
//! ([`RECORD`] bytes, the last shorter) when opening. The caller reads its
//! input straight into a slot's page-locked input buffer
//! ([`ChunkPipe::input`]), submits it, and later takes the output from the
//! slot's page-locked output buffer, in submission order, already in the
//! file's layout: records when sealing (the device writes the ciphertext
//! rows with a 2-D copy leaving room for the tags, the host fills in the
//! tags), plaintext when opening (the device gathers the chunk bodies out
//! of the records with a 2-D copy first).
//!
//! Each slot has its own stream, so while the host fills one slot and
//! writes out another, the copy engines and kernels work on the others.
//! The tags are finished on the host from the per-chunk digests (E_K(J0)
//! for the whole batch in one call to the CPU cipher). Opening verifies
//! every tag before [`Done::verified`] says how many chunks may be
//! released; the plaintext of the others is zeroed.

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};

use crate::error::{CudaError, Result};
use crate::gcm::CudaGcm;
use crate::gcm_batch;
use crate::gcm_msgs::Msgs;

/// Bytes of a chunk's plaintext.
pub const CHUNK: usize = 16384;
/// Bytes of a chunk's record in the file: ciphertext and tag.
pub const RECORD: usize = CHUNK + 16;

/// Whether a pipe seals or opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Plaintext chunks in, records out.
    Seal,
    /// Records in, plaintext chunks out.
    Open,
}

struct Slot {
    stream: Arc<CudaStream>,
    /// Recorded after a batch's last copy back. Waiting on it blocks the
    /// thread in the driver (`CU_EVENT_BLOCKING_SYNC`) where waiting on
    /// the stream spins a core for as long as the GPU works: the GPU path
    /// is there to save CPU time.
    done: CudaEvent,
    h_in: PinnedHostSlice<u8>,
    h_out: PinnedHostSlice<u8>,
    /// Per-chunk digests back from the device, 16 bytes each.
    _h_dig: PinnedHostSlice<u8>,
    /// First counter blocks up to the device, 16 bytes each.
    _h_ctr: PinnedHostSlice<u8>,
    h_in_ptr: *mut u8,
    h_out_ptr: *mut u8,
    h_dig_ptr: *mut u8,
    h_ctr_ptr: *mut u8,
    /// The input as read (opening: records); sealing uses `d_data` only.
    d_raw: CudaSlice<u8>,
    /// Chunk bodies back to back, CHUNK bytes apart.
    d_data: CudaSlice<u8>,
    d_ctrs: CudaSlice<u8>,
    d_lvl1: CudaSlice<u8>,
    d_lvl2: CudaSlice<u8>,
}

/// A submitted batch.
struct Job {
    slot: usize,
    nchunks: usize,
    /// Bytes of input (the file layout).
    in_len: usize,
    /// Bytes of chunk bodies (plaintext or ciphertext without tags).
    body_len: usize,
    j0s: Vec<u8>,
    /// Opening: the tags read from the input records.
    tags: Vec<[u8; 16]>,
}

/// A pipeline of batches of file chunks through one GPU and key.
pub struct ChunkPipe<'k> {
    gcm: &'k CudaGcm,
    dir: Direction,
    batch: usize,
    slots: Vec<Slot>,
    jobs: VecDeque<Job>,
}

// SAFETY: the raw pointers point into the pinned allocations owned by the
// same Slot; a ChunkPipe is used through &mut self only.
unsafe impl Send for ChunkPipe<'_> {}

/// A finished batch, borrowed from its slot until dropped.
pub struct Done<'p> {
    /// The output in the file's layout: records when sealing (all of
    /// them), plaintext when opening (all chunks, of which only the first
    /// `verified` are verified; the rest is zeroed).
    pub output: &'p [u8],
    /// Chunks whose tag verified (opening), or all chunks (sealing).
    pub verified: usize,
    /// Chunks in the batch.
    pub chunks: usize,
    /// The batch's input as submitted (for a caller that reopens a failed
    /// batch on the CPU to report its exact error).
    pub input: &'p [u8],
}

impl CudaGcm {
    /// A pipe of `slots` (at least 2) slots of `batch` chunks each, for the
    /// file format's 16 KiB chunks.
    pub fn chunk_pipe(&self, dir: Direction, batch: usize, slots: usize) -> Result<ChunkPipe<'_>> {
        if batch == 0 || slots < 2 {
            return Err(CudaError::Driver(
                "a chunk pipe needs batch >= 1 and slots >= 2".into(),
            ));
        }
        let ctx = &self.aes.gpu.inner.ctx;
        let nruns = gcm_batch::runs_per_msg(CHUNK) as usize;
        let mut v = Vec::with_capacity(slots);
        for _ in 0..slots {
            let stream = ctx.new_stream()?;
            // SAFETY: every pinned buffer is written (by the caller, a DMA or
            // the host code below) before it is read; h_dig is zeroed.
            let (mut h_in, mut h_out, mut h_dig, mut h_ctr) = unsafe {
                (
                    ctx.alloc_pinned_with_flags::<u8>(batch * RECORD, 0)?,
                    ctx.alloc_pinned_with_flags::<u8>(batch * RECORD, 0)?,
                    ctx.alloc_pinned_with_flags::<u8>(16 * batch, 0)?,
                    ctx.alloc_pinned_with_flags::<u8>(16 * batch, 0)?,
                )
            };
            h_dig.as_mut_slice()?.fill(0);
            let h_in_ptr = h_in.as_mut_ptr()?;
            // The caller reads input into it: never hand out stale bytes of
            // another batch or uninitialised memory.
            // SAFETY: h_in_ptr is batch * RECORD bytes just allocated.
            unsafe { std::ptr::write_bytes(h_in_ptr, 0, batch * RECORD) };
            let h_out_ptr = h_out.as_mut_ptr()?;
            // SAFETY: h_out_ptr is batch * RECORD bytes just allocated.
            unsafe { std::ptr::write_bytes(h_out_ptr, 0, batch * RECORD) };
            let h_dig_ptr = h_dig.as_mut_ptr()?;
            let h_ctr_ptr = h_ctr.as_mut_ptr()?;
            v.push(Slot {
                d_raw: stream.alloc_zeros::<u8>(if dir == Direction::Open {
                    batch * RECORD
                } else {
                    16
                })?,
                d_data: stream.alloc_zeros::<u8>(batch * CHUNK)?,
                d_ctrs: stream.alloc_zeros::<u8>(16 * batch)?,
                d_lvl1: stream.alloc_zeros::<u8>(16 * batch * nruns)?,
                d_lvl2: stream.alloc_zeros::<u8>(16 * batch)?,
                done: ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_BLOCKING_SYNC))?,
                stream,
                h_in,
                h_out,
                _h_dig: h_dig,
                _h_ctr: h_ctr,
                h_in_ptr,
                h_out_ptr,
                h_dig_ptr,
                h_ctr_ptr,
            });
        }
        for s in &v {
            s.stream.synchronize()?;
        }
        Ok(ChunkPipe {
            gcm: self,
            dir,
            batch,
            slots: v,
            jobs: VecDeque::new(),
        })
    }
}

impl ChunkPipe<'_> {
    /// Chunks per batch.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Whether every slot holds a submitted batch: take one first.
    pub fn is_full(&self) -> bool {
        self.jobs.len() == self.slots.len()
    }

    /// Whether no batch is waiting to be taken.
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
    }

    /// Whether the oldest submitted batch has finished on the device (its
    /// event), so that [`take`](Self::take) will not wait for it (`false`
    /// when nothing is queued). A failed query says `true`: `take` then
    /// reports it.
    pub fn is_ready(&self) -> bool {
        let Some(job) = self.jobs.front() else {
            return false;
        };
        self.slots[job.slot].done.try_is_complete().unwrap_or(true)
    }

    fn next_slot(&self) -> usize {
        match self.jobs.front() {
            Some(j) => (j.slot + self.jobs.len()) % self.slots.len(),
            None => 0,
        }
    }

    /// The input buffer of the next free slot (`batch` chunks or records
    /// long), for the caller to fill and [`submit`](Self::submit).
    pub fn input(&mut self) -> Result<&mut [u8]> {
        if self.is_full() {
            return Err(CudaError::Driver(
                "chunk pipe full: take a batch first".into(),
            ));
        }
        let s = &self.slots[self.next_slot()];
        // SAFETY: the slot is free (no job uses it, so no DMA reads its
        // h_in); h_in is batch * RECORD bytes, borrowed through &mut self.
        Ok(unsafe { std::slice::from_raw_parts_mut(s.h_in_ptr, self.batch * RECORD) })
    }

    /// Queues the first `len` bytes of the input buffer as one batch whose
    /// chunks have `nonces` (one per chunk; the last chunk may be short, or
    /// empty when sealing the end of a stream).
    pub fn submit(&mut self, len: usize, nonces: &[[u8; 12]]) -> Result<()> {
        if self.is_full() {
            return Err(CudaError::Driver(
                "chunk pipe full: take a batch first".into(),
            ));
        }
        let n = nonces.len();
        if n == 0 || n > self.batch {
            return Err(CudaError::Driver("chunks per batch out of range".into()));
        }
        let body_len = match self.dir {
            Direction::Seal => len,
            Direction::Open => {
                // Every record holds at least its tag; all but the last whole.
                let full = (n - 1) * RECORD;
                if len < full + 16 || len - full > RECORD {
                    return Err(aesx::Error::LengthMismatch {
                        input: len,
                        output: n * RECORD,
                    }
                    .into());
                }
                len - 16 * n
            }
        };
        gcm_batch::check_layout(n, CHUNK, body_len)?;
        let slot_i = self.next_slot();
        let gcm = self.gcm;
        let s = &self.slots[slot_i];
        let j0s = gcm_batch::j0s(gcm.h, nonces);
        let ctrs = gcm_batch::first_counters(&j0s);
        // SAFETY: h_ctr is 16 * batch bytes and the slot is free (no DMA
        // reads it); n <= batch.
        unsafe { std::ptr::copy_nonoverlapping(ctrs.as_ptr(), s.h_ctr_ptr, ctrs.len()) };
        let mut tags = Vec::new();
        if self.dir == Direction::Open {
            // SAFETY: the caller filled len bytes of h_in; no DMA uses it yet.
            let input = unsafe { std::slice::from_raw_parts(s.h_in_ptr, len) };
            for i in 0..n {
                let end = ((i + 1) * RECORD).min(len);
                let mut t = [0u8; 16];
                t.copy_from_slice(&input[end - 16..end]);
                tags.push(t);
            }
        }
        let g = &gcm.aes.gpu.inner;
        g.ctx.bind_to_thread()?;
        let st = &s.stream;
        let cu = st.cu_stream();
        let (d_data, _r1) = s.d_data.device_ptr(st);
        let (d_raw, _r2) = s.d_raw.device_ptr(st);
        let (d_ctrs, _r3) = s.d_ctrs.device_ptr(st);
        let (d_lvl1, _r4) = s.d_lvl1.device_ptr(st);
        let (d_lvl2, _r5) = s.d_lvl2.device_ptr(st);
        let run = || -> Result<()> {
            // SAFETY: for every copy and launch below, the host pointers are the
            // slot's pinned buffers (h_in: len <= batch * RECORD bytes filled
            // by the caller; h_ctr: 16 n bytes), the device buffers hold
            // batch chunks or records, all owned by the slot and untouched
            // by the host until take() synchronises the stream.
            unsafe {
                let ctr_src = std::slice::from_raw_parts(s.h_ctr_ptr, 16 * n);
                cudarc::driver::result::memcpy_htod_async(d_ctrs, ctr_src, cu)?;
                let input = std::slice::from_raw_parts(s.h_in_ptr, len);
                match self.dir {
                    Direction::Seal => {
                        if len > 0 {
                            cudarc::driver::result::memcpy_htod_async(d_data, input, cu)?;
                        }
                    }
                    Direction::Open => {
                        cudarc::driver::result::memcpy_htod_async(d_raw, input, cu)?;
                        // Bodies out of the records: whole ones as rows of a
                        // 2-D copy, the last (possibly short) one apart.
                        let last = len - (n - 1) * RECORD - 16;
                        copy_2d(d_raw, RECORD, To::Device(d_data), CHUNK, CHUNK, n - 1, cu)?;
                        copy_2d(
                            d_raw + ((n - 1) * RECORD) as u64,
                            RECORD,
                            To::Device(d_data + ((n - 1) * CHUNK) as u64),
                            CHUNK,
                            last,
                            1,
                            cu,
                        )?;
                    }
                }
                if body_len > 0 {
                    let m = Msgs {
                        data: d_data,
                        len: body_len as u64,
                        stride: CHUNK,
                        nmsgs: n as u64,
                        ctrs: d_ctrs,
                        lvl1: d_lvl1,
                        lvl2: d_lvl2,
                    };
                    gcm.enqueue_msgs(st, &m, self.dir == Direction::Seal)?;
                    let dig = std::slice::from_raw_parts_mut(s.h_dig_ptr, 16 * n);
                    cudarc::driver::result::memcpy_dtoh_async(dig, d_lvl2, cu)?;
                }
                match self.dir {
                    Direction::Seal => {
                        // Ciphertext rows with a tag's room between them.
                        let last = body_len - (n - 1) * CHUNK;
                        copy_2d(
                            d_data,
                            CHUNK,
                            To::Host(s.h_out_ptr),
                            RECORD,
                            CHUNK,
                            n - 1,
                            cu,
                        )?;
                        copy_2d(
                            d_data + ((n - 1) * CHUNK) as u64,
                            CHUNK,
                            To::Host(s.h_out_ptr.add((n - 1) * RECORD)),
                            RECORD,
                            last,
                            1,
                            cu,
                        )?;
                    }
                    Direction::Open => {
                        if body_len > 0 {
                            let out = std::slice::from_raw_parts_mut(s.h_out_ptr, body_len);
                            cudarc::driver::result::memcpy_dtoh_async(out, d_data, cu)?;
                        }
                    }
                }
            }
            Ok(())
        };
        if let Err(e) = run().and_then(|()| Ok(s.done.record(st)?)) {
            // Leave no DMA running on the slot's buffers.
            let _ = st.synchronize();
            return Err(e);
        }
        self.jobs.push_back(Job {
            slot: slot_i,
            nchunks: n,
            in_len: len,
            body_len,
            j0s,
            tags,
        });
        Ok(())
    }

    /// Waits for the oldest submitted batch and finishes it (tags written
    /// when sealing, verified when opening); `None` when nothing is queued.
    pub fn take(&mut self) -> Result<Option<Done<'_>>> {
        let Some(job) = self.jobs.pop_front() else {
            return Ok(None);
        };
        let s = &self.slots[job.slot];
        s.done.synchronize()?;
        let n = job.nchunks;
        let gcm = self.gcm;
        // E_K(J0) of every chunk in one call to the CPU cipher.
        let mut ek = job.j0s.clone();
        gcm.cpu.encrypt_blocks(&mut ek)?;
        let digests = if job.body_len > 0 {
            // SAFETY: the stream is synchronised: the DMA into h_dig (16 n
            // bytes) is complete.
            unsafe { std::slice::from_raw_parts(s.h_dig_ptr, 16 * n) }.to_vec()
        } else {
            // P(empty; H) = 0 for the one empty chunk.
            vec![0u8; 16 * n]
        };
        let want = gcm_batch::tags(gcm.h, &[], CHUNK, job.body_len, &digests, &ek);
        // SAFETY: synchronised above; h_out holds batch * RECORD bytes and
        // h_in the job's input; both borrowed through &mut self until the
        // Done is dropped.
        let (out, input) = unsafe {
            (
                std::slice::from_raw_parts_mut(s.h_out_ptr, self.batch * RECORD),
                std::slice::from_raw_parts(s.h_in_ptr, job.in_len),
            )
        };
        Ok(Some(match self.dir {
            Direction::Seal => {
                for (i, t) in want.iter().enumerate() {
                    let end = (i * RECORD + CHUNK).min(job.body_len + 16 * i);
                    out[end..end + 16].copy_from_slice(t);
                }
                Done {
                    output: &out[..job.in_len + 16 * n],
                    verified: n,
                    chunks: n,
                    input,
                }
            }
            Direction::Open => {
                let ok = gcm_batch::verified_prefix(&want, &job.tags);
                let valid = (ok * CHUNK).min(job.body_len);
                out[valid..job.body_len].fill(0);
                Done {
                    output: &out[..job.body_len],
                    verified: ok,
                    chunks: n,
                    input,
                }
            }
        }))
    }
}

impl Drop for ChunkPipe<'_> {
    fn drop(&mut self) {
        // No DMA may run into buffers being freed; wipe what held plaintext
        // or keystream-derived data.
        for s in &mut self.slots {
            let _ = s.stream.synchronize();
            if let Ok(b) = s.h_in.as_mut_slice() {
                zeroize::Zeroize::zeroize(b);
            }
            if let Ok(b) = s.h_out.as_mut_slice() {
                zeroize::Zeroize::zeroize(b);
            }
            let _ = s.stream.memset_zeros(&mut s.d_data);
            let _ = s.stream.memset_zeros(&mut s.d_raw);
            let _ = s.stream.synchronize();
        }
    }
}

/// Where a 2-D copy writes: device memory, or page-locked host memory.
#[derive(Clone, Copy)]
enum To {
    Device(u64),
    Host(*mut u8),
}

/// A 2-D copy of `rows` rows of `width` bytes out of device memory at
/// `src` (rows `src_pitch` apart) to `dst` (rows `dst_pitch` apart).
///
/// # Safety
///
/// Both sides hold the rows at their pitches, alive until `cu` is
/// synchronised; host memory is page-locked.
unsafe fn copy_2d(
    src: u64,
    src_pitch: usize,
    dst: To,
    dst_pitch: usize,
    width: usize,
    rows: usize,
    cu: sys::CUstream,
) -> Result<()> {
    if rows == 0 || width == 0 {
        return Ok(());
    }
    let mut c = sys::CUDA_MEMCPY2D {
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcDevice: src,
        srcPitch: src_pitch,
        dstPitch: dst_pitch,
        WidthInBytes: width,
        Height: rows,
        ..blank_2d()
    };
    match dst {
        To::Device(d) => {
            c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE;
            c.dstDevice = d;
        }
        To::Host(h) => {
            c.dstMemoryType = sys::CUmemorytype::CU_MEMORYTYPE_HOST;
            c.dstHost = h.cast();
        }
    }
    // SAFETY: the descriptor names live buffers of the sizes it gives (this
    // function's contract).
    unsafe { sys::cuMemcpy2DAsync_v2(&c, cu) }.result()?;
    Ok(())
}

fn blank_2d() -> sys::CUDA_MEMCPY2D {
    sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        srcHost: std::ptr::null(),
        srcDevice: 0,
        srcArray: std::ptr::null_mut(),
        srcPitch: 0,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: sys::CUmemorytype::CU_MEMORYTYPE_DEVICE,
        dstHost: std::ptr::null_mut(),
        dstDevice: 0,
        dstArray: std::ptr::null_mut(),
        dstPitch: 0,
        WidthInBytes: 0,
        Height: 0,
    }
}
