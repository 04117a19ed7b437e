//! Device memory that another library owns (CuPy, PyTorch, Numba, JAX, a C
//! program): the modes on a raw device address and length, queued on the
//! caller's stream.
//!
//! Those libraries allocate in the device's primary context, and so does
//! [`Gpu`] (`CudaContext::new` retains the primary context), so their
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
//! `CudaSlice` API checks them ([`CudaError::Aes`]), then the addresses
//! ([`check_buffers`], [`PointerError`], returned as [`CudaError::Driver`]
//! with its text): not null, 16-byte aligned (the kernels load whole blocks),
//! no wrap-around, source and destination the same or disjoint (CBC
//! decryption: disjoint). Then the driver is asked about each address: it
//! must be device (or managed) memory of this GPU, and the range must lie in
//! one allocation. These catch mistakes such as a host pointer; they cannot
//! prove that memory stays alive, which is the caller's promise.

use core::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{sys, CudaStream, DevicePtr};

use crate::aes::CudaAes;
use crate::device::{CipherLaunch, GhashLaunch, Gpu};
use crate::error::{CudaError, Result};
use crate::gcm::CudaGcm;
use crate::xts::CudaXts;
use crate::{gcm_batch, gcm_math, gf, plan};

pub use cudarc::driver::sys::{CUdeviceptr, CUstream};

/// Decides from the tags the digests give which messages of a batch verified.
type Verdicts<'a> = dyn Fn(&[[u8; 16]]) -> Vec<bool> + 'a;

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
unsafe fn attribute<T: Default>(ptr: u64, attr: sys::CUpointer_attribute) -> Option<T> {
    let mut v = T::default();
    // SAFETY: `v` is a live `T`, the type the driver writes for `attr` (this
    // function's contract); the driver only reads `ptr` as a number.
    let r = unsafe { sys::cuPointerGetAttribute(&mut v as *mut T as *mut c_void, attr, ptr) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some(v)
}

/// Whether `ptr` is managed (unified) memory.
fn is_managed(ptr: u64) -> bool {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes IS_MANAGED as an unsigned int.
    let managed = unsafe { attribute::<u32>(ptr, A::CU_POINTER_ATTRIBUTE_IS_MANAGED) };
    managed == Some(1)
}

/// Whether the driver knows `ptr` as device memory: `None` if it does not
/// know it at all.
fn is_device_memory(ptr: u64) -> Option<bool> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes MEMORY_TYPE as an unsigned int.
    let kind = unsafe { attribute::<u32>(ptr, A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE) }?;
    Some(kind == sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32)
}

/// The device ordinal of device memory at `ptr`.
fn ordinal_of(ptr: u64) -> Option<i32> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes DEVICE_ORDINAL as an int.
    unsafe { attribute::<i32>(ptr, A::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL) }
}

/// The allocation holding `ptr`: its start and size.
fn allocation_of(ptr: u64) -> Option<(u64, usize)> {
    use sys::CUpointer_attribute as A;
    // SAFETY: the driver writes RANGE_START_ADDR as a CUdeviceptr (u64).
    let start = unsafe { attribute::<u64>(ptr, A::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR) }?;
    // SAFETY: the driver writes RANGE_SIZE as a size_t.
    let size = unsafe { attribute::<usize>(ptr, A::CU_POINTER_ATTRIBUTE_RANGE_SIZE) }?;
    Some((start, size))
}

