//! `aesx encrypt`, `aesx decrypt`, `aesx keygen`: authenticated file
//! encryption in the format of `docs/FORMAT.md` (an aesx header, then a
//! c2sp.org/chunked-encryption payload, Cobblestone-256).
//!
//! Data flows through a three-stage pipeline with bounded memory: reader
//! threads fill batches of whole chunks (two `pread` threads taking turns
//! for a regular file, one for a pipe), the calling thread seals or opens
//! each batch on all cores ([`payload`]), and a writer thread writes them in
//! order. Only chunks whose tags verified are ever written, and a named
//! output only appears once everything verified ([`output`]).

use std::fs::File;
use std::io::{self, IsTerminal, Read};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;

use zeroize::Zeroizing;

use crate::{backend_arg, CliError};

pub(crate) mod gpu;
pub mod kdf;
pub mod output;

use aesx_file::header::{Header, KeySource};
use aesx_file::payload;
use aesx_file::payload::{
    Opener, PayloadError, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN, SALT_LEN,
};
use output::{Output, OutputOpts};

/// Chunks per batch: 2 MiB of plaintext, split over the threads.
const BATCH_CHUNKS: usize = 128;
/// Batches queued between the stages (with the ones being filled, worked on
/// and written: about 12 batches, 26 MiB, at most).
const DEPTH: usize = 2;

/// Options shared by encrypt and decrypt.
#[derive(clap::Args, Debug)]
pub struct CommonArgs {
    /// Input file (default: standard input; `-` also means it).
    #[arg(value_name = "INPUT")]
    pub input: Option<PathBuf>,
    /// Output file (default: standard output; `-` also means it).
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Key file written by `aesx keygen`.
    #[arg(short = 'k', long = "key-file", value_name = "FILE", conflicts_with_all = ["passphrase", "passphrase_file"])]
    pub key_file: Option<PathBuf>,
    /// Use a passphrase, asked on the terminal.
    #[arg(short = 'p', long)]
    pub passphrase: bool,
    /// Read the passphrase from the first line of FILE.
    #[arg(long, value_name = "FILE", conflicts_with = "passphrase")]
    pub passphrase_file: Option<PathBuf>,
    /// Replace the output file if it exists (a new file takes its name and
    /// keeps its mode; the old file is not rewritten in place).
    #[arg(short = 'f', long)]
    pub force: bool,
    /// No progress bar.
    #[arg(short = 'q', long)]
    pub quiet: bool,
    /// Backend to run on (default: AESX_BACKEND, else the fastest). `cuda`
    /// seals or opens the chunks on the GPU, many per launch (--offset and
    /// --length stay on the CPU).
    #[arg(long, value_name = "NAME")]
    pub backend: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N")]
    pub threads: Option<usize>,
}

/// Arguments of `aesx encrypt`.
#[derive(clap::Args, Debug)]
pub struct EncryptArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// TESTS ONLY: Argon2id cost MEMORY_KIB,ITERATIONS,LANES instead of the
    /// default, so that test suites run fast. Weakens the passphrase.
    #[arg(long, value_name = "M,T,P", hide = true)]
    pub insecure_kdf_cost: Option<String>,
}

/// Arguments of `aesx decrypt`.
#[derive(clap::Args, Debug)]
pub struct DecryptArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Decrypt only from this plaintext byte offset (needs a seekable input file).
    #[arg(long, value_name = "N")]
    pub offset: Option<u64>,
    /// Decrypt only this many bytes (default: to the end).
    #[arg(long, value_name = "M")]
    pub length: Option<u64>,
    /// Largest Argon2id memory a passphrase file may demand, in MiB.
    #[arg(long, value_name = "MIB", default_value_t = kdf::DEFAULT_MAX_MEMORY_MIB)]
    pub max_kdf_memory: u32,
    /// Largest Argon2id work a passphrase file may demand: memory in MiB
    /// times passes (the default is 4 times what `aesx encrypt` uses).
    #[arg(long, value_name = "MIB_PASSES", default_value_t = kdf::DEFAULT_MAX_WORK_MIB)]
    pub max_kdf_work: u64,
}

