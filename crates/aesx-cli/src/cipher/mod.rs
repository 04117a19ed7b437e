//! `aesx cipher encrypt|decrypt --mode ...`: raw block-cipher modes over a
//! file or a pipe, interoperable with `openssl enc -K ... -iv ...`.
//!
//! The input is streamed in chunks through a [`Stream`]; nothing holds the
//! whole input in memory. Output to a named file goes to a temporary file in
//! the same directory and is renamed over the destination only when
//! everything succeeded, so an error never leaves a half-written output.
//!
//! Adding a mode is adding a file here with a `stream(&Params)` constructor
//! and one arm in [`build`] (plus its options in [`Args`]).

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use aesx::{Backend, Padding};
use clap::ValueEnum;

use crate::backend_arg;
use crate::CliError;

mod blockwise;
mod cbc;
mod ctr;
mod cuda;
mod ecb;
mod gcm;
mod xts;

/// Bytes read per chunk.
const CHUNK: usize = 256 * 1024;

/// Arguments of `aesx cipher`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// encrypt or decrypt.
    #[arg(value_enum)]
    pub op: Op,
    /// Mode of operation.
    #[arg(long, value_enum)]
    pub mode: Mode,
    /// Key in hex: 16, 24 or 32 bytes.
    #[arg(long, value_name = "HEX")]
    pub key: String,
    /// IV (CBC) or initial counter block (CTR) in hex, 16 bytes; for GCM
    /// any non-zero length (12 bytes usual).
    #[arg(long, value_name = "HEX")]
    pub iv: Option<String>,
    /// XTS: the 16-byte tweak of the one data unit, in hex.
    #[arg(long, value_name = "HEX")]
    pub tweak: Option<String>,
    /// XTS: the data unit (sector) number, little-endian as IEEE 1619; with
    /// --sector-size, the number of the first sector (default 0).
    #[arg(long, value_name = "N")]
    pub sector: Option<u128>,
    /// XTS: the input is a disk image of consecutive sectors of this size.
    #[arg(long, value_name = "BYTES")]
    pub sector_size: Option<usize>,
    /// GCM: additional authenticated data in hex.
    #[arg(long, value_name = "HEX")]
    pub aad: Option<String>,
    /// GCM: tag length in bytes (16 by default; 15, 14, 13, 12, 8 or 4).
    #[arg(long, value_name = "N")]
    pub tag_len: Option<usize>,
    /// Padding for ECB and CBC (default pkcs7, as `openssl enc`).
    #[arg(long, value_enum)]
    pub padding: Option<PaddingArg>,
    /// Backend to run on (default: AESX_BACKEND, else the fastest). `cuda`
    /// runs ecb, ctr, cbc decryption, xts and gcm on the GPU; CBC encryption
    /// is serial and stays on the CPU.
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
    /// Input file (default: standard input; `-` also means it).
    #[arg(short = 'i', long = "in", value_name = "FILE")]
    pub input: Option<PathBuf>,
    /// Output file (default: standard output; `-` also means it).
    #[arg(short = 'o', long = "out", value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// Encrypt or decrypt.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Encrypt.
    Encrypt,
    /// Decrypt.
    Decrypt,
}

/// The modes `aesx cipher` runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// ECB (padding: pkcs7 by default).
    Ecb,
    /// CBC (padding: pkcs7 by default).
    Cbc,
    /// CTR with a 128-bit big-endian counter; no padding.
    Ctr,
    /// XTS-AES (IEEE 1619): --tweak or --sector, optionally --sector-size.
    Xts,
    /// GCM: ciphertext followed by the tag; decryption writes nothing
    /// unless the tag verifies.
    Gcm,
}

/// `--padding`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum PaddingArg {
    /// PKCS#7, as `openssl enc` by default.
    Pkcs7,
    /// None: the input must be whole 16-byte blocks (`openssl enc -nopad`).
    None,
}

/// The parsed options a mode builds its stream from. Options only one mode
/// uses stay in `args` for that mode's file to read.
pub struct Params<'a> {
    /// Everything as given on the command line.
    #[allow(dead_code)] // read by modes with options of their own
    pub args: &'a Args,
    /// Encrypt or decrypt.
    pub op: Op,
    /// The mode's name, for messages.
    pub mode: String,
    /// Key bytes (length not yet checked; each mode knows its own sizes).
    pub key: Vec<u8>,
    /// IV bytes, if given.
    pub iv: Option<Vec<u8>>,
    /// Padding, if given.
    pub padding: Option<Padding>,
    /// The backend to run on.
    pub backend: Backend,
}

