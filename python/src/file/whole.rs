//! Whole files: `encrypt_file`, `decrypt_file` and the hashed variant that
//! `aesx.dask` uses, streaming in batches of chunks over threads.

use std::fs::File;
use std::path::Path;

use aesx_file::header::{Argon2Params, Header, KeySource, KDF_SALT_LEN};
use aesx_file::kdf;
use aesx_file::payload::{
    self, ChunkCipher, Opener, PayloadError, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN,
    PAYLOAD_HEADER_LEN, SALT_LEN,
};
use pyo3::prelude::*;

use super::args::{key_bytes, path_of, secret, threads, unlock, Secret};
use super::failure::{fill_random, header_err, io, payload_err, Failure};
use super::output::{same_file, AtomicOutput, Written};
use crate::pick_backend;

/// Chunks per batch: 2 MiB of plaintext, spread over the threads.
const BATCH_CHUNKS: usize = 128;

fn read_full(f: &mut File, buf: &mut [u8], what: &Path) -> Result<usize, Failure> {
    payload::read_full(f, buf).map_err(io(format!("reading {}", what.display())))
}

/// Reads `input` in batches of `batch` bytes and hands each to `f` with
/// whether it is the last, looking one batch ahead to know: an input of
/// whole batches ends with its last full batch marked last.
fn for_each_batch(
    input: &mut File,
    src: &Path,
    batch: usize,
    mut f: impl FnMut(&[u8], bool) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut cur = vec![0u8; batch];
    let mut next = vec![0u8; batch];
    let mut n = read_full(input, &mut cur, src)?;
    loop {
        let m = if n == batch {
            read_full(input, &mut next, src)?
        } else {
            0
        };
        let last = n < batch || m == 0;
        f(&cur[..n], last)?;
        if last {
            return Ok(());
        }
        std::mem::swap(&mut cur, &mut next);
        n = m;
    }
}

/// Opens `src` for a call that writes `dst`, refusing the same file.
fn open_input(src: &Path, dst: &Path) -> Result<File, Failure> {
    if same_file(src, dst) {
        return Err(Failure::Value("input and output are the same file".into()));
    }
    File::open(src).map_err(io(format!("cannot open {}", src.display())))
}

fn encrypt_path(
    src: &Path,
    dst: &Path,
    secret: Secret,
    cost: (u32, u32, u32),
    backend: aesx::Backend,
    threads: usize,
    hash: bool,
) -> Result<Written, Failure> {
    let mut input = open_input(src, dst)?;
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
    let mut out = AtomicOutput::create(dst, hash)?;
    out.write_all(&header.bytes)?;
    out.write_all(&ph)?;
    let mut sealer = Sealer::new(cipher);
    let mut sealed = Vec::new();
    // A full batch followed by nothing still ends with an empty chunk.
    for_each_batch(&mut input, src, BATCH_CHUNKS * CHUNK_LEN, |batch, last| {
        sealer
            .seal_batch(batch, last, &mut sealed, threads)
            .map_err(payload_err)?;
        out.write_all(&sealed)
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
    src: &Path,
    dst: &Path,
    secret: Secret,
    backend: aesx::Backend,
    threads: usize,
    hash: bool,
) -> Result<Written, Failure> {
    let mut input = open_input(src, dst)?;
    let (cipher, _) = open_file(&mut input, &secret, backend)?;
    // Nothing is created before the key commitment verified.
    let mut out = AtomicOutput::create(dst, hash)?;
    let mut opener = Opener::new(cipher.clone());
    let mut pt = Vec::new();
    for_each_batch(
        &mut input,
        src,
        BATCH_CHUNKS * ENC_CHUNK_LEN,
        |batch, eof| {
            if let Err(e) = opener.open_batch(batch, eof, &mut pt, threads) {
                // Find the failing chunk to tell appended data from tampering.
                let err = match e.error {
                    PayloadError::ChunkAuth { .. } => {
                        let c0 = (e.valid / CHUNK_LEN) * ENC_CHUNK_LEN;
                        let c1 = (c0 + ENC_CHUNK_LEN).min(batch.len());
                        let tail = if eof { &batch[c0..] } else { &batch[c0..c1] };
                        payload::explain_failure(&cipher, e.error, tail)
                    }
                    other => other,
                };
                return Err(payload_err(err));
            }
            out.write_all(&pt)
        },
    )?;
    out.commit()
}

/// Encrypts the file `src` to `dst` in the format of `aesx encrypt`. Give
/// `key` (the 32 bytes of an aesx key file, or its 64 hex digits as str) or
/// `passphrase` (str or bytes; stretched with Argon2id at the CLI's default
/// cost). `dst` appears only once complete and synced (written under a
/// temporary name in its directory, then renamed; an existing file is
/// replaced). Runs without the GIL, on `threads` threads (default: all
/// cores).
#[pyfunction]
#[pyo3(signature = (src, dst, *, key = None, passphrase = None, backend = None, threads = None, _kdf_cost = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn encrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    threads: Option<usize>,
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
    py.allow_threads(|| encrypt_path(&src, &dst, secret, cost, backend, t, false))?;
    Ok(())
}

/// Decrypts a file written by `aesx encrypt` (or encrypt_file) to `dst`.
/// Raises DecryptionError (a ValueError) with the reason if the file is not
/// an aesx file, the key or passphrase is wrong, or the file was truncated,
/// extended or modified; `dst` is then not created (nor replaced). Costs in
/// the header above the CLI's caps are refused before any work.
#[pyfunction]
#[pyo3(signature = (src, dst, *, key = None, passphrase = None, backend = None, threads = None))]
pub(crate) fn decrypt_file(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
    backend: Option<&str>,
    threads: Option<usize>,
) -> PyResult<()> {
    let (src, dst) = (path_of(src)?, path_of(dst)?);
    let secret = secret(key, passphrase)?;
    let backend = pick_backend(backend)?;
    let t = self::threads(threads);
    py.allow_threads(|| decrypt_path(&src, &dst, secret, backend, t, false))?;
    Ok(())
}

/// _file_hashed(encrypt, src, dst, key, threads=None) -> (int, str)
///
/// encrypt_file or decrypt_file with a raw key that also returns the
/// output's size and SHA-256 (hex), hashed as it is written (aesx.dask).
#[pyfunction]
#[pyo3(signature = (encrypt, src, dst, key, threads = None))]
pub(crate) fn _file_hashed(
    py: Python<'_>,
    encrypt: bool,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    key: &Bound<'_, PyAny>,
    threads: Option<usize>,
) -> PyResult<(u64, String)> {
    let (src, dst) = (path_of(src)?, path_of(dst)?);
    let secret = Secret::Key(key_bytes(key)?);
    let backend = pick_backend(None)?;
    let t = self::threads(threads);
    let w = py.allow_threads(|| {
        if encrypt {
            encrypt_path(&src, &dst, secret, (0, 0, 0), backend, t, true)
        } else {
            decrypt_path(&src, &dst, secret, backend, t, true)
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
