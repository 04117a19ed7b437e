//! Opening a GPU: load the kernels (`device.rs`), then check every mode
//! against aesx on the CPU (`selftest.rs`) before anyone may use it.

use crate::device::{no_panic, Gpu, DEFAULT_CHUNK_LEN};
use crate::error::Result;
use crate::selftest;

impl Gpu {
    /// Opens device `ordinal`, compiles (or takes from the cache) the
    /// kernels for its compute capability, loads them and checks every mode
    /// against aesx on the CPU (a few milliseconds; a mismatch is
    /// [`CudaError::Mismatch`](crate::CudaError::Mismatch)).
    pub fn new(ordinal: usize) -> Result<Gpu> {
        Self::with_chunk_len(ordinal, DEFAULT_CHUNK_LEN)
    }

    /// As [`Gpu::new`] with a chosen chunk size for host data (rounded down
    /// to a multiple of 4096 bytes, at least 4096).
    /// A library that panics inside cudarc (a driver or NVRTC lacking an
    /// entry point) is [`CudaError::NoDevice`](crate::CudaError::NoDevice)
    /// here, never a panic.
    pub fn with_chunk_len(ordinal: usize, chunk_len: usize) -> Result<Gpu> {
        no_panic(|| {
            let gpu = Gpu::load(ordinal, chunk_len)?;
            selftest::run(&gpu)?;
            Ok(gpu)
        })
    }
}
