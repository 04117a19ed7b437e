//! GCM on caller device memory: one message, or a batch of messages at
//! a fixed stride; sealing and opening wait for their own digest.

use std::sync::Arc;

use cudarc::driver::{CudaStream, DevicePtr};

use crate::device::{CipherLaunch, GhashLaunch};
use crate::error::Result;
use crate::gcm::CudaGcm;
use crate::{gcm_batch, gcm_math, gf, plan};

use super::checks::{check_all, Overlap};
use super::stream::{borrow_stream, wait_for};
use super::{CUdeviceptr, CUstream};

/// Decides from the tags the digests give which messages of a batch verified.
type Verdicts<'a> = dyn Fn(&[[u8; 16]]) -> Vec<bool> + 'a;

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
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw).
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
        // SAFETY: dst holds the len bytes just encrypted into it, device memory
        // of this GPU that stays alive for this call (the caller's promise).
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
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw).
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
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw), with `buf` as source and destination.
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
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw), with `buf` as source and destination.
    pub unsafe fn seal_many_raw(
        &self,
        nonces: &[[u8; 12]],
        aad: &[u8],
        stride: usize,
        buf: CUdeviceptr,
        len: usize,
        stream: Option<CUstream>,
    ) -> Result<Vec<[u8; 16]>> {
        // SAFETY: buf is `len` bytes of this GPU's memory, alive and used by no
        // other work until the work queued on `stream` is done (this function's
        // `# Safety`); many_raw checks the layout and addresses first.
        let (tags, _) = unsafe { self.many_raw(nonces, aad, stride, buf, len, stream, None) }?;
        Ok(tags)
    }

    /// Opens messages laid out as for [`CudaGcm::seal_many_raw`](crate::CudaGcm::seal_many_raw) against
    /// their `tags` (16 bytes each), in place. Returns a verdict per message:
    /// the messages that verified are decrypted (queued), every other one is
    /// zeroed; no message is decrypted before its own tag verified. Waits for
    /// the digests, not for the decryption.
    ///
    /// # Safety
    ///
    /// As [`CudaAes::ecb_encrypt_raw`](crate::CudaAes::ecb_encrypt_raw), with `buf` as source and destination.
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
        // SAFETY: buf is `len` bytes of this GPU's memory, alive and used by no
        // other work until the work queued on `stream` is done (this function's
        // `# Safety`); many_raw checks the layout and addresses first.
        let (_, ok) =
            unsafe { self.many_raw(nonces, aad, stride, buf, len, stream, Some(&check)) }?;
        Ok(ok)
    }
}
