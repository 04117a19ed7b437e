//! Host data through the GPU in chunks: each of a few slots owns a stream,
//! pinned staging buffers and device buffers, so that while one chunk's
//! kernels run, the next chunk is copied in and the previous one out.
//!
//! Chunk i goes to slot i mod N. Before a slot is reused its stream is
//! synchronised, its result copied into the caller's buffer and handed to a
//! completion callback, which therefore sees chunks in order (GCM joins the
//! chunk digests in order).

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CU_MEMHOSTALLOC_WRITECOMBINED;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};

use crate::error::{CudaError, Result};
use crate::plan::{self, Chunk};

/// Slots in flight.
const SLOTS: usize = 3;
/// Bytes of the small pinned buffer for the last GHASH level (32 blocks).
pub(crate) const SMALL_LEN: usize = 16 * plan::GHASH_RUN as usize;

pub(crate) struct Slot {
    pub(crate) stream: Arc<CudaStream>,
    // The pinned buffers; their addresses are cached below.
    _h_in: PinnedHostSlice<u8>,
    _h_out: PinnedHostSlice<u8>,
    h_small: PinnedHostSlice<u8>,
    // Device buffers; their addresses are cached below.
    _d_in: CudaSlice<u8>,
    _d_out: CudaSlice<u8>,
    _d_aux: CudaSlice<u8>,
    h_in_ptr: *mut u8,
    h_out_ptr: *mut u8,
    h_small_ptr: *mut u8,
    /// Device address of the chunk's input, its output, and an auxiliary
    /// area of the chunk's size (XTS tweaks; GHASH levels in two halves).
    pub(crate) d_in: u64,
    pub(crate) d_out: u64,
    pub(crate) d_aux: u64,
    pub(crate) capacity: usize,
}

struct Slots {
    slots: Vec<Slot>,
}

// SAFETY: the raw pointers point into the pinned allocations owned by the
// same Slot; Slots is only used under Staging's mutex.
unsafe impl Send for Slots {}

/// The staging slots of the host-memory API of one GPU, made on first use.
pub(crate) struct Staging {
    slots: Mutex<Option<Slots>>,
    /// Bytes per chunk: the capacity of every slot's buffers.
    pub(crate) chunk_len: usize,
}

/// A slot whose stream was synchronised after its chunk's work: what the
/// DMA wrote into its pinned buffers may be read. Only [`Staging::run`]
/// makes one, for the completion step.
pub(crate) struct Finished<'a> {
    slot: &'a Slot,
}

impl Slot {
    fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Slot> {
        let stream = ctx.new_stream()?;
        // SAFETY: the pinned buffers are written (by a memcpy or a DMA)
        // before they are read; their contents start undefined.
        let (mut h_in, mut h_out, mut h_small) = unsafe {
            (
                // Write-combined: the CPU only writes it, the GPU reads it.
                ctx.alloc_pinned_with_flags::<u8>(capacity, CU_MEMHOSTALLOC_WRITECOMBINED)?,
                // Cached: the CPU reads results from these.
                ctx.alloc_pinned_with_flags::<u8>(capacity, 0)?,
                ctx.alloc_pinned_with_flags::<u8>(SMALL_LEN, 0)?,
            )
        };
        // Read back by the host (`Finished::small`) even where a fetch
        // filled less: never uninitialised.
        h_small.as_mut_slice()?.fill(0);
        let h_in_ptr = h_in.as_mut_ptr()?;
        let h_out_ptr = h_out.as_mut_ptr()?;
        let h_small_ptr = h_small.as_mut_ptr()?;
        let d_in_buf = stream.alloc_zeros::<u8>(capacity)?;
        let d_out_buf = stream.alloc_zeros::<u8>(capacity)?;
        let d_aux_buf = stream.alloc_zeros::<u8>(capacity)?;
        let d_in = d_in_buf.device_ptr(&stream).0;
        let d_out = d_out_buf.device_ptr(&stream).0;
        let d_aux = d_aux_buf.device_ptr(&stream).0;
        stream.synchronize()?;
        Ok(Slot {
            stream,
            _h_in: h_in,
            _h_out: h_out,
            h_small,
            _d_in: d_in_buf,
            _d_out: d_out_buf,
            _d_aux: d_aux_buf,
            h_in_ptr,
            h_out_ptr,
            h_small_ptr,
            d_in,
            d_out,
            d_aux,
            capacity,
        })
    }