impl Params<'_> {
    /// The key, checked to be an AES key (16, 24 or 32 bytes).
    pub fn aes_key(&self) -> Result<&[u8], CliError> {
        match self.key.len() {
            16 | 24 | 32 => Ok(&self.key),
            n => Err(CliError::usage(format!(
                "--key: {n} bytes; AES keys are 16, 24 or 32 bytes (32, 48 or 64 hex digits)"
            ))),
        }
    }

    /// The IV, required and exactly 16 bytes.
    pub fn iv16(&self) -> Result<[u8; 16], CliError> {
        let iv = self
            .iv
            .as_deref()
            .ok_or_else(|| CliError::usage(format!("--iv is required for {}", self.mode)))?;
        iv.try_into().map_err(|_| {
            CliError::usage(format!(
                "--iv: {} bytes; {} needs 16 bytes (32 hex digits)",
                iv.len(),
                self.mode
            ))
        })
    }

    /// Refuses an IV for modes that take none.
    pub fn no_iv(&self) -> Result<(), CliError> {
        match self.iv {
            Some(_) => Err(CliError::usage(format!(
                "--iv is not used by {}",
                self.mode
            ))),
            None => Ok(()),
        }
    }

    /// Refuses padding for stream modes (accepting an explicit `none`).
    pub fn no_padding(&self) -> Result<(), CliError> {
        match self.padding {
            Some(Padding::Pkcs7) => Err(CliError::usage(format!(
                "--padding pkcs7 is not used by {} (it needs no padding)",
                self.mode
            ))),
            _ => Ok(()),
        }
    }
}

/// A streaming transform: input in chunks of any size, output as it is ready.
pub trait Stream {
    /// Checks, before anything is written, that an input of `len` bytes can
    /// succeed (when the length is known in advance).
    fn check_len(&self, _len: u64) -> Result<(), CliError> {
        Ok(())
    }
    /// Processes `input`, appending what is ready to `out`.
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CliError>;
    /// Ends the stream, appending the rest to `out`.
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CliError>;
}

/// The stream for the chosen mode.
fn build(mode: Mode, p: &Params) -> Result<Box<dyn Stream>, CliError> {
    let xts_opts =
        p.args.tweak.is_some() || p.args.sector.is_some() || p.args.sector_size.is_some();
    if mode != Mode::Xts && xts_opts {
        return Err(CliError::usage(format!(
            "--tweak, --sector and --sector-size are XTS options, not used by {}",
            p.mode
        )));
    }
    if mode != Mode::Gcm && (p.args.aad.is_some() || p.args.tag_len.is_some()) {
        return Err(CliError::usage(format!(
            "--aad and --tag-len are used by gcm only, not by {}",
            p.mode
        )));
    }
    match mode {
        Mode::Xts => xts::stream(p),
        Mode::Ecb => ecb::stream(p),
        Mode::Cbc => cbc::stream(p),
        Mode::Ctr => ctr::stream(p),
        Mode::Gcm => gcm::stream(p),
    }
}

/// Decodes a hex option strictly (no spaces, even length).
pub fn hex_arg(name: &str, s: &str) -> Result<Vec<u8>, CliError> {
    if !s.len().is_multiple_of(2) {
        return Err(CliError::usage(format!(
            "{name}: odd number of hex digits ({})",
            s.len()
        )));
    }
    hex::decode(s).map_err(|e| CliError::usage(format!("{name}: not hex: {e}")))
}

/// Runs `aesx cipher`.
pub fn run(args: Args) -> Result<ExitCode, CliError> {
    let mode_name = args
        .mode
        .to_possible_value()
        .map_or_else(|| "this mode".to_string(), |v| v.get_name().to_string());
    let choice = backend_arg::choose(args.backend.as_deref())?;
    let params = Params {
        args: &args,
        op: args.op,
        mode: mode_name,
        key: hex_arg("--key", &args.key)?,
        iv: args.iv.as_deref().map(|s| hex_arg("--iv", s)).transpose()?,
        padding: args.padding.map(|p| match p {
            PaddingArg::Pkcs7 => Padding::Pkcs7,
            PaddingArg::None => Padding::None,
        }),
        backend: choice.cpu(),
    };
    let mut stream = build(args.mode, &params)?;
    if choice == backend_arg::Choice::Cuda {
        stream = cuda::stream(args.mode, &params, stream)?;
    }

    let input = args.input.as_deref().filter(|p| *p != Path::new("-"));
    let output = args.output.as_deref().filter(|p| *p != Path::new("-"));
    let mut reader: Box<dyn Read> = match input {
        Some(path) => {
            let file = File::open(path).map_err(|e| {
                CliError::failure(format!("cannot open {}: {}", path.display(), io_msg(&e)))
            })?;
            if let Ok(meta) = file.metadata() {
                if meta.is_file() {
                    stream.check_len(meta.len())?;
                }
            }
            Box::new(file)
        }
        None => Box::new(io::stdin().lock()),
    };
    let mut sink = Sink::open(output)?;

    let mut buf = vec![0u8; CHUNK];
    let mut out = Vec::with_capacity(CHUNK + 64);
    loop {
        let n = match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CliError::failure(format!("reading input: {}", io_msg(&e)))),
        };
        out.clear();
        stream.update(&buf[..n], &mut out)?;
        sink.write(&out)?;
    }
    out.clear();
    stream.finish(&mut out)?;
    sink.write(&out)?;
    sink.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// An I/O error without Rust's "(os error N)" suffix.
