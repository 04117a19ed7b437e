//! RustCrypto's `cipher` 0.5 and `aead` 0.6 traits on aesx's engine, so that
//! code written against the `aes`, `ctr`, `cbc`, `xts-mode` and `aes-gcm`
//! crates runs on aesx by changing only its `use` lines.
//!
//! The types here are thin wrappers over [`Aes`](crate::Aes) and
//! [`Gcm`](crate::Gcm) with the key size in the type, as the traits want.
//! Multi-block calls go to the backends' bulk kernels in one call per
//! buffer (or per batch of [`PAR_BLOCKS`] blocks when a mode crate drives
//! the cipher through `cipher`'s backend closures), never block by block.

mod block;
mod gcm;

pub use block::{Aes128, Aes192, Aes256};
pub use gcm::{Aes128Gcm, Aes192Gcm, Aes256Gcm, Key, Nonce};

/// Blocks a mode crate (`ctr`, `cbc`) hands the cipher at once through
/// `encrypt_par_blocks`: 512 bytes, enough to fill every backend's widest
/// loop (the bitsliced soft backend takes 16 blocks per batch, VAES-512
/// 16 or 32 per iteration) while staying small on the caller's stack.
pub(crate) const PAR_BLOCKS: usize = 32;
