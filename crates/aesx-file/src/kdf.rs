//! The passphrase key source: Argon2id (RFC 9106) over a passphrase with the
//! costs written in the header, and the ceilings a reader enforces on those
//! costs before allocating anything, so that a hostile file cannot make
//! decryption exhaust memory or run for hours.
//!
//! The defaults and the caps live here, in one place, because every reader
//! and writer of the format (the `aesx` command, the Python package) must
//! agree on them.

use zeroize::Zeroizing;

use crate::header::Argon2Params;

/// Input key length (Cobblestone-256).
pub const KEY_LEN: usize = 32;

/// Default Argon2id memory: 256 MiB (with 3 passes, about 0.65 s of CPU time
/// on the development machine, a 2-core Zen 5; see docs/FORMAT.md).
pub const DEFAULT_MEMORY_KIB: u32 = 256 * 1024;
/// Default Argon2id passes.
pub const DEFAULT_ITERATIONS: u32 = 3;
/// Default Argon2id lanes.
pub const DEFAULT_PARALLELISM: u32 = 4;

/// Largest memory cost decryption accepts: 4 GiB.
pub const MAX_MEMORY_KIB: u32 = 4 * 1024 * 1024;
/// Largest number of passes decryption accepts.
pub const MAX_ITERATIONS: u32 = 64;
/// Largest number of lanes decryption accepts.
pub const MAX_PARALLELISM: u32 = 64;

/// Default ceiling on the memory a file may demand on decryption (1 GiB): a
/// header is read before anything is authenticated, so its cost is the
/// attacker's to choose. Readers may let a user raise it, up to the caps.
pub const DEFAULT_MAX_MEMORY_MIB: u32 = 1024;
/// Default ceiling on Argon2id work (memory in MiB times passes): four times
/// our own default cost (256 MiB x 3 passes), a few seconds on a laptop.
pub const DEFAULT_MAX_WORK_MIB: u64 =
    4 * (DEFAULT_MEMORY_KIB as u64 / 1024) * DEFAULT_ITERATIONS as u64;

/// The ceilings in force for one decryption (below the hard caps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest memory, in MiB.
    pub memory_mib: u32,
    /// Largest memory in MiB times passes.
    pub work_mib: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            memory_mib: DEFAULT_MAX_MEMORY_MIB,
            work_mib: DEFAULT_MAX_WORK_MIB,
        }
    }
}

/// Why a key could not be derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KdfError {
    /// The header's costs exceed the caps (nothing was allocated).
    CostTooHigh(Argon2Params),
    /// The header asks for more memory (MiB) than the reader's limit.
    MemoryAboveLimit {
        /// MiB the file needs.
        need_mib: u32,
        /// The limit in force.
        limit_mib: u32,
    },
    /// The header asks for more work (MiB x passes) than the reader's limit.
    WorkAboveLimit {
        /// MiB the file needs.
        need_mib: u32,
        /// Passes.
        passes: u32,
        /// MiB x passes.
        work: u64,
        /// The limit in force.
        limit: u64,
    },
    /// The memory Argon2id needs could not be allocated.
    OutOfMemory {
        /// MiB asked for.
        mib: usize,
    },
    /// Parameters Argon2id itself rejects (e.g. memory below 8 lanes' worth).
    InvalidParams(String),
    /// The derivation failed.
    Failed(String),
}

impl std::fmt::Display for KdfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KdfError::CostTooHigh(p) => write!(
                f,
                "refusing the file's passphrase cost (Argon2id memory {} MiB, {} passes, {} lanes): \
                 above the limit of {} MiB, {} passes, {} lanes",
                p.memory_kib / 1024,
                p.iterations,
                p.parallelism,
                MAX_MEMORY_KIB / 1024,
                MAX_ITERATIONS,
                MAX_PARALLELISM
            ),
            KdfError::MemoryAboveLimit {
                need_mib,
                limit_mib,
            } => write!(
                f,
                "the file's passphrase cost needs {need_mib} MiB of memory for Argon2id, \
                 above the limit of {limit_mib} MiB"
            ),
            KdfError::WorkAboveLimit {
                need_mib,
                passes,
                work,
                limit,
            } => write!(
                f,
                "the file's passphrase cost ({need_mib} MiB x {passes} passes = {work}) is \
                 above the limit of {limit}"
            ),
            KdfError::OutOfMemory { mib } => {
                write!(f, "out of memory: Argon2id needs {mib} MiB for this passphrase cost")
            }
            KdfError::InvalidParams(e) => {
                write!(f, "invalid Argon2id parameters in the header: {e}")
            }
            KdfError::Failed(e) => write!(f, "Argon2id failed: {e}"),
        }
    }
}