    /// Queues a copy of `len` bytes from device address `src` into the small
    /// pinned buffer, read in the completion step ([`Finished::small`]).
    ///
    /// # Safety
    ///
    /// `src` is a device address of this slot's context holding `len`
    /// bytes, alive until the slot's stream is synchronised.
    pub(crate) unsafe fn fetch_small(&self, src: u64, len: usize) -> Result<()> {
        if len == 0 {
            return Ok(());
        }
        if len > SMALL_LEN || len > self.h_small.len() {
            return Err(CudaError::Driver("small fetch too large".into()));
        }
        // Raw driver calls act on the thread's current context.
        self.stream.context().bind_to_thread()?;
        // SAFETY: h_small_ptr points to SMALL_LEN pinned bytes owned by this
        // slot; nothing reads them until the stream is synchronised.
        let dst = unsafe { std::slice::from_raw_parts_mut(self.h_small_ptr, len) };
        // SAFETY: src holds len bytes (this function's contract); the copy
        // is ordered on this slot's stream.
        unsafe { cudarc::driver::result::memcpy_dtoh_async(dst, src, self.stream.cu_stream()) }?;
        Ok(())
    }
}

impl Finished<'_> {
    /// The first `len` bytes of the small buffer (at most [`SMALL_LEN`]),
    /// as the last [`Slot::fetch_small`] left them.
    pub(crate) fn small(&self, len: usize) -> &[u8] {
        let len = len.min(SMALL_LEN);
        // SAFETY: a Finished exists only after the slot's stream was
        // synchronised (finish), so no DMA writes the buffer now; it is
        // SMALL_LEN initialised bytes (zeroed when allocated).
        unsafe { std::slice::from_raw_parts(self.slot.h_small_ptr, len) }
    }
}

impl Slots {
    fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Slots> {
        let slots = (0..SLOTS)
            .map(|_| Slot::new(ctx, capacity))
            .collect::<Result<Vec<_>>>()?;
        Ok(Slots { slots })
    }

    fn sync_all(&self) {
        for s in &self.slots {
            let _ = s.stream.synchronize();
        }
    }
}

impl Staging {
    /// No slots yet; each will hold `chunk_len` bytes.
    pub(crate) fn new(chunk_len: usize) -> Staging {
        Staging {
            slots: Mutex::new(None),
            chunk_len,
        }
    }

    /// Runs `buf` through the GPU of `ctx` in place, in chunks of
    /// `chunk_len` bytes (a multiple of 16, at most the slots' capacity; 0
    /// means the capacity). `enqueue` queues the work of one chunk on the
    /// slot's stream: it reads `slot.d_in` and must leave the result in
    /// `slot.d_out`. `complete` runs after the chunk's work finished, in
    /// chunk order, before its output is copied back.
    pub(crate) fn run(
        &self,
        ctx: &Arc<CudaContext>,
        buf: &mut [u8],
        chunk_len: usize,
        enqueue: impl FnMut(&Slot, &Chunk) -> Result<()>,
        complete: impl FnMut(&Finished<'_>, &Chunk) -> Result<()>,
    ) -> Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        let mut guard = self
            .slots
            .lock()
            .map_err(|_| CudaError::Driver("staging slots poisoned".into()))?;
        if guard.is_none() {
            *guard = Some(Slots::new(ctx, self.chunk_len)?);
        }
        let slots = guard
            .as_ref()
            .ok_or_else(|| CudaError::Driver("no slots".into()))?;
        run_on(ctx, slots, buf, chunk_len, enqueue, complete)
    }
}

