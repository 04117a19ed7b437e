//! The engine: one enum over the backend families, and the one `match` per
//! call that reaches a family's kernels.
//!
//! A key object holds an [`Engine`] whose variant is the family its backend
//! belongs to (the list in `list.rs` says which); every call goes through
//! one `match` on it ([`with_engine!`]), then runs monomorphic code on the
//! family's key type, and the family makes its own further choices (x86:
//! its tier and the round count) inside its folder. The same enum serves
//! every kind of key through its [`Shape`]: a block cipher key ([`Plain`],
//! the family's key type itself), a GCM key (`WithGhash`: the key and its
//! GHASH key) and an XTS key (`XtsPair`: data and tweak keys). The payload
//! is inline (no `Box`, no `dyn`): the match is the whole cost of dispatch.
//!
//! A new family adds its variant to [`Engine`] and one arm to each `match`
//! below; every one of them is exhaustive, so the compiler names each place.

#[cfg(target_arch = "aarch64")]
use super::aarch64::ArmAes;
use super::kernels::family::{Family, Plain, Shape, WithGhash, XtsPair};
use super::kernels::gcm::GcmKey;
use super::kernels::inout::InOut;
use super::kernels::xts::{XtsKernels, XtsKeys};
use super::kernels::{BlockKernels, CbcLanes, CbcManyKernels};
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

/// Runs `$body` with `$k` bound to the engine's payload, of the family's
/// concrete type: the one `match` per call that picks the family. The body
/// is compiled once per family, so `$k`'s methods are the family's own.
macro_rules! with_engine {
    ($engine:expr, $k:ident => $body:expr) => {
        match $engine {
            $crate::backend::engine::Engine::Soft($k) => $body,
            #[cfg(target_arch = "x86_64")]
            $crate::backend::engine::Engine::X86($k) => $body,
            #[cfg(target_arch = "aarch64")]
            $crate::backend::engine::Engine::Aarch64($k) => $body,
        }
    };
}
pub(crate) use with_engine;

/// The same family with the payload `$body` made from `$k`: turns an
/// engine of one shape into one of another.
macro_rules! map_engine {
    ($engine:expr, $k:ident => $body:expr) => {
        match $engine {
            $crate::backend::engine::Engine::Soft($k) => {
                $crate::backend::engine::Engine::Soft($body)
            }
            #[cfg(target_arch = "x86_64")]
            $crate::backend::engine::Engine::X86($k) => $crate::backend::engine::Engine::X86($body),
            #[cfg(target_arch = "aarch64")]
            $crate::backend::engine::Engine::Aarch64($k) => {
                $crate::backend::engine::Engine::Aarch64($body)
            }
        }
    };
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
    /// different backends: each family's kernel gets the messages of its
    /// own keys (see [`CbcManyKernels`]).
    pub(crate) fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Engine>) {
        SoftAes::cbc_encrypt_many(&mut OneKind {
            lanes: &mut *lanes,
            pick: |e| match e {
                Engine::Soft(k) => Some(k),
                #[allow(unreachable_patterns)]
                _ => None,
            },
        });
        #[cfg(target_arch = "x86_64")]
        X86Aes::cbc_encrypt_many(&mut OneKind {
            lanes: &mut *lanes,
            pick: |e| match e {
                Engine::X86(k) => Some(k),
                _ => None,
            },
        });
        #[cfg(target_arch = "aarch64")]
        ArmAes::cbc_encrypt_many(&mut OneKind {
            lanes: &mut *lanes,
            pick: |e| match e {
                Engine::Aarch64(k) => Some(k),
                _ => None,
            },
        });
    }
}

impl<S: Shape> Clone for Engine<S> {
    fn clone(&self) -> Self {
        map_engine!(self, k => k.clone())
    }
}

/// The messages of `lanes` whose engine is of one family, as that family's
/// key.
pub(crate) struct OneKind<'l, L, K> {
    pub(crate) lanes: &'l mut L,
    pub(crate) pick: fn(&Engine) -> Option<&K>,
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

/// A GCM key on its backend; dispatch with `with_engine!`.
pub(crate) type GcmEngine = Engine<WithGhash>;

impl Engine {
    /// Derives H (and its powers) for this AES key.
    pub(crate) fn with_ghash(self) -> GcmEngine {
        map_engine!(self, k => GcmKey::new(k))
    }
}

/// An XTS key on its backend.
pub(crate) type XtsEngine = Engine<XtsPair>;

impl XtsEngine {
    /// Expands the data key `k1` and the tweak key `k2` for `backend`.
    pub(crate) fn pair(backend: Backend, k1: &RoundKeys, k2: &RoundKeys) -> Result<Self> {
        let tier = backend.row().tier;
        let unavailable = Error::BackendUnavailable(backend);
        Ok(
            map_engine!(Engine::new(backend, k1)?, data => XtsKeys::new(data, tier, k2).ok_or(unavailable)?),
        )
    }

    /// `T = E_K2(tweak)`, in place.
    pub(crate) fn encrypt_tweak(&self, tweak: &mut Block) {
        with_engine!(self, k => k.tweak.encrypt_block(tweak));
    }

    pub(crate) fn encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_encrypt(tweak, io));
    }

    pub(crate) fn decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_decrypt(tweak, io));
    }

    /// A data unit that is not whole blocks, ciphertext stealing included.
    pub(crate) fn encrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_encrypt_stealing(tweak, io));
    }

    pub(crate) fn decrypt_stealing(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_decrypt_stealing(tweak, io));
    }

    pub(crate) fn encrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_encrypt_sectors(&k.tweak, sector_size, first, io));
    }

    pub(crate) fn decrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_decrypt_sectors(&k.tweak, sector_size, first, io));
    }
}
