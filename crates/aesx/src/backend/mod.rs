//! Backends: which code runs the AES rounds, chosen once at run time.
//!
//! Each backend supplies the bulk kernels in [`kernels`]; a key object holds
//! an [`Engine`] (the backend's own round-key layout) and every call goes
//! through one `match` on it, never one per block.
//!
//! Adding a backend means adding its files under `backend/` and one variant to
//! [`Backend`]; the x86 and aarch64 families keep their own sub-dispatch in
//! their folders.

use core::fmt;
use core::str::FromStr;
use core::sync::atomic::{AtomicU8, Ordering};

use crate::error::{Error, Result};
use crate::key::{Block, RoundKeys};

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod cpu;
pub(crate) mod gcm_kernels;
pub(crate) mod inout;
pub(crate) mod kernels;
pub(crate) mod mac_kernels;
pub(crate) mod polyval_kernels;
pub(crate) mod siv_kernels;
pub(crate) mod soft;
pub(crate) mod trace;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;
pub(crate) mod xts_kernels;

pub(crate) use inout::InOut;
pub(crate) use kernels::{BlockKernels, CbcLanes, CbcManyKernels};

/// An implementation of the AES rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Backend {
    /// Portable, constant-time, bitsliced. Runs everywhere.
    Soft,
    /// x86-64 AES-NI with SSE (and PCLMULQDQ), 128-bit lanes.
    Aesni,
    /// x86-64 VAES and VPCLMULQDQ on 256-bit ymm registers with AVX2.
    Vaes256,
    /// x86-64 VAES and VPCLMULQDQ on 512-bit zmm registers with AVX-512.
    Vaes512,
    /// AArch64 Crypto Extensions (AESE/AESD, PMULL).
    Armv8,
}

impl Backend {
    /// Every backend aesx knows, slowest first.
    pub const ALL: [Backend; 5] = [
        Backend::Soft,
        Backend::Aesni,
        Backend::Vaes256,
        Backend::Vaes512,
        Backend::Armv8,
    ];

