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

use super::gcm_kernels::GcmKernels;
use super::kernels::{CbcLanes, CbcManyKernels};
use super::mac_kernels::MacKernels;
use super::siv_kernels::SivKernels;
use super::xts_kernels::XtsKernels;
use super::{map_engine, Backend, BackendSet, Engine};
use crate::error::Result;
use crate::key::{Block, RoundKeys};

/// A backend family's key type: what `families!` needs of each entry. The
/// kernel traits are supertraits: every mode runs on every family, and
/// every shape can be built from any family.
pub(crate) trait Family:
    GcmKernels + XtsKernels + MacKernels + SivKernels + CbcManyKernels + Clone
{
    /// Expands `rk` for `backend`, one of this family's; fails unless the CPU
    /// runs it.
    fn new(backend: Backend, rk: &RoundKeys) -> Result<Self>;

    /// The backends of this family that this CPU and build can run.
    fn available() -> BackendSet;
}

/// What an engine holds for a family's key type `K`.
pub(crate) trait Shape {
    type Of<K: Family>: Clone;
}

/// The family's key type itself: ECB, CBC, CTR, the MACs, key wrap.
pub(crate) enum Plain {}

impl Shape for Plain {
    type Of<K: Family> = K;
}

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
        pub(crate) enum Engine<S: $crate::backend::engine::Shape = $crate::backend::engine::Plain> {
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
                        $(Backend::$backend)|+ => <$key as $crate::backend::engine::Family>::new(backend, rk).map(Engine::$family),
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
                    set.0 |= <$key as $crate::backend::engine::Family>::available().0;
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
