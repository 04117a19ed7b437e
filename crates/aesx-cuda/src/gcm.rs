//! AES-GCM on the GPU: CTR (inc32) and the GHASH tree on the device, J0,
//! the associated data, the join of chunk digests and the tag on the host
//! (gcm_math.rs).

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use crate::aes::{same_context, CudaAes};
use crate::device::{CipherLaunch, GhashLaunch};
use crate::device::{Gpu, GpuInner};
use crate::error::{CudaError, Result};
use crate::gcm_math;
use crate::gf;
use crate::pipeline::SMALL_LEN;
use crate::plan;

/// An AES-GCM key on the GPU.
pub struct CudaGcm {
    pub(crate) aes: CudaAes,
    /// The same key on the CPU, for H, E_K(J0) and nothing in bulk.
    pub(crate) cpu: aesx::Aes,
    pub(crate) h: u128,
}

impl core::fmt::Debug for CudaGcm {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CudaGcm")
            .field("key_size", &self.aes.key_size())
            .finish_non_exhaustive()
    }
}

impl Drop for CudaGcm {
    fn drop(&mut self) {
        // H is key material: wipe it on the host.
        self.h = core::hint::black_box(0);
    }
}

/// Where the last, host-side level of a GHASH tree lies.
pub(crate) struct TreeRest {
    /// Device address of the remaining elements.
    pub(crate) src: u64,
    /// Their size in bytes (at most 32 blocks).
    pub(crate) nbytes: usize,
    /// Whether they are still ciphertext blocks (GCM bit order).
    gcm_order: bool,
}

impl CudaGcm {
    /// A GCM key (16, 24 or 32 bytes).
    pub fn new(gpu: &Gpu, key: &[u8]) -> Result<CudaGcm> {
        let aes = CudaAes::new(gpu, key)?;
        let cpu = crate::key_schedule::cpu_aes(key)?;
        let h = gcm_math::hash_subkey(|b| cpu.encrypt_block(b));
        Ok(CudaGcm { aes, cpu, h })
    }

    /// Queues the GHASH tree over `nbytes` bytes of ciphertext at `src`,
    /// using `scratch` (at least nbytes / 32 + 32 bytes, two halves) for
    /// the levels.
    ///
    /// # Safety
    ///
    /// `src` holds `nbytes` bytes and `scratch` `scratch_len` bytes, both
    /// device memory of `g`'s context that stays alive until `stream` is
    /// synchronised.
    pub(crate) unsafe fn enqueue_tree(
        &self,
        g: &GpuInner,
        stream: &std::sync::Arc<cudarc::driver::CudaStream>,
        src: u64,
        nbytes: usize,
        scratch: u64,
        scratch_len: usize,
    ) -> Result<TreeRest> {
        let levels = plan::ghash_levels((nbytes as u64).div_ceil(16));
        // Level outputs alternate between the two halves of the scratch.
        let half = (scratch_len / 2) & !15;
        let mut cur = TreeRest {
            src,
            nbytes,
            gcm_order: true,
        };
        for (i, level) in levels.iter().enumerate() {
            let out = scratch + if i % 2 == 0 { 0 } else { half as u64 };
            if (level.runs as usize) * 16 > half {
                return Err(CudaError::Driver("GHASH scratch too small".into()));
            }
            let base = gf::pow(self.h, level.runs);
            let tree = GhashLaunch::new(cur.src, cur.nbytes as u64, cur.gcm_order, out, base);
            // SAFETY: cur.src holds cur.nbytes bytes and each level's output fits
            // its half of the scratch (checked above); both satisfy this
            // function's contract.
            unsafe { g.ghash_runs(stream, tree, level) }?;
            cur = TreeRest {
                src: out,
                nbytes: level.runs as usize * 16,
                gcm_order: false,
            };
        }
        Ok(cur)
    }

    /// Finishes a tree on the host from its remaining elements.
    pub(crate) fn finish_tree(&self, rest: &TreeRest, bytes: &[u8]) -> u128 {
        if rest.gcm_order {
            gf::poly_eval_gcm_bytes(bytes, self.h)
        } else {
            let elems: Vec<u128> = bytes
                .chunks_exact(16)
                .map(|c| {
                    let mut b = [0u8; 16];
                    b.copy_from_slice(c);
                    u128::from_le_bytes(b)
                })
                .collect();
            gf::poly_eval(&elems, self.h)
        }
    }