    /// The name used by `FromStr`, the CLI (`--backend`, `AESX_BACKEND`) and
    /// benchmarks.
    pub const fn name(self) -> &'static str {
        match self {
            Backend::Soft => "soft",
            Backend::Aesni => "aesni",
            Backend::Vaes256 => "vaes256",
            Backend::Vaes512 => "vaes512",
            Backend::Armv8 => "armv8",
        }
    }

    const fn bit(self) -> u8 {
        1 << (self as u8)
    }

    /// Whether this CPU and this build can run the backend.
    pub fn is_available(self) -> bool {
        Self::available().contains(self)
    }

    /// The backends this machine can run (detected once, then cached).
    pub fn available() -> BackendSet {
        static CACHE: AtomicU8 = AtomicU8::new(0);
        let bits = CACHE.load(Ordering::Relaxed);
        if bits != 0 {
            return BackendSet(bits);
        }
        let mut set = BackendSet(Backend::Soft.bit());
        #[cfg(target_arch = "x86_64")]
        {
            set.0 |= x86::available().0;
        }
        #[cfg(target_arch = "aarch64")]
        if aarch64::available() {
            set.0 |= Backend::Armv8.bit();
        }
        CACHE.store(set.0, Ordering::Relaxed);
        set
    }

    /// The fastest backend this machine can run.
    pub fn fastest() -> Backend {
        Self::available().iter().last().unwrap_or(Backend::Soft)
    }

    /// The backend new keys use by default: the fastest this machine has.
    ///
    /// The library reads no environment variable; a program that lets its
    /// user force a backend (the `aesx` CLI reads `AESX_BACKEND`) parses the
    /// name with [`str::parse`], checks it with [`Backend::require`] and
    /// passes it to the `with_backend` constructors. Never fails; the
    /// `Result` is kept for compatibility.
    pub fn preferred() -> Result<Backend> {
        Ok(Self::fastest())
    }

    /// `Ok(self)` if available, else [`Error::BackendUnavailable`].
    pub fn require(self) -> Result<Backend> {
        if self.is_available() {
            Ok(self)
        } else {
            Err(Error::BackendUnavailable(self))
        }
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Backend {
    type Err = Error;

    fn from_str(s: &str) -> Result<Backend> {
        Backend::ALL
            .iter()
            .copied()
            .find(|b| b.name().eq_ignore_ascii_case(s))
            .ok_or(Error::UnknownBackend)
    }
}

/// A set of backends, iterated slowest first.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct BackendSet(pub(crate) u8);

impl BackendSet {
    /// Whether `b` is in the set.
    pub fn contains(self, b: Backend) -> bool {
        self.0 & b.bit() != 0
    }

    /// The backends in the set, slowest first.
    pub fn iter(self) -> impl DoubleEndedIterator<Item = Backend> + Clone {
        Backend::ALL.into_iter().filter(move |b| self.contains(*b))
    }

    /// Number of backends in the set.
    pub fn len(self) -> usize {
        self.0.count_ones() as usize
    }

    /// True when the set is empty (never for `available()`).
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl IntoIterator for BackendSet {
    type Item = Backend;
    type IntoIter = BackendIter;

    fn into_iter(self) -> BackendIter {
        BackendIter { set: self, next: 0 }
    }
}

/// Iterator over a [`BackendSet`], slowest first.
#[derive(Clone)]
pub struct BackendIter {
    set: BackendSet,
    next: usize,
}

impl Iterator for BackendIter {
    type Item = Backend;

    fn next(&mut self) -> Option<Backend> {
        while self.next < Backend::ALL.len() {
            let b = Backend::ALL[self.next];
            self.next += 1;
            if self.set.contains(b) {
                return Some(b);
            }
        }
        None
    }
}

/// A backend's expanded key, in that backend's own layout.
// Round keys live inline: boxing them would cost an allocation per key and an
// indirection per call, and the variants are all a few hundred bytes anyway.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub(crate) enum Engine {
    Soft(soft::SoftAes),
    #[cfg(target_arch = "x86_64")]
    X86(x86::X86Aes),
    #[cfg(target_arch = "aarch64")]
    Armv8(aarch64::ArmAes),
}

impl Engine {
    /// Builds the engine for `backend`, which must be available.
    pub(crate) fn new(backend: Backend, rk: &RoundKeys) -> Result<Engine> {
        backend.require()?;
        match backend {
            Backend::Soft => Ok(Engine::Soft(soft::SoftAes::new(rk))),
            #[cfg(target_arch = "x86_64")]
            Backend::Aesni | Backend::Vaes256 | Backend::Vaes512 => {
                x86::X86Aes::new(backend, rk).map(Engine::X86)
            }
            #[cfg(target_arch = "aarch64")]
            Backend::Armv8 => aarch64::ArmAes::new(rk).map(Engine::Armv8),
            _ => Err(Error::BackendUnavailable(backend)),
        }
    }
}

/// The messages of `lanes` whose engine is of one kind, as that kind's key.
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

// Backends without a multi-buffer kernel: one message after another.
impl CbcManyKernels for soft::SoftAes {}
#[cfg(target_arch = "aarch64")]
impl CbcManyKernels for aarch64::ArmAes {}

impl Engine {
    /// Multi-buffer CBC encryption of messages whose keys may be on
    /// different backends: each backend's kernel gets the messages of its
    /// own keys (see [`CbcManyKernels`]).
    pub(crate) fn cbc_encrypt_many(lanes: &mut impl CbcLanes<Engine>) {
        // Every kind of this build, and the key of that kind in an engine.
        fn soft(e: &Engine) -> Option<&soft::SoftAes> {
            match e {
                Engine::Soft(k) => Some(k),
                #[allow(unreachable_patterns)]
                _ => None,
            }
        }
        soft::SoftAes::cbc_encrypt_many(&mut OneKind {
            lanes: &mut *lanes,
            pick: soft,
        });
        #[cfg(target_arch = "x86_64")]
        {
            fn x86(e: &Engine) -> Option<&x86::X86Aes> {
                match e {
                    Engine::X86(k) => Some(k),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            x86::X86Aes::cbc_encrypt_many(&mut OneKind {
                lanes: &mut *lanes,
                pick: x86,
            });
        }
        #[cfg(target_arch = "aarch64")]
        {
            fn armv8(e: &Engine) -> Option<&aarch64::ArmAes> {
                match e {
                    Engine::Armv8(k) => Some(k),
                    #[allow(unreachable_patterns)]
                    _ => None,
                }
            }
            aarch64::ArmAes::cbc_encrypt_many(&mut OneKind {
                lanes: &mut *lanes,
                pick: armv8,
            });
        }
    }
}

/// Runs `$body` with `$k` bound to the engine's concrete key type: the one
/// `match` per call that picks the backend.
macro_rules! with_engine {
    ($engine:expr, $k:ident => $body:expr) => {
        match $engine {
            $crate::backend::Engine::Soft($k) => $body,
            #[cfg(target_arch = "x86_64")]
            $crate::backend::Engine::X86($k) => $body,
            #[cfg(target_arch = "aarch64")]
            $crate::backend::Engine::Armv8($k) => $body,
        }
    };
}
pub(crate) use with_engine;
