//! The per-range calls `aesx.dask` spreads over a cluster: a file's prefix
//! (header, salt, commitment), and runs of chunks sealed or opened on their
//! own.

use aesx_file::header::{Header, KeySource};
use aesx_file::payload::{self, ChunkCipher, Suite, CHUNK_LEN, PAYLOAD_HEADER_LEN, SALT_LEN};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use super::args::key_bytes;
use super::failure::{header_err, payload_err, Failure};
use crate::buf::Buf;

/// Parses the aesx header at the start of `head` (at least 34 bytes, or the
/// whole file if shorter); returns the length of header plus salt and
/// commitment, where the chunks start.
#[pyfunction]
pub(crate) fn _prefix_len(head: &Bound<'_, PyAny>) -> PyResult<usize> {
    let b = Buf::read(head)?;
    let h = Header::read(&mut b.as_slice()).map_err(header_err)?;
    Ok(h.bytes.len() + PAYLOAD_HEADER_LEN)
}

/// _new_prefix(key) -> bytes: a fresh header, salt and commitment for a
/// raw-key file (what a file starts with, before chunk 0).
#[pyfunction]
pub(crate) fn _new_prefix<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = key_bytes(key)?;
    let header = Header::new(KeySource::Key);
    let mut salt = [0u8; SALT_LEN];
    getrandom::fill(&mut salt)
        .map_err(|e| PyOSError::new_err(format!("no randomness from the OS: {e}")))?;
    let (ph, _) = payload::seal_header(
        Suite::Aes256Gcm,
        &key[..],
        &header.bytes,
        &salt,
        aesx::Backend::fastest(),
    )
    .map_err(payload_err)?;
    let mut out = header.bytes.clone();
    out.extend_from_slice(&ph);
    Ok(PyBytes::new(py, &out))
}

/// The chunk cipher of a prefix (header, salt, commitment) under `key`,
/// checking the commitment.
fn prefix_cipher(key: &[u8], prefix: &[u8]) -> Result<ChunkCipher, Failure> {
    let mut r = prefix;
    let header = Header::read(&mut r).map_err(header_err)?;
    if !matches!(header.source, KeySource::Key) {
        return Err(Failure::Value(
            "this file was encrypted with a passphrase: give passphrase=, not key=".into(),
        ));
    }
    payload::open_header(
        Suite::Aes256Gcm,
        key,
        &header.bytes,
        r,
        aesx::Backend::preferred().map_err(|e| Failure::Value(e.to_string()))?,
    )
    .map_err(payload_err)
}

/// The shell of the per-range calls: the key, the chunk cipher of `prefix`
/// (its commitment checked) and the bytes of `data`, then `f` on them
/// without the GIL.
fn over_range<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    prefix: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    f: impl FnOnce(ChunkCipher, &[u8]) -> Result<Vec<u8>, Failure> + Send,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = key_bytes(key)?;
    let (prefix, data) = (Buf::read(prefix)?, Buf::read(data)?);
    let (p, d) = (prefix.as_slice(), data.as_slice());
    let out = py.allow_threads(|| f(prefix_cipher(&key[..], p)?, d))?;
    Ok(PyBytes::new(py, &out))
}

/// _seal_chunks(key, prefix, first_chunk, data, last) -> bytes
///
/// Encrypts `data` as chunks `first_chunk`.. of the file that starts with
/// `prefix`; unless `last`, `data` is whole chunks.
#[pyfunction]
pub(crate) fn _seal_chunks<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    prefix: &Bound<'py, PyAny>,
    first_chunk: u64,
    data: &Bound<'py, PyAny>,
    last: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    over_range(py, key, prefix, data, |cipher, d| {
        if !last && !d.len().is_multiple_of(CHUNK_LEN) {
            return Err(Failure::Value("a range must be whole chunks".into()));
        }
        let mut out = Vec::new();
        // One thread: the cluster already runs a range per core.
        payload::seal_batch_at(&cipher, first_chunk, d, last, &mut out, 1).map_err(payload_err)?;
        Ok(out)
    })
}

/// _open_chunks(key, prefix, first_chunk, ct, last) -> bytes
///
/// Verifies and decrypts encrypted chunks `first_chunk`.. (`last`: they
/// end with the file's final chunk). DecryptionError if any fails.
#[pyfunction]
pub(crate) fn _open_chunks<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    prefix: &Bound<'py, PyAny>,
    first_chunk: u64,
    ct: &Bound<'py, PyAny>,
    last: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    over_range(py, key, prefix, ct, |cipher, c| {
        let mut pt = Vec::new();
        // One thread, as for sealing: the cluster already runs a range per
        // core, and a call per range that spread itself over every core
        // would run cores x cores threads.
        payload::open_batch_at(&cipher, first_chunk, c, last, &mut pt, 1)
            .map_err(|e| payload_err(e.error))?;
        Ok(pt)
    })
}