    pub(crate) fn tag(&self, j0: &[u8; 16], aad: &[u8], len: usize, digest: u128) -> [u8; 16] {
        let s = gcm_math::ghash_with_lengths(self.h, aad, len as u64, digest);
        let mut ek = *j0;
        self.cpu.encrypt_block(&mut ek);
        let mut tag = [0u8; 16];
        for i in 0..16 {
            tag[i] = s[i] ^ ek[i];
        }
        tag
    }

    /// P(C; H) over ciphertext already in device memory.
    ///
    /// # Safety
    ///
    /// `c` is a device address of this key's context holding `len` bytes,
    /// alive for the call (which synchronises the stream before returning).
    unsafe fn digest_device(&self, c: u64, len: usize) -> Result<u128> {
        let g = &self.aes.gpu.inner;
        let scratch_len = 2 * (len / 32 + 64);
        let scratch = g.stream.alloc_zeros::<u8>(scratch_len)?;
        let (sp, _rs) = scratch.device_ptr(&g.stream);
        // SAFETY: c holds len bytes (this function's contract) and the scratch, held
        // here until the stream is synchronised, has scratch_len bytes.
        let rest = unsafe { self.enqueue_tree(g, &g.stream, c, len, sp, scratch_len) }?;
        let mut bytes = vec![0u8; rest.nbytes];
        if rest.nbytes > 0 {
            g.ctx.bind_to_thread()?;
            // SAFETY: rest.src holds rest.nbytes bytes (the ciphertext or a
            // level output in `scratch`, alive here); the copy into pageable
            // memory returns when it is complete.
            unsafe {
                cudarc::driver::result::memcpy_dtoh_async(
                    &mut bytes[..],
                    rest.src,
                    g.stream.cu_stream(),
                )
            }?;
        }
        g.stream.synchronize()?;
        Ok(self.finish_tree(&rest, &bytes))
    }

    /// GCM's CTR (from J0 + 1) in place over `len` bytes at `p` on the
    /// device-memory stream.
    ///
    /// # Safety
    ///
    /// `p` is a device address of this key's context holding `len` bytes,
    /// alive until the stream is synchronised.
    unsafe fn ctr_device(&self, p: u64, len: usize, j0: &[u8; 16]) -> Result<()> {
        let g = &self.aes.gpu.inner;
        let c = plan::ctr32_add(j0, 1);
        // SAFETY: p holds len bytes (this function's contract); rk_ptr is
        // this key's live schedule.
        unsafe {
            g.cipher(
                &g.stream,
                CipherLaunch::ctr(p, p, len as u64, self.aes.rk_ptr, self.aes.nr, &c, true),
            )
        }
    }

    /// Encrypts `buf` in place in device memory and returns the 16-byte tag
    /// (truncate it for shorter tags).
    pub fn seal_device(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut CudaSlice<u8>,
    ) -> Result<[u8; 16]> {
        let g = &self.aes.gpu.inner;
        same_context(&self.aes.gpu, buf.context())?;
        gcm_math::check_limits(nonce, aad.len(), buf.len())?;
        let j0 = gcm_math::j0(self.h, nonce);
        let len = buf.len();
        let (p, _rb) = buf.device_ptr_mut(&g.stream);
        // SAFETY: p is `buf`'s address (checked to be of this context, `len`
        // bytes), borrowed until the work on g.stream is done.
        unsafe { self.ctr_device(p, len, &j0) }?;
        // SAFETY: p is `buf`'s address (of this context, `len` bytes), borrowed for
        // the whole call, which synchronises g.stream before returning.
        let digest = unsafe { self.digest_device(p, len) }?;
        Ok(self.tag(&j0, aad, len, digest))
    }

