//! # aesx-cuda
//!
//! AES on NVIDIA GPUs for aesx: ECB, CTR, CBC decryption, XTS (sector API)
//! and GCM, with AES-128/192/256, for data in host memory (pipelined through
//! pinned staging buffers on several streams) or already on the device
//! (`CudaSlice<u8>`).
//!
//! The kernels are bitsliced and constant-time: no memory access and no
//! branch depends on keys or data (a T-table kernel would leak the key
//! through shared-memory bank conflicts). They are CUDA C in `kernels/`,
//! compiled at run time with NVRTC for the device's compute capability and
//! cached per process and architecture.
//!
//! Everything is loaded dynamically: the crate builds on machines without
//! CUDA, and [`Gpu::new`] returns [`CudaError::NoDevice`] there.

mod aes;
pub mod bench;
pub mod chunk_pipe;
mod ctr_stream;
mod device;
mod error;
mod gcm;
mod gcm_batch;
mod gcm_math;
mod gcm_msgs;
mod gf;
mod host_buffer;
pub mod kernels;
mod key_schedule;
mod open;
mod pipeline;
pub mod plan;
pub mod raw;
mod selftest;
mod xts;
mod xts_steal;

pub use aes::CudaAes;
pub use ctr_stream::CtrStream;
pub use device::{device_count, launches, DeviceInfo, Gpu, DEFAULT_CHUNK_LEN};
pub use error::{CudaError, Result};
pub use gcm::CudaGcm;
pub use gcm_batch::MAX_STRIDE as MAX_MESSAGE_STRIDE;
pub use host_buffer::HostBuffer;
pub use xts::CudaXts;

/// Host-side pieces exposed for the emulation tests; not a stable API.
#[doc(hidden)]
pub mod testing {
    /// Round-key words (4 per round, little-endian) and the round count.
    pub fn round_key_words(key: &[u8]) -> Result<([u32; 60], u32), aesx::Error> {
        let rk = crate::key_schedule::expand(key)?;
        Ok((rk.words, rk.rounds))
    }
    /// The round keys as the bitsliced kernels take them: 128 masks per
    /// round, rounds 0..=Nr.
    pub fn round_key_masks(key: &[u8]) -> Result<Vec<u32>, aesx::Error> {
        Ok(crate::key_schedule::expand(key)?.masks().masks.clone())
    }
    pub use crate::gcm_batch::{
        check_layout, first_counters, j0s, msg_len, runs_per_msg, tags, verified_prefix,
    };
    pub use crate::gcm_math::{append_chunk_digest, ghash_with_lengths, hash_subkey, j0};
    pub use crate::gf::{from_gcm_block, mul as gf_mul, poly_eval, pow as gf_pow, to_gcm_block};
    pub use crate::plan::ghash_pows;
    pub use crate::xts_steal::{mul_x, sectors_on_cpu, steal_tail, unit_with_stealing};
}

#[cfg(test)]
mod tests {
    fn send_sync<T: Send + Sync>() {}

    #[test]
    fn handles_can_be_shared_between_threads() {
        send_sync::<crate::Gpu>();
        send_sync::<crate::CudaAes>();
        send_sync::<crate::CudaXts>();
        send_sync::<crate::CudaGcm>();
        send_sync::<crate::CudaError>();
    }
}
