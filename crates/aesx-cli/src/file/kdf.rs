//! Where the 32-byte input key comes from: a key file, or a passphrase
//! through Argon2id with costs written in the header (and capped on reading,
//! so that a hostile file cannot make decryption take all memory).

use std::path::Path;

use zeroize::Zeroizing;

use crate::CommandError;
use aesx_file::header::{Argon2Params, KDF_SALT_LEN};

// The derivation, its defaults and ceilings are the format's, in
// `aesx_file::kdf`; this module keeps only what the command line adds.
pub use aesx_file::kdf::{
    Limits, DEFAULT_ITERATIONS, DEFAULT_MAX_MEMORY_MIB, DEFAULT_MAX_WORK_MIB, DEFAULT_MEMORY_KIB,
    DEFAULT_PARALLELISM, KEY_LEN,
};

/// Refuses a file whose passphrase cost is above the ceilings the user
/// allowed, naming the option that raises them.
pub fn check_limits(p: &Argon2Params, l: &Limits) -> Result<(), CommandError> {
    use aesx_file::kdf::KdfError;
    aesx_file::kdf::check_limits(p, l).map_err(|e| {
        let hint = match &e {
            KdfError::MemoryAboveLimit { need_mib, .. } => {
                format!("; if you trust the file, raise it with --max-kdf-memory {need_mib}")
            }
            KdfError::WorkAboveLimit { work, .. } => {
                format!("; if you trust the file, raise it with --max-kdf-work {work}")
            }
            _ => String::new(),
        };
        CommandError::failure(format!("{e}{hint}"))
    })
}

/// Refuses costs above the caps (before any memory is allocated).
pub fn check_caps(p: &Argon2Params) -> Result<(), CommandError> {
    aesx_file::kdf::check_caps(p).map_err(|e| CommandError::failure(e.to_string()))
}

/// Argon2id over the passphrase with the header's parameters.
pub fn argon2id(
    passphrase: &[u8],
    p: &Argon2Params,
) -> Result<Zeroizing<[u8; KEY_LEN]>, CommandError> {
    aesx_file::kdf::argon2id(passphrase, p).map_err(|e| CommandError::failure(e.to_string()))
}

/// Fresh random parameters for encryption at the given cost.
pub fn new_params(
    memory_kib: u32,
    iterations: u32,
    parallelism: u32,
) -> Result<Argon2Params, CommandError> {
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
pub fn fill_random(buf: &mut [u8]) -> Result<(), CommandError> {
    getrandom::fill(buf)
        .map_err(|e| CommandError::failure(format!("no randomness from the OS: {e}")))
}

/// Parses `--insecure-kdf-cost MEMORY_KIB,ITERATIONS,PARALLELISM` (tests only).
pub fn parse_cost(s: &str) -> Result<(u32, u32, u32), CommandError> {
    let bad = || {
        CommandError::usage(format!(
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

/// At most `max` bytes of the key or passphrase file `path` (`what`, for
/// the message), in memory that is zeroed when dropped.
fn read_secret_file(path: &Path, max: u64, what: &str) -> Result<Zeroizing<Vec<u8>>, CommandError> {
    let data = super::read_capped(path, max).map_err(|e| {
        CommandError::failure(format!(
            "cannot read {what} {}: {}",
            path.display(),
            super::io_msg(&e)
        ))
    })?;
    Ok(Zeroizing::new(data))
}

/// A key file: 64 hex digits (what `aesx keygen` writes, surrounding
/// whitespace allowed), or exactly 32 raw bytes.
pub fn read_key_file(path: &Path) -> Result<Zeroizing<[u8; KEY_LEN]>, CommandError> {
    let data = read_secret_file(path, MAX_KEY_FILE, "key file")?;
    let mut key = Zeroizing::new([0u8; KEY_LEN]);
    if data.len() == KEY_LEN {
        key.copy_from_slice(&data);
        return Ok(key);
    }
    let text = data.trim_ascii();
    if text.len() == 2 * KEY_LEN && hex::decode_to_slice(text, &mut key[..]).is_ok() {
        return Ok(key);
    }
    Err(CommandError::failure(format!(
        "{}: not an aesx key file (expected 64 hex digits or 32 raw bytes)",
        path.display()
    )))
}

/// Reads a passphrase from a file: its first line, without the line ending.
pub fn read_passphrase_file(path: &Path) -> Result<Zeroizing<Vec<u8>>, CommandError> {
    let data = read_secret_file(path, MAX_PASSPHRASE_FILE, "passphrase file")?;
    let line = data.split(|&b| b == b'\n').next().unwrap_or(&[]);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    if line.is_empty() {
        return Err(CommandError::failure(format!(
            "{}: empty passphrase",
            path.display()
        )));
    }
    Ok(Zeroizing::new(line.to_vec()))
}

/// Asks for a passphrase on the terminal (`/dev/tty`), twice when `confirm`.
pub fn prompt_passphrase(confirm: bool) -> Result<Zeroizing<Vec<u8>>, CommandError> {
    let ask = |prompt: &str| {
        rpassword::prompt_password(prompt)
            .map(|s| Zeroizing::new(s.into_bytes()))
            .map_err(|e| {
                CommandError::failure(format!(
                    "cannot read a passphrase from the terminal ({}); use --passphrase-file",
                    super::io_msg(&e)
                ))
            })
    };
    let p = ask("Passphrase: ")?;
    if p.is_empty() {
        return Err(CommandError::failure("empty passphrase"));
    }
    if confirm {
        let again = ask("Passphrase (again): ")?;
        if *again != *p {
            return Err(CommandError::failure("the passphrases do not match"));
        }
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    // The derivation and its caps are tested in aesx_file::kdf; here, that
    // the command line's wrappers reach them.
    #[test]
    fn wrappers_reach_the_format_kdf() {
        let p = Argon2Params {
            memory_kib: 64,
            iterations: 1,
            parallelism: 1,
            salt: [1; 16],
        };
        assert_eq!(
            *argon2id(b"pass", &p).unwrap(),
            *argon2id(b"pass", &p).unwrap()
        );
        let hostile = Argon2Params {
            memory_kib: aesx_file::kdf::MAX_MEMORY_KIB + 1,
            ..p
        };
        assert!(check_caps(&hostile).is_err());
        assert!(argon2id(b"x", &hostile).is_err());
    }

    #[test]
    fn cost_parsing() {
        assert_eq!(parse_cost("8,1,1").unwrap(), (8, 1, 1));
        assert!(parse_cost("8,1").is_err());
        assert!(parse_cost("a,b,c").is_err());
    }
}
