//! Host data through the GPU in chunks: each of a few slots owns a stream,
//! pinned staging buffers and device buffers, so that while one chunk's
//! kernels run, the next chunk is copied in and the previous one out.
//!
//! Two ways in and out of host memory. Large buffers are page-locked in
//! place for the call, so the copy engines read and write the caller's
//! memory directly; small ones, and any the driver will not lock, go
//! through the slots' pinned buffers, copied by host threads while the GPU
//! works on other chunks. Either way chunk i runs on slot i mod N and the
//! completion callback sees chunks in order (GCM joins the chunk digests in
//! order), after the chunk's work finished and before its output is used.

use std::sync::{Arc, Mutex};

use cudarc::driver::sys::CU_MEMHOSTALLOC_WRITECOMBINED;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, PinnedHostSlice};

use crate::error::{CudaError, Result};
use crate::plan::{self, Chunk};

/// Slots in flight: one being filled, two on the GPU, one being emptied.
const SLOTS: usize = 4;
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

/// The address ranges of the live [`crate::HostBuffer`]s of one GPU: the
/// memory the host API moves without staging.
#[derive(Default)]
pub(crate) struct LockedRanges(Mutex<Vec<(usize, usize)>>);

impl LockedRanges {
    /// Whether `len` bytes at `ptr` lie inside one live host buffer.
    pub(crate) fn contains(&self, ptr: *const u8, len: usize) -> bool {
        let (a, b) = (ptr as usize, ptr as usize + len);
        self.0
            .lock()
            .map(|r| r.iter().any(|&(s, l)| s <= a && b <= s + l))
            .unwrap_or(false)
    }

    pub(crate) fn add(&self, ptr: usize, len: usize) {
        if let Ok(mut r) = self.0.lock() {
            r.push((ptr, len));
        }
    }

    pub(crate) fn remove(&self, ptr: usize) {
        if let Ok(mut r) = self.0.lock() {
            r.retain(|&(s, _)| s != ptr);
        }
    }
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
    /// The live host buffers of this GPU, moved without staging.
    pub(crate) locked: Arc<LockedRanges>,
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
            locked: Arc::default(),
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
        let pinned = self.locked.contains(buf.as_ptr(), buf.len());
        run_on(ctx, slots, buf, pinned, chunk_len, enqueue, complete)
    }
}

/// How host memory reaches the GPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HostPath {
    /// The caller's buffer is a [`crate::HostBuffer`]: already page-locked.
    Pinned,
    /// The caller's buffer page-locked in place (`cuMemHostRegister`) for
    /// the call: the copy engines read and write it directly, no host copy.
    Registered,
    /// Through the slots' pinned buffers, copied in and out by host threads
    /// while the GPU works on other chunks.
    Staged,
}

/// Pageable buffers are staged: page-locking one per call cost more than
/// staging it on the H200 machine (the driver locks about 20 GB/s of pages
/// per second, on one thread whatever the number of callers, against 20 to
/// 27 GB/s per direction for the staging copies). `AESX_CUDA_HOST_PATH=
/// registered` locks per call instead, to measure both.
fn host_path() -> HostPath {
    match std::env::var("AESX_CUDA_HOST_PATH").as_deref() {
        Ok("registered") => HostPath::Registered,
        _ => HostPath::Staged,
    }
}

fn run_on(
    ctx: &Arc<CudaContext>,
    slots: &Slots,
    buf: &mut [u8],
    pinned: bool,
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
    let path = if pinned {
        HostPath::Pinned
    } else {
        host_path()
    };
    let result = match path {
        HostPath::Pinned => {
            let whole = Locked {
                ptr: buf.as_mut_ptr(),
                len: buf.len(),
                registered: false,
            };
            let r = run_registered(slots, &whole, &chunks, &mut enqueue, &mut complete);
            slots.sync_all();
            r
        }
        // SAFETY: buf is exclusively borrowed for this whole function, and
        // `locked` is dropped (unlocked) before it returns.
        HostPath::Registered => match unsafe { Locked::new(buf.as_mut_ptr(), buf.len()) } {
            Some(locked) => {
                let r = run_registered(slots, &locked, &chunks, &mut enqueue, &mut complete);
                // No DMA may touch the buffer once it is unlocked.
                slots.sync_all();
                drop(locked);
                r
            }
            None => run_staged(slots, buf, &chunks, &mut enqueue, &mut complete),
        },
        HostPath::Staged => run_staged(slots, buf, &chunks, &mut enqueue, &mut complete),
    };
    if result.is_err() {
        // Leave no DMA running into or out of the staging buffers.
        slots.sync_all();
    }
    result
}

/// The caller's buffer while the copy engines use it directly: page-locked
/// for the call (`registered`), or a [`crate::HostBuffer`].
struct Locked {
    ptr: *mut u8,
    len: usize,
    registered: bool,
}

