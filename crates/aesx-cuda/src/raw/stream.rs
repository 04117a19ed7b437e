//! The caller's stream, borrowed for a call, and waiting for the work
//! queued on it so far.

use std::sync::Arc;

use cudarc::driver::CudaStream;

use crate::device::Gpu;
use crate::error::Result;

use super::CUstream;

/// The caller's stream as a cudarc handle that does not destroy it.
///
/// # Safety
///
/// `stream` is `None` or a live stream of `gpu`'s (primary) context, alive
/// for as long as the returned handle and everything allocated on it.
pub(super) unsafe fn borrow_stream(gpu: &Gpu, stream: Option<CUstream>) -> Arc<CudaStream> {
    let raw = stream.unwrap_or(core::ptr::null_mut());
    // SAFETY: `raw` is null (the legacy default stream) or a live stream of
    // `gpu`'s primary context that outlives the handle (this function's
    // `# Safety`).
    unsafe { gpu.context().wrap_borrowed_stream(raw) }
}

/// Waits until the work queued so far on `s` is done (an event, so that
/// work other threads queue later on the same stream is not waited for).
pub(super) fn wait_for(s: &CudaStream) -> Result<()> {
    let ev = s.record_event(None)?;
    ev.synchronize()?;
    Ok(())
}
