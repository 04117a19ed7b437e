//! `aesx.open_encrypted`'s core: random access to an encrypted file.

use std::fs::File;
use std::os::unix::fs::FileExt;

use aesx_file::payload::{self, ChunkCipher, Layout, Opener, CHUNK_LEN};
use pyo3::prelude::*;

use super::args::{path_of, secret, threads};
use super::failure::{io, payload_err, Failure};
use super::whole::open_file;
use crate::backend::pick_backend;
use crate::buf::Buf;

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
