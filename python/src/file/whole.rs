//! Whole files: `encrypt_file`, `decrypt_file` and the hashed variant that
//! `aesx.dask` uses, streamed through aesx-file's pipeline (the engine of
//! `aesx encrypt`/`decrypt`: workers that read, seal or open whole batches).

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};

use aesx_file::header::{Argon2Params, Header, KeySource, KDF_SALT_LEN};
use aesx_file::kdf;
use aesx_file::payload::{
    self, ChunkCipher, PayloadError, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN, SALT_LEN,
};
use pyo3::prelude::*;

use super::args::{borrowed_fd, key_bytes, path_of, secret, threads, unlock, Secret};
use super::failure::{fill_random, header_err, io, payload_err, Failure};
use super::input::Input;
use super::output::{Dest, OutputOpts, Target, Written};
use crate::backend::pick_backend;

/// Chunks per batch: a worker's unit of work, as in the CLI.
const BATCH_CHUNKS: usize = aesx_file::pipeline::BATCH_CHUNKS;

/// One file to encrypt or decrypt, and how.
pub(crate) struct Job<'a> {
    pub(crate) src: &'a Path,
    pub(crate) dest: Dest<'a>,
    /// Replace an existing output.
    pub(crate) replace: bool,
    /// Hash the output as it is written.
    pub(crate) hash: bool,
    /// The tree calls: the source's size when listed, and no symlink as
    /// its last component.
    pub(crate) listed_size: Option<u64>,
}

impl Job<'_> {
    fn open(self, mode: u32) -> Result<(Input, Target), Failure> {
        let input = Input::open(self.src, self.listed_size.is_some(), self.listed_size)?;
        let opts = OutputOpts {
            mode,
            replace: self.replace,
            hash: self.hash,
            input: input.id(),
        };
        Ok((input, Target::resolve(self.dest, opts)?))
    }
}

fn encrypt_path(
    job: Job<'_>,
    secret: Secret,
    cost: (u32, u32, u32),
    backend: aesx::Backend,
    threads: usize,
) -> Result<Written, Failure> {
    // Ciphertext: a new file gets the usual 0666 less the umask.
    let (mut input, target) = job.open(0o666)?;
    let (key, source) = match &secret {
        Secret::Key(k) => (k.clone(), KeySource::Key),
        Secret::Passphrase(p) => {
            let mut salt = [0u8; KDF_SALT_LEN];
            fill_random(&mut salt)?;
            let params = Argon2Params {
                memory_kib: cost.0,
                iterations: cost.1,
                parallelism: cost.2,
                salt,
            };
            let k = kdf::argon2id(p, &params).map_err(|e| Failure::Value(e.to_string()))?;
            (k, KeySource::Argon2id(params))
        }
    };
    let header = Header::new(source);
    let mut salt = [0u8; SALT_LEN];
    fill_random(&mut salt)?;
    let (ph, cipher) =
        payload::seal_header(Suite::Aes256Gcm, &key[..], &header.bytes, &salt, backend)
            .map_err(payload_err)?;
    drop(key);
    let mut out = target.create()?;
    out.write_all(&header.bytes)?;
    out.write_all(&ph)?;
    let step = |b: u64, pt: &[u8], last: bool, o: &mut Vec<u8>| {
        payload::seal_batch_at(&cipher, b * BATCH_CHUNKS as u64, pt, last, o, 1)
            .map(drop)
            .map_err(|e| (0, payload_err(e)))
    };
    // A full batch followed by nothing still ends with an empty chunk.
    input.stream(0, BATCH_CHUNKS * CHUNK_LEN, threads, &step, |o| {
        out.write_all(o)
    })?;
    out.commit()
}

/// Reads the header and unlocks the file; returns the chunk cipher and the
/// offset of the first chunk.
pub(crate) fn open_file(
    f: &mut File,
    secret: &Secret,
    backend: aesx::Backend,
) -> Result<(ChunkCipher, u64), Failure> {
    let header = Header::read(f).map_err(header_err)?;
    let key = unlock(secret, &header.source)?;
    let mut ph = [0u8; PAYLOAD_HEADER_LEN];
    let n = payload::read_full(f, &mut ph).map_err(io("reading the payload header"))?;
    if n < PAYLOAD_HEADER_LEN {
        return Err(payload_err(PayloadError::HeaderTruncated));
    }
    let cipher = payload::open_header(Suite::Aes256Gcm, &key[..], &header.bytes, &ph, backend)
        .map_err(payload_err)?;
    Ok((cipher, (header.bytes.len() + PAYLOAD_HEADER_LEN) as u64))
}