/// Asks the driver whether `ptr..ptr + len` is device or managed memory of
/// `gpu`'s device, inside one allocation.
fn check_resident(gpu: &Gpu, ptr: u64, len: usize) -> Result<()> {
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

/// The caller's stream as a cudarc handle that does not destroy it.
///
/// # Safety
///
/// `stream` is `None` or a live stream of `gpu`'s (primary) context, alive
/// for as long as the returned handle and everything allocated on it.
unsafe fn borrow_stream(gpu: &Gpu, stream: Option<CUstream>) -> Arc<CudaStream> {
    let raw = stream.unwrap_or(core::ptr::null_mut());
    // SAFETY: this function's contract.
    unsafe { gpu.context().wrap_borrowed_stream(raw) }
}

/// Every check before a launch: the addresses, then the driver's view of
/// them.
fn check_all(gpu: &Gpu, src: u64, dst: u64, len: usize, overlap: Overlap) -> Result<()> {
    check_buffers(src, dst, len, overlap)?;
    check_resident(gpu, src, len)?;
    if dst != src {
        check_resident(gpu, dst, len)?;
    }
    Ok(())
}

/// Waits until the work queued so far on `s` is done (an event, so that
/// work other threads queue later on the same stream is not waited for).
fn wait_for(s: &CudaStream) -> Result<()> {
    let ev = s.record_event(None)?;
    ev.synchronize()?;
    Ok(())
}

impl CudaAes {
    /// Checks, then queues one launch on the caller's stream.
    ///
    /// # Safety
    ///
    /// As the public functions below.
    unsafe fn raw_launch(
        &self,
        src: u64,
        dst: u64,
        len: usize,
        overlap: Overlap,
        stream: Option<CUstream>,
        launch: CipherLaunch,
    ) -> Result<()> {
        check_all(&self.gpu, src, dst, len, overlap)?;
        if len == 0 {
            return Ok(());
        }
        // SAFETY: the caller's promise (stream of this context, alive).
        let s = unsafe { borrow_stream(&self.gpu, stream) };
        let g = &self.gpu.inner;
        // SAFETY: src and dst hold len bytes of this device's memory, aligned and
        // same-or-disjoint (checked above), alive until the work on `s` is done (the
        // caller's promise); every launch is sized from len; rk_ptr is this key's.
        unsafe { g.cipher(&s, launch) }
    }

    /// ECB encryption of `len` bytes (whole blocks) from `src` to `dst`
    /// (the same address or disjoint), queued on `stream` (`None`: the legacy
    /// default stream).
    ///
    /// # Safety
    ///
    /// `src` and `dst` are device memory of this key's device (allocated in
    /// its primary context, or managed), each of at least `len` bytes, and
    /// stay allocated, and untouched by other streams, until the queued work
    /// is done; `stream` is `None` or a live stream of that context. The
    /// checks of the module documentation catch some violations, not all.
    pub unsafe fn ecb_encrypt_raw(
        &self,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        let n = plan::whole_blocks(len)?;
        let l = CipherLaunch::ecb(false, src, dst, n, self.rk_ptr, self.nr);
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.raw_launch(src, dst, len, Overlap::SameOrDisjoint, stream, l) }
    }

    /// ECB decryption; as [`CudaAes::ecb_encrypt_raw`].
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn ecb_decrypt_raw(
        &self,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        let n = plan::whole_blocks(len)?;
        let l = CipherLaunch::ecb(true, src, dst, n, self.rk_ptr, self.nr);
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.raw_launch(src, dst, len, Overlap::SameOrDisjoint, stream, l) }
    }

    /// CTR (128-bit big-endian counter from `counter`, wrapping) over `len`
    /// bytes of any length from `src` to `dst` (the same or disjoint).
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn ctr_apply_raw(
        &self,
        counter: &[u8; 16],
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        let l = CipherLaunch::ctr(src, dst, len as u64, self.rk_ptr, self.nr, counter, false);
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.raw_launch(src, dst, len, Overlap::SameOrDisjoint, stream, l) }
    }

    /// CBC decryption of `len` bytes (whole blocks) from `src` into a
    /// disjoint `dst`.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn cbc_decrypt_raw(
        &self,
        iv: &[u8; 16],
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        let n = plan::whole_blocks(len)?;
        let l = CipherLaunch::cbc_decrypt(src, dst, n, self.rk_ptr, self.nr, iv);
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.raw_launch(src, dst, len, Overlap::Disjoint, stream, l) }
    }
}

impl CudaXts {
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
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
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn encrypt_sectors_raw(
        &self,
        first_sector: u128,
        sector_size: usize,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.sectors_raw(false, first_sector, sector_size, src, dst, len, stream) }
    }

    /// XTS decryption; as [`CudaXts::encrypt_sectors_raw`].
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn decrypt_sectors_raw(
        &self,
        first_sector: u128,
        sector_size: usize,
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<()> {
        // SAFETY: the caller's promise, as documented above.
        unsafe { self.sectors_raw(true, first_sector, sector_size, src, dst, len, stream) }
    }
}