fn run_on(
    ctx: &Arc<CudaContext>,
    slots: &Slots,
    buf: &mut [u8],
    chunk_len: usize,
    mut enqueue: impl FnMut(&Slot, &Chunk) -> Result<()>,
    mut complete: impl FnMut(&Finished<'_>, &Chunk) -> Result<()>,
) -> Result<()> {
    let capacity = slots.slots[0].capacity;
    let chunk_len = if chunk_len == 0 { capacity } else { chunk_len };
    if chunk_len > capacity {
        return Err(CudaError::Driver(
            "chunk larger than the staging buffers".into(),
        ));
    }
    let chunks = plan::split_chunks(buf.len(), chunk_len)?;
    // The raw copies below act on the thread's current context.
    ctx.bind_to_thread()?;
    let mut pending: Vec<Option<Chunk>> = vec![None; slots.slots.len()];
    let result = (|| -> Result<()> {
        for chunk in &chunks {
            let i = chunk.index % slots.slots.len();
            let slot = &slots.slots[i];
            if let Some(prev) = pending[i].take() {
                finish(slot, &prev, buf, &mut complete)?;
            }
            // SAFETY: the slot's stream is idle (synchronised in finish, or
            // never used), so no DMA reads h_in; h_in holds capacity >=
            // chunk.len bytes and is not otherwise borrowed.
            let staging = unsafe { std::slice::from_raw_parts_mut(slot.h_in_ptr, chunk.len) };
            parallel_copy(staging, &buf[chunk.offset..chunk.offset + chunk.len]);
            // SAFETY: as above; the DMA reads h_in[..len] into d_in, which
            // has capacity bytes; both stay alive (owned by the slot) and
            // untouched by the host until the stream is synchronised.
            let src = unsafe { std::slice::from_raw_parts(slot.h_in_ptr, chunk.len) };
            // SAFETY: d_in is the slot's device buffer of capacity >=
            // chunk.len bytes; the copy is ordered on the slot's stream.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(slot.d_in, src, slot.stream.cu_stream())
            }?;
            enqueue(slot, chunk)?;
            // SAFETY: h_out has capacity bytes, not read by the host until
            // the stream is synchronised.
            let dst = unsafe { std::slice::from_raw_parts_mut(slot.h_out_ptr, chunk.len) };
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(dst, slot.d_out, slot.stream.cu_stream())
            }?;
            pending[i] = Some(*chunk);
        }
        let mut rest: Vec<Chunk> = pending.iter_mut().filter_map(Option::take).collect();
        rest.sort_by_key(|c| c.index);
        for c in rest {
            let slot = &slots.slots[c.index % slots.slots.len()];
            finish(slot, &c, buf, &mut complete)?;
        }
        Ok(())
    })();
    if result.is_err() {
        // Leave no DMA running into or out of the staging buffers.
        slots.sync_all();
    }
    result
}

fn finish(
    slot: &Slot,
    chunk: &Chunk,
    buf: &mut [u8],
    complete: &mut impl FnMut(&Finished<'_>, &Chunk) -> Result<()>,
) -> Result<()> {
    slot.stream.synchronize()?;
    complete(&Finished { slot }, chunk)?;
    // SAFETY: the stream is synchronised, so the DMA into h_out is done;
    // h_out holds at least chunk.len bytes.
    let out = unsafe { std::slice::from_raw_parts(slot.h_out_ptr, chunk.len) };
    parallel_copy(&mut buf[chunk.offset..chunk.offset + chunk.len], out);
    Ok(())
}

/// Copies with several threads for large chunks: one core's memcpy is well
/// below the PCIe bandwidth, and the staging copies sit on the critical
/// path of host-to-host throughput.
fn parallel_copy(dst: &mut [u8], src: &[u8]) {
    const PIECE: usize = 4 << 20;
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(8);
    if threads < 2 || src.len() < 2 * PIECE {
        dst.copy_from_slice(src);
        return;
    }
    let per = src.len().div_ceil(threads).next_multiple_of(4096);
    std::thread::scope(|s| {
        for (d, c) in dst.chunks_mut(per).zip(src.chunks(per)) {
            s.spawn(move || d.copy_from_slice(c));
        }
    });
}

#[cfg(test)]
mod tests {
    use super::parallel_copy;

    #[test]
    fn parallel_copy_copies_every_byte() {
        for len in [0usize, 1, 4095, 8 << 20, (20 << 20) + 12345] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
            let mut dst = vec![0u8; len];
            parallel_copy(&mut dst, &src);
            assert!(dst == src, "len {len}");
        }
    }
}
