//! A GCM-SIV message's derived keys on the family's own key type, for a
//! call split over threads (`modes/parallel.rs`): its segments share one
//! [`SivMessage`]. Each method is one match whose arms call the family's
//! kernel. (Not an [`Engine`] shape: a message's POLYVAL key need not be
//! `Clone`, and nothing clones one.)

use super::Engine;
#[cfg(target_arch = "aarch64")]
use crate::backend::aarch64::ArmAes;
use crate::backend::kernels::inout::InOut;
use crate::backend::kernels::siv::{Message, SIV_NONCE_LEN};
use crate::backend::soft::SoftAes;
#[cfg(target_arch = "x86_64")]
use crate::backend::x86::X86Aes;
use crate::error::Result;
use crate::key::{Block, KeySize};

/// One GCM-SIV message's POLYVAL and AES keys, on its backend.
// Built once per split call and shared by reference, never moved about:
// inline, as the engine's keys are.
#[allow(clippy::large_enum_variant)]
pub(crate) enum SivMessage {
    Soft(Message<SoftAes>),
    #[cfg(target_arch = "x86_64")]
    X86(Message<X86Aes>),
    #[cfg(target_arch = "aarch64")]
    Aarch64(Message<ArmAes>),
}

impl Engine {
    /// Derives the keys of the message with `nonce` under this
    /// key-generating key of `size`; `longest` (the longer of AAD and
    /// text) sizes the POLYVAL key's table.
    pub(crate) fn siv_message(
        &self,
        size: KeySize,
        nonce: &[u8; SIV_NONCE_LEN],
        longest: usize,
    ) -> Result<SivMessage> {
        Ok(match self {
            Engine::Soft(k) => SivMessage::Soft(Message::derive(k, size, nonce, longest)?),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => SivMessage::X86(Message::derive(k, size, nonce, longest)?),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => SivMessage::Aarch64(Message::derive(k, size, nonce, longest)?),
        })
    }
}

impl SivMessage {
    /// POLYVAL of `data` (the last partial block zero-padded) into `acc`.
    #[inline]
    pub(crate) fn hash(&self, acc: &mut Block, data: &[u8]) {
        match self {
            SivMessage::Soft(m) => m.hash(acc, data),
            #[cfg(target_arch = "x86_64")]
            SivMessage::X86(m) => m.hash(acc, data),
            #[cfg(target_arch = "aarch64")]
            SivMessage::Aarch64(m) => m.hash(acc, data),
        }
    }

    /// The counter mode over `io` from the counter block `ctr`.
    #[inline]
    pub(crate) fn ctr32le(&self, ctr: &Block, io: InOut<'_>) {
        match self {
            SivMessage::Soft(m) => m.ctr32le(ctr, io),
            #[cfg(target_arch = "x86_64")]
            SivMessage::X86(m) => m.ctr32le(ctr, io),
            #[cfg(target_arch = "aarch64")]
            SivMessage::Aarch64(m) => m.ctr32le(ctr, io),
        }
    }

    /// `acc` times H^m in POLYVAL's field.
    pub(crate) fn times_h_pow(&self, acc: &Block, m: u64) -> Block {
        match self {
            SivMessage::Soft(k) => k.times_h_pow(acc, m),
            #[cfg(target_arch = "x86_64")]
            SivMessage::X86(k) => k.times_h_pow(acc, m),
            #[cfg(target_arch = "aarch64")]
            SivMessage::Aarch64(k) => k.times_h_pow(acc, m),
        }
    }

    /// The tag from `s`, POLYVAL of the associated data and the text.
    pub(crate) fn finish(
        &self,
        nonce: &[u8; SIV_NONCE_LEN],
        aad_len: usize,
        text_len: usize,
        s: Block,
    ) -> Block {
        match self {
            SivMessage::Soft(m) => m.finish(nonce, aad_len, text_len, s),
            #[cfg(target_arch = "x86_64")]
            SivMessage::X86(m) => m.finish(nonce, aad_len, text_len, s),
            #[cfg(target_arch = "aarch64")]
            SivMessage::Aarch64(m) => m.finish(nonce, aad_len, text_len, s),
        }
    }
}