impl CudaGcm {
    /// P(C; H) over `len` bytes of ciphertext at `c`, on `s`; waits for it.
    ///
    /// # Safety
    ///
    /// `c` holds `len` bytes of this key's device memory, alive for the call.
    unsafe fn digest_on(&self, s: &Arc<CudaStream>, c: u64, len: usize) -> Result<u128> {
        let g = &self.aes.gpu.inner;
        let scratch_len = 2 * (len / 32 + 64);
        let scratch = s.alloc_zeros::<u8>(scratch_len)?;
        let (sp, rs) = scratch.device_ptr(s);
        // SAFETY: c holds len bytes (this function's contract); the scratch, held
        // until the end of this function, has scratch_len bytes.
        let rest = unsafe { self.enqueue_tree(g, s, c, len, sp, scratch_len) }?;
        let mut bytes = vec![0u8; rest.nbytes];
        if rest.nbytes > 0 {
            g.ctx.bind_to_thread()?;
            // SAFETY: rest.src holds rest.nbytes bytes (the ciphertext or a level in
            // `scratch`, both alive here); `bytes` outlives the wait below.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(&mut bytes[..], rest.src, s.cu_stream())
            }?;
        }
        drop(rs);
        wait_for(s)?;
        Ok(self.finish_tree(&rest, &bytes))
    }

    /// Encrypts `len` bytes from `src` into `dst` (the same address or
    /// disjoint) on the caller's stream and returns the 16-byte tag
    /// (truncate it for a shorter one). Waits for this work (the tag needs
    /// the digest), not for the whole device.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    pub unsafe fn seal_raw(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<[u8; 16]> {
        gcm_math::check_limits(nonce, aad.len(), len)?;
        let gpu = &self.aes.gpu;
        check_all(gpu, src, dst, len, Overlap::SameOrDisjoint)?;
        let j0 = gcm_math::j0(self.h, nonce);
        if len == 0 {
            return Ok(self.tag(&j0, aad, 0, 0));
        }
        // SAFETY: the caller's promise (stream of this context, alive).
        let s = unsafe { borrow_stream(gpu, stream) };
        let c = plan::ctr32_add(&j0, 1);
        let l = CipherLaunch::ctr(src, dst, len as u64, self.aes.rk_ptr, self.aes.nr, &c, true);
        // SAFETY: src and dst hold len bytes of this device's memory, aligned and
        // same-or-disjoint (checked), alive until the work is done (the caller's
        // promise); the launch is sized from len; rk_ptr is this key's.
        unsafe { gpu.inner.cipher(&s, l) }?;
        // SAFETY: dst holds len bytes (as above), alive for this call.
        let digest = unsafe { self.digest_on(&s, dst, len) }?;
        Ok(self.tag(&j0, aad, len, digest))
    }

    /// Verifies `tag` (4, 8 or 12..=16 bytes) over the `len` bytes of
    /// ciphertext at `src` and decrypts them into `dst` (the same or
    /// disjoint). On a mismatch `dst` is zeroed (queued on the stream before
    /// this returns) and `AuthenticationFailed` returned: no plaintext is
    /// produced before the tag verified. Waits for the digest, not for the
    /// decryption, which is queued.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`].
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn open_raw(
        &self,
        nonce: &[u8],
        aad: &[u8],
        src: CUdeviceptr,
        dst: CUdeviceptr,
        len: usize,
        tag: &[u8],
        stream: Option<CUstream>,
    ) -> Result<()> {
        gcm_math::check_tag_len(tag.len())?;
        gcm_math::check_limits(nonce, aad.len(), len)?;
        let gpu = &self.aes.gpu;
        check_all(gpu, src, dst, len, Overlap::SameOrDisjoint)?;
        let j0 = gcm_math::j0(self.h, nonce);
        // SAFETY: the caller's promise (stream of this context, alive).
        let s = unsafe { borrow_stream(gpu, stream) };
        let digest = if len == 0 {
            0
        } else {
            // SAFETY: src holds len bytes of this device's memory (checked), alive
            // for this call (the caller's promise).
            unsafe { self.digest_on(&s, src, len) }?
        };
        let want = self.tag(&j0, aad, len, digest);
        if !aesx::ct_eq(&want[..tag.len()], tag) {
            if len > 0 {
                gpu.context().bind_to_thread()?;
                // SAFETY: dst holds len bytes of this device's memory (checked),
                // alive until the work on `s` is done (the caller's promise).
                unsafe { cudarc::driver::result::memset_d8_async(dst, 0, len, s.cu_stream()) }?;
            }
            return Err(aesx::Error::AuthenticationFailed.into());
        }
        if len == 0 {
            return Ok(());
        }
        let c = plan::ctr32_add(&j0, 1);
        let l = CipherLaunch::ctr(src, dst, len as u64, self.aes.rk_ptr, self.aes.nr, &c, true);
        // SAFETY: as in seal_raw.
        unsafe { gpu.inner.cipher(&s, l) }
    }

    /// E_K(J0) of every message, back to back.
    fn ek_j0s(&self, j0s: &[u8]) -> Vec<u8> {
        let mut ek = j0s.to_vec();
        for b in ek.chunks_exact_mut(16) {
            let mut blk = [0u8; 16];
            blk.copy_from_slice(b);
            self.cpu.encrypt_block(&mut blk);
            b.copy_from_slice(&blk);
        }
        ek
    }

    /// The batch on the device: CTR over every message when sealing, the
    /// per-message digests of the ciphertext, and when opening (`verdicts`
    /// given: it turns the tags the digests give into a verdict per message)
    /// CTR over the runs of messages that verified and zeroes over the
    /// others. Returns the tags the digests give and the verdicts.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`], with `buf` as source and destination.
    #[allow(clippy::too_many_arguments)]
    unsafe fn many_raw(
        &self,
        nonces: &[[u8; 12]],
        aad: &[u8],
        stride: usize,
        buf: u64,
        len: usize,
        stream: Option<CUstream>,
        verdicts: Option<&Verdicts<'_>>,
    ) -> Result<(Vec<[u8; 16]>, Vec<bool>)> {
        gcm_batch::check_layout(nonces.len(), stride, len)?;
        for (i, n) in nonces.iter().enumerate() {
            gcm_math::check_limits(n, aad.len(), gcm_batch::msg_len(i, stride, len))?;
        }
        let gpu = &self.aes.gpu;
        check_all(gpu, buf, buf, len, Overlap::SameOrDisjoint)?;
        let j0s = gcm_batch::j0s(self.h, nonces);
        let ek = self.ek_j0s(&j0s);
        let nmsgs = nonces.len() as u64;
        let mut digests = vec![0u8; 16 * nonces.len()];
        if len == 0 {
            let tags = gcm_batch::tags(self.h, aad, stride, len, &digests, &ek);
            let ok = verdicts.map(|v| v(&tags)).unwrap_or_default();
            return Ok((tags, ok));
        }
        // SAFETY: the caller's promise (stream of this context, alive).
        let s = unsafe { borrow_stream(gpu, stream) };
        let g = &gpu.inner;
        let nruns = gcm_batch::runs_per_msg(stride);
        let spb = (stride / 16) as u64;
        let ctrs = s.clone_htod(&gcm_batch::first_counters(&j0s))?;
        let lvl1 = s.alloc_zeros::<u8>(16 * nonces.len() * nruns as usize)?;
        let lvl2 = s.alloc_zeros::<u8>(16 * nonces.len())?;
        let (c, _rc) = ctrs.device_ptr(&s);
        let (rk, nr) = (self.aes.rk_ptr, self.aes.nr);
        // Messages first..last (exclusive), in place.
        let ctr = |first: usize, last: usize| {
            let start = first * stride;
            let end = (last * stride).min(len);
            let at = buf + start as u64;
            let l = CipherLaunch::ctr_msgs(
                at,
                at,
                (end - start) as u64,
                rk,
                nr,
                c + 16 * first as u64,
                spb,
            );
            // SAFETY: buf holds len bytes of this device's memory (checked), alive
            // until the work is done (the caller's promise); messages first..last
            // lie in it, and `ctrs` holds a counter block per message.
            unsafe { g.cipher(&s, l) }
        };
        if verdicts.is_none() {
            ctr(0, nonces.len())?;
        }
        {
            let (l1, _r1) = lvl1.device_ptr(&s);
            let (l2, _r2) = lvl2.device_ptr(&s);
            let runs = GhashLaunch::new(buf, len as u64, true, l1, gf::pow(self.h, nruns));
            let sums = GhashLaunch::new(l1, 16 * nmsgs * nruns, false, l2, self.h);
            // SAFETY: buf holds len bytes laid out as check_layout accepted; lvl1 and
            // lvl2 were allocated above for nmsgs * nruns and nmsgs blocks and are
            // freed on `s` after this work.
            unsafe {
                g.ghash_msgs(&s, runs, stride as u64, nmsgs, nruns)?;
                g.ghash_msgs(&s, sums, 16 * nruns, nmsgs, 1)
            }?;
        }
        s.memcpy_dtoh(&lvl2, &mut digests)?;
        wait_for(&s)?;
        let tags = gcm_batch::tags(self.h, aad, stride, len, &digests, &ek);
        let Some(verdicts) = verdicts else {
            return Ok((tags, Vec::new()));
        };
        let ok = verdicts(&tags);
        let mut i = 0;
        while i < ok.len() {
            let j = (i..ok.len()).find(|&j| ok[j] != ok[i]).unwrap_or(ok.len());
            if ok[i] {
                ctr(i, j)?;
            } else {
                let start = i * stride;
                let end = (j * stride).min(len);
                if end > start {
                    g.ctx.bind_to_thread()?;
                    // SAFETY: buf + start .. buf + end lies in buf's len bytes
                    // (checked above), alive until the work is done.
                    unsafe {
                        cudarc::driver::result::memset_d8_async(
                            buf + start as u64,
                            0,
                            end - start,
                            s.cu_stream(),
                        )
                    }?;
                }
            }
            i = j;
        }
        Ok((tags, ok))
    }

    /// Seals many messages in place in one launch: message `i` is the
    /// `stride` bytes at `buf + i * stride` (`stride` a multiple of 16, at
    /// most [`crate::MAX_MESSAGE_STRIDE`]; only the last message shorter,
    /// possibly empty), with nonce `nonces[i]` and the same `aad` for all.
    /// Returns every message's 16-byte tag; waits for this work.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`], with `buf` as source and destination.
    pub unsafe fn seal_many_raw(
        &self,
        nonces: &[[u8; 12]],
        aad: &[u8],
        stride: usize,
        buf: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<Vec<[u8; 16]>> {
        // SAFETY: the caller's promise, as documented above.
        let (tags, _) = unsafe { self.many_raw(nonces, aad, stride, buf, len, stream, None) }?;
        Ok(tags)
    }

    /// Opens messages laid out as for [`CudaGcm::seal_many_raw`] against
    /// their `tags` (16 bytes each), in place. Returns a verdict per message:
    /// the messages that verified are decrypted (queued), every other one is
    /// zeroed; no message is decrypted before its own tag verified. Waits for
    /// the digests, not for the decryption.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`], with `buf` as source and destination.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn open_many_raw(
        &self,
        nonces: &[[u8; 12]],
        aad: &[u8],
        stride: usize,
        buf: CUdeviceptr,
        len: usize,
        tags: &[[u8; 16]],
        stream: Option<CUstream>,
    ) -> Result<Vec<bool>> {
        if tags.len() != nonces.len() {
            return Err(aesx::Error::LengthMismatch {
                input: nonces.len(),
                output: tags.len(),
            }
            .into());
        }
        let check = |want: &[[u8; 16]]| -> Vec<bool> {
            want.iter()
                .zip(tags)
                .map(|(w, t)| aesx::ct_eq(w, t))
                .collect()
        };
        // SAFETY: the caller's promise, as documented above.
        let (_, ok) =
            unsafe { self.many_raw(nonces, aad, stride, buf, len, stream, Some(&check)) }?;
        Ok(ok)
    }
}

