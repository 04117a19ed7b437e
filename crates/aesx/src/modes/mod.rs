//! Modes of operation, written once over the backends' bulk kernels.

pub mod block;
pub mod cbc;
pub mod cbc_multi;
pub mod ctr;
pub mod ecb;
pub mod esp;
pub mod gcm;
pub mod padding;
pub mod xts;