impl Locked {
    /// Locks `len` bytes at `ptr` in place, or `None` where the driver
    /// refuses (part of them already locked by someone else, or the
    /// system's limit reached): the caller stages instead.
    ///
    /// # Safety
    ///
    /// `ptr..ptr + len` is a live buffer that only the caller uses until
    /// the `Locked` is dropped, after every copy that used it finished.
    unsafe fn new(ptr: *mut u8, len: usize) -> Option<Locked> {
        // SAFETY: ptr/len describe a live buffer (this function's contract).
        let r = unsafe { cudarc::driver::sys::cuMemHostRegister_v2(ptr.cast(), len, 0) };
        (r == cudarc::driver::sys::CUresult::CUDA_SUCCESS).then_some(Locked {
            ptr,
            len,
            registered: true,
        })
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        if self.registered {
            // SAFETY: ptr was registered by Locked::new; every copy that
            // used it was synchronised by the owner before the drop.
            unsafe { cudarc::driver::sys::cuMemHostUnregister(self.ptr.cast()) };
        }
    }
}

/// The page-locked path: each chunk is copied straight from the caller's
/// buffer to the slot's device input and back from its output; the slots'
/// streams overlap the two copy directions and the kernels.
fn run_registered(
    slots: &Slots,
    buf: &Locked,
    chunks: &[Chunk],
    enqueue: &mut impl FnMut(&Slot, &Chunk) -> Result<()>,
    complete: &mut impl FnMut(&Finished<'_>, &Chunk) -> Result<()>,
) -> Result<()> {
    let n = slots.slots.len();
    let mut pending: Vec<Option<Chunk>> = vec![None; n];
    for chunk in chunks {
        let slot = &slots.slots[chunk.index % n];
        if let Some(prev) = pending[chunk.index % n].take() {
            slot.stream.synchronize()?;
            complete(&Finished { slot }, &prev)?;
        }
        debug_assert!(chunk.offset + chunk.len <= buf.len);
        // SAFETY: the chunk lies inside the locked buffer (split_chunks
        // over its length); no other copy in flight touches these bytes
        // (chunks are disjoint) and the host does not touch the buffer
        // until every stream is synchronised.
        let part = unsafe { std::slice::from_raw_parts_mut(buf.ptr.add(chunk.offset), chunk.len) };
        // SAFETY: d_in holds capacity >= chunk.len bytes; ordered on the
        // slot's stream, synchronised before the slot is reused.
        unsafe {
            cudarc::driver::result::memcpy_htod_async(slot.d_in, &part[..], slot.stream.cu_stream())
        }?;
        enqueue(slot, chunk)?;
        // SAFETY: d_out holds chunk.len bytes of the kernels' output,
        // copied in stream order after them into the chunk's own bytes.
        unsafe {
            cudarc::driver::result::memcpy_dtoh_async(part, slot.d_out, slot.stream.cu_stream())
        }?;
        pending[chunk.index % n] = Some(*chunk);
    }
    finish_in_order(slots, &mut pending, |slot, c| {
        slot.stream.synchronize()?;
        complete(&Finished { slot }, c)
    })
}

/// Runs `finish` on the chunks still pending, in chunk order.
fn finish_in_order(
    slots: &Slots,
    pending: &mut [Option<Chunk>],
    mut finish: impl FnMut(&Slot, &Chunk) -> Result<()>,
) -> Result<()> {
    let mut rest: Vec<Chunk> = pending.iter_mut().filter_map(Option::take).collect();
    rest.sort_by_key(|c| c.index);
    for c in rest {
        finish(&slots.slots[c.index % slots.slots.len()], &c)?;
    }
    Ok(())
}

/// Chunks kept queued on the GPU before the oldest is waited for.
const GPU_DEPTH: usize = 2;

/// A raw address that may cross to the copy threads.
#[derive(Clone, Copy)]
struct Addr(usize);

/// The staged path: a copy-in thread fills each slot's pinned input, the
/// calling thread queues the copies and kernels and finishes chunks in
/// order, and a copy-out thread moves results into the caller's buffer and
/// hands the slot back. So the host copies of three chunks and the GPU's
/// work on two others all run at once.
fn run_staged(
    slots: &Slots,
    buf: &mut [u8],
    chunks: &[Chunk],
    enqueue: &mut impl FnMut(&Slot, &Chunk) -> Result<()>,
    complete: &mut impl FnMut(&Finished<'_>, &Chunk) -> Result<()>,
) -> Result<()> {
    use std::collections::VecDeque;
    use std::sync::mpsc;

    let n = slots.slots.len();
    let buf_addr = Addr(buf.as_mut_ptr() as usize);
    let h_in: Vec<Addr> = slots
        .slots
        .iter()
        .map(|s| Addr(s.h_in_ptr as usize))
        .collect();
    let h_out: Vec<Addr> = slots
        .slots
        .iter()
        .map(|s| Addr(s.h_out_ptr as usize))
        .collect();
    let threads = copy_threads();
    std::thread::scope(|scope| {
        // Slot tokens: the copy-out thread returns a slot once its result
        // is in the caller's buffer.
        let (free_tx, free_rx) = mpsc::sync_channel::<()>(n);
        let (filled_tx, filled_rx) = mpsc::sync_channel::<usize>(n);
        let (done_tx, done_rx) = mpsc::sync_channel::<usize>(n);
        for _ in 0..n {
            let _ = free_tx.send(());
        }
        let h_in2 = h_in.clone();
        scope.spawn(move || {
            for (k, c) in chunks.iter().enumerate() {
                if free_rx.recv().is_err() {
                    return;
                }
                // SAFETY: slot k % n is free (its token came back: no DMA
                // reads its h_in, no other thread copies into it); the
                // chunk lies inside the caller's buffer, which only this
                // thread reads and whose other chunks only the copy-out
                // thread writes.
                let (dst, src) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(h_in2[k % n].0 as *mut u8, c.len),
                        std::slice::from_raw_parts((buf_addr.0 as *const u8).add(c.offset), c.len),
                    )
                };
                copy_with(dst, src, threads);
                if filled_tx.send(k).is_err() {
                    return;
                }
            }
        });
        scope.spawn(move || {
            while let Ok(k) = done_rx.recv() {
                let c = &chunks[k];
                // SAFETY: chunk k's stream was synchronised (its result is
                // in h_out) and the slot is not reused until its token goes
                // back below; the chunk's bytes of the caller's buffer are
                // written only here, after the copy-in thread read them.
                let (dst, src) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(
                            (buf_addr.0 as *mut u8).add(c.offset),
                            c.len,
                        ),
                        std::slice::from_raw_parts(h_out[k % n].0 as *const u8, c.len),
                    )
                };
                copy_with(dst, src, threads);
                // The copy-in thread stops taking tokens after the last
                // chunk; every chunk handed here is still copied out.
                let _ = free_tx.send(());
            }
        });
        let mut inflight: VecDeque<usize> = VecDeque::new();
        let mut finish_oldest = |inflight: &mut VecDeque<usize>| -> Result<()> {
            if let Some(k) = inflight.pop_front() {
                let slot = &slots.slots[k % n];
                slot.stream.synchronize()?;
                complete(&Finished { slot }, &chunks[k])?;
                done_tx
                    .send(k)
                    .map_err(|_| CudaError::Driver("copy-out thread stopped".into()))?;
            }
            Ok(())
        };
        let result = (|| -> Result<()> {
            for _ in 0..chunks.len() {
                let k = filled_rx
                    .recv()
                    .map_err(|_| CudaError::Driver("copy-in thread stopped".into()))?;
                let (slot, c) = (&slots.slots[k % n], &chunks[k]);
                // SAFETY: the copy-in thread filled h_in[..c.len] and no
                // longer touches it; d_in holds capacity >= c.len bytes;
                // ordered on the slot's stream.
                unsafe {
                    let src = std::slice::from_raw_parts(slot.h_in_ptr, c.len);
                    cudarc::driver::result::memcpy_htod_async(
                        slot.d_in,
                        src,
                        slot.stream.cu_stream(),
                    )
                }?;
                enqueue(slot, c)?;
                // SAFETY: h_out has capacity >= c.len bytes, read by the
                // copy-out thread only after this stream is synchronised.
                unsafe {
                    let dst = std::slice::from_raw_parts_mut(slot.h_out_ptr, c.len);
                    cudarc::driver::result::memcpy_dtoh_async(
                        dst,
                        slot.d_out,
                        slot.stream.cu_stream(),
                    )
                }?;
                inflight.push_back(k);
                if inflight.len() >= GPU_DEPTH {
                    finish_oldest(&mut inflight)?;
                }
            }
            while !inflight.is_empty() {
                finish_oldest(&mut inflight)?;
            }
            Ok(())
        })();
        if result.is_err() {
            // Before the copy threads are let go: no DMA still running.
            slots.sync_all();
        }
        // Dropping the senders ends both copy threads (the scope joins
        // them); the copy-out thread first drains what it was given.
        drop(done_tx);
        drop(filled_rx);
        result
    })
}

/// Host threads for each direction of the staging copies: one core's
/// memcpy is well below the PCIe bandwidth. On the H200 machine (16 cores)
/// eight per direction staged 20-22 GB/s each way, four only 13-14.
fn copy_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get() / 2)
        .unwrap_or(1)
        .clamp(1, 8)
}

/// Copies `src` into `dst` with up to `threads` threads (pieces of at
/// least 4 MiB).
fn copy_with(dst: &mut [u8], src: &[u8], threads: usize) {
    const PIECE: usize = 4 << 20;
    let threads = threads.min(src.len() / PIECE).max(1);
    if threads < 2 {
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
    use super::copy_with;

    #[test]
    fn copy_with_copies_every_byte() {
        for len in [0usize, 1, 4095, 8 << 20, (20 << 20) + 12345] {
            let src: Vec<u8> = (0..len).map(|i| (i * 7 + i / 4099) as u8).collect();
            let mut dst = vec![0u8; len];
            copy_with(&mut dst, &src, 8);
            assert!(dst == src, "len {len}");
        }
    }
}
