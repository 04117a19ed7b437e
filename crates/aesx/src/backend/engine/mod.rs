//! The engine: one enum over the backend families, and the one `match` per
//! call that reaches a family's kernels.
//!
//! A key object holds an [`Engine`] whose variant is the family its backend
//! belongs to (the list in `list.rs` says which). Every operation is a
//! method here holding one exhaustive `match` over the families, whose arm
//! calls the family's own kernel on its concrete key type: go-to-definition
//! from a mode lands on the method, and from its arm on the family's impl.
//! The family makes its further choices (x86: its tier and the round count)
//! inside its folder. The same enum serves every kind of key through its
//! [`Shape`]: a block cipher key ([`Plain`], the family's key type itself;
//! `block.rs`), a GCM key (`WithGhash`: the key and its GHASH key;
//! `gcm.rs`) and an XTS key (`XtsPair`: data and tweak keys; `xts.rs`). The
//! payload is inline (no `Box`, no `dyn`): the match is the whole cost of
//! dispatch.
//!
//! A new family adds its variant to [`Engine`]; every `match` on it (and on
//! `FamilyId`) is exhaustive, without a wildcard arm, so the compiler names
//! each place that needs its arm.

mod block;
mod gcm;
#[cfg(feature = "std")]
mod siv;
mod xts;

pub(crate) use gcm::GcmEngine;
#[cfg(feature = "std")]
pub(crate) use siv::SivMessage;
pub(crate) use xts::XtsEngine;

#[cfg(target_arch = "aarch64")]
use super::aarch64::ArmAes;
use super::kernels::family::{Family, Plain, Shape};
use super::kernels::{CbcLanes, CbcManyKernels};
use super::list::{Backend, FamilyId};
use super::soft::SoftAes;
#[cfg(target_arch = "x86_64")]
use super::x86::X86Aes;
use crate::error::{Error, Result};
use crate::key::{Block, RoundKeys};

/// A backend's expanded key (in that backend family's own layout), shaped
/// by `S`.
// Keys live inline: boxing them would cost an allocation per key and an
// indirection per call, and the variants are a few hundred bytes.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Engine<S: Shape = Plain> {
    Soft(S::Of<SoftAes>),
    #[cfg(target_arch = "x86_64")]
    X86(S::Of<X86Aes>),
    #[cfg(target_arch = "aarch64")]
    Aarch64(S::Of<ArmAes>),
}

/// Work that must run generically on the family's own key type, for a
/// caller that hands that type on (the RustCrypto backends give it to a
/// mode crate's closure). Everything else calls the engine's methods.
#[cfg(feature = "rustcrypto")]
pub(crate) trait PerFamily<S: Shape = Plain> {
    type Output;

    /// Runs on the family key type `K`'s payload.
    fn call<K: Family>(self, k: &S::Of<K>) -> Self::Output;
}

#[cfg(feature = "rustcrypto")]
impl<S: Shape> Engine<S> {
    /// Runs `f` on the payload as its family's concrete type.
    #[inline]
    pub(crate) fn per_family<F: PerFamily<S>>(&self, f: F) -> F::Output {
        match self {
            Engine::Soft(k) => f.call::<SoftAes>(k),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => f.call::<X86Aes>(k),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => f.call::<ArmAes>(k),
        }
    }
}

impl Engine {
    /// Builds the engine for `backend`: its row's family expands the key
    /// for the row's tier. Fails unless the CPU runs it.
    pub(crate) fn new(backend: Backend, rk: &RoundKeys) -> Result<Engine> {
        let tier = backend.row().tier;
        let engine = match backend.row().family {
            FamilyId::Soft => SoftAes::with_tier(tier, rk).map(Engine::Soft),
            #[cfg(target_arch = "x86_64")]
            FamilyId::X86 => X86Aes::with_tier(tier, rk).map(Engine::X86),
            #[cfg(target_arch = "aarch64")]
            FamilyId::Aarch64 => ArmAes::with_tier(tier, rk).map(Engine::Aarch64),
            // The families this build leaves out run nothing.
            #[cfg(not(target_arch = "x86_64"))]
            FamilyId::X86 => None,
            #[cfg(not(target_arch = "aarch64"))]
            FamilyId::Aarch64 => None,
        };
        engine.ok_or(Error::BackendUnavailable(backend))
    }

    /// Multi-buffer CBC encryption of messages whose keys may be on
    /// different backends: each family of the list gets the messages of its
    /// own keys (see [`CbcManyKernels`]). The families come from
    /// `FamilyId::ALL` (checked against the list at compile time) through
    /// an exhaustive match, so no family's messages can be left out.
    pub(crate) fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Engine>) {
        for family in FamilyId::ALL {
            match family {
                FamilyId::Soft => SoftAes::cbc_encrypt_many(&mut OneKind {
                    lanes: &mut *lanes,
                    pick: Engine::as_soft,
                }),
                #[cfg(target_arch = "x86_64")]
                FamilyId::X86 => X86Aes::cbc_encrypt_many(&mut OneKind {
                    lanes: &mut *lanes,
                    pick: Engine::as_x86,
                }),
                #[cfg(target_arch = "aarch64")]
                FamilyId::Aarch64 => ArmAes::cbc_encrypt_many(&mut OneKind {
                    lanes: &mut *lanes,
                    pick: Engine::as_aarch64,
                }),
                // No key of a family this build leaves out can exist.
                #[cfg(not(target_arch = "x86_64"))]
                FamilyId::X86 => {}
                #[cfg(not(target_arch = "aarch64"))]
                FamilyId::Aarch64 => {}
            }
        }
    }

    /// The soft key, if this engine is one.
    fn as_soft(&self) -> Option<&SoftAes> {
        match self {
            Engine::Soft(k) => Some(k),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(_) => None,
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(_) => None,
        }
    }

    /// The x86 key, if this engine is one.
    #[cfg(target_arch = "x86_64")]
    fn as_x86(&self) -> Option<&X86Aes> {
        match self {
            Engine::Soft(_) => None,
            Engine::X86(k) => Some(k),
        }
    }

    /// The AArch64 key, if this engine is one.
    #[cfg(target_arch = "aarch64")]
    fn as_aarch64(&self) -> Option<&ArmAes> {
        match self {
            Engine::Soft(_) => None,
            Engine::Aarch64(k) => Some(k),
        }
    }
}

impl<S: Shape> Clone for Engine<S> {
    fn clone(&self) -> Self {
        match self {
            Engine::Soft(k) => Engine::Soft(k.clone()),
            #[cfg(target_arch = "x86_64")]
            Engine::X86(k) => Engine::X86(k.clone()),
            #[cfg(target_arch = "aarch64")]
            Engine::Aarch64(k) => Engine::Aarch64(k.clone()),
        }
    }
}

/// The messages of `lanes` whose engine is of one family, as that family's
/// key.
struct OneKind<'l, L, K> {
    lanes: &'l mut L,
    pick: fn(&Engine) -> Option<&K>,
}

impl<K, L: CbcLanes<Engine>> CbcLanes<K> for OneKind<'_, L, K> {
    fn count(&self) -> usize {
        self.lanes.count()
    }

    fn lane(&mut self, i: usize) -> Option<(&K, &mut Block, &mut [u8])> {
        let (e, iv, data) = self.lanes.lane(i)?;
        Some(((self.pick)(e)?, iv, data))
    }
}
