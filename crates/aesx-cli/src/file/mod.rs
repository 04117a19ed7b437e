//! `aesx encrypt`, `aesx decrypt`, `aesx keygen`: authenticated file
//! encryption in the format of `docs/FORMAT.md` (an aesx header, then a
//! c2sp.org/chunked-encryption payload, Cobblestone-256).
//!
//! - `args`: the options; `input`: the input and the key files kept apart
//!   from it; `kdf`: key files, passphrases and Argon2id with its ceilings.
//! - `pipeline`: data flows through three stages with bounded memory:
//!   reader threads fill batches of whole chunks, the calling thread seals
//!   or opens each batch (`chunks`: on all cores through [`payload`], or on
//!   the GPU through `gpu`), and a writer thread writes them in order.
//! - `output`: only chunks whose tags verified are ever written, and a
//!   named output only appears once everything verified.

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use zeroize::Zeroizing;

use crate::backend_arg::Choice;
use crate::{backend_arg, CommandError};

mod args;
mod chunks;
#[cfg(feature = "cuda")]
pub(crate) mod gpu;
mod input;
pub mod kdf;
#[cfg(feature = "cuda")]
mod offload;
pub mod output;
mod pipeline;
mod sys;

use aesx_file::header::{Header, KeySource};
use aesx_file::payload;
use aesx_file::payload::{
    PayloadError, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN, SALT_LEN,
};
pub use args::{CommonArgs, DecryptArgs, EncryptArgs, KeygenArgs};
use chunks::{Device, BATCH_CHUNKS};
use input::{check_secrets_not_input, input_source, open_input, secret_files, Input};
use output::{Output, OutputOpts};
use pipeline::progress;

/// An I/O error without Rust's "(os error N)" suffix.
pub fn io_msg(e: &io::Error) -> String {
    aesx_file::command_error::strip_os_error(&e.to_string())
}

/// Reads a whole file of at most `cap` bytes; a longer one (or an endless
/// one, `/dev/zero`) is an error that names the cap, read no further.
pub fn read_capped(path: &Path, cap: u64) -> io::Result<Vec<u8>> {
    let f = File::open(path)?;
    if f.metadata()?.is_dir() {
        return Err(io::Error::other("is a directory"));
    }
    let mut data = Vec::new();
    f.take(cap + 1).read_to_end(&mut data)?;
    if data.len() as u64 > cap {
        zeroize::Zeroize::zeroize(&mut data);
        return Err(io::Error::other(format!(
            "larger than {cap} bytes, the most accepted"
        )));
    }
    Ok(data)
}

fn payload_err(e: PayloadError) -> CommandError {
    CommandError::failure(e.to_string())
}

fn out_path(p: &Option<PathBuf>) -> Option<&Path> {
    p.as_deref().filter(|p| *p != Path::new("-"))
}

