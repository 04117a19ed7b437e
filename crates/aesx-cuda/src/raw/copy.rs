//! Copies to, from and between caller device memory, and zeroing it,
//! in order on the caller's stream.

use crate::device::Gpu;
use crate::error::Result;

use super::checks::{check_resident, PointerError};
use super::stream::{borrow_stream, wait_for};
use super::{CUdeviceptr, CUstream};

/// Checks one device range for a copy (no alignment needed).
pub(super) fn check_copy(gpu: &Gpu, ptr: u64, len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    if ptr == 0 {
        return Err(PointerError::Null.into());
    }
    if ptr.checked_add(len as u64).is_none() {
        return Err(PointerError::Wraps.into());
    }
    check_resident(gpu, ptr, len)
}

/// Copies `out.len()` bytes from device memory at `src` to the host, in
/// order on `stream`, and waits for the copy.
///
/// # Safety
///
/// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw) for `src` (any alignment).
pub unsafe fn copy_to_host_raw(
    gpu: &Gpu,
    src: CUdeviceptr,
    out: &mut [u8],
    stream: Option<CUstream>,
) -> Result<()> {
    check_copy(gpu, src, out.len())?;
    if out.is_empty() {
        return Ok(());
    }
    // SAFETY: the caller's promise (stream of this context, alive).
    let s = unsafe { borrow_stream(gpu, stream) };
    gpu.context().bind_to_thread()?;
    // SAFETY: src holds out.len() bytes of this device's memory (checked, and
    // the caller's promise); `out` outlives the wait below.
    unsafe { cudarc::driver::result::memcpy_dtoh_async(out, src, s.cu_stream()) }?;
    wait_for(&s)
}

/// Copies `data` from the host to device memory at `dst`, in order on
/// `stream`, and waits for the copy (so `data` may be reused at once).
///
/// # Safety
///
/// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw) for `dst` (any alignment).
pub unsafe fn copy_from_host_raw(
    gpu: &Gpu,
    data: &[u8],
    dst: CUdeviceptr,
    stream: Option<CUstream>,
) -> Result<()> {
    check_copy(gpu, dst, data.len())?;
    if data.is_empty() {
        return Ok(());
    }
    // SAFETY: the caller's promise (stream of this context, alive).
    let s = unsafe { borrow_stream(gpu, stream) };
    gpu.context().bind_to_thread()?;
    // SAFETY: dst holds data.len() bytes of this device's memory (checked, and the
    // caller's promise); `data` outlives the wait below.
    unsafe { cudarc::driver::result::memcpy_htod_async(dst, data, s.cu_stream()) }?;
    wait_for(&s)
}

/// Queues a copy of `len` bytes between device addresses on `stream`
/// (ranges that do not overlap, any alignment).
///
/// # Safety
///
/// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw) for `src` and `dst` (any alignment).
pub unsafe fn copy_raw(
    gpu: &Gpu,
    src: CUdeviceptr,
    dst: CUdeviceptr,
    len: usize,
    stream: Option<CUstream>,
) -> Result<()> {
    check_copy(gpu, src, len)?;
    check_copy(gpu, dst, len)?;
    if len == 0 {
        return Ok(());
    }
    if !(src + len as u64 <= dst || dst + len as u64 <= src) {
        return Err(PointerError::Overlap.into());
    }
    // SAFETY: the caller's promise (stream of this context, alive).
    let s = unsafe { borrow_stream(gpu, stream) };
    gpu.context().bind_to_thread()?;
    // SAFETY: both ranges hold len bytes of this device's memory (checked, and the
    // caller's promise), alive until the copy is done.
    unsafe { cudarc::driver::result::memcpy_dtod_async(dst, src, len, s.cu_stream()) }?;
    Ok(())
}

/// Queues zeroes over `len` bytes at `dst` on `stream` (any alignment).
///
/// # Safety
///
/// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw) for `dst` (any alignment).
pub unsafe fn zero_raw(
    gpu: &Gpu,
    dst: CUdeviceptr,
    len: usize,
    stream: Option<CUstream>,
) -> Result<()> {
    check_copy(gpu, dst, len)?;
    if len == 0 {
        return Ok(());
    }
    // SAFETY: the caller's promise (stream of this context, alive).
    let s = unsafe { borrow_stream(gpu, stream) };
    gpu.context().bind_to_thread()?;
    // SAFETY: dst holds len bytes of this device's memory (checked, and the
    // caller's promise), alive until the work is done.
    unsafe { cudarc::driver::result::memset_d8_async(dst, 0, len, s.cu_stream()) }?;
    Ok(())
}
