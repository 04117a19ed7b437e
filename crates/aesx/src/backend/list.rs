//! The one list of backends, and [`Backend`], the public name of a row.
//!
//! A backend's identity is its row in [`LIST`]: its name (parsing, the CLI's
//! `--backend` and `AESX_BACKEND`, error messages, benchmarks), its number
//! in the C API, the CPU features it needs, and where its code lives: its
//! family (one key type, one folder under `backend/`) and its tier, the
//! family's own number for it. Everything else that names backends reads
//! these rows (`Backend::ALL`, `name`, `number`, `family`, `needs`) instead
//! of listing them again; `engine.rs` and `registry.rs` turn a row's family
//! and tier into a key and a detection answer.
//!
//! The list is data and imports nothing, so the error type can name a
//! `Backend` without a circle; what needs the families (detection, keys)
//! stands above them in `registry.rs` and `engine.rs`.

use core::fmt;

/// An implementation of the AES rounds.
///
/// The variants are the rows of the list, in its order (slowest first);
/// [`Backend::name`], [`Backend::number`], [`Backend::family`] and
/// [`Backend::needs`] read a backend's row.
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

/// The family a backend belongs to: one key type and one folder under
/// `backend/`, serving one or more backends (its tiers).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FamilyId {
    /// `backend/soft/`, `SoftAes`.
    Soft,
    /// `backend/x86/`, `X86Aes` (tiers: 0 AES-NI, 1 VAES-256, 2 VAES-512).
    X86,
    /// `backend/aarch64/`, `ArmAes`.
    Aarch64,
}

impl FamilyId {
    /// Every family, in declaration order: what loops over the families
    /// (multi-buffer CBC) walk. The checks below the list make this array
    /// and the list agree.
    pub(crate) const ALL: [FamilyId; 3] = [FamilyId::Soft, FamilyId::X86, FamilyId::Aarch64];

    /// The family's folder name, as `Backend::family` reports it. A new
    /// family stops the build here (the match is exhaustive) until it has
    /// its name, and then at the checks below until it is in `ALL` and in
    /// the list.
    const fn name(self) -> &'static str {
        match self {
            FamilyId::Soft => "soft",
            FamilyId::X86 => "x86",
            FamilyId::Aarch64 => "aarch64",
        }
    }

    /// Whether some row of the list belongs to this family.
    const fn in_list(self) -> bool {
        let mut i = 0;
        while i < LIST.len() {
            if LIST[i].family as u8 == self as u8 {
                return true;
            }
            i += 1;
        }
        false
    }
}

/// One backend as the list describes it.
pub(crate) struct Row {
    pub(crate) backend: Backend,
    /// What `FromStr`, the CLI and the benchmarks call it.
    pub(crate) name: &'static str,
    /// Its number in the C API (`AESX_BACKEND_*`): ABI, never reused or
    /// renumbered (0 is the C API's "auto").
    pub(crate) number: u8,
    /// The CPU features it needs, in words.
    pub(crate) needs: &'static str,
    pub(crate) family: FamilyId,
    /// The family's own number for this backend (see `Family::with_tier`).
    pub(crate) tier: u8,
}

/// The one list of backends, slowest first: the order of [`Backend::ALL`],
/// of the enum's variants and of the `BackendSet` bits, so a new backend
/// goes after those it is faster than.
pub(crate) const LIST: [Row; 5] = [
    Row {
        backend: Backend::Soft,
        name: "soft",
        number: 1,
        needs: "nothing (portable Rust)",
        family: FamilyId::Soft,
        tier: 0,
    },
    Row {
        backend: Backend::Aesni,
        name: "aesni",
        number: 2,
        needs: "AES-NI, SSE4.1 and PCLMULQDQ",
        family: FamilyId::X86,
        tier: 0,
    },
    Row {
        backend: Backend::Vaes256,
        name: "vaes256",
        number: 3,
        needs: "VAES, VPCLMULQDQ and AVX2",
        family: FamilyId::X86,
        tier: 1,
    },
    Row {
        backend: Backend::Vaes512,
        name: "vaes512",
        number: 4,
        needs: "VAES, VPCLMULQDQ and AVX-512 F/BW/VL",
        family: FamilyId::X86,
        tier: 2,
    },
    Row {
        backend: Backend::Armv8,
        name: "armv8",
        number: 5,
        needs: "FEAT_AES and FEAT_PMULL",
        family: FamilyId::Aarch64,
        tier: 0,
    },
];

// The variants are the rows in order, so `self as usize` is a backend's row.
const _: () = {
    let mut i = 0;
    while i < LIST.len() {
        assert!(LIST[i].backend as usize == i);
        i += 1;
    }
};

// Every family is in `FamilyId::ALL` once, in declaration order (so `ALL`
// holds the variants 0..ALL.len()), every family there has a row in the
// list, and every row's family is one of `ALL`: a family cannot be left out
// of the loops over `ALL`, nor listed without a backend.
const _: () = {
    let mut i = 0;
    while i < FamilyId::ALL.len() {
        assert!(FamilyId::ALL[i] as usize == i, "FamilyId::ALL out of order");
        assert!(FamilyId::ALL[i].in_list(), "a family without a row in LIST");
        i += 1;
    }
    let mut r = 0;
    while r < LIST.len() {
        assert!(
            (LIST[r].family as usize) < FamilyId::ALL.len(),
            "a row's family missing from FamilyId::ALL"
        );
        r += 1;
    }
};

impl Backend {
    /// Every backend aesx knows, slowest first.
    pub const ALL: [Backend; LIST.len()] = {
        let mut all = [Backend::Soft; LIST.len()];
        let mut i = 0;
        while i < LIST.len() {
            all[i] = LIST[i].backend;
            i += 1;
        }
        all
    };

    /// This backend's row of the list.
    pub(crate) const fn row(self) -> &'static Row {
        &LIST[self as usize]
    }

    /// The name used by `FromStr`, the CLI (`--backend`, `AESX_BACKEND`)
    /// and benchmarks.
    pub const fn name(self) -> &'static str {
        self.row().name
    }

    /// The backend's number in the C API (`AESX_BACKEND_*` in `aesx.h`):
    /// stable, never reused; 0 is not a backend (the C API's "auto").
    pub const fn number(self) -> u8 {
        self.row().number
    }

    /// The backend whose [`number`](Backend::number) is `n`.
    pub fn from_number(n: u8) -> Option<Backend> {
        Self::ALL.into_iter().find(|b| b.number() == n)
    }

    /// The family the backend belongs to: `"soft"`, `"x86"` or `"aarch64"`
    /// (backends of one family share one key type and their serial
    /// kernels).
    pub const fn family(self) -> &'static str {
        self.row().family.name()
    }

    /// The CPU features the backend needs, in words (e.g. "AES-NI, SSE4.1
    /// and PCLMULQDQ").
    pub const fn needs(self) -> &'static str {
        self.row().needs
    }
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_numbers_are_unique() {
        for (i, a) in Backend::ALL.iter().enumerate() {
            assert_ne!(a.number(), 0, "0 is the C API's auto");
            assert_eq!(Backend::from_number(a.number()), Some(*a));
            for b in &Backend::ALL[i + 1..] {
                assert_ne!(a.name(), b.name());
                assert_ne!(a.number(), b.number());
            }
        }
    }

    #[test]
    fn tiers_of_a_family_are_numbered_from_zero_in_order() {
        for (i, row) in LIST.iter().enumerate() {
            let before = LIST[..i].iter().filter(|r| r.family == row.family);
            assert_eq!(before.count(), row.tier as usize, "{}", row.name);
        }
    }
}