fn threads(arg: Option<usize>) -> Result<usize, CommandError> {
    match arg {
        Some(0) => Err(CommandError::usage("--threads: must be at least 1")),
        Some(n) => Ok(n.min(256)),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

/// Gets the 32-byte input key for encryption, and the header's key source.
fn encryption_key(
    c: &CommonArgs,
    cost: Option<&str>,
) -> Result<(Zeroizing<[u8; kdf::KEY_LEN]>, KeySource), CommandError> {
    if let Some(k) = &c.key_file {
        return Ok((kdf::read_key_file(k)?, KeySource::Key));
    }
    let pass = match (&c.passphrase_file, c.passphrase) {
        (Some(f), _) => kdf::read_passphrase_file(f)?,
        (None, true) => kdf::prompt_passphrase(true)?,
        (None, false) => {
            return Err(CommandError::usage(
                "no key: give -k KEYFILE (see `aesx keygen`), -p, or --passphrase-file FILE",
            ))
        }
    };
    let (m, t, p) = match cost {
        Some(s) => kdf::parse_cost(s)?,
        None => (
            kdf::DEFAULT_MEMORY_KIB,
            kdf::DEFAULT_ITERATIONS,
            kdf::DEFAULT_PARALLELISM,
        ),
    };
    let params = kdf::new_params(m, t, p)?;
    kdf::check_caps(&params)?;
    let key = kdf::argon2id(&pass, &params)?;
    Ok((key, KeySource::Argon2id(params)))
}

/// Gets the input key for decryption as the header asks.
fn decryption_key(
    c: &CommonArgs,
    source: &KeySource,
    limits: &kdf::Limits,
) -> Result<Zeroizing<[u8; kdf::KEY_LEN]>, CommandError> {
    match source {
        KeySource::Key => match &c.key_file {
            Some(k) => kdf::read_key_file(k),
            None => Err(CommandError::usage(
                "this file was encrypted with a key file: give -k KEYFILE",
            )),
        },
        KeySource::Argon2id(p) => {
            if c.key_file.is_some() {
                return Err(CommandError::usage(
                    "this file was encrypted with a passphrase: use -p or --passphrase-file, not -k",
                ));
            }
            // Refuse hostile costs before asking for anything.
            kdf::check_caps(p)?;
            kdf::check_limits(p, limits)?;
            let pass = match &c.passphrase_file {
                Some(f) => kdf::read_passphrase_file(f)?,
                None => kdf::prompt_passphrase(false)?,
            };
            kdf::argon2id(&pass, p)
        }
    }
}

/// What encrypt and decrypt set up alike before reading anything.
struct Start {
    /// The GPU, if `--backend cuda` (or `cpu+cuda`) asked for it.
    device: Device,
    /// `--backend cpu+cuda`: CPU workers beside the GPU.
    hybrid: bool,
    /// The CPU backend (key setup, and the chunks unless on the GPU).
    backend: aesx::Backend,
    threads: usize,
    input: Input,
}

/// `cpu+cuda`: a GPU must be there before CPU workers are planned beside
/// it (a cheap check; opening it comes later).
#[cfg(feature = "cuda")]
fn check_gpu_present() -> Result<(), CommandError> {
    aesx_cuda::device_count()
        .map(drop)
        .map_err(|e| CommandError::usage(backend_arg::gpu_unavailable(&e)))
}

fn start(c: &CommonArgs) -> Result<Start, CommandError> {
    output::install_signal_cleanup();
    let (choice, hybrid) =
        backend_arg::forced_with_workers(c.backend.as_deref(), backend_arg::Accepts::File)?
            .unwrap_or((Choice::Cpu(aesx::Backend::fastest()), false));
    #[cfg(feature = "cuda")]
    if hybrid {
        check_gpu_present()?;
    }
    // With CPU workers the GPU is opened later, on a thread of its own.
    let device = Device::open(if hybrid {
        Choice::Cpu(choice.cpu())
    } else {
        choice
    })?;
    let threads = threads(c.threads)?;
    check_secrets_not_input(c)?;
    let input = open_input(c.input.as_deref())?;
    Ok(Start {
        device,
        hybrid,
        backend: choice.cpu(),
        threads,
        input,
    })
}

/// The output (invisible until committed), never the input or a key or
/// passphrase file by another name.
fn open_output(
    c: &CommonArgs,
    input: &Input,
    refuse_terminal: bool,
    mode: u32,
) -> Result<Output, CommandError> {
    let protect = secret_files(c);
    Output::open(OutputOpts {
        path: out_path(&c.output),
        force: c.force,
        refuse_terminal,
        input: input.id,
        mode,
        protect: &protect,
        hold_back: false,
        private: false,
    })
}

/// Runs `aesx encrypt`.
pub fn run_encrypt(a: EncryptArgs) -> Result<ExitCode, CommandError> {
    let c = &a.common;
    let Start {
        device,
        hybrid,
        backend,
        threads,
        input,
    } = start(c)?;
    // Check the destination before the (slow) passphrase stretching.
    let mut out = open_output(c, &input, true, 0o666)?;
    let (key, source) = encryption_key(c, a.insecure_kdf_cost.as_deref())?;
    let header = Header::new(source);
    let mut salt = [0u8; SALT_LEN];
    kdf::fill_random(&mut salt)?;
    let (ph, cipher) =
        payload::seal_header(Suite::Aes256Gcm, &key[..], &header.bytes, &salt, backend)
            .map_err(payload_err)?;
    #[cfg(feature = "cuda")]
    if let (true, Some(file), Some(len)) =
        (device.gpu().is_some() || hybrid, &input.file, input.len)
    {
        // A regular file: the offload path (pipes take the batch path).
        let (gk, context) = (Zeroizing::new(key.to_vec()), header.bytes.clone());
        drop(key);
        let open: offload::GpuOpen = Box::new(move || {
            let g = backend_arg::open_gpu()?;
            Ok(Box::new(
                gpu::GpuChunks::new(&g, &gk, &context, &salt)?.into_parts(),
            ))
        });
        out.write_all(&header.bytes)?;
        out.write_all(&ph)?;
        let job = offload_job(open, cipher, hybrid, threads, file, 0, len)?;
        let pb = progress(c.quiet, input.len);
        offload::run(aesx_cuda::chunk_pipe::Direction::Seal, job, &mut out, &pb)?;
        pb.finish_and_clear();
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    #[cfg(feature = "cuda")]
    let device = if hybrid {
        Device::open(Choice::Cuda)?
    } else {
        device
    };
    #[cfg(not(feature = "cuda"))]
    let _ = hybrid;
    let sealer = device.sealer(cipher, threads, &key[..], &header.bytes, &salt)?;
    drop(key);
    out.write_all(&header.bytes)?;
    out.write_all(&ph)?;
    let pb = progress(c.quiet, input.len);
    sealer.run(input_source(input, 0), &mut out, &pb)?;
    pb.finish_and_clear();
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// The offload path's job over `len` bytes of chunks from `start` in
/// `file`: the GPU alone, or with `threads` CPU workers when `hybrid`.
#[cfg(feature = "cuda")]
fn offload_job(
    gpu: offload::GpuOpen,
    cpu: payload::ChunkCipher,
    hybrid: bool,
    threads: usize,
    file: &File,
    start: u64,
    len: u64,
) -> Result<offload::Job, CommandError> {
    let file = file
        .try_clone()
        .map_err(|e| CommandError::failure(format!("reading input: {}", io_msg(&e))))?;
    Ok(offload::Job {
        gpu,
        cpu,
        workers: if hybrid { threads } else { 0 },
        file,
        start,
        len,
    })
}

/// The error of a batch of records `ct` that did not open (see
/// [`payload::BatchError::explain`]).
fn open_failure(cipher: &payload::ChunkCipher, e: payload::BatchError, ct: &[u8]) -> CommandError {
    payload_err(e.explain(cipher, ct))
}

/// Runs `aesx decrypt`.
pub fn run_decrypt(a: DecryptArgs) -> Result<ExitCode, CommandError> {
    let c = &a.common;
    let Start {
        device,
        hybrid,
        backend,
        threads,
        mut input,
    } = start(c)?;
    let ranged = a.offset.is_some() || a.length.is_some();
    if ranged && input.len.is_none() {
        return Err(CommandError::usage(
            "--offset/--length need a regular input file (not a pipe)",
        ));
    }
    let header =
        Header::read(&mut input.reader).map_err(|e| CommandError::failure(e.to_string()))?;
    // Every cheap check comes before the (slow) key derivation: the output
    // is opened (invisibly) first, so a bad -o fails at once.
    let mut out = open_output(c, &input, false, 0o600)?;
    let limits = kdf::Limits {
        memory_mib: a.max_kdf_memory,
        work_mib: a.max_kdf_work,
    };
    let key = decryption_key(c, &header.source, &limits)?;
    let mut ph = [0u8; PAYLOAD_HEADER_LEN];
    let n = payload::read_full(&mut input.reader, &mut ph)
        .map_err(|e| CommandError::failure(format!("reading input: {}", io_msg(&e))))?;
    // The commitment check: a wrong key or a changed header stops here,
    // before any chunk is decrypted or any output created.
    let cipher = payload::open_header(Suite::Aes256Gcm, &key[..], &header.bytes, &ph[..n], backend)
        .map_err(payload_err)?;
    #[cfg(feature = "cuda")]
    let offload_open: Option<offload::GpuOpen> = match (
        device.gpu().is_some() || hybrid,
        &input.file,
        input.len,
        ranged,
    ) {
        (true, Some(_), Some(_), false) => {
            let (gk, context) = (Zeroizing::new(key.to_vec()), header.bytes.clone());
            let ph = ph[..n].to_vec();
            Some(Box::new(move || {
                let g = backend_arg::open_gpu()?;
                Ok(Box::new(
                    gpu::GpuChunks::for_header(&g, &gk, &context, &ph)?.into_parts(),
                ))
            }))
        }
        _ => None,
    };
    #[cfg(feature = "cuda")]
    let device = if hybrid && offload_open.is_none() {
        Device::open(Choice::Cuda)?
    } else {
        device
    };
    #[cfg(not(feature = "cuda"))]
    let _ = hybrid;
    let opener = device.opener(&cipher, threads, &key[..], &header.bytes, &ph[..n])?;
    drop(key);
    let start = (header.bytes.len() + PAYLOAD_HEADER_LEN) as u64;
    if ranged {
        let file = input
            .file
            .as_ref()
            .filter(|_| input.len.is_some())
            .ok_or_else(|| {
                CommandError::usage("--offset/--length need a regular input file (not a pipe)")
            })?;
        let range = (a.offset.unwrap_or(0), a.length);
        let file_len = input.len.unwrap_or(0);
        random_access(file, start, file_len, cipher, range, threads, &mut out)?;
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    let total = input.len.map(|l| l.saturating_sub(start));
    #[cfg(feature = "cuda")]
    if let (Some(open), Some(file), Some(len)) = (offload_open, &input.file, total) {
        let job = offload_job(open, cipher, hybrid, threads, file, start, len)?;
        let to_tty = out_path(&c.output).is_none() && io::stdout().is_terminal();
        let pb = progress(c.quiet || to_tty, total);
        offload::run(aesx_cuda::chunk_pipe::Direction::Open, job, &mut out, &pb)?;
        pb.finish_and_clear();
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    // Plaintext going to the terminal would be garbled by a progress bar.
    let to_tty = out_path(&c.output).is_none() && io::stdout().is_terminal();
    let pb = progress(c.quiet || to_tty, total);
    opener.run(input_source(input, start), &mut out, &pb)?;
    pb.finish_and_clear();
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Decrypts plaintext bytes `[offset, offset + length)` (`range`, clipped
/// to the message) reading only the chunks they lie in, on the workers of
/// the pipeline. The final chunk is always authenticated first: it is what
/// proves the message length, so a range "to the end" is really the end
/// and a truncated file is refused.
fn random_access(
    file: &File,
    start: u64,
    file_len: u64,
    cipher: payload::ChunkCipher,
    (offset, length): (u64, Option<u64>),
    threads: usize,
    out: &mut Output,
) -> Result<(), CommandError> {
    let enc_len = file_len.saturating_sub(start);
    let layout = payload::Layout::from_len(enc_len).map_err(payload_err)?;
    // Authenticate the final chunk.
    let last = layout.chunks - 1;
    let (pos, len) = layout.chunk_span(last, enc_len);
    let mut ct = vec![0u8; len];
    sys::read_exact_at(file, &mut ct, start + pos)
        .map_err(|e| CommandError::failure(format!("reading input: {}", io_msg(&e))))?;
    let mut pt = Vec::new();
    payload::open_batch_at(&cipher, last, &ct, true, &mut pt, 1)
        .map_err(|e| payload_err(payload::explain_failure(&cipher, e.error, &ct)))?;
    if offset > layout.plaintext_len {
        return Err(CommandError::usage(format!(
            "--offset {offset} is past the end of the plaintext ({} bytes)",
            layout.plaintext_len
        )));
    }
    let end = match length {
        Some(l) => offset.saturating_add(l).min(layout.plaintext_len),
        None => layout.plaintext_len,
    };
    if end == offset {
        return Ok(());
    }
    // The chunks from the first the range touches to the last, read as a
    // payload of their own: the input stops after the last one, which is
    // the final chunk only if the range reaches the end.
    let first_chunk = offset / CHUNK_LEN as u64;
    let last_chunk = (end - 1) / CHUNK_LEN as u64;
    let (from, _) = layout.chunk_span(first_chunk, enc_len);
    let (to, to_len) = layout.chunk_span(last_chunk, enc_len);
    let (span, reaches_end) = ((to + to_len as u64) - from, last_chunk == last);
    let file = file
        .try_clone()
        .map_err(|e| CommandError::failure(format!("reading input: {}", io_msg(&e))))?;
    let source = pipeline::Source::File {
        file,
        start: start + from,
        limit: Some(span),
    };
    let step = |b: u64, ct: &[u8], eof: bool, o: &mut Vec<u8>| {
        let first = first_chunk + b * BATCH_CHUNKS as u64;
        // The short batch that ends the span ends the payload only when the
        // span reaches the final chunk; otherwise it is whole chunks.
        payload::open_batch_at(&cipher, first, ct, eof && reaches_end, o, 1)
            .map(drop)
            .map_err(|e| (e.valid, open_failure(&cipher, e, ct)))
    };
    // Plaintext offset of the next byte written, to clip to the range.
    let mut at = first_chunk * CHUNK_LEN as u64;
    let pb = indicatif::ProgressBar::hidden();
    pipeline::pipeline(
        source,
        BATCH_CHUNKS * ENC_CHUNK_LEN,
        threads,
        &pb,
        &step,
        &mut |o| {
            let lo = offset.saturating_sub(at).min(o.len() as u64) as usize;
            let hi = end.saturating_sub(at).min(o.len() as u64) as usize;
            at += o.len() as u64;
            out.write_all(&o[lo..hi.max(lo)])
        },
    )
}

/// Runs `aesx keygen`: 32 random bytes as 64 hex digits and a newline.
pub fn run_keygen(a: KeygenArgs) -> Result<ExitCode, CommandError> {
    let mut key = Zeroizing::new([0u8; kdf::KEY_LEN]);
    kdf::fill_random(&mut key[..])?;
    let mut text = Zeroizing::new(hex::encode(&key[..]).into_bytes());
    text.push(b'\n');
    output::install_signal_cleanup();
    let mut out = Output::open(OutputOpts {
        path: out_path(&a.output),
        force: a.force,
        refuse_terminal: false,
        input: None,
        mode: 0o600,
        protect: &[],
        hold_back: false,
        private: true,
    })?;
    out.write_all(&text)?;
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}
