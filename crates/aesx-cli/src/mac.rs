//! `aesx mac --mode cmac --key HEX [-i FILE]`: AES-CMAC (NIST SP 800-38B,
//! RFC 4493) of a file or standard input, printed as 32 lowercase hex digits
//! and a newline (pyca/cryptography's `CMAC(AES(key)).finalize().hex()`).
//! The input streams through the library's `CmacHasher`, so any size works
//! in bounded memory. `--verify HEX` compares (in constant time, truncated
//! tags of 1 to 16 bytes on their length) instead of printing: exit 0 if
//! the tag matches, else one line and exit 1.

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use aesx::Cmac;

use crate::cipher::{hex_arg, read_some};
use crate::{backend_arg, outln, CommandError};

/// Bytes read per chunk.
const CHUNK: usize = 256 * 1024;

/// Arguments of `aesx mac`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The MAC: cmac (AES-CMAC, SP 800-38B).
    #[arg(long, value_enum)]
    pub mode: MacMode,
    /// Key in hex: 16, 24 or 32 bytes.
    #[arg(long, value_name = "HEX")]
    pub key: String,
    /// Input file (default: standard input; `-` also means it).
    #[arg(short = 'i', long = "in", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Instead of printing the 16-byte tag, compare it with this one (1 to
    /// 16 bytes in hex; a shorter tag is compared with the tag's start):
    /// exit 0 on a match, else exit 1 with one line on stderr.
    #[arg(long, value_name = "HEX")]
    pub verify: Option<String>,
    /// Backend to run on (default: AESX_BACKEND, else the fastest). CMAC
    /// runs on the CPU only.
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
}

/// The MACs `aesx mac` computes.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum MacMode {
    /// AES-CMAC: output 16 bytes, printed as lowercase hex.
    Cmac,
}

/// Runs `aesx mac`.
pub fn run(args: Args) -> Result<ExitCode, CommandError> {
    let choice = backend_arg::choose(args.backend.as_deref(), backend_arg::Accepts::Gpu)?;
    #[cfg(feature = "cuda")]
    if choice == backend_arg::Choice::Cuda {
        return Err(backend_arg::cpu_only("cmac"));
    }
    let backend = choice.cpu();
    let key = hex_arg("--key", &args.key)?;
    if !matches!(key.len(), 16 | 24 | 32) {
        return Err(CommandError::usage(format!(
            "--key: {} bytes; AES keys are 16, 24 or 32 bytes (32, 48 or 64 hex digits)",
            key.len()
        )));
    }
    let expected = match &args.verify {
        Some(s) => {
            let t = hex_arg("--verify", s)?;
            if !(1..=16).contains(&t.len()) {
                return Err(CommandError::usage(format!(
                    "--verify: {} bytes; a CMAC tag is 1 to 16 bytes",
                    t.len()
                )));
            }
            Some(t)
        }
        None => None,
    };
    let cmac = Cmac::with_backend(&key, backend)?;
    let input = args.input.as_deref().filter(|p| *p != Path::new("-"));
    let mut reader: Box<dyn Read> = match input {
        Some(path) => {
            let file = File::open(path).map_err(|e| {
                CommandError::failure(format!(
                    "cannot open {}: {}",
                    path.display(),
                    crate::file::io_msg(&e)
                ))
            })?;
            let is_dir = file.metadata().map(|m| m.is_dir()).unwrap_or(false);
            if is_dir {
                return Err(CommandError::failure(format!(
                    "cannot read {}: is a directory",
                    path.display()
                )));
            }
            Box::new(file)
        }
        None => Box::new(io::stdin().lock()),
    };
    let mut hasher = cmac.hasher();
    let mut buf = vec![0u8; CHUNK];
    loop {
        let n = read_some(&mut reader, &mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    match expected {
        None => {
            outln!("{}", hex::encode(hasher.finalize()));
            Ok(ExitCode::SUCCESS)
        }
        Some(tag) => match hasher.verify(&tag) {
            Ok(()) => Ok(ExitCode::SUCCESS),
            Err(aesx::Error::AuthenticationFailed) => Err(CommandError::failure(format!(
                "CMAC mismatch: the {}-byte tag given to --verify is not the input's",
                tag.len()
            ))),
            Err(e) => Err(e.into()),
        },
    }
}