/// The checks of [`CudaGcm::seal_raw`]/[`CudaGcm::open_raw`] on their
/// parameters (nonce, associated data and message lengths, and when
/// opening the tag length), without a device: for bindings that report
/// argument errors before looking for a GPU.
pub fn check_gcm_args(
    nonce: &[u8],
    aad_len: usize,
    len: usize,
    tag_len: Option<usize>,
) -> core::result::Result<(), aesx::Error> {
    if let Some(t) = tag_len {
        gcm_math::check_tag_len(t)?;
    }
    gcm_math::check_limits(nonce, aad_len, len)
}

/// What is wrong with the layout of a batch of GCM messages
/// ([`check_many_args`]); its text names the rule that was broken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BatchError {
    /// A stride that is zero, not a multiple of 16 or over
    /// [`crate::MAX_MESSAGE_STRIDE`].
    Stride {
        /// The stride given.
        stride: usize,
    },
    /// No message (no nonce).
    Empty,
    /// `len` bytes are not `count` messages every `stride` bytes with only
    /// the last one shorter (possibly empty); also when `count * stride`
    /// does not fit the address space.
    Layout {
        /// Messages (nonces).
        count: usize,
        /// The stride.
        stride: usize,
        /// The buffer length given.
        len: usize,
    },
}

