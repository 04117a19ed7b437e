//! AES-GCM over many messages in one launch: the file format's chunks
//! (16 KiB each, every one with its own nonce) sealed or opened in large
//! batches. Messages lie back to back every `stride` bytes of one buffer,
//! only the last may be shorter; all share the associated data.
//!
//! One batch is one copy in, one CTR launch over every message (each from
//! its own counter block), two GHASH launches that leave one digest per
//! message, and one copy out; the tags (E_K(J0) and the length block) are
//! finished on the host (gcm_batch.rs).

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut};

use crate::device::{CipherLaunch, GhashLaunch};
use crate::error::Result;
use crate::gcm::CudaGcm;
use crate::gcm_batch;
use crate::gcm_math;
use crate::gf;

/// A batch after the GPU: the output on the device (none for an empty
/// buffer), the per-message digests and the J0s, 16 bytes each.
struct Ran {
    data: Option<CudaSlice<u8>>,
    digests: Vec<u8>,
    j0s: Vec<u8>,
}

/// Device addresses of one batch of messages: `len` bytes at `data`,
/// message i at `data + i * stride`; the first counter block of each at
/// `ctrs` (16 bytes each); the two GHASH levels (`nmsgs * runs_per_msg`
/// and `nmsgs` elements).
pub(crate) struct Msgs {
    pub(crate) data: u64,
    pub(crate) len: u64,
    pub(crate) stride: usize,
    pub(crate) nmsgs: u64,
    pub(crate) ctrs: u64,
    pub(crate) lvl1: u64,
    pub(crate) lvl2: u64,
}

impl CudaGcm {
    /// Queues a batch's work on `s`: CTR in place (first when `sealing`,
    /// last when opening, so the digests always cover the ciphertext) and
    /// the two GHASH levels that leave P(C_m; H) of every message at
    /// `m.lvl2`.
    ///
    /// # Safety
    ///
    /// Every address of `m` is device memory of this key's context, large
    /// enough for the sizes it gives, alive and untouched by others until
    /// `s` is synchronised.
    pub(crate) unsafe fn enqueue_msgs(
        &self,
        s: &std::sync::Arc<cudarc::driver::CudaStream>,
        m: &Msgs,
        sealing: bool,
    ) -> Result<()> {
        let g = &self.aes.gpu.inner;
        let nruns = gcm_batch::runs_per_msg(m.stride);
        let spb = (m.stride / 16) as u64;
        // SAFETY: the addresses hold the sizes given (this function's
        // contract); rk_ptr is this key's live schedule.
        let ctr = || unsafe {
            g.cipher(
                s,
                CipherLaunch::ctr_msgs(
                    m.data,
                    m.data,
                    m.len,
                    self.aes.rk_ptr,
                    self.aes.nr,
                    m.ctrs,
                    spb,
                ),
            )
        };
        if sealing {
            ctr()?;
        }
        let runs = GhashLaunch::new(m.data, m.len, true, m.lvl1, gf::pow(self.h, nruns));
        let sums = GhashLaunch::new(m.lvl1, 16 * m.nmsgs * nruns, false, m.lvl2, self.h);
        // SAFETY: data holds len bytes, lvl1 nmsgs * nruns
        // elements and lvl2 nmsgs.
        unsafe {
            g.ghash_msgs(s, runs, m.stride as u64, m.nmsgs, nruns)?;
            g.ghash_msgs(s, sums, 16 * nruns, m.nmsgs, 1)
        }?;
        if !sealing {
            ctr()?;
        }
        Ok(())
    }

