//! Modes of operation, written once over the backends' bulk kernels.

pub(crate) mod block;
pub(crate) mod cbc;
pub(crate) mod cbc_multi;
pub(crate) mod ccm;
pub(crate) mod cmac;
pub(crate) mod ctr;
pub(crate) mod ecb;
pub(crate) mod esp;
pub(crate) mod gcm;
pub(crate) mod gcm_siv;
pub(crate) mod gcm_stream;
pub(crate) mod keywrap;
pub(crate) mod padding;
pub(crate) mod xaes;
pub(crate) mod xts;
