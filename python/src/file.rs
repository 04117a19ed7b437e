//! The aesx file format from Python: whole-file encryption and decryption
//! with atomic output, a random-access reader, and the per-range calls that
//! `aesx.dask` spreads over a cluster. All of it goes through `aesx_file`, so
//! the bytes are exactly what `aesx encrypt` writes and `aesx decrypt` reads.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use aesx_file::header::{Argon2Params, Header, HeaderError, KeySource, KDF_SALT_LEN};
use aesx_file::kdf;
use aesx_file::payload::{
    self, ChunkCipher, Layout, Opener, PayloadError, Sealer, Suite, CHUNK_LEN, ENC_CHUNK_LEN,
    PAYLOAD_HEADER_LEN, SALT_LEN, TAG_LEN,
};
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::buf::Buf;
use crate::{pick_backend, DecryptionError};

/// Chunks per batch: 2 MiB of plaintext, spread over the threads.
const BATCH_CHUNKS: usize = 128;

/// What the caller gave to unlock a file.
enum Secret {
    Key(Zeroizing<[u8; kdf::KEY_LEN]>),
    Passphrase(Zeroizing<Vec<u8>>),
}

/// One failure, turned into one exception at the Python boundary.
enum Failure {
    /// The file is not a valid aesx file for this key (DecryptionError).
    Format(String),
    /// A caller mistake (ValueError).
    Value(String),
    /// The operating system said no (OSError with errno).
    Io(std::io::Error, String),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Format(m) => DecryptionError::new_err(m),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Io(e, ctx) => {
                let msg = format!("{ctx}: {e}");
                match e.raw_os_error() {
                    Some(code) => PyOSError::new_err((code, msg)),
                    None => PyOSError::new_err(msg),
                }
            }
        }
    }
}

fn payload_err(e: PayloadError) -> Failure {
    Failure::Format(e.to_string())
}

fn header_err(e: HeaderError) -> Failure {
    Failure::Format(e.to_string())
}

fn io(ctx: impl Into<String>) -> impl FnOnce(std::io::Error) -> Failure {
    let ctx = ctx.into();
    move |e| Failure::Io(e, ctx)
}

/// A key: 32 bytes of any buffer, or the 64 hex digits of a key file as str.
fn key_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Zeroizing<[u8; kdf::KEY_LEN]>> {
    let mut key = Zeroizing::new([0u8; kdf::KEY_LEN]);
    if let Ok(s) = obj.downcast::<PyString>() {
        let s = s.to_cow()?;
        let s = s.trim();
        let ok = s.len() == 2 * kdf::KEY_LEN
            && s.is_ascii()
            && (0..kdf::KEY_LEN).all(|i| {
                u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                    .map(|b| key[i] = b)
                    .is_ok()
            });
        if !ok {
            return Err(PyValueError::new_err(
                "key must be 32 bytes, or a str of 64 hex digits (an aesx key file)",
            ));
        }
        return Ok(key);
    }
    let b = Buf::read(obj)?;
    if b.len() != kdf::KEY_LEN {
        return Err(PyValueError::new_err(format!(
            "key must be 32 bytes (an aesx key file), got {}",
            b.len()
        )));
    }
    key.copy_from_slice(b.as_slice());
    Ok(key)
}

fn secret(
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
) -> PyResult<Secret> {
    match (key, passphrase) {
        (Some(k), None) => Ok(Secret::Key(key_bytes(k)?)),
        (None, Some(p)) => {
            let bytes = match p.downcast::<PyString>() {
                Ok(s) => s.to_cow()?.as_bytes().to_vec(),
                Err(_) => Buf::read(p)?.as_slice().to_vec(),
            };
            if bytes.is_empty() {
                return Err(PyValueError::new_err("empty passphrase"));
            }
            Ok(Secret::Passphrase(Zeroizing::new(bytes)))
        }
        (None, None) => Err(PyTypeError::new_err("give key= (32 bytes) or passphrase=")),
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "give either key= or passphrase=, not both",
        )),
    }
}

