//! XTS on caller device memory, and the sector checks it shares with
//! the bindings.

use cudarc::driver::DevicePtr;

use crate::error::Result;
use crate::plan;
use crate::xts::CudaXts;

use super::checks::{check_all, Overlap};
use super::stream::borrow_stream;
use super::{CUdeviceptr, CUstream};

impl CudaXts {
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw).
    #[allow(clippy::too_many_arguments)]
    unsafe fn sectors_raw(
        &self,
        decrypt: bool,
        first_sector: u128,
        sector_size: usize,
        src: u64,
        dst: u64,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        self.check(decrypt, len, sector_size)?;
        plan::check_sector_numbers(first_sector, len, sector_size)?;
        let gpu = &self.data.gpu;
        check_all(gpu, src, dst, len, Overlap::SameOrDisjoint)?;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the caller's promise (stream of this context, alive).
        let s = unsafe { borrow_stream(gpu, stream) };
        let tweaks = s.alloc_zeros::<u8>(16 * (len / sector_size))?;
        let (t, _rt) = tweaks.device_ptr(&s);
        let g = &gpu.inner;
        for l in self.launches(decrypt, src, dst, len, t, first_sector, sector_size) {
            // SAFETY: src and dst hold len bytes (whole sectors) of this device's
            // memory, aligned and same-or-disjoint (checked), alive until the work
            // is done (the caller's promise); `tweaks` has 16 bytes per sector and
            // is freed on `s` after the launches (stream order).
            unsafe { g.cipher(&s, l) }?;
        }
        Ok(())
    }

    /// XTS encryption of whole sectors of `sector_size` bytes from sector
    /// number `first_sector` (little-endian tweak), `len` bytes from `src`
    /// to `dst` (the same or disjoint), queued on `stream`.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw).
    pub unsafe fn encrypt_sectors_raw(
        &self,
        first_sector: u128,
        sector_size: usize,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); sectors_raw checks the addresses first.
        unsafe { self.sectors_raw(false, first_sector, sector_size, src, dst, len, stream) }
    }

    /// XTS decryption; as [`CudaXts::encrypt_sectors_raw`].
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw).
    pub unsafe fn decrypt_sectors_raw(
        &self,
        first_sector: u128,
        sector_size: usize,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); sectors_raw checks the addresses first.
        unsafe { self.sectors_raw(true, first_sector, sector_size, src, dst, len, stream) }
    }
}

/// The sector checks of the XTS calls, without a device, in the order and
/// with the errors of aesx::Xts: the sector size
/// ([`aesx::Error::InvalidSectorSize`]), then whole sectors
/// ([`aesx::Error::PartialSector`]). The equal-halves check of encryption
/// comes next, then [`check_sector_numbers`].
pub fn check_sector_args(len: usize, sector_size: usize) -> core::result::Result<(), aesx::Error> {
    plan::check_sectors(len, sector_size)
}

/// That the sectors of `len` bytes numbered from `first_sector` do not pass
/// sector 2^128 - 1 ([`aesx::Error::CounterOverflow`], as aesx::Xts).
pub fn check_sector_numbers(
    first_sector: u128,
    len: usize,
    sector_size: usize,
) -> core::result::Result<(), aesx::Error> {
    plan::check_sector_numbers(first_sector, len, sector_size)
}
