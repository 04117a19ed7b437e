//! What this machine runs: detection over the list's rows ([`BackendSet`],
//! `Backend::available`, `require`), and parsing a backend's name.

use core::str::FromStr;
use core::sync::atomic::AtomicU8;

#[cfg(target_arch = "aarch64")]
use super::aarch64::ArmAes;
use super::kernels::cpu;
use super::kernels::family::Family;
use super::list::{Backend, FamilyId, Row, LIST};
use super::soft::SoftAes;
#[cfg(target_arch = "x86_64")]
use super::x86::X86Aes;
use crate::error::{Error, Result};

// `BackendSet` is a byte, and the detection cache (`cpu::cached`) keeps its
// top bit for itself.
const _: () = assert!(LIST.len() < 8);

/// Whether this CPU and build run `row`'s backend: its family's answer for
/// its tier. The families this build leaves out run nothing.
fn runs(row: &Row) -> bool {
    match row.family {
        FamilyId::Soft => SoftAes::runs(row.tier),
        #[cfg(target_arch = "x86_64")]
        FamilyId::X86 => X86Aes::runs(row.tier),
        #[cfg(target_arch = "aarch64")]
        FamilyId::Aarch64 => ArmAes::runs(row.tier),
        #[cfg(not(target_arch = "x86_64"))]
        FamilyId::X86 => false,
        #[cfg(not(target_arch = "aarch64"))]
        FamilyId::Aarch64 => false,
    }
}

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
        BackendSet(cpu::cached(&CACHE, || {
            LIST.iter()
                .filter(|row| runs(row))
                .fold(0, |set, row| set | row.backend.bit())
        }))
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
pub struct BackendSet(u8);

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses() {
        for b in Backend::ALL {
            assert_eq!(b.name().parse::<Backend>(), Ok(b));
            assert_eq!(b.name().to_ascii_uppercase().parse::<Backend>(), Ok(b));
        }
        assert_eq!("cuda".parse::<Backend>(), Err(Error::UnknownBackend));
    }
}
