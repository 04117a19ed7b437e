//! Device memory that another library owns (CuPy, PyTorch, Numba, JAX, a C
//! program): the modes on a raw device address and length, queued on the
//! caller's stream.
//!
//! Those libraries allocate in the device's primary context, and so does
//! [`Gpu`](crate::Gpu) (`CudaContext::new` retains the primary context), so their
//! addresses and streams are valid here without any import step.
//!
//! # Streams
//!
//! Every call takes `stream: Option<CUstream>`: the work is queued on that
//! stream, ordered after what the caller queued there before, and what the
//! caller queues there afterwards runs after it. `None` is the legacy
//! default stream (the null handle), which is the default stream of CuPy and
//! PyTorch unless they were told otherwise; the special handles
//! `CU_STREAM_LEGACY` (1) and `CU_STREAM_PER_THREAD` (2) are accepted too.
//! ECB, CTR, CBC decryption and XTS return as soon as the work is queued.
//! GCM needs the digest on the host for the tag, so sealing and opening wait
//! for their own work (an event recorded after it), not for the whole device;
//! opening then queues the decryption and returns.
//!
//! # Checks
//!
//! Before anything is queued: the lengths and parameters as the
//! `CudaSlice` API checks them ([`CudaError::Aes`](crate::CudaError::Aes)), then the addresses
//! ([`check_buffers`], [`PointerError`], returned as [`CudaError::Driver`](crate::CudaError::Driver)
//! with its text): not null, 16-byte aligned (the kernels load whole blocks),
//! no wrap-around, source and destination the same or disjoint (CBC
//! decryption: disjoint). Then the driver is asked about each address: it
//! must be device (or managed) memory of this GPU, and the range must lie in
//! one allocation. These catch mistakes such as a host pointer; they cannot
//! prove that memory stays alive, which is the caller's promise.
//!
//! # Modules
//!
//! `checks` (the addresses and the driver's view of them), `stream` (the
//! caller's stream), `blocks`, `xts`, `gcm` (the modes), `gcm_args` (GCM's
//! checks without a device), `copy` (copies and zeroing), `buffer`
//! ([`DeviceBuffer`]).

mod blocks;
mod buffer;
mod checks;
mod copy;
mod gcm;
mod gcm_args;
mod stream;
#[cfg(test)]
mod tests;
mod xts;

pub use buffer::DeviceBuffer;
pub use checks::{check_buffers, device_of, Overlap, PointerError, ALIGN};
pub use copy::{copy_from_host_raw, copy_raw, copy_to_host_raw, zero_raw};
pub use cudarc::driver::sys::{CUdeviceptr, CUstream};
pub use gcm_args::{check_gcm_args, check_many_args, BatchError};
pub use xts::{check_sector_args, check_sector_numbers};