    /// Verifies and decrypts `buf` in place in device memory. On a tag
    /// mismatch the buffer is zeroed and `AuthenticationFailed` returned;
    /// the tag is checked before any plaintext is produced.
    pub fn open_device(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut CudaSlice<u8>,
        tag: &[u8],
    ) -> Result<()> {
        let g = &self.aes.gpu.inner;
        same_context(&self.aes.gpu, buf.context())?;
        gcm_math::check_limits(nonce, aad.len(), buf.len())?;
        gcm_math::check_tag_len(tag.len())?;
        let j0 = gcm_math::j0(self.h, nonce);
        let len = buf.len();
        let (p, rb) = buf.device_ptr_mut(&g.stream);
        // SAFETY: p is `buf`'s address (of this context, `len` bytes), borrowed for
        // the whole call, which synchronises g.stream before returning.
        let digest = unsafe { self.digest_device(p, len) }?;
        let want = self.tag(&j0, aad, len, digest);
        if !aesx::ct_eq(&want[..tag.len()], tag) {
            drop(rb);
            g.stream.memset_zeros(buf)?;
            g.stream.synchronize()?;
            return Err(aesx::Error::AuthenticationFailed.into());
        }
        // SAFETY: p is `buf`'s address (checked to be of this context, `len`
        // bytes), borrowed until the work on g.stream is done.
        unsafe { self.ctr_device(p, len, &j0) }
    }

    /// Runs host data through the pipeline: CTR, and GHASH over the
    /// ciphertext (the output when sealing, the input when opening).
    fn host(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        sealing: bool,
    ) -> Result<([u8; 16], [u8; 16])> {
        gcm_math::check_limits(nonce, aad.len(), buf.len())?;
        let g = &self.aes.gpu.inner;
        let j0 = gcm_math::j0(self.h, nonce);
        let ctr1 = plan::ctr32_add(&j0, 1);
        let mut digest = 0u128;
        // Filled by the enqueue step, emptied by the completion step.
        let rests: std::cell::RefCell<Vec<Option<TreeRest>>> = Default::default();
        let len = buf.len();
        g.staging.run(
            &g.ctx,
            buf,
            0,
            |slot, chunk| {
                // SAFETY: the slot's buffers hold capacity >= chunk.len bytes (the
                // size ctr_chunk takes from the chunk) and live as long as the
                // staging, whose stream is synchronised before reuse; rk_ptr is
                // this key's live schedule.
                unsafe { g.cipher(&slot.stream, self.aes.ctr_chunk(slot, chunk, &ctr1, true)) }?;
                let ct = if sealing { slot.d_out } else { slot.d_in };
                // SAFETY: ct (d_out or d_in) holds chunk.len bytes and d_aux
                // the slot's capacity; the pipeline synchronises the slot's
                // stream before reuse.
                let rest = unsafe {
                    self.enqueue_tree(g, &slot.stream, ct, chunk.len, slot.d_aux, slot.capacity)
                }?;
                if rest.nbytes > SMALL_LEN {
                    return Err(CudaError::Driver(
                        "GHASH tree left too many elements".into(),
                    ));
                }
                // SAFETY: rest.src lies in the slot's buffers (d_in, d_out or
                // d_aux), which hold rest.nbytes bytes and live until the stream
                // is synchronised.
                unsafe { slot.fetch_small(rest.src, rest.nbytes) }?;
                let mut rests = rests.borrow_mut();
                if rests.len() <= chunk.index {
                    rests.resize_with(chunk.index + 1, || None);
                }
                rests[chunk.index] = Some(rest);
                Ok(())
            },
            |slot, chunk| {
                let rest = rests
                    .borrow_mut()
                    .get_mut(chunk.index)
                    .and_then(Option::take)
                    .ok_or_else(|| CudaError::Driver("chunk without GHASH state".into()))?;
                let d = self.finish_tree(&rest, slot.small(rest.nbytes));
                digest = gcm_math::append_chunk_digest(digest, self.h, chunk.len as u64, d);
                Ok(())
            },
        )?;
        Ok((j0, self.tag(&j0, aad, len, digest)))
    }

    /// Encrypts `buf` in place in host memory; returns the 16-byte tag.
    pub fn seal_in_place(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16]> {
        Ok(self.host(nonce, aad, buf, true)?.1)
    }

    /// Decrypts `buf` in place in host memory and verifies `tag` (4, 8 or
    /// 12..=16 bytes). On a mismatch the buffer is zeroed before returning
    /// `AuthenticationFailed`, so no unverified plaintext is released.
    pub fn open_in_place(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
    ) -> Result<()> {
        gcm_math::check_tag_len(tag.len())?;
        let want = match self.host(nonce, aad, buf, false) {
            Ok((_, t)) => t,
            Err(e) => {
                buf.fill(0);
                return Err(e);
            }
        };
        if aesx::ct_eq(&want[..tag.len()], tag) {
            Ok(())
        } else {
            buf.fill(0);
            Err(aesx::Error::AuthenticationFailed.into())
        }
    }
}
