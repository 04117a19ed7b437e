//! Page-locked host memory that callers own: the host-memory API moves it
//! with the copy engines directly, without staging and without locking it
//! per call.
//!
//! A pageable buffer reaches the GPU either through staging (two host
//! copies, bound by the host's memory bandwidth) or by being page-locked
//! for the call (the driver pins every page, one CPU thread's work); on the
//! H200 machine both stay near 20 GB/s per direction against 55 GB/s for
//! the copy engines. Data that goes to the GPU often should live in a
//! [`HostBuffer`]: then a call costs only the copies and the kernels.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use cudarc::driver::PinnedHostSlice;

use crate::device::Gpu;
use crate::error::{CudaError, Result};
use crate::pipeline::LockedRanges;

/// `len` bytes of page-locked host memory, zeroed, usable as a `[u8]`
/// with every host-memory call of the GPU that made it (and as plain memory
/// elsewhere). Freed when dropped.
pub struct HostBuffer {
    /// Owns the allocation (freed after Drop::drop wiped it).
    _mem: PinnedHostSlice<u8>,
    ptr: *mut u8,
    len: usize,
    ranges: Arc<LockedRanges>,
}

// SAFETY: the buffer owns its allocation (ptr points into `mem`); access
// goes through &self / &mut self like a Vec<u8>.
unsafe impl Send for HostBuffer {}
// SAFETY: the buffer owns its allocation, and a shared reference only
// reads it (through Deref), as a &Vec<u8> would.
unsafe impl Sync for HostBuffer {}

impl core::fmt::Debug for HostBuffer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HostBuffer")
            .field("len", &self.len)
            .finish()
    }
}

impl Gpu {
    /// Allocates `len` zeroed bytes of page-locked host memory for this
    /// GPU's host-memory API (see [`HostBuffer`]).
    pub fn host_buffer(&self, len: usize) -> Result<HostBuffer> {
        if len == 0 {
            return Err(CudaError::Driver(
                "a host buffer needs at least one byte".into(),
            ));
        }
        let ctx = &self.inner.ctx;
        // SAFETY: filled with zeros below before anything reads it.
        let mut mem = unsafe { ctx.alloc_pinned_with_flags::<u8>(len, 0) }?;
        let ptr = mem.as_mut_ptr()?;
        // SAFETY: ptr is the start of the len bytes just allocated.
        unsafe { std::ptr::write_bytes(ptr, 0, len) };
        let ranges = self.inner.staging.locked.clone();
        ranges.add(ptr as usize, len);
        Ok(HostBuffer {
            _mem: mem,
            ptr,
            len,
            ranges,
        })
    }
}

impl Deref for HostBuffer {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        // SAFETY: ptr/len are the buffer's own initialised allocation.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl DerefMut for HostBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        // SAFETY: ptr/len are the buffer's own initialised allocation, borrowed
        // mutably through &mut self, so no other reference reads it meanwhile.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for HostBuffer {
    fn drop(&mut self) {
        self.ranges.remove(self.ptr as usize);
        // The memory may have held plaintext or keystream.
        zeroize::Zeroize::zeroize(&mut **self);
    }
}
