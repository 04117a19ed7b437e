//! The per-range calls `aesx.dask` spreads over a cluster: a file's prefix
//! (header, salt, commitment), and runs of chunks sealed or opened on their
//! own, as bytes (`_seal_chunks`, `_open_chunks`: object stores) or from a
//! local file into its place in a local output, streamed through the file
//! pipeline (`_range_at`).

use std::io;
use std::os::fd::BorrowedFd;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use aesx_file::header::{Header, KeySource};
use aesx_file::payload::{
    self, ChunkCipher, Suite, CHUNK_LEN, ENC_CHUNK_LEN, PAYLOAD_HEADER_LEN, SALT_LEN,
};
use aesx_file::pipeline::{self, BATCH_CHUNKS};
use pyo3::exceptions::PyOSError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use sha2::{Digest, Sha256};

use super::args::{borrowed_fd, key_bytes};
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

/// Seconds spent reading, sealing or opening, and writing, in one call.
struct Timing {
    read: AtomicU64,
    crypt: AtomicU64,
    write: AtomicU64,
}

fn timed<T>(acc: &AtomicU64, f: impl FnOnce() -> T) -> T {
    let t = Instant::now();
    let r = f();
    acc.fetch_add(t.elapsed().as_nanos() as u64, Ordering::Relaxed);
    r
}

/// _range_at(encrypt, key, prefix, first_chunk, src_fd, start, length, last,
///           dst_fd, offset) -> (read_s, crypt_s, write_s)
///
/// One range of a local file into its place in a local output, as
/// `_seal_chunks`/`_open_chunks` do it for bytes, but streamed through the
/// file pipeline in 1 MiB batches on one thread (the cluster runs a range
/// per core): `length` bytes of `src_fd` from `start` are sealed (or
/// opened) as chunks `first_chunk`.. and written at `offset` of `dst_fd`.
/// `last`: the range ends with the file's final chunk. An input shorter
/// than `length` is an error (the file changed).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(crate) fn _range_at(
    py: Python<'_>,
    encrypt: bool,
    key: &Bound<'_, PyAny>,
    prefix: &Bound<'_, PyAny>,
    first_chunk: u64,
    src_fd: i32,
    start: u64,
    length: u64,
    last: bool,
    dst_fd: i32,
    offset: u64,
) -> PyResult<(f64, f64, f64)> {
    let key = key_bytes(key)?;
    let prefix = Buf::read(prefix)?;
    let p = prefix.as_slice();
    let (src, dst) = (
        borrowed_fd(src_fd, "src_fd")?,
        borrowed_fd(dst_fd, "dst_fd")?,
    );
    let run = || -> Result<(f64, f64, f64), Failure> {
        let cipher = prefix_cipher(&key[..], p)?;
        let t = Timing {
            read: AtomicU64::new(0),
            crypt: AtomicU64::new(0),
            write: AtomicU64::new(0),
        };
        let end = start.saturating_add(length);
        let unit = if encrypt { CHUNK_LEN } else { ENC_CHUNK_LEN };
        let read_at = |buf: &mut [u8], pos: u64| {
            let room = end.saturating_sub(pos).min(buf.len() as u64) as usize;
            if room == 0 {
                return Ok(0);
            }
            timed(&t.read, || rustix::io::pread(src, &mut buf[..room], pos))
                .map_err(io::Error::from)
        };
        let changed = |got: u64| {
            Failure::Io(
                io::Error::other(format!(
                    "short read ({got} of {length} bytes at {start}): the file changed"
                )),
                "reading the source range".into(),
            )
        };
        let step = |b: u64, data: &[u8], eof: bool, out: &mut Vec<u8>| {
            let first = first_chunk + b * BATCH_CHUNKS as u64;
            let got = b * (BATCH_CHUNKS * unit) as u64 + data.len() as u64;
            // A range before the file's last ends on a chunk boundary: a
            // shorter one means the source shrank under us.
            if eof && !last && got != length {
                return Err((0, changed(got)));
            }
            timed(&t.crypt, || {
                if encrypt {
                    payload::seal_batch_at(&cipher, first, data, eof && last, out, 1)
                        .map(drop)
                        .map_err(|e| (0, payload_err(e)))
                } else {
                    payload::open_batch_at(&cipher, first, data, eof && last, out, 1)
                        .map(drop)
                        .map_err(|e| (0, payload_err(e.error)))
                }
            })
        };
        let mut at = offset;
        let mut write = |out: &[u8], _: usize| {
            timed(&t.write, || write_all_at(dst, out, at))?;
            at += out.len() as u64;
            Ok(())
        };
        let read_err = |e: io::Error| Failure::Io(e, "reading the source range".into());
        let input = pipeline::Input::At {
            read_at: &read_at,
            start,
        };
        let plan = pipeline::Plan::for_threads(BATCH_CHUNKS * unit, 1);
        let stats = pipeline::run(input, plan, &read_err, &step, &mut write)?;
        if stats.input_bytes != length {
            return Err(changed(stats.input_bytes));
        }
        let s = |a: &AtomicU64| a.load(Ordering::Relaxed) as f64 / 1e9;
        Ok((s(&t.read), s(&t.crypt), s(&t.write)))
    };
    Ok(py.allow_threads(run)?)
}

/// Writes all of `data` at `pos` of `fd`.
fn write_all_at(fd: BorrowedFd<'_>, mut data: &[u8], mut pos: u64) -> Result<(), Failure> {
    while !data.is_empty() {
        match rustix::io::pwrite(fd, data, pos) {
            Ok(0) => {
                return Err(Failure::Io(
                    io::Error::new(io::ErrorKind::WriteZero, "no byte written"),
                    "writing the output range".into(),
                ))
            }
            Ok(n) => {
                data = &data[n..];
                pos += n as u64;
            }
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => {
                return Err(Failure::Io(
                    io::Error::from(e),
                    "writing the output range".into(),
                ))
            }
        }
    }
    Ok(())
}

/// _hash_fd(fd) -> (size, sha256_hex)
///
/// The size and SHA-256 of the whole file open as `fd` (read by position
/// from 0 to its end), without the GIL: the manifest's hash of an output
/// that range tasks wrote in place. Reads into one page-aligned 1 MiB
/// buffer, which keeps the kernel's copy on its fast path.
#[pyfunction]
pub(crate) fn _hash_fd(py: Python<'_>, fd: i32) -> PyResult<(u64, String)> {
    let fd = borrowed_fd(fd, "fd")?;
    let run = || -> Result<(u64, String), Failure> {
        let fail = |e: io::Error| Failure::Io(e, "hashing the output".into());
        let mut buf = pipeline::AlignedBuf::new(1 << 20).map_err(fail)?;
        let mut hash = Sha256::new();
        let mut size = 0u64;
        loop {
            match rustix::io::pread(fd, buf.whole_mut(), size) {
                Ok(0) => break,
                Ok(n) => {
                    hash.update(&buf.whole_mut()[..n]);
                    size += n as u64;
                }
                Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(fail(io::Error::from(e))),
            }
        }
        let hex = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
        Ok((size, hex))
    };
    Ok(py.allow_threads(run)?)
}
