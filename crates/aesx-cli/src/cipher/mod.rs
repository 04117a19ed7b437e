//! `aesx cipher encrypt|decrypt --mode ...`: raw block-cipher modes over a
//! file or a pipe, interoperable with `openssl enc -K ... -iv ...`.
//!
//! The input is streamed in chunks through a [`Stream`] (GCM through its own
//! loop); nothing holds the whole input in memory, except for the modes that
//! cannot stream (GCM-SIV, XAES-256-GCM, CCM, KW, KWP: a [`Whole`] job reads
//! the input, then transforms it in one call). The output is the same
//! [`Output`] as `aesx encrypt`'s: an existing file is only replaced with
//! `--force`, the input is never written over, and a named output appears
//! only when everything succeeded (an error or a signal leaves nothing).
//!
//! Adding a mode is adding a file here with a `stream(&Params)` constructor
//! and one arm in `build` (plus its options in [`Args`]).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use aesx::{Backend, Padding};
use clap::ValueEnum;
use zeroize::Zeroizing;

use crate::backend_arg;
use crate::file::output::{self, Output, OutputOpts};
use crate::CommandError;

pub mod aead;
mod blockwise;
mod cbc;
mod ctr;
#[cfg(feature = "cuda")]
mod cuda;
mod ecb;
mod feedback;
mod gcm;
pub mod keywrap;
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
    /// IV (CBC, CFB, CFB8, OFB) or initial counter block (CTR) in hex, 16
    /// bytes; for GCM
    /// any non-zero length (12 bytes usual). The nonce of gcm-siv (12
    /// bytes), xaes (24 bytes) and ccm (7 to 13 bytes).
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
    /// gcm, gcm-siv, xaes, ccm: additional authenticated data in hex.
    #[arg(long, value_name = "HEX")]
    pub aad: Option<String>,
    /// gcm: tag length in bytes (16 by default; 15, 14, 13, 12, 8 or 4);
    /// ccm: 4, 6, 8, 10, 12, 14 or 16 (default 16).
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
    /// Replace the output file if it exists (a new file takes its name and
    /// keeps its mode; the old file is not rewritten in place).
    #[arg(short = 'f', long)]
    pub force: bool,
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
    /// CFB128 (SP 800-38A), --iv 16 bytes; no padding (`openssl enc
    /// -aes-*-cfb`).
    Cfb,
    /// CFB8 (8-bit feedback), --iv 16 bytes; no padding (`-aes-*-cfb8`).
    Cfb8,
    /// OFB, --iv 16 bytes; no padding (`-aes-*-ofb`).
    Ofb,
    /// XTS-AES (IEEE 1619): --tweak or --sector, optionally --sector-size.
    Xts,
    /// GCM: ciphertext followed by the tag; decryption writes nothing
    /// unless the tag verifies.
    Gcm,
    /// AES-GCM-SIV (RFC 8452): key 16, 24 (as OpenSSL) or 32 bytes, --iv
    /// the 12-byte nonce; output = ciphertext then the 16-byte tag;
    /// decryption writes nothing unless the tag verifies.
    GcmSiv,
    /// XAES-256-GCM (c2sp.org): key 32 bytes, --iv the 24-byte nonce;
    /// output = ciphertext then the 16-byte tag.
    Xaes,
    /// CCM (SP 800-38C): --iv the nonce, 7 to 13 bytes; --tag-len 4, 6,
    /// ..., 16 (default 16); output = ciphertext then the tag.
    Ccm,
    /// AES key wrap (RFC 3394): encrypt wraps (input a multiple of 8
    /// bytes, at least 16; output 8 bytes longer), decrypt unwraps and
    /// writes nothing unless the integrity check passes.
    Kw,
    /// AES key wrap with padding (RFC 5649): wraps 1 byte or more; output
    /// the next multiple of 8, plus 8.
    Kwp,
}

impl Mode {
    /// Whether the mode runs on the CPU only (no `--backend cuda`).
    pub fn cpu_only(self) -> bool {
        matches!(
            self,
            Mode::GcmSiv
                | Mode::Xaes
                | Mode::Ccm
                | Mode::Kw
                | Mode::Kwp
                | Mode::Cfb
                | Mode::Cfb8
                | Mode::Ofb
        )
    }
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
    pub fn aes_key(&self) -> Result<&[u8], CommandError> {
        match self.key.len() {
            16 | 24 | 32 => Ok(&self.key),
            n => Err(CommandError::usage(format!(
                "--key: {n} bytes; AES keys are 16, 24 or 32 bytes (32, 48 or 64 hex digits)"
            ))),
        }
    }