fn threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// The input key for a file's header.
fn unlock(secret: &Secret, source: &KeySource) -> Result<Zeroizing<[u8; 32]>, Failure> {
    match (secret, source) {
        (Secret::Key(k), KeySource::Key) => Ok(k.clone()),
        (Secret::Passphrase(p), KeySource::Argon2id(params)) => {
            // The header is not authenticated yet, so its cost is the
            // attacker's to choose: the hard caps, then the same default
            // ceilings as the CLI.
            kdf::check_caps(params)
                .and_then(|()| kdf::check_limits(params, &kdf::Limits::default()))
                .map_err(|e| Failure::Format(e.to_string()))?;
            kdf::argon2id(p, params).map_err(|e| Failure::Format(e.to_string()))
        }
        (Secret::Passphrase(_), KeySource::Key) => Err(Failure::Value(
            "this file was encrypted with a key: give key=, not passphrase=".into(),
        )),
        (Secret::Key(_), KeySource::Argon2id(_)) => Err(Failure::Value(
            "this file was encrypted with a passphrase: give passphrase=, not key=".into(),
        )),
    }
}

/// An output file that appears at its destination only on `commit`: the
/// data goes to a hidden temporary name in the same directory, is synced,
/// then renamed over the destination. Dropping it uncommitted removes it.
struct AtomicOutput {
    file: Option<File>,
    tmp: PathBuf,
    dst: PathBuf,
    /// SHA-256 of everything written, when asked for (aesx.dask manifests).
    hash: Option<Sha256>,
    written: u64,
}

impl AtomicOutput {
    fn create(dst: &Path, hash: bool) -> Result<AtomicOutput, Failure> {
        let dir = match dst.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = dst
            .file_name()
            .ok_or_else(|| Failure::Value(format!("{}: not a file name", dst.display())))?;
        for _ in 0..16 {
            let mut r = [0u8; 8];
            getrandom::fill(&mut r)
                .map_err(|e| Failure::Value(format!("no randomness from the OS: {e}")))?;
            let hex: String = r.iter().map(|b| format!("{b:02x}")).collect();
            let tmp = dir.join(format!(".{}.aesx-tmp-{hex}", name.to_string_lossy()));
            match OpenOptions::new().write(true).create_new(true).open(&tmp) {
                Ok(f) => {
                    return Ok(AtomicOutput {
                        file: Some(f),
                        tmp,
                        dst: dst.to_path_buf(),
                        hash: hash.then(Sha256::new),
                        written: 0,
                    })
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(Failure::Io(e, format!("cannot create {}", tmp.display()))),
            }
        }
        Err(Failure::Value("cannot find a free temporary name".into()))
    }

    fn write_all(&mut self, data: &[u8]) -> Result<(), Failure> {
        if let Some(h) = self.hash.as_mut() {
            h.update(data);
        }
        self.written += data.len() as u64;
        let f = self.file.as_mut().expect("open until commit");
        f.write_all(data)
            .map_err(io(format!("writing {}", self.tmp.display())))
    }

    /// Syncs and renames into place; returns the size and, if asked for,
    /// the SHA-256 of the file.
    fn commit(mut self) -> Result<Written, Failure> {
        let f = self.file.take().expect("open until commit");
        f.sync_all()
            .map_err(io(format!("syncing {}", self.tmp.display())))?;
        drop(f);
        fs::rename(&self.tmp, &self.dst).map_err(io(format!(
            "renaming {} to {}",
            self.tmp.display(),
            self.dst.display()
        )))?;
        Ok(Written {
            size: self.written,
            sha256: self.hash.take().map(|h| h.finalize().into()),
        })
    }
}

/// What an output file holds, for manifests.
struct Written {
    size: u64,
    sha256: Option<[u8; 32]>,
}

impl Drop for AtomicOutput {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.tmp);
        }
    }
}

fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (fs::metadata(a), fs::metadata(b)) {
        (Ok(x), Ok(y)) => x.dev() == y.dev() && x.ino() == y.ino(),
        _ => false,
    }
}