    /// Runs the batch through the GPU: CTR when `sealing` (before the
    /// digests) and digests of the ciphertext. Returns the output on the
    /// device and the digests; `buf` is not changed.
    fn msgs_device(
        &self,
        nonces: &[[u8; 12]],
        stride: usize,
        buf: &[u8],
        sealing: bool,
    ) -> Result<Ran> {
        gcm_batch::check_layout(nonces.len(), stride, buf.len())?;
        for (i, n) in nonces.iter().enumerate() {
            gcm_math::check_limits(n, 0, gcm_batch::msg_len(i, stride, buf.len()))?;
        }
        let j0s = gcm_batch::j0s(self.h, nonces);
        let mut digests = vec![0u8; 16 * nonces.len()];
        if buf.is_empty() {
            return Ok(Ran {
                data: None,
                digests,
                j0s,
            });
        }
        let g = &self.aes.gpu.inner;
        let s = &g.stream;
        let nmsgs = nonces.len() as u64;
        let nruns = gcm_batch::runs_per_msg(stride);
        let mut data = s.clone_htod(buf)?;
        let ctrs = s.clone_htod(&gcm_batch::first_counters(&j0s))?;
        let lvl1 = s.alloc_zeros::<u8>(16 * nonces.len() * nruns as usize)?;
        let lvl2 = s.alloc_zeros::<u8>(16 * nonces.len())?;
        {
            let (d, _rd) = data.device_ptr_mut(s);
            let (c, _rc) = ctrs.device_ptr(s);
            let (l1, _r1) = lvl1.device_ptr(s);
            let (l2, _r2) = lvl2.device_ptr(s);
            let m = Msgs {
                data: d,
                len: buf.len() as u64,
                stride,
                nmsgs,
                ctrs: c,
                lvl1: l1,
                lvl2: l2,
            };
            // SAFETY: data, ctrs, lvl1 and lvl2 were allocated above for
            // exactly these sizes (the layout checked by check_layout) and
            // outlive the work, which their records order on s and which is
            // synchronised before they drop.
            unsafe { self.enqueue_msgs(s, &m, sealing) }?;
        }
        s.memcpy_dtoh(&lvl2, &mut digests)?;
        s.synchronize()?;
        Ok(Ran {
            data: Some(data),
            digests,
            j0s,
        })
    }

    fn msg_tags(&self, stride: usize, len: usize, digests: &[u8], j0s: &[u8]) -> Vec<[u8; 16]> {
        let mut ek = j0s.to_vec();
        for b in ek.chunks_exact_mut(16) {
            let mut blk = [0u8; 16];
            blk.copy_from_slice(b);
            self.cpu.encrypt_block(&mut blk);
            b.copy_from_slice(&blk);
        }
        gcm_batch::tags(self.h, &[], stride, len, digests, &ek)
    }

    /// Seals `nonces.len()` messages in place: message `i` is
    /// `buf[i * stride..]` up to `stride` bytes (`stride` a multiple of 16,
    /// at most [`crate::MAX_MESSAGE_STRIDE`] = 16 KiB; only the last message
    /// shorter, possibly empty), its nonce `nonces[i]`, no associated data.
    /// Returns the 16-byte tag of every message.
    pub fn seal_messages(
        &self,
        nonces: &[[u8; 12]],
        stride: usize,
        buf: &mut [u8],
    ) -> Result<Vec<[u8; 16]>> {
        let Ran { data, digests, j0s } = self.msgs_device(nonces, stride, buf, true)?;
        if let Some(d) = data {
            let s = &self.aes.gpu.inner.stream;
            s.memcpy_dtoh(&d, buf)?;
            s.synchronize()?;
        }
        Ok(self.msg_tags(stride, buf.len(), &digests, &j0s))
    }

    /// Opens messages laid out as for [`CudaGcm::seal_messages`] against
    /// their 16-byte `tags`, in place. Returns how many leading messages
    /// verified (`nonces.len()` when all did): their plaintext is in `buf`,
    /// and everything from the first failing message on is zeroed, so no
    /// unverified plaintext is released.
    pub fn open_messages(
        &self,
        nonces: &[[u8; 12]],
        stride: usize,
        buf: &mut [u8],
        tags: &[[u8; 16]],
    ) -> Result<usize> {
        if tags.len() != nonces.len() {
            return Err(aesx::Error::LengthMismatch {
                input: nonces.len(),
                output: tags.len(),
            }
            .into());
        }
        let Ran { data, digests, j0s } = match self.msgs_device(nonces, stride, buf, false) {
            Ok(v) => v,
            Err(e) => {
                buf.fill(0);
                return Err(e);
            }
        };
        let want = self.msg_tags(stride, buf.len(), &digests, &j0s);
        let ok = gcm_batch::verified_prefix(&want, tags);
        let valid = (ok * stride).min(buf.len());
        if let Some(d) = data {
            let s = &self.aes.gpu.inner.stream;
            let copied = if valid > 0 {
                s.memcpy_dtoh(&d.slice(0..valid), &mut buf[..valid])
                    .and_then(|()| s.synchronize())
            } else {
                Ok(())
            };
            if let Err(e) = copied {
                buf.fill(0);
                return Err(e.into());
            }
        }
        buf[valid..].fill(0);
        Ok(ok)
    }
}