/// Arguments of `aesx keygen`.
#[derive(clap::Args, Debug)]
pub struct KeygenArgs {
    /// Write the key here (mode 0600) instead of standard output.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Replace the output file if it exists (a new file takes its name and
    /// keeps its mode; the old file is not rewritten in place).
    #[arg(short = 'f', long)]
    pub force: bool,
}

/// An I/O error without Rust's "(os error N)" suffix.
pub fn io_msg(e: &io::Error) -> String {
    crate::error::strip_os_error(&e.to_string())
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

/// Refuses a key or passphrase file that is the input itself read through
/// another name (`-k /dev/stdin` while the data comes on stdin): one of the
/// two would get the other's bytes.
fn check_secrets_not_input(c: &CommonArgs) -> Result<(), CliError> {
    let reads_stdin = c.input.as_deref().is_none_or(|p| p == Path::new("-"));
    if !reads_stdin {
        return Ok(());
    }
    let Ok(st) = rustix::fs::fstat(std::io::stdin()) else {
        return Ok(());
    };
    for (p, what) in [
        (&c.key_file, "key file"),
        (&c.passphrase_file, "passphrase file"),
    ] {
        if let Some(p) = p {
            if let Ok(k) = rustix::fs::stat(p.as_path()) {
                if (k.st_dev, k.st_ino) == (st.st_dev, st.st_ino) {
                    return Err(CliError::usage(format!(
                        "the {what} {} is the standard input, which carries the data; \
                         give the data as a file",
                        p.display()
                    )));
                }
            }
        }
    }
    Ok(())
}

/// The identities of the key and passphrase files, which no output may
/// replace (`aesx encrypt -k key -o key --force` would destroy the key).
fn secret_files(c: &CommonArgs) -> Vec<(output::FileId, &'static str)> {
    let mut v = Vec::new();
    let id = |p: &Path| {
        let m = std::fs::metadata(p).ok()?;
        use std::os::unix::fs::MetadataExt;
        m.is_file().then_some((m.dev(), m.ino()))
    };
    if let Some(i) = c.key_file.as_deref().and_then(id) {
        v.push((i, "key file"));
    }
    if let Some(i) = c.passphrase_file.as_deref().and_then(id) {
        v.push((i, "passphrase file"));
    }
    v
}

fn payload_err(e: PayloadError) -> CliError {
    CliError::failure(e.to_string())
}

/// The input: a file or stdin, with its identity and size when known.
struct Input {
    reader: Box<dyn Read + Send>,
    file: Option<File>,
    id: Option<output::FileId>,
    len: Option<u64>,
}

fn open_input(path: Option<&Path>) -> Result<Input, CliError> {
    match path.filter(|p| *p != Path::new("-")) {
        Some(p) => {
            let f = File::open(p).map_err(|e| {
                CliError::failure(format!("cannot open {}: {}", p.display(), io_msg(&e)))
            })?;
            let meta = f.metadata().ok();
            if meta.as_ref().is_some_and(|m| m.is_dir()) {
                return Err(CliError::failure(format!(
                    "cannot read {}: is a directory",
                    p.display()
                )));
            }
            let id = output::file_id(&f);
            let len = meta.filter(|m| m.is_file()).map(|m| m.len());
            let clone = f.try_clone().ok();
            Ok(Input {
                reader: Box::new(f),
                file: clone,
                id,
                len,
            })
        }
        None => {
            let stdin = io::stdin();
            let id = output::file_id(std::os::fd::AsFd::as_fd(&stdin));
            Ok(Input {
                reader: Box::new(stdin),
                file: None,
                id,
                len: None,
            })
        }
    }
}

/// Regular files are read with `pread` from `start` on; anything else as a stream.
fn input_source(input: Input, start: u64) -> Source {
    match (input.file, input.len) {
        (Some(file), Some(_)) => Source::File { file, start },
        _ => Source::Stream(input.reader),
    }
}

fn out_path(p: &Option<PathBuf>) -> Option<&Path> {
    p.as_deref().filter(|p| *p != Path::new("-"))
}

fn threads(arg: Option<usize>) -> Result<usize, CliError> {
    match arg {
        Some(0) => Err(CliError::usage("--threads: must be at least 1")),
        Some(n) => Ok(n.min(256)),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}

fn progress(quiet: bool, total: Option<u64>) -> indicatif::ProgressBar {
    if quiet || !io::stderr().is_terminal() {
        return indicatif::ProgressBar::hidden();
    }
    let style = match total {
        Some(_) => "{bytes}/{total_bytes} [{wide_bar}] {binary_bytes_per_sec} ETA {eta}",
        None => "{bytes} {binary_bytes_per_sec} {elapsed}",
    };
    let pb = match total {
        Some(t) => indicatif::ProgressBar::new(t),
        None => indicatif::ProgressBar::no_length(),
    };
    pb.set_draw_target(indicatif::ProgressDrawTarget::stderr());
    if let Ok(s) = indicatif::ProgressStyle::with_template(style) {
        pb.set_style(s);
    }
    pb
}

/// One batch through the pipeline.
struct Batch {
    data: Vec<u8>,
    eof: bool,
}

/// Where the pipeline reads from.
enum Source {
    /// A pipe or terminal: one reader thread.
    Stream(Box<dyn Read + Send>),
    /// A regular file from byte `start` on: several reader threads `pread`
    /// alternate batches, since one thread copying out of the page cache is
    /// slower than the AES-GCM kernels.
    File { file: File, start: u64 },
}

/// Reader threads for a regular file.
const FILE_READERS: usize = 2;

/// Fills `buf` from `file` at `pos` until full or the end; returns the count.
fn pread_full(file: &File, buf: &mut [u8], pos: u64) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read_at(&mut buf[n..], pos + n as u64) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// One reader thread's batches, and the way its buffers go back to it.
type ReaderChannels = (
    mpsc::Receiver<Result<Batch, CliError>>,
    mpsc::SyncSender<Vec<u8>>,
);

/// Starts the reader threads; batch `b` arrives on channel `b % len`.
/// They are detached: on an error the command returns without waiting for
/// them, even if one is blocked on a stalled pipe.
fn spawn_readers(
    source: Source,
    batch_len: usize,
    pb: &indicatif::ProgressBar,
) -> Result<Vec<ReaderChannels>, CliError> {
    let read_err = |e: io::Error| CliError::failure(format!("reading input: {}", io_msg(&e)));
    let mut chans = Vec::new();
    let n_readers = match source {
        Source::Stream(_) => 1,
        Source::File { .. } => FILE_READERS,
    };
    let mut stream = None;
    let mut file = None;
    match source {
        Source::Stream(r) => stream = Some(r),
        Source::File { file: f, start } => file = Some((std::sync::Arc::new(f), start)),
    }
    for r in 0..n_readers {
        let (full_tx, full_rx) = mpsc::sync_channel::<Result<Batch, CliError>>(DEPTH);
        let (free_tx, free_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH + 2);
        chans.push((full_rx, free_tx));
        let pb = pb.clone();
        let mut stream = stream.take();
        let file = file.clone();
        let reader = move || {
            let mut b = r as u64;
            loop {
                let mut buf = free_rx.try_recv().unwrap_or_default();
                // Running out of memory is an error message, not an abort.
                if buf
                    .try_reserve_exact(batch_len.saturating_sub(buf.len()))
                    .is_err()
                {
                    let _ = full_tx.send(Err(out_of_memory(batch_len)));
                    return;
                }
                buf.resize(batch_len, 0);
                let got = match (&mut stream, &file) {
                    (Some(s), _) => payload::read_full(s, &mut buf),
                    (None, Some((f, start))) => {
                        pread_full(f, &mut buf, start + b * batch_len as u64)
                    }
                    (None, None) => Ok(0),
                };
                let msg = got.map_err(read_err).map(|n| {
                    buf.truncate(n);
                    pb.inc(n as u64);
                    Batch {
                        data: buf,
                        eof: n < batch_len,
                    }
                });
                let stop = !matches!(msg, Ok(Batch { eof: false, .. }));
                if full_tx.send(msg).is_err() || stop {
                    return;
                }
                b += n_readers as u64;
            }
        };
        std::thread::Builder::new()
            .name("aesx-reader".into())
            .stack_size(THREAD_STACK)
            .spawn(reader)
            .map_err(thread_error)?;
    }
    Ok(chans)
}

/// Stack of the reader and writer threads (they hold no large locals).
const THREAD_STACK: usize = 256 * 1024;

fn thread_error(e: io::Error) -> CliError {
    CliError::failure(format!("cannot start a thread: {}", io_msg(&e)))
}

fn out_of_memory(bytes: usize) -> CliError {
    CliError::failure(format!(
        "out of memory: cannot allocate a {} KiB buffer",
        bytes / 1024
    ))
}

/// Reads batches of `batch_len` bytes on reader threads, transforms them in
/// order on this thread with `step` (which on failure returns how much of
/// its output may still be written, and the error), and writes them in
/// order on a writer thread.
fn pipeline(
    source: Source,
    batch_len: usize,
    out: &mut Output,
    pb: &indicatif::ProgressBar,
    mut step: impl FnMut(&[u8], bool, &mut Vec<u8>) -> Result<(), (usize, CliError)>,
) -> Result<(), CliError> {
    let readers = spawn_readers(source, batch_len, pb)?;
    let (done_tx, done_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH);
    let (back_tx, back_rx) = mpsc::sync_channel::<Vec<u8>>(DEPTH + 2);
    std::thread::scope(|s| {
        let writer_thread = std::thread::Builder::new()
            .name("aesx-writer".into())
            .stack_size(THREAD_STACK)
            .spawn_scoped(s, move || -> Result<(), CliError> {
                for buf in done_rx {
                    out.write_all(&buf)?;
                    let _ = back_tx.try_send(buf);
                }
                Ok(())
            })
            .map_err(thread_error)?;
        let mut result = Ok(());
        for b in 0.. {
            let (full_rx, free_tx) = &readers[b % readers.len()];
            let batch = match full_rx.recv() {
                Ok(Ok(batch)) => batch,
                Ok(Err(e)) => {
                    result = Err(e);
                    break;
                }
                Err(_) => {
                    result = Err(CliError::failure("reading input: reader stopped"));
                    break;
                }
            };
            let mut outbuf = back_rx.try_recv().unwrap_or_default();
            let r = step(&batch.data, batch.eof, &mut outbuf);
            let _ = free_tx.try_send(batch.data);
            match r {
                Ok(()) => {
                    if done_tx.send(outbuf).is_err() {
                        break;
                    }
                }
                Err((valid, e)) => {
                    // Release the verified prefix only (stdout streaming).
                    outbuf.truncate(valid);
                    let _ = done_tx.send(outbuf);
                    result = Err(e);
                    break;
                }
            }
            if batch.eof {
                break;
            }
        }
        drop(done_tx);
        drop(readers);
        let w = writer_thread
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        result.and(w)
    })
}

/// Gets the 32-byte input key for encryption, and the header's key source.
fn encryption_key(
    c: &CommonArgs,
    cost: Option<&str>,
) -> Result<(Zeroizing<[u8; kdf::KEY_LEN]>, KeySource), CliError> {
    if let Some(k) = &c.key_file {
        return Ok((kdf::read_key_file(k)?, KeySource::Key));
    }
    let pass = match (&c.passphrase_file, c.passphrase) {
        (Some(f), _) => kdf::read_passphrase_file(f)?,
        (None, true) => kdf::prompt_passphrase(true)?,
        (None, false) => {
            return Err(CliError::usage(
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
) -> Result<Zeroizing<[u8; kdf::KEY_LEN]>, CliError> {
    match source {
        KeySource::Key => match &c.key_file {
            Some(k) => kdf::read_key_file(k),
            None => Err(CliError::usage(
                "this file was encrypted with a key file: give -k KEYFILE",
            )),
        },
        KeySource::Argon2id(p) => {
            if c.key_file.is_some() {
                return Err(CliError::usage(
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

/// Runs `aesx encrypt`.
pub fn run_encrypt(a: EncryptArgs) -> Result<ExitCode, CliError> {
    let c = &a.common;
    output::install_signal_cleanup();
    let choice = backend_arg::choose(c.backend.as_deref())?;
    let gpu = gpu::open(choice)?;
    let backend = choice.cpu();
    let threads = threads(c.threads)?;
    check_secrets_not_input(c)?;
    let input = open_input(c.input.as_deref())?;
    // Check the destination before the (slow) passphrase stretching.
    let protect = secret_files(c);
    let mut out = Output::open(OutputOpts {
        path: out_path(&c.output),
        force: c.force,
        refuse_terminal: true,
        input: input.id,
        mode: 0o666,
        protect: &protect,
        hold_back: false,
        private: false,
    })?;
    let (key, source) = encryption_key(c, a.insecure_kdf_cost.as_deref())?;
    let header = Header::new(source);
    let mut salt = [0u8; SALT_LEN];
    kdf::fill_random(&mut salt)?;
    let (ph, cipher) =
        payload::seal_header(Suite::Aes256Gcm, &key[..], &header.bytes, &salt, backend)
            .map_err(payload_err)?;
    let mut on_gpu = match &gpu {
        Some(g) => Some(gpu::GpuChunks::new(g, &key[..], &header.bytes, &salt)?),
        None => None,
    };
    drop(key);
    out.write_all(&header.bytes)?;
    out.write_all(&ph)?;
    let pb = progress(c.quiet, input.len);
    let mut sealer = Sealer::new(cipher);
    let source = input_source(input, 0);
    let batch_chunks = if on_gpu.is_some() {
        gpu::BATCH_CHUNKS
    } else {
        BATCH_CHUNKS
    };
    pipeline(
        source,
        batch_chunks * CHUNK_LEN,
        &mut out,
        &pb,
        |pt, eof, o| {
            match &mut on_gpu {
                Some(g) => g.seal_batch(pt, eof, o),
                None => sealer.seal_batch(pt, eof, o, threads),
            }
            .map_err(|e| (0, payload_err(e)))
        },
    )?;
    pb.finish_and_clear();
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `aesx decrypt`.
pub fn run_decrypt(a: DecryptArgs) -> Result<ExitCode, CliError> {
    let c = &a.common;
    output::install_signal_cleanup();
    let choice = backend_arg::choose(c.backend.as_deref())?;
    let gpu = gpu::open(choice)?;
    let backend = choice.cpu();
    let threads = threads(c.threads)?;
    check_secrets_not_input(c)?;
    let mut input = open_input(c.input.as_deref())?;
    let ranged = a.offset.is_some() || a.length.is_some();
    if ranged && input.len.is_none() {
        return Err(CliError::usage(
            "--offset/--length need a regular input file (not a pipe)",
        ));
    }
    let header = Header::read(&mut input.reader).map_err(|e| CliError::failure(e.to_string()))?;
    // Every cheap check comes before the (slow) key derivation: the output
    // is opened (invisibly) first, so a bad -o fails at once.
    let protect = secret_files(c);
    let mut out = Output::open(OutputOpts {
        path: out_path(&c.output),
        force: c.force,
        refuse_terminal: false,
        input: input.id,
        mode: 0o600,
        protect: &protect,
        hold_back: false,
        private: false,
    })?;
    let limits = kdf::Limits {
        memory_mib: a.max_kdf_memory,
        work_mib: a.max_kdf_work,
    };
    let key = decryption_key(c, &header.source, &limits)?;
    let mut ph = [0u8; PAYLOAD_HEADER_LEN];
    let n = payload::read_full(&mut input.reader, &mut ph)
        .map_err(|e| CliError::failure(format!("reading input: {}", io_msg(&e))))?;
    // The commitment check: a wrong key or a changed header stops here,
    // before any chunk is decrypted or any output created.
    let cipher = payload::open_header(Suite::Aes256Gcm, &key[..], &header.bytes, &ph[..n], backend)
        .map_err(payload_err)?;
    let mut on_gpu = match &gpu {
        Some(g) => Some(gpu::GpuChunks::for_header(
            g,
            &key[..],
            &header.bytes,
            &ph[..n],
        )?),
        None => None,
    };
    drop(key);
    if ranged {
        let file = input
            .file
            .as_ref()
            .filter(|_| input.len.is_some())
            .ok_or_else(|| {
                CliError::usage("--offset/--length need a regular input file (not a pipe)")
            })?;
        let start = (header.bytes.len() + PAYLOAD_HEADER_LEN) as u64;
        random_access(
            file,
            start,
            input.len.unwrap_or(0),
            cipher,
            a.offset.unwrap_or(0),
            a.length,
            threads,
            &mut out,
        )?;
        out.commit()?;
        return Ok(ExitCode::SUCCESS);
    }
    let total = input
        .len
        .map(|l| l.saturating_sub((header.bytes.len() + PAYLOAD_HEADER_LEN) as u64));
    // Plaintext going to the terminal would be garbled by a progress bar.
    let to_tty = out_path(&c.output).is_none() && io::stdout().is_terminal();
    let pb = progress(c.quiet || to_tty, total);
    let mut opener = Opener::new(cipher.clone());
    let source = input_source(input, (header.bytes.len() + PAYLOAD_HEADER_LEN) as u64);
    let batch_chunks = if on_gpu.is_some() {
        gpu::BATCH_CHUNKS
    } else {
        BATCH_CHUNKS
    };
    pipeline(
        source,
        batch_chunks * ENC_CHUNK_LEN,
        &mut out,
        &pb,
        |ct, eof, o| {
            match &mut on_gpu {
                Some(g) => g.open_batch(ct, eof, o, &cipher, threads),
                None => opener.open_batch(ct, eof, o, threads),
            }
            .map_err(|e| {
                // The failing chunk is the one right after the verified
                // prefix; was the file merely extended?
                let i = e.valid / CHUNK_LEN;
                let chunk =
                    &ct[(i * ENC_CHUNK_LEN).min(ct.len())..((i + 1) * ENC_CHUNK_LEN).min(ct.len())];
                (
                    e.valid,
                    payload_err(payload::explain_failure(&cipher, e.error, chunk)),
                )
            })
        },
    )?;
    pb.finish_and_clear();
    out.commit()?;
    Ok(ExitCode::SUCCESS)
}

/// Decrypts plaintext bytes `[offset, offset + length)` (clipped to the
/// message) reading only the chunks they lie in. The final chunk is always
/// authenticated first: it is what proves the message length, so a range
/// "to the end" is really the end and a truncated file is refused.
#[allow(clippy::too_many_arguments)]
fn random_access(
    file: &File,
    start: u64,
    file_len: u64,
    cipher: payload::ChunkCipher,
    offset: u64,
    length: Option<u64>,
    threads: usize,
    out: &mut Output,
) -> Result<(), CliError> {
    let enc_len = file_len.saturating_sub(start);
    let layout = payload::Layout::from_len(enc_len).map_err(payload_err)?;
    let read_at = |buf: &mut [u8], pos: u64| {
        file.read_exact_at(buf, start + pos)
            .map_err(|e| CliError::failure(format!("reading input: {}", io_msg(&e))))
    };
    // Authenticate the final chunk.
    let last = layout.chunks - 1;
    let (pos, len) = layout.chunk_span(last, enc_len);
    let mut ct = vec![0u8; len];
    read_at(&mut ct, pos)?;
    let mut pt = Vec::new();
    Opener::at(cipher.clone(), last)
        .open_batch(&ct, true, &mut pt, 1)
        .map_err(|e| payload_err(payload::explain_failure(&cipher, e.error, &ct)))?;
    if offset > layout.plaintext_len {
        return Err(CliError::usage(format!(
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
    let first_chunk = offset / CHUNK_LEN as u64;
    let last_chunk = (end - 1) / CHUNK_LEN as u64;
    let mut opener = Opener::at(cipher, first_chunk);
    let mut i = first_chunk;
    while i <= last_chunk {
        let n = (last_chunk - i + 1).min(BATCH_CHUNKS as u64);
        let (pos, _) = layout.chunk_span(i, enc_len);
        let batch_end = ((i + n) * ENC_CHUNK_LEN as u64).min(enc_len);
        ct.resize((batch_end - pos) as usize, 0);
        read_at(&mut ct, pos)?;
        let eof = batch_end == enc_len;
        opener
            .open_batch(&ct, eof, &mut pt, threads)
            .map_err(|e| payload_err(e.error))?;
        // Plaintext offsets of this batch, clipped to the range.
        let p0 = i * CHUNK_LEN as u64;
        let from = offset.saturating_sub(p0) as usize;
        let to = ((end - p0) as usize).min(pt.len());
        out.write_all(&pt[from..to])?;
        i += n;
    }
    Ok(())
}

/// Runs `aesx keygen`: 32 random bytes as 64 hex digits and a newline.
pub fn run_keygen(a: KeygenArgs) -> Result<ExitCode, CliError> {
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
