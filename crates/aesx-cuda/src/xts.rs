//! XTS (IEEE 1619) on the GPU with a sector API: consecutive sectors of a
//! fixed size from a starting sector number; the tweak of sector s is
//! E_K2(s) with s as a 128-bit little-endian integer. Sectors are whole
//! blocks; a single data unit of any length from 16 bytes
//! ([`CudaXts::encrypt_unit`]) steals ciphertext for a partial last block:
//! the GPU does the whole blocks before the last two, the host those two
//! (xts_steal.rs).

use cudarc::driver::{CudaSlice, DevicePtrMut};

use crate::aes::{same_context, CudaAes};
use crate::device::CipherLaunch;
use crate::device::Gpu;
use crate::error::Result;
use crate::plan;

/// The sector entry points: one direction over host or device memory, each
/// a call of `host` or `device` with the direction fixed.
macro_rules! sector_fns {
    ($($(#[$doc:meta])* $name:ident($buf:ty) => $via:ident($decrypt:literal);)*) => {$(
        $(#[$doc])*
        pub fn $name(&self, first_sector: u128, sector_size: usize, buf: $buf) -> Result<()> {
            self.$via($decrypt, first_sector, sector_size, buf)
        }
    )*};
}

/// An XTS key (32 bytes for AES-128, 64 for AES-256) on the GPU.
pub struct CudaXts {
    pub(crate) data: CudaAes,
    tweak: CudaAes,
    /// The two keys on the CPU, for the stolen blocks of a partial unit.
    cpu_data: aesx::Aes,
    cpu_tweak: aesx::Aes,
    equal_halves: bool,
}

impl core::fmt::Debug for CudaXts {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CudaXts")
            .field("key_size", &self.data.key_size())
            .finish_non_exhaustive()
    }
}

impl CudaXts {
    /// Splits `key` into the data key K1 and the tweak key K2.
    pub fn new(gpu: &Gpu, key: &[u8]) -> Result<CudaXts> {
        if key.len() != 32 && key.len() != 64 {
            return Err(aesx::Error::InvalidKeyLength { len: key.len() }.into());
        }
        let (k1, k2) = key.split_at(key.len() / 2);
        // Compared without an early exit; only the verdict is kept.
        let diff = k1.iter().zip(k2).fold(0u8, |d, (a, b)| d | (a ^ b));
        Ok(CudaXts {
            data: CudaAes::new(gpu, k1)?,
            tweak: CudaAes::new(gpu, k2)?,
            cpu_data: crate::key_schedule::cpu_aes(k1)?,
            cpu_tweak: crate::key_schedule::cpu_aes(k2)?,
            equal_halves: core::hint::black_box(diff) == 0,
        })
    }

    /// The sector rules, then the key's (the order of aesx::Xts).
    pub(crate) fn check(&self, decrypt: bool, len: usize, sector_size: usize) -> Result<()> {
        plan::check_sectors(len, sector_size)?;
        if !decrypt && self.equal_halves {
            return Err(aesx::Error::XtsEqualKeyHalves.into());
        }
        Ok(())
    }

    fn device(
        &self,
        decrypt: bool,
        first_sector: u128,
        sector_size: usize,
        buf: &mut CudaSlice<u8>,
    ) -> Result<()> {
        let gpu = &self.data.gpu;
        same_context(gpu, buf.context())?;
        self.check(decrypt, buf.len(), sector_size)?;
        if buf.is_empty() {
            return Ok(());
        }
        let g = &gpu.inner;
        let nsectors = buf.len() / sector_size;
        let tweaks = g.stream.alloc_zeros::<u8>(16 * nsectors)?;
        let (t, _rt) = cudarc::driver::DevicePtr::device_ptr(&tweaks, &g.stream);
        let len = buf.len();
        let (p, _rb) = buf.device_ptr_mut(&g.stream);
        for l in self.launches(decrypt, p, p, len, t, first_sector, sector_size) {
            // SAFETY: `tweaks` holds 16 bytes per sector and `buf` (checked to be of
            // this context, whole sectors) `len` bytes; both outlive the queued
            // work, ordered on g.stream by their records; the rk_ptrs are this key's.
            unsafe { g.cipher(&g.stream, l) }?;
        }
        Ok(())
    }

    /// The launches over `nbytes` bytes of whole sectors from `src` into
    /// `dst`: first the sector tweaks from `first_sector` into `tweaks` (16
    /// bytes per sector), then XTS with them.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn launches(
        &self,
        decrypt: bool,
        src: u64,
        dst: u64,
        nbytes: usize,
        tweaks: u64,
        first_sector: u128,
        sector_size: usize,
    ) -> [CipherLaunch; 2] {
        let nsectors = (nbytes / sector_size) as u64;
        let (tk, dk) = (&self.tweak, &self.data);
        let nblocks = (nbytes / 16) as u64;
        let spb = (sector_size / 16) as u64;
        [
            CipherLaunch::xts_tweaks(tweaks, nsectors, tk.rk_ptr, tk.nr, first_sector),
            CipherLaunch::xts(decrypt, src, dst, nblocks, dk.rk_ptr, dk.nr, tweaks, spb),
        ]
    }

    sector_fns! {
        /// Encrypts whole sectors in place in device memory.
        encrypt_sectors_device(&mut CudaSlice<u8>) => device(false);
        /// Decrypts whole sectors in place in device memory.
        decrypt_sectors_device(&mut CudaSlice<u8>) => device(true);
        /// Encrypts whole sectors in place in host memory.
        encrypt_sectors(&mut [u8]) => host(false);
        /// Decrypts whole sectors in place in host memory.
        decrypt_sectors(&mut [u8]) => host(true);
    }

    fn host(
        &self,
        decrypt: bool,
        first_sector: u128,
        sector_size: usize,
        buf: &mut [u8],
    ) -> Result<()> {
        self.check(decrypt, buf.len(), sector_size)?;
        let g = &self.data.gpu.inner;
        let chunk_len = plan::xts_chunk_len(g.staging.chunk_len, sector_size);
        if chunk_len > g.staging.chunk_len {
            // One sector larger than the staging buffers: go through device
            // memory in one piece.
            let mut dev = g.stream.clone_htod(&buf[..])?;
            self.device(decrypt, first_sector, sector_size, &mut dev)?;
            g.stream.memcpy_dtoh(&dev, buf)?;
            g.stream.synchronize()?;
            return Ok(());
        }
        g.staging.run(
            &g.ctx,
            buf,
            chunk_len,
            |slot, chunk| {
                let first = plan::chunk_first_sector(first_sector, chunk, sector_size);
                let (i, o) = (slot.d_in, slot.d_out);
                for l in self.launches(decrypt, i, o, chunk.len, slot.d_aux, first, sector_size) {
                    // SAFETY: the slot's buffers hold capacity >= chunk.len bytes (the
                    // tweaks, 16 per sector, fit d_aux) and live as long as the
                    // staging, whose stream is synchronised before reuse; the rk_ptrs
                    // are this key's.
                    unsafe { g.cipher(&slot.stream, l) }?;
                }
                Ok(())
            },
            |_, _| Ok(()),
        )
    }

    fn unit(&self, decrypt: bool, tweak: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        if !decrypt && self.equal_halves {
            return Err(aesx::Error::XtsEqualKeyHalves.into());
        }
        // The sector number whose E_K2 is the tweak: the tweak block itself,
        // read as IEEE 1619's little-endian data-unit number.
        let sector = u128::from_le_bytes(*tweak);
        crate::xts_steal::unit_with_stealing(
            decrypt,
            tweak,
            buf,
            |head| self.host(decrypt, sector, head.len(), head),
            &self.cpu_data,
            &self.cpu_tweak,
        )
    }

    /// Encrypts one data unit (16 bytes to 16 MiB, any length: a partial
    /// last block is handled by ciphertext stealing) in place in host
    /// memory, with the unencrypted 16-byte `tweak` (as `aesx::Xts::encrypt`).
    pub fn encrypt_unit(&self, tweak: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        self.unit(false, tweak, buf)
    }

    /// Decrypts one data unit in place in host memory (see
    /// [`CudaXts::encrypt_unit`]).
    pub fn decrypt_unit(&self, tweak: &[u8; 16], buf: &mut [u8]) -> Result<()> {
        self.unit(true, tweak, buf)
    }
}