fn read_full(f: &mut File, buf: &mut [u8], what: &Path) -> Result<usize, Failure> {
    payload::read_full(f, buf).map_err(io(format!("reading {}", what.display())))
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
    if same_file(src, dst) {
        return Err(Failure::Value("input and output are the same file".into()));
    }
    let mut input = File::open(src).map_err(io(format!("cannot open {}", src.display())))?;
    let (key, source) = match &secret {
        Secret::Key(k) => (k.clone(), KeySource::Key),
        Secret::Passphrase(p) => {
            let mut salt = [0u8; KDF_SALT_LEN];
            getrandom::fill(&mut salt)
                .map_err(|e| Failure::Value(format!("no randomness from the OS: {e}")))?;
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
    getrandom::fill(&mut salt)
        .map_err(|e| Failure::Value(format!("no randomness from the OS: {e}")))?;
    let (ph, cipher) =
        payload::seal_header(Suite::Aes256Gcm, &key[..], &header.bytes, &salt, backend)
            .map_err(payload_err)?;
    drop(key);
    let mut out = AtomicOutput::create(dst, hash)?;
    out.write_all(&header.bytes)?;
    out.write_all(&ph)?;
    let mut sealer = Sealer::new(cipher);
    let batch = BATCH_CHUNKS * CHUNK_LEN;
    let mut cur = vec![0u8; batch];
    let mut next = vec![0u8; batch];
    let mut n = read_full(&mut input, &mut cur, src)?;
    let mut sealed = Vec::new();
    loop {
        // Look ahead one batch: the final (short) chunk must be marked.
        let m = if n == batch {
            read_full(&mut input, &mut next, src)?
        } else {
            0
        };
        let last = n < batch || m == 0;
        // A full batch followed by nothing still ends with an empty chunk.
        sealer
            .seal_batch(&cur[..n], last, &mut sealed, threads)
            .map_err(payload_err)?;
        out.write_all(&sealed)?;
        if last {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
        n = m;
    }
    out.commit()
}

/// Reads the header and unlocks the file; returns the chunk cipher and the
/// offset of the first chunk.
fn open_file(
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
    if same_file(src, dst) {
        return Err(Failure::Value("input and output are the same file".into()));
    }
    let mut input = File::open(src).map_err(io(format!("cannot open {}", src.display())))?;
    let (cipher, _) = open_file(&mut input, &secret, backend)?;
    // Nothing is created before the key commitment verified.
    let mut out = AtomicOutput::create(dst, hash)?;
    let mut opener = Opener::new(cipher.clone());
    let batch = BATCH_CHUNKS * ENC_CHUNK_LEN;
    let mut cur = vec![0u8; batch];
    let mut next = vec![0u8; batch];
    let mut n = read_full(&mut input, &mut cur, src)?;
    let mut pt = Vec::new();
    loop {
        let m = if n == batch {
            read_full(&mut input, &mut next, src)?
        } else {
            0
        };
        let eof = n < batch || m == 0;
        if let Err(e) = opener.open_batch(&cur[..n], eof, &mut pt, threads) {
            // Find the failing chunk to tell appended data from tampering.
            let err = match e.error {
                PayloadError::ChunkAuth { .. } => {
                    let c0 = (e.valid / CHUNK_LEN) * ENC_CHUNK_LEN;
                    let c1 = (c0 + ENC_CHUNK_LEN).min(n);
                    let tail = if eof { &cur[c0..n] } else { &cur[c0..c1] };
                    payload::explain_failure(&cipher, e.error, tail)
                }
                other => other,
            };
            return Err(payload_err(err));
        }
        out.write_all(&pt)?;
        if eof {
            break;
        }
        std::mem::swap(&mut cur, &mut next);
        n = m;
    }
    out.commit()
}

fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let os = obj.py().import("os")?;
    let p = os.call_method1("fspath", (obj,))?;
    if let Ok(s) = p.downcast::<PyString>() {
        return Ok(PathBuf::from(s.to_cow()?.as_ref()));
    }
    let b: Vec<u8> = p.extract()?;
    use std::os::unix::ffi::OsStringExt;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(b)))
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
fn encrypt_file(
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
fn decrypt_file(
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
fn _file_hashed(
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

/// The core of `aesx.open_encrypted`: random access to the plaintext of an
/// encrypted file, decrypting only the chunks a read touches (the final
/// chunk is authenticated on open, which proves the length).
#[pyclass(frozen, module = "aesx")]
pub struct _Reader {
    file: File,
    // Boxed: the GCM key may need more alignment than Python's allocator
    // gives a pyclass object.
    cipher: Box<ChunkCipher>,
    start: u64,
    enc_len: u64,
    layout: Layout,
}

impl _Reader {
    fn read_at(&self, pos: u64, out: &mut [u8]) -> Result<usize, Failure> {
        let end = (pos.saturating_add(out.len() as u64)).min(self.layout.plaintext_len);
        if pos >= end {
            return Ok(0);
        }
        let first = pos / CHUNK_LEN as u64;
        let last = (end - 1) / CHUNK_LEN as u64;
        let (c0, _) = self.layout.chunk_span(first, self.enc_len);
        let (cl, ll) = self.layout.chunk_span(last, self.enc_len);
        let mut ct = vec![0u8; (cl + ll as u64 - c0) as usize];
        self.file
            .read_exact_at(&mut ct, self.start + c0)
            .map_err(io("reading the encrypted file"))?;
        let eof = last == self.layout.chunks - 1;
        let mut pt = Vec::new();
        Opener::at((*self.cipher).clone(), first)
            .open_batch(&ct, eof, &mut pt, threads(None))
            .map_err(|e| payload_err(e.error))?;
        let from = (pos - first * CHUNK_LEN as u64) as usize;
        let n = (end - pos) as usize;
        out[..n].copy_from_slice(&pt[from..from + n]);
        Ok(n)
    }
}

#[pymethods]
impl _Reader {
    #[new]
    #[pyo3(signature = (path, *, key = None, passphrase = None, backend = None))]
    fn new(
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        key: Option<&Bound<'_, PyAny>>,
        passphrase: Option<&Bound<'_, PyAny>>,
        backend: Option<&str>,
    ) -> PyResult<Self> {
        let path = path_of(path)?;
        let secret = secret(key, passphrase)?;
        let backend = pick_backend(backend)?;
        let r = py.allow_threads(|| -> Result<_, Failure> {
            let mut file =
                File::open(&path).map_err(io(format!("cannot open {}", path.display())))?;
            let (cipher, start) = open_file(&mut file, &secret, backend)?;
            let len = file
                .metadata()
                .map_err(io(format!("cannot stat {}", path.display())))?
                .len();
            let enc_len = len.saturating_sub(start);
            let layout = Layout::from_len(enc_len).map_err(payload_err)?;
            let last = layout.chunks - 1;
            let (pos, n) = layout.chunk_span(last, enc_len);
            let mut ct = vec![0u8; n];
            file.read_exact_at(&mut ct, start + pos)
                .map_err(io("reading the encrypted file"))?;
            let mut pt = Vec::new();
            Opener::at(cipher.clone(), last)
                .open_batch(&ct, true, &mut pt, 1)
                .map_err(|e| payload_err(payload::explain_failure(&cipher, e.error, &ct)))?;
            Ok(_Reader {
                file,
                cipher: Box::new(cipher),
                start,
                enc_len,
                layout,
            })
        })?;
        Ok(r)
    }

    /// Plaintext length in bytes.
    #[getter]
    fn size(&self) -> u64 {
        self.layout.plaintext_len
    }

    /// readinto_at(pos, buf) -> int: fills `buf` from plaintext offset `pos`.
    fn readinto_at(&self, py: Python<'_>, pos: u64, buf: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut b = Buf::write(buf)?;
        let out = b.as_mut_slice();
        Ok(py.allow_threads(|| self.read_at(pos, out))?)
    }
}

/// Parses the aesx header at the start of `head` (at least 34 bytes, or the
/// whole file if shorter); returns the length of header plus salt and
/// commitment, where the chunks start.
#[pyfunction]
fn _prefix_len(head: &Bound<'_, PyAny>) -> PyResult<usize> {
    let b = Buf::read(head)?;
    let h = Header::read(&mut b.as_slice()).map_err(header_err)?;
    Ok(h.bytes.len() + PAYLOAD_HEADER_LEN)
}

/// _new_prefix(key) -> bytes: a fresh header, salt and commitment for a
/// raw-key file (what a file starts with, before chunk 0).
#[pyfunction]
fn _new_prefix<'py>(py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
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

/// _seal_chunks(key, prefix, first_chunk, data, last) -> bytes
///
/// Encrypts `data` as chunks `first_chunk`.. of the file that starts with
/// `prefix`; unless `last`, `data` is whole chunks.
#[pyfunction]
fn _seal_chunks<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    prefix: &Bound<'py, PyAny>,
    first_chunk: u64,
    data: &Bound<'py, PyAny>,
    last: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = key_bytes(key)?;
    let (prefix, data) = (Buf::read(prefix)?, Buf::read(data)?);
    let (p, d) = (prefix.as_slice(), data.as_slice());
    let out = py.allow_threads(|| -> Result<Vec<u8>, Failure> {
        let cipher = prefix_cipher(&key[..], p)?;
        if !last && !d.len().is_multiple_of(CHUNK_LEN) {
            return Err(Failure::Value("a range must be whole chunks".into()));
        }
        let n_chunks = d.len() / CHUNK_LEN + usize::from(last);
        let mut out = vec![0u8; Sealer::sealed_len(d.len(), last)];
        for i in 0..n_chunks {
            let p0 = i * CHUNK_LEN;
            let p1 = (p0 + CHUNK_LEN).min(d.len());
            let o0 = i * ENC_CHUNK_LEN;
            let o1 = o0 + (p1 - p0) + TAG_LEN;
            cipher
                .seal_chunk(first_chunk + i as u64, &d[p0..p1], &mut out[o0..o1])
                .map_err(payload_err)?;
        }
        Ok(out)
    })?;
    Ok(PyBytes::new(py, &out))
}

/// _open_chunks(key, prefix, first_chunk, ct, last) -> bytes
///
/// Verifies and decrypts encrypted chunks `first_chunk`.. (`last`: they
/// end with the file's final chunk). DecryptionError if any fails.
#[pyfunction]
fn _open_chunks<'py>(
    py: Python<'py>,
    key: &Bound<'py, PyAny>,
    prefix: &Bound<'py, PyAny>,
    first_chunk: u64,
    ct: &Bound<'py, PyAny>,
    last: bool,
) -> PyResult<Bound<'py, PyBytes>> {
    let key = key_bytes(key)?;
    let (prefix, ct) = (Buf::read(prefix)?, Buf::read(ct)?);
    let (p, c) = (prefix.as_slice(), ct.as_slice());
    let out = py.allow_threads(|| -> Result<Vec<u8>, Failure> {
        let cipher = prefix_cipher(&key[..], p)?;
        let mut pt = Vec::new();
        Opener::at(cipher.clone(), first_chunk)
            .open_batch(c, last, &mut pt, threads(None))
            .map_err(|e| payload_err(e.error))?;
        Ok(pt)
    })?;
    Ok(PyBytes::new(py, &out))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(encrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(decrypt_file, m)?)?;
    m.add_function(wrap_pyfunction!(_file_hashed, m)?)?;
    m.add_class::<_Reader>()?;
    m.add_function(wrap_pyfunction!(_prefix_len, m)?)?;
    m.add_function(wrap_pyfunction!(_new_prefix, m)?)?;
    m.add_function(wrap_pyfunction!(_seal_chunks, m)?)?;
    m.add_function(wrap_pyfunction!(_open_chunks, m)?)?;
    m.add("CHUNK_LEN", CHUNK_LEN)?;
    m.add("ENC_CHUNK_LEN", ENC_CHUNK_LEN)?;
    Ok(())
}