impl core::fmt::Display for BatchError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            BatchError::Stride { stride } => write!(
                f,
                "invalid stride {stride}: the stride of a batch must be a multiple of 16 from 16 to {} bytes",
                gcm_batch::MAX_STRIDE
            ),
            BatchError::Empty => {
                f.write_str("a batch needs at least one message (one nonce per message)")
            }
            BatchError::Layout { count, stride, len } => {
                // In u128: count * stride may not fit a usize.
                let lo = (count as u128).saturating_sub(1) * stride as u128;
                let hi = count as u128 * stride as u128;
                let messages = if count == 1 { "message" } else { "messages" };
                write!(
                    f,
                    "{len} bytes do not hold {count} {messages} every {stride} bytes: the length must be from {lo} to {hi} bytes (only the last message shorter)"
                )
            }
        }
    }
}

impl std::error::Error for BatchError {}

/// The layout check of [`CudaGcm::seal_many_raw`] (`count` messages every
/// `stride` bytes in `len` bytes, the last shorter), without a device and
/// without overflow for any count: the stride first, then the count, then
/// the length.
pub fn check_many_args(
    count: usize,
    stride: usize,
    len: usize,
) -> core::result::Result<(), BatchError> {
    if stride == 0 || !stride.is_multiple_of(16) || stride > gcm_batch::MAX_STRIDE {
        return Err(BatchError::Stride { stride });
    }
    if count == 0 {
        return Err(BatchError::Empty);
    }
    let layout = BatchError::Layout { count, stride, len };
    let full = (count - 1).checked_mul(stride).ok_or(layout)?;
    if len < full || len - full > stride {
        return Err(layout);
    }
    Ok(())
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

/// Checks one device range for a copy (no alignment needed).
fn check_copy(gpu: &Gpu, ptr: u64, len: usize) -> Result<()> {
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
/// As [`CudaAes::ecb_encrypt_raw`] for `src` (any alignment).
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
/// As [`CudaAes::ecb_encrypt_raw`] for `dst` (any alignment).
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
/// As [`CudaAes::ecb_encrypt_raw`] for `src` and `dst` (any alignment).
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
/// As [`CudaAes::ecb_encrypt_raw`] for `dst` (any alignment).
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
        // SAFETY: this function's contract.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_buffers_need_no_address() {
        assert_eq!(check_buffers(0, 0, 0, Overlap::Disjoint), Ok(()));
        assert_eq!(check_buffers(3, 5, 0, Overlap::SameOrDisjoint), Ok(()));
    }

    #[test]
    fn addresses_are_checked() {
        let ok = Overlap::SameOrDisjoint;
        assert_eq!(check_buffers(0, 4096, 16, ok), Err(PointerError::Null));
        assert_eq!(check_buffers(4096, 0, 16, ok), Err(PointerError::Null));
        assert_eq!(
            check_buffers(4097, 8192, 16, ok),
            Err(PointerError::Misaligned { ptr: 4097 })
        );
        assert_eq!(
            check_buffers(4096, 8200, 16, ok),
            Err(PointerError::Misaligned { ptr: 8200 })
        );
        assert_eq!(
            check_buffers(u64::MAX - 15, 4096, 32, ok),
            Err(PointerError::Wraps)
        );
        assert_eq!(check_buffers(4096, 4096, 64, ok), Ok(()));
        assert_eq!(check_buffers(4096, 4096 + 64, 64, ok), Ok(()));
        assert_eq!(check_buffers(4096 + 64, 4096, 64, ok), Ok(()));
        assert_eq!(
            check_buffers(4096, 4096 + 48, 64, ok),
            Err(PointerError::Overlap)
        );
        assert_eq!(
            check_buffers(4096 + 16, 4096, 64, ok),
            Err(PointerError::Overlap)
        );
        let cbc = Overlap::Disjoint;
        assert_eq!(
            check_buffers(4096, 4096, 64, cbc),
            Err(PointerError::Overlap)
        );
        assert_eq!(check_buffers(4096, 8192, 64, cbc), Ok(()));
    }

    #[test]
    fn pointer_errors_become_cuda_errors_with_their_text() {
        let e: CudaError = PointerError::Misaligned { ptr: 0x11 }.into();
        assert_eq!(
            e.to_string(),
            "CUDA driver error: device pointer 0x11 is not 16-byte aligned"
        );
    }

    #[test]
    fn batch_layouts_are_checked_without_overflow() {
        assert_eq!(check_many_args(1, 16384, 0), Ok(()));
        assert_eq!(check_many_args(3, 64, 128), Ok(()));
        assert_eq!(check_many_args(3, 64, 192), Ok(()));
        assert_eq!(check_many_args(3, 64, 130), Ok(()));
        for stride in [0, 8, 100, 16400, 16384 + 16, usize::MAX] {
            assert_eq!(
                check_many_args(1, stride, 0),
                Err(BatchError::Stride { stride })
            );
        }
        assert_eq!(check_many_args(0, 64, 0), Err(BatchError::Empty));
        // Counts whose bytes do not fit a usize: refused, never a panic
        // (debug) or a wrapped product (release).
        for count in [usize::MAX, usize::MAX / 16 + 2, 1 << 62] {
            for len in [0, 64, usize::MAX] {
                assert_eq!(
                    check_many_args(count, 16384, len),
                    Err(BatchError::Layout {
                        count,
                        stride: 16384,
                        len
                    })
                );
            }
        }
        // The largest count that fits, and one past it.
        let count = usize::MAX / 16 + 1;
        assert_eq!(check_many_args(count, 16, usize::MAX - 15), Ok(()));
        assert_eq!(check_many_args(count, 16, usize::MAX), Ok(()));
        assert!(check_many_args(count, 16, usize::MAX - 16).is_err());
        assert!(check_many_args(count + 1, 16, usize::MAX).is_err());
        for (count, len) in [(1, 65), (2, 63), (2, 129), (4, 100)] {
            assert_eq!(
                check_many_args(count, 64, len),
                Err(BatchError::Layout {
                    count,
                    stride: 64,
                    len
                })
            );
        }
    }

    #[test]
    fn batch_errors_name_their_rule() {
        let s = BatchError::Stride { stride: 16400 }.to_string();
        assert!(s.contains("16400") && s.contains("16384") && s.contains("multiple of 16"));
        assert!(!s.contains("sector"));
        let e = BatchError::Empty.to_string();
        assert!(e.contains("at least one message"), "{e}");
        let l = BatchError::Layout {
            count: usize::MAX,
            stride: 16384,
            len: 5,
        }
        .to_string();
        // The bounds are printed exactly, past usize.
        let hi = u128::from(u64::MAX) * 16384;
        assert!(l.contains(&hi.to_string()), "{l}");
    }

    #[test]
    fn sector_rules_are_the_cpus() {
        assert_eq!(
            check_sector_args(1000, 512),
            Err(aesx::Error::PartialSector {
                len: 1000,
                sector_size: 512
            })
        );
        assert_eq!(
            check_sector_args(4096, 1 << 25),
            Err(aesx::Error::InvalidSectorSize { size: 1 << 25 })
        );
        assert_eq!(
            check_sector_numbers(u128::MAX, 1024, 512),
            Err(aesx::Error::CounterOverflow)
        );
        // The same errors as aesx::Xts on the CPU, for the same mistakes.
        let x = aesx::Xts::new(&[1u8; 32]).unwrap();
        let mut buf = [0u8; 1000];
        assert_eq!(
            x.decrypt_sectors(512, 0, &mut buf),
            check_sector_args(1000, 512)
        );
        assert_eq!(
            x.decrypt_sectors(1 << 25, 0, &mut buf[..0]),
            check_sector_args(0, 1 << 25)
        );
        assert_eq!(
            x.decrypt_sectors(24, 0, &mut buf),
            check_sector_args(1000, 24)
        );
        let mut two = [0u8; 1024];
        assert_eq!(
            x.decrypt_sectors(512, u128::MAX, &mut two),
            check_sector_numbers(u128::MAX, 1024, 512)
        );
    }

    #[test]
    fn without_a_device_no_key_can_be_made() {
        // Every raw call needs a key, and a key needs a Gpu: on a machine
        // without a driver, device or NVRTC, opening one is the error.
        if crate::device_count().is_ok() {
            return;
        }
        match Gpu::new(0) {
            Err(CudaError::NoDevice(why)) => assert!(!why.is_empty()),
            other => panic!("expected NoDevice, got {other:?}"),
        }
    }
}
