//! Device arrays to and from files in the format of `aesx encrypt`
//! (docs/FORMAT.md): the header, key commitment and chunk nonces as
//! aesx-file computes them, the 16 KiB chunks sealed and opened on the GPU
//! many per launch, so that only ciphertext crosses PCIe.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::PathBuf;

use aesx_cuda::raw::{self, DeviceBuffer as RawBuffer};
use aesx_cuda::{CudaGcm, Gpu};
use aesx_file::header::{Header, KeySource};
use aesx_file::payload::{
    self, chunk_nonce, Layout, Suite, CHUNK_LEN, ENC_CHUNK_LEN, MAX_CHUNKS, NONCE_LEN,
    PAYLOAD_HEADER_LEN, SALT_LEN, TAG_LEN,
};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use super::{cuda_err, device_for, gpu, stream_of, DeviceBuffer};
use crate::errors::DecryptionError;
use crate::file::output::{Dest, OutputOpts, Target};

/// Chunks per launch: 32 MiB of plaintext, as `aesx encrypt --backend cuda`.
const BATCH_CHUNKS: usize = 2048;

fn format_err(e: impl ToString) -> PyErr {
    DecryptionError::new_err(e.to_string())
}

fn key32(key: &[u8]) -> PyResult<()> {
    if key.len() != 32 {
        return Err(PyValueError::new_err(format!(
            "key must be 32 bytes (an aesx key file), got {}",
            key.len()
        )));
    }
    Ok(())
}

fn random(buf: &mut [u8]) -> PyResult<()> {
    getrandom::fill(buf)
        .map_err(|e| PyValueError::new_err(format!("no randomness from the OS: {e}")))
}

/// The chunk key and base nonce of a payload.
fn chunk_key(
    gpu: &Gpu,
    key: &[u8],
    salt: &[u8; SALT_LEN],
    header: &[u8],
) -> PyResult<(CudaGcm, [u8; NONCE_LEN])> {
    let d = payload::derive(Suite::Aes256Gcm, key, salt, header).map_err(format_err)?;
    let gcm = CudaGcm::new(gpu, &d.key).map_err(cuda_err)?;
    Ok((gcm, d.base_nonce))
}

/// _encrypt_to_file(ptr, len, device, stream, path, key, force)
///
/// Encrypts `len` bytes of device memory at `ptr` (not changed) to `path`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub(super) fn _encrypt_to_file(
    py: Python<'_>,
    ptr: u64,
    len: usize,
    device: Option<usize>,
    stream: Option<u64>,
    path: PathBuf,
    key: &[u8],
    force: bool,
) -> PyResult<()> {
    key32(key)?;
    if (len / CHUNK_LEN) as u64 + 1 > MAX_CHUNKS {
        return Err(PyValueError::new_err("too much data for one aesx file"));
    }
    if len > 0 && (ptr == 0 || ptr.checked_add(len as u64).is_none()) {
        return Err(PyValueError::new_err("invalid device pointer"));
    }
    let device = device_for(device, ptr, len)?;
    let g = py.allow_threads(|| gpu(device))?;
    let header = Header::new(KeySource::Key);
    let mut salt = [0u8; SALT_LEN];
    random(&mut salt)?;
    let backend = crate::backend::pick_backend(None)?;
    let (ph, _) = payload::seal_header(Suite::Aes256Gcm, key, &header.bytes, &salt, backend)
        .map_err(format_err)?;
    let (gcm, base) = chunk_key(&g, key, &salt, &header.bytes)?;
    let opts = OutputOpts {
        mode: 0o666,
        replace: force,
        hash: false,
        input: None,
    };
    let target = Target::resolve(Dest::Path(&path), opts)?;
    py.allow_threads(|| -> PyResult<()> {
        let s = stream_of(stream);
        let nchunks = len / CHUNK_LEN + 1;
        let scratch = RawBuffer::new(&g, len.min(BATCH_CHUNKS * CHUNK_LEN)).map_err(cuda_err)?;
        let mut out = target.create()?;
        out.write_all(&header.bytes)?;
        out.write_all(&ph)?;
        let mut host = Vec::new();
        let mut sealed = Vec::new();
        let mut first = 0usize;
        while first < nchunks {
            let n = BATCH_CHUNKS.min(nchunks - first);
            let start = first * CHUNK_LEN;
            let blen = ((first + n) * CHUNK_LEN).min(len) - start;
            let nonces: Vec<[u8; NONCE_LEN]> = (first..first + n)
                .map(|i| chunk_nonce(&base, i as u64))
                .collect();
            host.resize(blen, 0);
            let src = ptr + start as u64;
            let scratch_ptr = scratch.ptr();
            let mut run = || -> aesx_cuda::Result<Vec<[u8; 16]>> {
                // SAFETY: ptr holds len bytes of device memory of `device` (the Python
                // layer's array, held for the call), so src..src + blen lies in it;
                // `scratch` is ours, at least blen bytes, and records the stream
                // before anything is queued on it; the stream is the caller's.
                unsafe {
                    scratch.used_on(s)?;
                    raw::copy_raw(&g, src, scratch_ptr, blen, s)?;
                    let tags = gcm.seal_many_raw(&nonces, &[], CHUNK_LEN, scratch_ptr, blen, s)?;
                    raw::copy_to_host_raw(&g, scratch_ptr, &mut host, s)?;
                    Ok(tags)
                }
            };
            let tags = run().map_err(cuda_err)?;
            sealed.clear();
            for (i, tag) in tags.iter().enumerate() {
                let a = i * CHUNK_LEN;
                let b = (a + CHUNK_LEN).min(blen);
                sealed.extend_from_slice(&host[a..b]);
                sealed.extend_from_slice(tag);
            }
            out.write_all(&sealed)?;
            first += n;
        }
        out.commit()?;
        Ok(())
    })
}

