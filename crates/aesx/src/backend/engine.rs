//! The engine: one enum over the backend families, generated from the one
//! list in `backend/mod.rs` (`families!`).
//!
//! A key object holds an [`Engine`] whose variant is the family its backend
//! belongs to; every call goes through one `match` on it ([`with_engine!`]),
//! then runs monomorphic code on the family's key type. The same enum serves
//! every kind of key through its [`Shape`]: a block cipher key ([`Plain`],
//! the family's key type itself), a GCM key (`WithGhash`: the key and its
//! GHASH key) and an XTS key (`XtsPair`: data and tweak keys). The payload
//! is inline (no `Box`, no `dyn`): the match is the whole cost of dispatch.

use super::kernels::family::{Shape, WithGhash, XtsPair};
use super::kernels::gcm::GcmKey;
use super::kernels::inout::InOut;
use super::kernels::xts::{XtsKernels, XtsKeys};
use super::kernels::{BlockKernels, CbcLanes};
use super::{map_engine, with_engine, Backend, Engine};
use crate::error::Result;
use crate::key::{Block, RoundKeys};

/// Emits, from the one list of backend families: the public `Backend` enum
/// (its `ALL` and `name`), [`Engine`], its constructor, detection and
/// multi-buffer CBC over every family, and the dispatch macros
/// `with_engine!` (bind the variant's payload, run a body) and `map_engine!`
/// (the same variant with a new payload, for another shape). The leading
/// `$` is passed in so that the generated macros can have metavariables of
/// their own.
macro_rules! families {
    ($d:tt $(
        $(#[$cfg:meta])*
        $family:ident($key:ty) {
            $( $(#[$doc:meta])* $backend:ident = $name:literal, )+
        }
    )+) => {
        /// An implementation of the AES rounds.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Backend {
            $($( $(#[$doc])* $backend, )+)+
        }

        impl Backend {
            /// Every backend aesx knows, slowest first.
            pub const ALL: [Backend; [$($(stringify!($backend)),+),+].len()] =
                [$($(Backend::$backend),+),+];

            /// The name used by `FromStr`, the CLI (`--backend`,
            /// `AESX_BACKEND`) and benchmarks.
            pub const fn name(self) -> &'static str {
                match self {
                    $($( Backend::$backend => $name, )+)+
                }
            }
        }

        /// A backend's expanded key (in that backend family's own layout),
        /// shaped by `S`.
        // Keys live inline: boxing them would cost an allocation per key and
        // an indirection per call, and the variants are a few hundred bytes.
        #[allow(clippy::large_enum_variant)]
        pub(crate) enum Engine<S: $crate::backend::kernels::family::Shape = $crate::backend::kernels::family::Plain> {
            $( $(#[$cfg])* $family(S::Of<$key>), )+
        }

        /// Runs `$body` with `$k` bound to the engine's payload, of the
        /// family's concrete type: the one `match` per call that picks the
        /// backend.
        macro_rules! with_engine {
            ($d engine:expr, $d k:ident => $d body:expr) => {
                match $d engine {
                    $( $(#[$cfg])* $crate::backend::Engine::$family($d k) => $d body, )+
                }
            };
        }
        pub(crate) use with_engine;

        /// The same family with the payload `$body` made from `$k`: turns an
        /// engine of one shape into one of another.
        macro_rules! map_engine {
            ($d engine:expr, $d k:ident => $d body:expr) => {
                match $d engine {
                    $( $(#[$cfg])* $crate::backend::Engine::$family($d k) => {
                        $crate::backend::Engine::$family($d body)
                    } )+
                }
            };
        }
        pub(crate) use map_engine;

        impl Engine {
            /// Builds the engine for `backend`, which must be available.
            pub(crate) fn new(backend: Backend, rk: &RoundKeys) -> Result<Engine> {
                backend.require()?;
                match backend {
                    $(
                        $(#[$cfg])*
                        $(Backend::$backend)|+ => <$key as $crate::backend::kernels::family::Family>::new(backend, rk).map(Engine::$family),
                    )+
                    #[allow(unreachable_patterns)]
                    _ => Err(Error::BackendUnavailable(backend)),
                }
            }

            /// Multi-buffer CBC encryption of messages whose keys may be on
            /// different backends: each family's kernel gets the messages of
            /// its own keys (see [`CbcManyKernels`]).
            pub(crate) fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Engine>) {
                $(
                    $(#[$cfg])*
                    <$key as CbcManyKernels>::cbc_encrypt_many(&mut $crate::backend::engine::OneKind {
                        lanes: &mut *lanes,
                        pick: |e| match e {
                            Engine::$family(k) => Some(k),
                            #[allow(unreachable_patterns)]
                            _ => None,
                        },
                    });
                )+
            }
        }

        /// The backends of every family that this CPU and build can run.
        fn detect_families() -> BackendSet {
            let mut set = BackendSet(0);
            $(
                $(#[$cfg])*
                {
                    set.0 |= <$key as $crate::backend::kernels::family::Family>::available().0;
                }
            )+
            set
        }
    };
}
pub(crate) use families;

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
        Ok(map_engine!(Engine::new(backend, k1)?, data => XtsKeys::new(data, backend, k2)?))
    }

    /// `T = E_K2(tweak)`, in place.
    pub(crate) fn encrypt_tweak(&self, tweak: &mut Block) {
        with_engine!(self, k => k.tweak.encrypt_blocks(InOut::in_place(tweak)));
    }

    pub(crate) fn encrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_encrypt(tweak, io));
    }

    pub(crate) fn decrypt(&self, tweak: &mut Block, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_decrypt(tweak, io));
    }

    pub(crate) fn encrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_encrypt_sectors(&k.tweak, sector_size, first, io));
    }

    pub(crate) fn decrypt_sectors(&self, sector_size: usize, first: u128, io: InOut<'_>) {
        with_engine!(self, k => k.data.xts_decrypt_sectors(&k.tweak, sector_size, first, io));
    }
}
