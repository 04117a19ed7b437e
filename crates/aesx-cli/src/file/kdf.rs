//! Where the 32-byte input key comes from: a key file, or a passphrase
//! through Argon2id with costs written in the header (and capped on reading,
//! so that a hostile file cannot make decryption take all memory).

use std::path::Path;

use zeroize::Zeroizing;

use crate::CliError;
use aesx_file::header::{Argon2Params, KDF_SALT_LEN};

/// Input key length (Cobblestone-256).
pub const KEY_LEN: usize = 32;

/// Default Argon2id memory: 256 MiB (with 3 passes, about 0.65 s of CPU time
/// on the development machine, a 2-core Zen 5; see docs/FORMAT.md).
pub const DEFAULT_MEMORY_KIB: u32 = 256 * 1024;
/// Default Argon2id passes.
pub const DEFAULT_ITERATIONS: u32 = 3;
/// Default Argon2id lanes.
pub const DEFAULT_PARALLELISM: u32 = 4;

/// Largest memory cost decryption accepts even when asked to: 4 GiB.
pub const MAX_MEMORY_KIB: u32 = 4 * 1024 * 1024;
/// Largest number of passes decryption accepts even when asked to.
pub const MAX_ITERATIONS: u32 = 64;
/// Largest number of lanes decryption accepts.
pub const MAX_PARALLELISM: u32 = 64;

/// Default ceiling on the memory a file may demand on decryption (1 GiB),
/// raised with `aesx decrypt --max-kdf-memory`: a header is read before
/// anything is authenticated, so its cost is the attacker's to choose.
pub const DEFAULT_MAX_MEMORY_MIB: u32 = 1024;
/// Default ceiling on Argon2id work (memory in MiB times passes): four
/// times our own default cost (256 MiB x 3 passes), about 3 s on a laptop;
/// raised with `aesx decrypt --max-kdf-work`.
pub const DEFAULT_MAX_WORK_MIB: u64 =
    4 * (DEFAULT_MEMORY_KIB as u64 / 1024) * DEFAULT_ITERATIONS as u64;

/// The ceilings in force for one decryption (below the hard caps above).
pub struct Limits {
    /// Largest memory, in MiB.
    pub memory_mib: u32,
    /// Largest memory in MiB times passes.
    pub work_mib: u64,
}

/// Refuses a file whose passphrase cost is above the ceilings the user
/// allowed (by default [`DEFAULT_MAX_MEMORY_MIB`], [`DEFAULT_MAX_WORK_MIB`]).
pub fn check_limits(p: &Argon2Params, l: &Limits) -> Result<(), CliError> {
    let mib = p.memory_kib.div_ceil(1024);
    let work = mib as u64 * p.iterations as u64;
    if mib > l.memory_mib {
        return Err(CliError::failure(format!(
            "the file's passphrase cost needs {mib} MiB of memory for Argon2id, above the \
             limit of {} MiB; if you trust the file, raise it with --max-kdf-memory {mib}",
            l.memory_mib
        )));
    }
    if work > l.work_mib {
        return Err(CliError::failure(format!(
            "the file's passphrase cost ({mib} MiB x {} passes = {work}) is above the limit \
             of {}; if you trust the file, raise it with --max-kdf-work {work}",
            p.iterations, l.work_mib
        )));
    }
    Ok(())
}

/// Refuses costs above the caps (before any memory is allocated).
pub fn check_caps(p: &Argon2Params) -> Result<(), CliError> {
    if p.memory_kib > MAX_MEMORY_KIB
        || p.iterations > MAX_ITERATIONS
        || p.parallelism > MAX_PARALLELISM
    {
        return Err(CliError::failure(format!(
            "refusing the file's passphrase cost (Argon2id memory {} MiB, {} passes, {} lanes): \
             above the limit of {} MiB, {} passes, {} lanes",
            p.memory_kib / 1024,
            p.iterations,
            p.parallelism,
            MAX_MEMORY_KIB / 1024,
            MAX_ITERATIONS,
            MAX_PARALLELISM
        )));
    }
    Ok(())
}

/// Argon2id over the passphrase with the header's parameters.
pub fn argon2id(passphrase: &[u8], p: &Argon2Params) -> Result<Zeroizing<[u8; KEY_LEN]>, CliError> {
    check_caps(p)?;
    let params = argon2::Params::new(p.memory_kib, p.iterations, p.parallelism, Some(KEY_LEN))
        .map_err(|e| {
            CliError::failure(format!("invalid Argon2id parameters in the header: {e}"))
        })?;
    // The memory is reserved here, fallibly, so that running out of it is
    // an error message instead of an abort inside the argon2 crate.
    let blocks = params.block_count();
    let mut memory: Vec<argon2::Block> = Vec::new();
    memory.try_reserve_exact(blocks).map_err(|_| {
        CliError::failure(format!(
            "out of memory: Argon2id needs {} MiB for this passphrase cost",
            blocks / 1024
        ))
    })?;
    memory.resize(blocks, argon2::Block::default());
    let a = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let mut out = Zeroizing::new([0u8; KEY_LEN]);
    let r = a.hash_password_into_with_memory(passphrase, &p.salt, &mut out[..], &mut memory[..]);
    // The blocks hold values derived from the passphrase.
    for b in memory.iter_mut() {
        zeroize::Zeroize::zeroize(b);
    }
    r.map_err(|e| CliError::failure(format!("Argon2id failed: {e}")))?;
    Ok(out)
}