/// _decrypt_from_file(path, key, device, stream) -> DeviceBuffer
///
/// Decrypts an aesx file written with a key to a new device buffer.
#[pyfunction]
pub(super) fn _decrypt_from_file(
    py: Python<'_>,
    path: PathBuf,
    key: &[u8],
    device: usize,
    stream: Option<u64>,
) -> PyResult<DeviceBuffer> {
    key32(key)?;
    let g = py.allow_threads(|| gpu(device))?;
    let (mem, s) = py.allow_threads(|| -> PyResult<_> {
        let s = stream_of(stream);
        let io = |e: std::io::Error| {
            pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display()))
        };
        let mut f = File::open(&path).map_err(io)?;
        let total = f.metadata().map_err(io)?.len();
        let header = Header::read(&mut f).map_err(format_err)?;
        if header.source != KeySource::Key {
            return Err(PyValueError::new_err(
                "this file was encrypted with a passphrase; aesx.cuda takes key= files only (use aesx.decrypt_file)",
            ));
        }
        let mut ph = [0u8; PAYLOAD_HEADER_LEN];
        let n = payload::read_full(&mut f, &mut ph).map_err(io)?;
        if n < PAYLOAD_HEADER_LEN {
            return Err(format_err(payload::PayloadError::HeaderTruncated));
        }
        // Checks the key commitment before anything is decrypted.
        let backend = crate::backend::pick_backend(None)?;
        payload::open_header(Suite::Aes256Gcm, key, &header.bytes, &ph, backend)
            .map_err(format_err)?;
        let mut salt = [0u8; SALT_LEN];
        salt.copy_from_slice(&ph[..SALT_LEN]);
        let (gcm, base) = chunk_key(&g, key, &salt, &header.bytes)?;
        let at = f.stream_position().map_err(io)?;
        let enc_len = total.saturating_sub(at);
        let layout = Layout::from_len(enc_len).map_err(format_err)?;
        let len = usize::try_from(layout.plaintext_len)
            .map_err(|_| PyValueError::new_err("file too large for this machine"))?;
        let nchunks = layout.chunks as usize;
        let mem = RawBuffer::new(&g, len).map_err(cuda_err)?;
        let fail = |m: &RawBuffer, e: PyErr| -> PyErr {
            // Nothing unverified stays: zero everything written so far.
            // SAFETY: m is our own allocation of m.len() bytes.
            let _ = unsafe { raw::zero_raw(&g, m.ptr(), m.len(), s) };
            e
        };
        let mut enc = Vec::new();
        let mut body = Vec::new();
        let mut first = 0usize;
        while first < nchunks {
            let n = BATCH_CHUNKS.min(nchunks - first);
            let start = first * CHUNK_LEN;
            let blen = ((first + n) * CHUNK_LEN).min(len) - start;
            let elen = blen + n * TAG_LEN;
            enc.resize(elen, 0);
            let got = payload::read_full(&mut f, &mut enc).map_err(io)?;
            if got < elen {
                return Err(fail(&mem, format_err("the file changed while it was read")));
            }
            body.clear();
            let mut tags = Vec::with_capacity(n);
            for c in enc.chunks(ENC_CHUNK_LEN) {
                let (b, t) = c.split_at(c.len() - TAG_LEN);
                body.extend_from_slice(b);
                let mut tag = [0u8; TAG_LEN];
                tag.copy_from_slice(t);
                tags.push(tag);
            }
            let nonces: Vec<[u8; NONCE_LEN]> = (first..first + n)
                .map(|i| chunk_nonce(&base, i as u64))
                .collect();
            let dst = mem.ptr() + start as u64;
            // SAFETY: `mem` is our allocation of len bytes and dst..dst + blen lies in
            // it; the stream is the caller's.
            let ok = unsafe {
                raw::copy_from_host_raw(&g, &body, dst, s).and_then(|()| {
                    gcm.open_many_raw(&nonces, &[], CHUNK_LEN, dst, blen, &tags, s)
                })
            }
            .map_err(|e| fail(&mem, cuda_err(e)))?;
            if let Some(bad) = ok.iter().position(|v| !v) {
                let i = first + bad;
                let what = if i + 1 == nchunks {
                    "the final chunk did not verify: the file was truncated, extended or modified"
                } else {
                    "a chunk did not verify: the file was modified, truncated or reordered"
                };
                return Err(fail(&mem, format_err(format!("chunk {i}: {what}"))));
            }
            first += n;
        }
        let mut rest = [0u8; 1];
        if f.read(&mut rest).map_err(io)? != 0 {
            return Err(fail(&mem, format_err("the file grew while it was read")));
        }
        // SAFETY: the stream is the caller's (live, or None).
        unsafe { mem.used_on(s) }.map_err(cuda_err)?;
        Ok((mem, stream))
    })?;
    Ok(DeviceBuffer {
        mem: std::sync::Arc::new(mem),
        device,
        stream: std::sync::Mutex::new(Some(s.unwrap_or(0))),
    })
}

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_encrypt_to_file, m)?)?;
    m.add_function(wrap_pyfunction!(_decrypt_from_file, m)?)?;
    Ok(())
}
