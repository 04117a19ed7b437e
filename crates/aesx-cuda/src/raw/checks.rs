//! The checks before anything is queued: the addresses alone (null,
//! alignment, wrap-around, overlap) and the driver's view of them (device
//! or managed memory of this GPU, inside one allocation).

use core::ffi::c_void;

use cudarc::driver::sys;

use crate::device::Gpu;
use crate::error::{CudaError, Result};

use super::CUdeviceptr;

/// Alignment the kernels need of every device address.
pub const ALIGN: u64 = 16;

/// How a source and a destination may share memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// The same address (in place) or disjoint ranges (ECB, CTR, XTS, GCM).
    SameOrDisjoint,
    /// Disjoint ranges only (CBC decryption reads the previous ciphertext
    /// block after another thread may have written over it).
    Disjoint,
}

/// What is wrong with a device address given to this module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum PointerError {
    /// A null address for a non-empty buffer.
    Null,
    /// An address that is not a multiple of [`ALIGN`].
    Misaligned {
        /// The address.
        ptr: u64,
    },
    /// `ptr + len` wraps around the address space.
    Wraps,
    /// Source and destination overlap without being the same (or, where
    /// the mode needs them disjoint, are the same).
    Overlap,
}

impl core::fmt::Display for PointerError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            PointerError::Null => write!(f, "null device pointer for a non-empty buffer"),
            PointerError::Misaligned { ptr } => {
                write!(f, "device pointer {ptr:#x} is not {ALIGN}-byte aligned")
            }
            PointerError::Wraps => write!(f, "device pointer plus length wraps around"),
            PointerError::Overlap => write!(
                f,
                "source and destination overlap (they must be the same buffer or disjoint; CBC decryption: disjoint)"
            ),
        }
    }
}

impl std::error::Error for PointerError {}

impl From<PointerError> for CudaError {
    fn from(e: PointerError) -> Self {
        CudaError::Driver(e.to_string())
    }
}

/// Checks a source and a destination of `len` bytes each, without the
/// driver (see the module documentation). An empty buffer is never read or
/// written, so any addresses pass.
pub fn check_buffers(
    src: u64,
    dst: u64,
    len: usize,
    overlap: Overlap,
) -> core::result::Result<(), PointerError> {
    if len == 0 {
        return Ok(());
    }
    let len = len as u64;
    for p in [src, dst] {
        if p == 0 {
            return Err(PointerError::Null);
        }
        if !p.is_multiple_of(ALIGN) {
            return Err(PointerError::Misaligned { ptr: p });
        }
        if p.checked_add(len).is_none() {
            return Err(PointerError::Wraps);
        }
    }
    let disjoint = src + len <= dst || dst + len <= src;
    match overlap {
        Overlap::SameOrDisjoint if src == dst || disjoint => Ok(()),
        Overlap::Disjoint if disjoint => Ok(()),
        _ => Err(PointerError::Overlap),
    }
}

/// One pointer attribute from the driver.
///
/// # Safety
///
/// `T` is the type the driver writes for `attr` (see cuPointerGetAttribute).
pub(super) unsafe fn attribute<T: Default>(ptr: u64, attr: sys::CUpointer_attribute) -> Option<T> {
    let mut v = T::default();
    // SAFETY: `v` is a live `T`, the type the driver writes for `attr` (this
    // function's contract); the driver only reads `ptr` as a number.
    let r = unsafe { sys::cuPointerGetAttribute(&mut v as *mut T as *mut c_void, attr, ptr) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some(v)
}

/// Whether `ptr` is managed (unified) memory.
pub(super) fn is_managed(ptr: u64) -> bool {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes IS_MANAGED as an unsigned int.
    let managed = unsafe { attribute::<u32>(ptr, A::CU_POINTER_ATTRIBUTE_IS_MANAGED) };
    managed == Some(1)
}

/// Whether the driver knows `ptr` as device memory: `None` if it does not
/// know it at all.
pub(super) fn is_device_memory(ptr: u64) -> Option<bool> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes MEMORY_TYPE as an unsigned int.
    let kind = unsafe { attribute::<u32>(ptr, A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE) }?;
    Some(kind == sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32)
}

/// The device ordinal of device memory at `ptr`.
pub(super) fn ordinal_of(ptr: u64) -> Option<i32> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes DEVICE_ORDINAL as an int.
    unsafe { attribute::<i32>(ptr, A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) }
}

/// The allocation holding `ptr`: its start and size.
pub(super) fn allocation_of(ptr: u64) -> Option<(u64, usize)> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes RANGE_START_ADDR as a CUdeviceptr (u64).
    let start = unsafe { attribute::<u64>(ptr, A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) }?;
    // SAFETY: the driver writes RANGE_SIZE as a size_t.
    let size = unsafe { attribute::<usize>(ptr, A::CU_POINTER_ATTRIBUTE_RANGE_SIZE) }?;
    Some((start, size))
}

/// Asks the driver whether `ptr..ptr + len` is device or managed memory of
/// `gpu`'s device, inside one allocation.
pub(super) fn check_resident(gpu: &Gpu, ptr: u64, len: usize) -> Result<()> {
    if len == 0 {
        return Ok(());
    }
    gpu.context().bind_to_thread()?;
    if !is_managed(ptr) {
        match is_device_memory(ptr) {
            None => {
                return Err(CudaError::Driver(format!(
                    "address {ptr:#x} is not memory the CUDA driver knows (a host pointer?)"
                )))
            }
            Some(false) => {
                return Err(CudaError::Driver(format!(
                    "address {ptr:#x} is host memory, not device memory"
                )))
            }
            Some(true) => {}
        }
        let ours = gpu.info().ordinal;
        if let Some(d) = ordinal_of(ptr) {
            if usize::try_from(d).ok() != Some(ours) {
                return Err(CudaError::Driver(format!(
                    "address {ptr:#x} is memory of device {d}, this key is on device {ours}"
                )));
            }
        }
    }
    if let Some((start, size)) = allocation_of(ptr) {
        let end = start.saturating_add(size as u64);
        if ptr.saturating_add(len as u64) > end {
            return Err(CudaError::Driver(format!(
                "{len} bytes at {ptr:#x} run past the end of their allocation ({size} bytes at {start:#x})"
            )));
        }
    }
    Ok(())
}

/// Every check before a launch: the addresses, then the driver's view of
/// them.
pub(super) fn check_all(gpu: &Gpu, src: u64, dst: u64, len: usize, overlap: Overlap) -> Result<()> {
    check_buffers(src, dst, len, overlap)?;
    check_resident(gpu, src, len)?;
    if dst != src {
        check_resident(gpu, dst, len)?;
    }
    Ok(())
}

/// The device whose memory `ptr` is (managed memory: the device it was
/// allocated from is not recorded, so 0), or why not: no driver or device
/// ([`CudaError::NoDevice`]), or an address the driver does not know as
/// device memory ([`CudaError::Driver`]).
pub fn device_of(ptr: CUdeviceptr) -> Result<usize> {
    crate::device_count()?;
    if is_managed(ptr) {
        return Ok(0);
    }
    if is_device_memory(ptr) != Some(true) {
        return Err(CudaError::Driver(format!(
            "address {ptr:#x} is not device memory"
        )));
    }
    match ordinal_of(ptr) {
        Some(d) if d >= 0 => Ok(d as usize),
        _ => Err(CudaError::Driver(format!(
            "the driver does not say which device {ptr:#x} is on"
        ))),
    }
}
