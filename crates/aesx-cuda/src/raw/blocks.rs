//! ECB, CTR and CBC decryption on caller device memory.

use crate::aes::CudaAes;
use crate::device::CipherLaunch;
use crate::error::Result;
use crate::plan;

use super::checks::{check_all, Overlap};
use super::stream::borrow_stream;
use super::{CUdeviceptr, CUstream};

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
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); raw_launch checks the addresses first.
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
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); raw_launch checks the addresses first.
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
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); raw_launch checks the addresses first.
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
        // SAFETY: src and dst are `len` bytes of this GPU's memory, alive and used
        // by no other work until the work queued on `stream` is done (this
        // function's `# Safety`); raw_launch checks the addresses first.
        unsafe { self.raw_launch(src, dst, len, Overlap::Disjoint, stream, l) }
    }
}