impl std::error::Error for KdfError {}

/// Refuses costs above the caps (before any memory is allocated).
pub fn check_caps(p: &Argon2Params) -> Result<(), KdfError> {
    if p.memory_kib > MAX_MEMORY_KIB
        || p.iterations > MAX_ITERATIONS
        || p.parallelism > MAX_PARALLELISM
    {
        return Err(KdfError::CostTooHigh(*p));
    }
    Ok(())
}

/// Refuses a file whose passphrase cost is above the reader's ceilings
/// (by default [`Limits::default`]); call it before [`argon2id`] when
/// decrypting.
pub fn check_limits(p: &Argon2Params, l: &Limits) -> Result<(), KdfError> {
    let need_mib = p.memory_kib.div_ceil(1024);
    let work = need_mib as u64 * p.iterations as u64;
    if need_mib > l.memory_mib {
        return Err(KdfError::MemoryAboveLimit {
            need_mib,
            limit_mib: l.memory_mib,
        });
    }
    if work > l.work_mib {
        return Err(KdfError::WorkAboveLimit {
            need_mib,
            passes: p.iterations,
            work,
            limit: l.work_mib,
        });
    }
    Ok(())
}

/// Argon2id (version 0x13, no secret, no associated data) over the
/// passphrase with the header's parameters, after [`check_caps`].
pub fn argon2id(passphrase: &[u8], p: &Argon2Params) -> Result<Zeroizing<[u8; KEY_LEN]>, KdfError> {
    check_caps(p)?;
    let params = argon2::Params::new(p.memory_kib, p.iterations, p.parallelism, Some(KEY_LEN))
        .map_err(|e| KdfError::InvalidParams(e.to_string()))?;
    // The memory is reserved here, fallibly, so that running out of it is
    // an error instead of an abort inside the argon2 crate.
    let blocks = params.block_count();
    let mut memory: Vec<argon2::Block> = Vec::new();
    memory
        .try_reserve_exact(blocks)
        .map_err(|_| KdfError::OutOfMemory { mib: blocks / 1024 })?;
    memory.resize(blocks, argon2::Block::default());
    let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    let r = a.hash_password_into_with_memory(passphrase, &p.salt, &mut out[..], &mut memory[..]);
    // The blocks hold values derived from the passphrase.
    for b in memory.iter_mut() {
        zeroize::Zeroize::zeroize(b);
    }
    r.map_err(|e| KdfError::Failed(e.to_string()))?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> Argon2Params {
        Argon2Params {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
            salt: [1; 16],
        }
    }

    #[test]
    fn deterministic_and_sensitive() {
        let p = params();
        let a = argon2id(b"pass", &p).unwrap();
        assert_eq!(*a, *argon2id(b"pass", &p).unwrap());
        assert_ne!(*a, *argon2id(b"pasS", &p).unwrap());
        let q = Argon2Params { iterations: 2, ..p };
        assert_ne!(*a, *argon2id(b"pass", &q).unwrap());
    }

    #[test]
    fn caps_refuse_hostile_costs() {
        let p = params();
        let big = Argon2Params {
            memory_kib: MAX_MEMORY_KIB + 1,
            ..p
        };
        assert_eq!(argon2id(b"x", &big), Err(KdfError::CostTooHigh(big)));
        for q in [
            Argon2Params {
                iterations: MAX_ITERATIONS + 1,
                ..p
            },
            Argon2Params {
                parallelism: MAX_PARALLELISM + 1,
                ..p
            },
        ] {
            assert!(check_caps(&q).is_err());
        }
        assert!(check_caps(&Argon2Params {
            memory_kib: MAX_MEMORY_KIB,
            iterations: MAX_ITERATIONS,
            parallelism: MAX_PARALLELISM,
            ..p
        })
        .is_ok());
        assert!(matches!(
            argon2id(
                b"x",
                &Argon2Params {
                    parallelism: 0,
                    ..p
                }
            ),
            Err(KdfError::InvalidParams(_))
        ));
    }
}