/// Fresh random parameters for encryption at the given cost.
pub fn new_params(
    memory_kib: u32,
    iterations: u32,
    parallelism: u32,
) -> Result<Argon2Params, CliError> {
    let mut salt = [0u8; KDF_SALT_LEN];
    fill_random(&mut salt)?;
    Ok(Argon2Params {
        memory_kib,
        iterations,
        parallelism,
        salt,
    })
}

/// Fills `buf` from the operating system's CSPRNG.
pub fn fill_random(buf: &mut [u8]) -> Result<(), CliError> {
    getrandom::fill(buf).map_err(|e| CliError::failure(format!("no randomness from the OS: {e}")))
}

/// Parses `--insecure-kdf-cost MEMORY_KIB,ITERATIONS,PARALLELISM` (tests only).
pub fn parse_cost(s: &str) -> Result<(u32, u32, u32), CliError> {
    let bad = || {
        CliError::usage(format!(
            "--insecure-kdf-cost: expected MEMORY_KIB,ITERATIONS,LANES, got {s:?}"
        ))
    };
    let v: Vec<u32> = s
        .split(',')
        .map(|x| x.trim().parse::<u32>())
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    match v[..] {
        [m, t, p] => Ok((m, t, p)),
        _ => Err(bad()),
    }
}

/// Largest key file read: a key file is 65 bytes (64 hex digits and a
/// newline), and some whitespace around it is allowed.
pub const MAX_KEY_FILE: u64 = 1024;
/// Largest passphrase file read (only its first line is used).
pub const MAX_PASSPHRASE_FILE: u64 = 64 * 1024;

/// A key file: 64 hex digits (what `aesx keygen` writes, surrounding
/// whitespace allowed), or exactly 32 raw bytes.
pub fn read_key_file(path: &Path) -> Result<Zeroizing<[u8; KEY_LEN]>, CliError> {
    let data = Zeroizing::new(super::read_capped(path, MAX_KEY_FILE).map_err(|e| {
        CliError::failure(format!(
            "cannot read key file {}: {}",
            path.display(),
            super::io_msg(&e)
        ))
    })?);
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    if data.len() == KEY_LEN {
        key.copy_from_slice(&data);
        return Ok(key);
    }
    let text = data.trim_ascii();
    if text.len() == 2 * KEY_LEN && hex::decode_to_slice(text, &mut key[..]).is_ok() {
        return Ok(key);
    }
    Err(CliError::failure(format!(
        "{}: not an aesx key file (expected 64 hex digits or 32 raw bytes)",
        path.display()
    )))
}

/// Reads a passphrase from a file: its first line, without the line ending.
pub fn read_passphrase_file(path: &Path) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let data = Zeroizing::new(super::read_capped(path, MAX_PASSPHRASE_FILE).map_err(|e| {
        CliError::failure(format!(
            "cannot read passphrase file {}: {}",
            path.display(),
            super::io_msg(&e)
        ))
    })?);
    let line = data.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(CliError::failure(format!(
            "{}: empty passphrase",
            path.display()
        )));
    }
    Ok(Zeroizing::new(line.to_vec()))
}

/// Asks for a passphrase on the terminal (`/dev/tty`), twice when `confirm`.
pub fn prompt_passphrase(confirm: bool) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt)
            .map(|s| Zeroizing::new(s.into_bytes()))
            .map_err(|e| {
                CliError::failure(format!(
                    "cannot read a passphrase from the terminal ({}); use --passphrase-file",
                    super::io_msg(&e)
                ))
            })
    };
    let p = ask("Passphrase: ")?;
    if p.is_empty() {
        return Err(CliError::failure("empty passphrase"));
    }
    if confirm {
        let again = ask("Passphrase (again): ")?;
        if *again != *p {
            return Err(CliError::failure("the passphrases do not match"));
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn argon2id_rfc9106_vector() {
        // RFC 9106 section 5.3 uses a secret and associated data, which the
        // simple API does not take; instead pin determinism and sensitivity.
        let p = Argon2Params {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
            salt: [1; 16],
        };
        let a = argon2id(b"pass", &p).unwrap();
        assert_eq!(*a, *argon2id(b"pass", &p).unwrap());
        assert_ne!(*a, *argon2id(b"pasS", &p).unwrap());
        let q = Argon2Params { iterations: 2, ..p };
        assert_ne!(*a, *argon2id(b"pass", &q).unwrap());
    }

    #[test]
    fn caps_refuse_hostile_costs() {
        let p = Argon2Params {
            memory_kib: MAX_MEMORY_KIB + 1,
            iterations: 1,
            parallelism: 1,
            salt: [0; 16],
        };
        assert!(argon2id(b"x", &p).is_err());
        assert!(check_caps(&Argon2Params {
            memory_kib: 64,
            iterations: MAX_ITERATIONS + 1,
            ..p
        })
        .is_err());
        assert!(check_caps(&Argon2Params {
            memory_kib: 64,
            parallelism: MAX_PARALLELISM + 1,
            ..p
        })
        .is_err());
        assert!(check_caps(&Argon2Params {
            memory_kib: MAX_MEMORY_KIB,
            iterations: MAX_ITERATIONS,
            parallelism: 1,
            ..p
        })
        .is_ok());
    }

    #[test]
    fn cost_parsing() {
        assert_eq!(parse_cost("8,1,1").unwrap(), (8, 1, 1));
        assert!(parse_cost("8,1").is_err());
        assert!(parse_cost("a,b,c").is_err());
    }
}
