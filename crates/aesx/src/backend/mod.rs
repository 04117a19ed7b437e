//! Backends: which code runs the AES rounds, chosen once at run time.
//!
//! Each backend supplies the bulk kernels in [`kernels`]; a key object holds
//! an [`Engine`] (the backend family's own round-key layout) and every call
//! goes through one `match` on it, never one per block.
//!
//! Backends come in families, one key type each (soft, x86, aarch64); the
//! `families!` list below is the one place that names them all, and
//! generates [`Backend`], [`Engine`] and the dispatch from it (see
//! `engine.rs`). The x86 family keeps its own sub-dispatch (by tier) in its
//! folder.
//!
//! Three floors: [`kernels`] is the contract (the kernel traits, `Family`
//! and the shapes, `InOut`, the CPU tokens) and imports nothing else of
//! `backend`; the families import it and their own children; this module
//! and `engine.rs`, the registry, stand on both. `Backend` and
//! `BackendSet`, generated here from the list, are the one pair of names
//! the lower floors take from above.

use core::fmt;
use core::str::FromStr;
use core::sync::atomic::AtomicU8;

use crate::error::{Error, Result};
use crate::key::RoundKeys;

#[cfg(target_arch = "aarch64")]
pub(crate) mod aarch64;
pub(crate) mod engine;
pub(crate) mod kernels;
pub(crate) mod soft;
#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

pub(crate) use kernels::inout::InOut;
pub(crate) use kernels::{BlockKernels, CbcLanes, CbcManyKernels};

// The one list of backend families. Each family names its key type (which
// implements `kernels::family::Family` in its own folder), the build it exists in, and
// the public backends it serves, slowest first: their order here is the
// order of `Backend::ALL` and of the enum's discriminants (`BackendSet`
// bits), so a new backend goes after those it is faster than.
engine::families! { $
    Soft(soft::SoftAes) {
        /// Portable, constant-time, bitsliced. Runs everywhere.
        Soft = "soft",
    }
    #[cfg(target_arch = "x86_64")]
    X86(x86::X86Aes) {
        /// x86-64 AES-NI with SSE (and PCLMULQDQ), 128-bit lanes.
        Aesni = "aesni",
        /// x86-64 VAES and VPCLMULQDQ on 256-bit ymm registers with AVX2.
        Vaes256 = "vaes256",
        /// x86-64 VAES and VPCLMULQDQ on 512-bit zmm registers with AVX-512.
        Vaes512 = "vaes512",
    }
    #[cfg(target_arch = "aarch64")]
    Armv8(aarch64::ArmAes) {
        /// AArch64 Crypto Extensions (AESE/AESD, PMULL).
        Armv8 = "armv8",
    }
}

// `BackendSet` is a byte, and the detection cache (`cpu::cached`) keeps its
// top bit for itself.
const _: () = assert!(Backend::ALL.len() < 8);

impl Backend {
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
        BackendSet(kernels::cpu::cached(&CACHE, || detect_families().0))
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