fn io_msg(e: &io::Error) -> String {
    let s = e.to_string();
    match s.find(" (os error") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Where the output goes: standard output, or a temporary file that becomes
/// the destination on [`Sink::commit`] (and is removed if dropped before).
enum Sink {
    Stdout(io::BufWriter<io::StdoutLock<'static>>),
    File {
        tmp: io::BufWriter<tempfile::NamedTempFile>,
        /// The path as given, for messages.
        dest: PathBuf,
        /// The path renamed over (`dest` with a symlink resolved).
        real: PathBuf,
    },
    /// A device or pipe, written in place.
    Direct {
        w: io::BufWriter<File>,
        dest: PathBuf,
    },
}

impl Sink {
    fn open(path: Option<&Path>) -> Result<Sink, CliError> {
        let Some(dest) = path else {
            return Ok(Sink::Stdout(io::BufWriter::with_capacity(
                CHUNK,
                io::stdout().lock(),
            )));
        };
        let fail = |e: io::Error| {
            CliError::failure(format!("cannot write {}: {}", dest.display(), io_msg(&e)))
        };
        // A symlink is followed, so that the file it points to is replaced
        // rather than the link itself.
        let real = match std::fs::symlink_metadata(dest) {
            Ok(m) if m.file_type().is_symlink() => std::fs::canonicalize(dest).map_err(fail)?,
            _ => dest.to_path_buf(),
        };
        match std::fs::metadata(&real) {
            Ok(m) if m.is_dir() => {
                return Err(CliError::failure(format!(
                    "cannot write {}: is a directory",
                    dest.display()
                )))
            }
            // Devices and pipes (/dev/null, a FIFO) cannot be replaced by a
            // rename; they are written directly.
            Ok(m) if !m.is_file() => {
                let f = std::fs::OpenOptions::new()
                    .write(true)
                    .open(&real)
                    .map_err(fail)?;
                return Ok(Sink::Direct {
                    w: io::BufWriter::with_capacity(CHUNK, f),
                    dest: dest.to_path_buf(),
                });
            }
            _ => {}
        }
        let dir = match real.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let tmp = tempfile::Builder::new()
            .prefix(".aesx-")
            .suffix(".tmp")
            .tempfile_in(dir)
            .map_err(fail)?;
        // Overwriting keeps the existing file's permissions; a new file keeps
        // the temporary file's owner-only mode.
        if let Ok(meta) = std::fs::metadata(&real) {
            tmp.as_file()
                .set_permissions(meta.permissions())
                .map_err(fail)?;
        }
        Ok(Sink::File {
            tmp: io::BufWriter::with_capacity(CHUNK, tmp),
            dest: dest.to_path_buf(),
            real,
        })
    }

    fn write(&mut self, data: &[u8]) -> Result<(), CliError> {
        let r = match self {
            Sink::Stdout(w) => w.write_all(data),
            Sink::File { tmp, .. } => tmp.write_all(data),
            Sink::Direct { w, .. } => w.write_all(data),
        };
        r.map_err(|e| self.write_error(&e))
    }

    fn write_error(&self, e: &io::Error) -> CliError {
        match self {
            Sink::Stdout(_) => CliError::failure(format!("writing output: {}", io_msg(e))),
            Sink::File { dest, .. } | Sink::Direct { dest, .. } => {
                CliError::failure(format!("writing {}: {}", dest.display(), io_msg(e)))
            }
        }
    }

    fn commit(self) -> Result<(), CliError> {
        match self {
            Sink::Stdout(mut w) => w
                .flush()
                .map_err(|e| CliError::failure(format!("writing output: {}", io_msg(&e)))),
            Sink::Direct { mut w, dest } => w.flush().map_err(|e| {
                CliError::failure(format!("writing {}: {}", dest.display(), io_msg(&e)))
            }),
            Sink::File { tmp, dest, real } => {
                let fail = |e: &io::Error| {
                    CliError::failure(format!("writing {}: {}", dest.display(), io_msg(e)))
                };
                let tmp = tmp.into_inner().map_err(|e| fail(e.error()))?;
                tmp.as_file().sync_all().map_err(|e| fail(&e))?;
                tmp.persist(&real).map_err(|e| fail(&e.error))?;
                Ok(())
            }
        }
    }
}