fn decrypt_path(
    job: Job<'_>,
    secret: Secret,
    backend: aesx::Backend,
    threads: usize,
) -> Result<Written, Failure> {
    // Plaintext: a new file is private (a replaced one keeps its mode).
    let (mut input, target) = job.open(0o600)?;
    let (cipher, start) = open_file(input.file(), &secret, backend)?;
    // Nothing is created before the key commitment verified.
    let mut out = target.create()?;
    let step = |b: u64, ct: &[u8], eof: bool, o: &mut Vec<u8>| {
        payload::open_batch_at(&cipher, b * BATCH_CHUNKS as u64, ct, eof, o, 1)
            .map(drop)
            // Find the failing chunk to tell appended data from tampering.
            .map_err(|e| (e.valid, payload_err(e.explain(&cipher, ct))))
    };
    input.stream(start, BATCH_CHUNKS * ENC_CHUNK_LEN, threads, &step, |o| {
        out.write_all(o)
    })?;
    out.commit()
}

/// Encrypts the file `src` to `dst` in the format of `aesx encrypt`. Give
/// `key` (the 32 bytes of an aesx key file, or its 64 hex digits as str) or
/// `passphrase` (str or bytes; stretched with Argon2id at the CLI's default
/// cost). `dst` appears only once complete and synced (written under a
/// temporary name in its directory, then renamed); an existing `dst` raises
/// FileExistsError unless `force=True`, and a replaced file keeps its mode.
/// Runs without the GIL on `threads` worker threads (default: all cores;
/// never more than the cores), the pipeline of `aesx encrypt`.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key = None, passphrase = None, backend = None, threads = None, force = false, _kdf_cost = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn encrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    threads: Option<usize>,
    force: bool,
    _kdf_cost: Option<(u32, u32, u32)>,
) -> PyResult<()> {
    let (src, dst) = (path_of(src)?, path_of(dst)?);
    let secret = secret(key, passphrase)?;
    let backend = pick_backend(backend)?;
    let cost = _kdf_cost.unwrap_or((
        kdf::DEFAULT_MEMORY_KIB,
        kdf::DEFAULT_ITERATIONS,
        kdf::DEFAULT_PARALLELISM,
    ));
    let t = self::threads(threads);
    let job = user_job(&src, &dst, force);
    py.allow_threads(|| encrypt_path(job, secret, cost, backend, t))?;
    Ok(())
}

/// Decrypts a file written by `aesx encrypt` (or encrypt_file) to `dst`.
/// Raises DecryptionError (a ValueError) with the reason if the file is not
/// an aesx file, the key or passphrase is wrong, or the file was truncated,
/// extended or modified; `dst` is then not created (nor replaced). Costs in
/// the header above the CLI's caps are refused before any work. A new `dst`
/// is private (0600); an existing one raises FileExistsError unless
/// `force=True`, and a replaced file keeps its mode. The plaintext is never
/// readable by others while it is written, and no temporary file is left
/// behind on any failure.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key = None, passphrase = None, backend = None, threads = None, force = false))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn decrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    threads: Option<usize>,
    force: bool,
) -> PyResult<()> {
    let (src, dst) = (path_of(src)?, path_of(dst)?);
    let secret = secret(key, passphrase)?;
    let backend = pick_backend(backend)?;
    let t = self::threads(threads);
    let job = user_job(&src, &dst, force);
    py.allow_threads(|| decrypt_path(job, secret, backend, t))?;
    Ok(())
}

fn user_job<'a>(src: &'a Path, dst: &'a Path, force: bool) -> Job<'a> {
    Job {
        src,
        dest: Dest::Path(dst),
        replace: force,
        hash: false,
        listed_size: None,
    }
}

/// _file_hashed(encrypt, src, dir_fd, name, key, listed_size, threads=None) -> (int, str)
///
/// One file of a tree (aesx.dask): encrypts or decrypts `src` with a raw
/// key to the plain `name` inside the open directory `dir_fd` (which the
/// caller opened without following symlinks and keeps open), replacing what
/// is there; returns the output's size and SHA-256 (hex), hashed as it is
/// written. `src` must still have `listed_size` bytes and must not change
/// while it is read.
#[pyfunction]
#[pyo3(signature = (encrypt, src, dir_fd, name, key, listed_size, threads = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _file_hashed(
    py: Python<'_>,
    encrypt: bool,
    src: &Bound<'_, PyAny>,
    dir_fd: i32,
    name: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
    listed_size: u64,
    threads: Option<usize>,
) -> PyResult<(u64, String)> {
    let (src, name): (PathBuf, PathBuf) = (path_of(src)?, path_of(name)?);
    let secret = Secret::Key(key_bytes(key)?);
    let backend = pick_backend(None)?;
    let t = self::threads(threads);
    // Only borrowed to be duplicated: a descriptor that is not open makes
    // that duplication fail with EBADF.
    let dir = borrowed_fd(dir_fd, "dir_fd")?;
    let w = py.allow_threads(|| {
        let job = Job {
            src: &src,
            dest: Dest::In {
                dir,
                name: OsStr::new(name.as_os_str()),
                shown: &name,
            },
            replace: true,
            hash: true,
            listed_size: Some(listed_size),
        };
        if encrypt {
            encrypt_path(job, secret, (0, 0, 0), backend, t)
        } else {
            decrypt_path(job, secret, backend, t)
        }
    })?;
    let hex = w
        .sha256
        .unwrap_or_default()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((w.size, hex))
}
