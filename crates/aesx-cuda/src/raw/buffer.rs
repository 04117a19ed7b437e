//! [`DeviceBuffer`]: device memory aesx allocates for a result it hands
//! to another library.

use cudarc::driver::DevicePtr;

use crate::device::Gpu;
use crate::error::Result;

use super::stream::borrow_stream;
use super::{CUdeviceptr, CUstream};

/// Device memory that aesx allocates for a result handed to another
/// library (Python's `aesx.cuda.DeviceBuffer`). Allocated on the library's
/// stream and complete before [`DeviceBuffer::new`] returns, so usable on
/// any stream; freed on drop only after the work recorded with
/// [`DeviceBuffer::used_on`]. 256-byte aligned (the driver's allocation
/// granularity), so its address suits every call of this module.
pub struct DeviceBuffer {
    gpu: Gpu,
    mem: Option<cudarc::driver::CudaSlice<u8>>,
    ptr: u64,
    len: usize,
    users: std::sync::Mutex<Vec<cudarc::driver::CudaEvent>>,
}

impl core::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish_non_exhaustive()
    }
}

impl DeviceBuffer {
    /// `len` zeroed bytes on `gpu` (no allocation for 0: the address is 0).
    pub fn new(gpu: &Gpu, len: usize) -> Result<DeviceBuffer> {
        let (mem, ptr) = if len == 0 {
            (None, 0)
        } else {
            let s = gpu.stream();
            let m = s.alloc_zeros::<u8>(len)?;
            let p = m.device_ptr(s).0;
            s.synchronize()?;
            (Some(m), p)
        };
        Ok(DeviceBuffer {
            gpu: gpu.clone(),
            mem,
            ptr,
            len,
            users: std::sync::Mutex::new(Vec::new()),
        })
    }

    /// The device address.
    pub fn ptr(&self) -> CUdeviceptr {
        self.ptr
    }

    /// The size in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the size is 0.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The GPU it lives on.
    pub fn gpu(&self) -> &Gpu {
        &self.gpu
    }

    /// Records that work using this memory was queued on `stream`: the
    /// memory is not freed before that work is done.
    ///
    /// # Safety
    ///
    /// `stream` is `None` or a live stream of this GPU's context.
    pub unsafe fn used_on(&self, stream: Option<CUstream>) -> Result<()> {
        if self.mem.is_none() {
            return Ok(());
        }
        // SAFETY: `stream` is None or a live stream of this GPU's context (this
        // function's `# Safety`), and the handle is dropped before it returns.
        let s = unsafe { borrow_stream(&self.gpu, stream) };
        let ev = s.record_event(None)?;
        let mut users = self.users.lock().unwrap_or_else(|p| p.into_inner());
        users.push(ev);
        if users.len() > 16 {
            // Keep the list short: wait here for the oldest ones instead.
            for e in users.drain(..8) {
                e.synchronize()?;
            }
        }
        Ok(())
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        let users = self.users.get_mut().unwrap_or_else(|p| p.into_inner());
        for ev in users.drain(..) {
            // The free below is queued on the library's stream: make it wait
            // for every recorded use; if even that fails, wait on the host.
            if self.gpu.stream().wait(&ev).is_err() {
                let _ = ev.synchronize();
            }
        }
        // Dropping the slice frees it on the library's stream, after the waits.
        self.mem.take();
    }
}