    /// The IV, required and exactly 16 bytes.
    pub fn iv16(&self) -> Result<[u8; 16], CommandError> {
        let iv = self
            .iv
            .as_deref()
            .ok_or_else(|| CommandError::usage(format!("--iv is required for {}", self.mode)))?;
        iv.try_into().map_err(|_| {
            CommandError::usage(format!(
                "--iv: {} bytes; {} needs 16 bytes (32 hex digits)",
                iv.len(),
                self.mode
            ))
        })
    }

    /// Refuses an IV for modes that take none.
    pub fn no_iv(&self) -> Result<(), CommandError> {
        match self.iv {
            Some(_) => Err(CommandError::usage(format!(
                "--iv is not used by {}",
                self.mode
            ))),
            None => Ok(()),
        }
    }

    /// Refuses padding for stream modes (accepting an explicit `none`).
    pub fn no_padding(&self) -> Result<(), CommandError> {
        match self.padding {
            Some(Padding::Pkcs7) => Err(CommandError::usage(format!(
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
    fn check_len(&self, _len: u64) -> Result<(), CommandError> {
        Ok(())
    }
    /// Processes `input`, appending what is ready to `out`.
    fn update(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(), CommandError>;
    /// Ends the stream, appending the rest to `out`.
    fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), CommandError>;
}

/// A transform of the whole input at once, for the modes that cannot
/// stream; nothing is written before it returns.
pub trait Whole {
    /// Checks that an input of `len` bytes can succeed; called as the input
    /// grows (and before anything is read when its length is known).
    fn check_len(&self, len: u64) -> Result<(), CommandError>;
    /// The longest input that can succeed (reading stops past it).
    fn max_input(&self) -> u64;
    /// The output for the whole input.
    fn run(&self, input: &[u8]) -> Result<Zeroizing<Vec<u8>>, CommandError>;
}

/// What a mode runs: a [`Stream`], GCM's own loop (which must hold back
/// the tag at the end of the input and keeps the cipher borrowed), or a
/// [`Whole`] transform.
pub enum Job {
    Stream(Box<dyn Stream>),
    Gcm(Box<gcm::GcmJob>),
    Whole(Box<dyn Whole>),
}

impl Job {
    fn check_len(&self, len: u64) -> Result<(), CommandError> {
        match self {
            Job::Stream(s) => s.check_len(len),
            Job::Gcm(g) => g.check_len(len),
            Job::Whole(w) => w.check_len(len),
        }
    }
}

/// The job for the chosen mode.
fn build(mode: Mode, p: &Params) -> Result<Job, CommandError> {
    let xts_opts =
        p.args.tweak.is_some() || p.args.sector.is_some() || p.args.sector_size.is_some();
    if mode != Mode::Xts && xts_opts {
        return Err(CommandError::usage(format!(
            "--tweak, --sector and --sector-size are XTS options, not used by {}",
            p.mode
        )));
    }
    let aead = matches!(mode, Mode::Gcm | Mode::GcmSiv | Mode::Xaes | Mode::Ccm);
    if !aead && (p.args.aad.is_some() || p.args.tag_len.is_some()) {
        return Err(CommandError::usage(format!(
            "--aad and --tag-len are used by gcm, gcm-siv, xaes and ccm, not by {}",
            p.mode
        )));
    }
    Ok(match mode {
        Mode::Xts => Job::Stream(xts::stream(p)?),
        Mode::Ecb => Job::Stream(ecb::stream(p)?),
        Mode::Cbc => Job::Stream(cbc::stream(p)?),
        Mode::Ctr => Job::Stream(ctr::stream(p)?),
        Mode::Cfb => Job::Stream(feedback::stream(feedback::Kind::Cfb, p)?),
        Mode::Cfb8 => Job::Stream(feedback::stream(feedback::Kind::Cfb8, p)?),
        Mode::Ofb => Job::Stream(feedback::stream(feedback::Kind::Ofb, p)?),
        Mode::Gcm => Job::Gcm(Box::new(gcm::job(p)?)),
        Mode::GcmSiv => Job::Whole(aead::job(aead::Kind::GcmSiv, p)?),
        Mode::Xaes => Job::Whole(aead::job(aead::Kind::Xaes, p)?),
        Mode::Ccm => Job::Whole(aead::job(aead::Kind::Ccm, p)?),
        Mode::Kw => Job::Whole(keywrap::job(keywrap::Variant::Kw, p)?),
        Mode::Kwp => Job::Whole(keywrap::job(keywrap::Variant::Kwp, p)?),
    })
}

/// "This mode runs on the CPU only", for the modes without a GPU path
/// (GCM-SIV, XAES, CCM, key wrap, CMAC) with `--backend cuda`.
pub fn cpu_only(p: &Params) -> CommandError {
    crate::backend_arg::cpu_only(&p.mode)
}

/// Decodes a hex option strictly (no spaces, even length).
pub fn hex_arg(name: &str, s: &str) -> Result<Vec<u8>, CommandError> {
    if !s.len().is_multiple_of(2) {
        return Err(CommandError::usage(format!(
            "{name}: odd number of hex digits ({})",
            s.len()
        )));
    }
    hex::decode(s).map_err(|e| CommandError::usage(format!("{name}: not hex: {e}")))
}

/// Runs `aesx cipher`.
pub fn run(args: Args) -> Result<ExitCode, CommandError> {
    output::install_signal_cleanup();
    let mode_name = args
        .mode
        .to_possible_value()
        .map_or_else(|| "this mode".to_string(), |v| v.get_name().to_string());
    let choice = backend_arg::choose(args.backend.as_deref(), backend_arg::Accepts::Gpu)?;
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
    // Said before the GPU is opened (and before the mode's own checks).
    #[cfg(feature = "cuda")]
    if choice == backend_arg::Choice::Cuda && args.mode.cpu_only() {
        return Err(cpu_only(&params));
    }
    let job = build(args.mode, &params)?;
    #[cfg(feature = "cuda")]
    let job = if choice == backend_arg::Choice::Cuda {
        cuda::job(args.mode, &params, job)?
    } else {
        job
    };

    let input = args.input.as_deref().filter(|p| *p != Path::new("-"));
    let (mut reader, input_id): (Box<dyn Read>, _) = match input {
        Some(path) => {
            let file = File::open(path).map_err(|e| {
                CommandError::failure(format!("cannot open {}: {}", path.display(), io_msg(&e)))
            })?;
            let meta = file.metadata().map_err(|e| {
                CommandError::failure(format!("cannot read {}: {}", path.display(), io_msg(&e)))
            })?;
            if meta.is_dir() {
                return Err(CommandError::failure(format!(
                    "cannot read {}: is a directory",
                    path.display()
                )));
            }
            if meta.is_file() {
                job.check_len(meta.len())?;
            }
            let id = output::file_id(&file);
            (Box::new(file), id)
        }
        None => {
            let stdin = io::stdin();
            let id = output::file_id(&stdin);
            (Box::new(stdin.lock()), id)
        }
    };
    let mut out = Output::open(OutputOpts {
        path: args.output.as_deref().filter(|p| *p != Path::new("-")),
        force: args.force,
        refuse_terminal: false,
        input: input_id,
        mode: 0o600,
        protect: &[],
        private: false,
        // GCM plaintext is unauthenticated until the tag at the very end.
        hold_back: args.mode == Mode::Gcm && args.op == Op::Decrypt,
    })?;
    match job {
        Job::Gcm(g) => g.run(&mut reader, &mut out)?,
        Job::Whole(w) => {
            let input = read_all(&mut reader, w.as_ref())?;
            out.write_all(&w.run(&input)?)?;
        }
        Job::Stream(mut stream) => {
            let mut buf = vec![0u8; CHUNK];
            let mut chunk = Vec::with_capacity(CHUNK + 64);
            loop {
                let n = read_some(&mut reader, &mut buf)?;
                if n == 0 {
                    break;
                }
                chunk.clear();
                stream.update(&buf[..n], &mut chunk)?;
                out.write_all(&chunk)?;
            }
            chunk.clear();
            stream.finish(&mut chunk)?;
            out.write_all(&chunk)?;
        }
    }
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The whole input, checked against `w`'s length limit as it grows (so
/// that an endless pipe ends in an error, not in exhausted memory).
fn read_all(r: &mut dyn Read, w: &dyn Whole) -> Result<Zeroizing<Vec<u8>>, CommandError> {
    let mut all = Zeroizing::new(Vec::new());
    let mut buf = Zeroizing::new(vec![0u8; CHUNK]);
    loop {
        let n = read_some(r, &mut buf)?;
        if n == 0 {
            return Ok(all);
        }
        if all.len() + n > all.capacity() {
            // Grown by hand so that no unzeroized copy is left behind.
            let mut bigger = Zeroizing::new(Vec::with_capacity((all.len() + n) * 2));
            bigger.extend_from_slice(&all);
            all = bigger;
        }
        all.extend_from_slice(&buf[..n]);
        let len = all.len() as u64;
        if len > w.max_input() {
            w.check_len(len)?;
            return Err(CommandError::failure(format!(
                "the input is longer than {} bytes, the most this mode takes; nothing written",
                w.max_input()
            )));
        }
    }
}

/// One `read`, retried on EINTR; 0 at the end of the input.
pub fn read_some(r: &mut dyn Read, buf: &mut [u8]) -> Result<usize, CommandError> {
    loop {
        match r.read(buf) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                return Err(CommandError::failure(format!(
                    "reading input: {}",
                    io_msg(&e)
                )))
            }
        }
    }
}

/// An I/O error without Rust's "(os error N)" suffix.
fn io_msg(e: &io::Error) -> String {
    crate::file::io_msg(e)
}
