//! AES-GCM with pyca's `AESGCM` interface, and RFC 4106 ESP.

use std::ptr::NonNull;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use aesx::parallel::for_call;

use crate::backend::pick_backend;
use crate::buf::{alias, maybe_detached, AeadArgs, Alias, Buf};
use crate::checks::{data_len, key_len};
use crate::errors::{err, AlreadyFinalized, InvalidTag};

const TAG: usize = 16;

/// AES-GCM with a 16-byte tag, as `cryptography`'s AESGCM: `key` is 16, 24
/// or 32 bytes of any buffer; nonces are 8 to 128 bytes. The object is
/// immutable and may be shared between threads; calls on 4 KiB or more run
/// without the GIL.
#[pyclass(frozen, module = "aesx", name = "AESGCM")]
pub struct AesGcm {
    // Boxed: the key schedule may need more alignment (64 bytes for
    // AVX-512 tables) than Python's allocator gives a pyclass object.
    gcm: Box<aesx::Gcm>,
}

/// Reads the arguments and makes pyca's checks.
fn read_args(
    nonce: &Bound<'_, PyAny>,
    data: &Bound<'_, PyAny>,
    aad: Option<&Bound<'_, PyAny>>,
) -> PyResult<AeadArgs> {
    let args = AeadArgs::read(nonce, data, aad)?;
    check(args.nonce.len(), args.data.len(), args.aad().len())?;
    Ok(args)
}

fn check(nonce: usize, data: usize, aad: usize) -> PyResult<()> {
    data_len(data, aad)?;
    if !(8..=128).contains(&nonce) {
        return Err(PyValueError::new_err(
            "Nonce must be between 8 and 128 bytes",
        ));
    }
    Ok(())
}

impl AesGcm {
    /// pyca's `encrypt` (`sealing`) or `decrypt`.
    // Inlined into each method, so that `sealing` is a constant there and
    // the small-message path costs what a method of its own would.
    #[inline(always)]
    fn call<'py>(
        &self,
        py: Python<'py>,
        sealing: bool,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = crate::checks::threads(threads)?;
        let args = read_args(nonce, data, associated_data)?;
        let (n, a, d) = (args.nonce.as_slice(), args.aad(), args.data.as_slice());
        let gcm = &*for_call(&*self.gcm, threads, d.len(), aesx::Gcm::with_threads);
        if sealing {
            return PyBytes::new_with(py, d.len() + TAG, |out| {
                maybe_detached(py, d.len(), || gcm.seal_to(n, a, d, out))
                    .map(|_| ())
                    .map_err(err)
            });
        }
        if d.len() < TAG {
            return Err(InvalidTag::new_err(()));
        }
        PyBytes::new_with(py, d.len() - TAG, |out| {
            maybe_detached(py, d.len(), || gcm.open_to(n, a, d, out))
                .map(|_| ())
                .map_err(err)
        })
    }

    /// `encrypt_into` (`sealing`) or `decrypt_into`: into `buf`, which may
    /// be the input's own memory.
    // Inlined as `call`. The arguments are the Python method's, one each.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn call_into(
        &self,
        py: Python<'_>,
        sealing: bool,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let threads = crate::checks::threads(threads)?;
        let args = read_args(nonce, data, associated_data)?;
        let data = &args.data;
        if !sealing && data.len() < TAG {
            return Err(InvalidTag::new_err(()));
        }
        let mut out = Buf::write(buf)?;
        // The ciphertext or plaintext without the tag, and all of the output.
        let (len, total) = if sealing {
            (data.len(), data.len() + TAG)
        } else {
            (data.len() - TAG, data.len() - TAG)
        };
        if out.len() != total {
            return Err(PyValueError::new_err(format!(
                "buffer must be {total} bytes"
            )));
        }
        let (n, a) = (args.nonce.as_slice(), args.aad());
        let gcm = &*for_call(&*self.gcm, threads, len, aesx::Gcm::with_threads);
        let how = alias(data, &out);
        let mut tag = [0u8; TAG];
        if !sealing {
            tag.copy_from_slice(&data.as_slice()[len..]);
        }
        let body = &data.as_slice()[..len];
        let copy = (how == Alias::Partial).then(|| body.to_vec());
        let src = if how == Alias::Same {
            None
        } else {
            Some(copy.as_deref().unwrap_or(body))
        };
        let o = out.as_mut_slice();
        // One closure each way, so that each is only the work of its own.
        let r = if sealing {
            maybe_detached(py, len, || match src {
                Some(s) => gcm.seal_to(n, a, s, o).map(|_| ()),
                None => {
                    let (body, tag) = o.split_at_mut(len);
                    let t = gcm.seal_in_place_detached(n, a, body)?;
                    tag.copy_from_slice(t.as_bytes());
                    Ok(())
                }
            })
        } else {
            maybe_detached(py, len, || match src {
                Some(s) => gcm.open_to_detached(n, a, s, &tag, o),
                None => gcm.open_in_place_detached(n, a, o, &tag),
            })
        };
        r.map_err(err)?;
        Ok(total)
    }
}

#[pymethods]
impl AesGcm {
    #[new]
    #[pyo3(signature = (key, *, backend = None))]
    fn new(key: &Bound<'_, PyAny>, backend: Option<&str>) -> PyResult<Self> {
        let key = Buf::read(key)?;
        key_len(
            key.as_slice(),
            &[16, 24, 32],
            "AESGCM key must be 128, 192, or 256 bits.",
        )?;
        let gcm = aesx::Gcm::with_backend(key.as_slice(), pick_backend(backend)?).map_err(err)?;
        Ok(AesGcm { gcm: Box::new(gcm) })
    }

    /// A fresh random key of 128, 192 or 256 bits from the OS CSPRNG.
    #[staticmethod]
    fn generate_key<'py>(
        py: Python<'py>,
        bit_length: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        generate(
            py,
            bit_length,
            &[128, 192, 256],
            "bit_length must be 128, 192, or 256",
        )
    }

    /// The backend this key runs on.
    #[getter]
    fn backend(&self) -> &'static str {
        self.gcm.backend().name()
    }

    /// Encrypts and authenticates `data`; returns ciphertext followed by the
    /// 16-byte tag. `associated_data` may be None. `threads` > 1 splits a
    /// message of at least 128 KiB per extra thread over that many threads
    /// (the same bytes as one thread).
    #[pyo3(signature = (nonce, data, associated_data, *, threads = None))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.call(py, true, nonce, data, associated_data, threads)
    }

    /// Verifies the tag at the end of `data` and returns the plaintext;
    /// raises InvalidTag (releasing nothing) if it does not verify.
    /// `threads` as for encrypt: the tag over the whole message is checked
    /// before anything is returned.
    #[pyo3(signature = (nonce, data, associated_data, *, threads = None))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.call(py, false, nonce, data, associated_data, threads)
    }

    /// As encrypt, writing ciphertext and tag into `buf`, a writable buffer
    /// of exactly len(data) + 16 bytes (it may be the input's own memory);
    /// returns the bytes written.
    #[pyo3(signature = (nonce, data, associated_data, buf, *, threads = None))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        self.call_into(py, true, nonce, data, associated_data, buf, threads)
    }

    /// As decrypt, writing the plaintext into `buf`, a writable buffer of
    /// exactly len(data) - 16 bytes (it may be the input's own memory). On
    /// InvalidTag `buf` is zeroed.
    #[pyo3(signature = (nonce, data, associated_data, buf, *, threads = None))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
        threads: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        self.call_into(py, false, nonce, data, associated_data, buf, threads)
    }
}

/// A fresh random key of `bit_length` bits (one of `allowed`) from the OS.
pub fn generate<'py>(
    py: Python<'py>,
    bit_length: &Bound<'py, PyAny>,
    allowed: &[i64],
    msg: &'static str,
) -> PyResult<Bound<'py, PyBytes>> {
    let bits: i64 = bit_length.extract()?;
    if !allowed.contains(&bits) {
        return Err(PyValueError::new_err(msg));
    }
    random_bytes(py, bits as usize / 8)
}

pub fn random_bytes(py: Python<'_>, n: usize) -> PyResult<Bound<'_, PyBytes>> {
    PyBytes::new_with(py, n, |b| {
        getrandom::fill(b).map_err(|e| {
            pyo3::exceptions::PyOSError::new_err(format!("no randomness from the OS: {e}"))
        })
    })
}

/// AES-GCM for IPsec ESP (RFC 4106): a 16/24/32-byte key, the 4-byte salt
/// from the keying material, ICVs of 8, 12 or 16 bytes. Each packet takes an
/// 8-byte IV and 8 or 12 bytes of associated data (SPI and sequence number).
/// The `*_with_checksum` calls also return the 64-bit one's-complement sum of
/// the plaintext (little-endian 64-bit words, end-around carry), computed in
/// the same pass.
#[pyclass(frozen, module = "aesx", name = "ESP")]
pub struct Esp {
    // Boxed for alignment, as AesGcm.
    esp: Box<aesx::Esp>,
}

/// A sealed or opened packet and the one's-complement checksum of its
/// plaintext; a method returns both or only the packet.
struct Packet<'py>(Bound<'py, PyBytes>, u64);

impl Esp {
    /// Seals (`encrypt`: ciphertext then ICV) or opens one packet payload.
    // Inlined into each method, so that each calls `seal` or `open` as a
    // method of its own would.
    #[inline(always)]
    fn packet<'py>(
        &self,
        py: Python<'py>,
        encrypt: bool,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<Packet<'py>> {
        let (iv, data, aad) = (Buf::read(iv)?, Buf::read(data)?, Buf::read(aad)?);
        let (i, d, a) = (iv.as_slice(), data.as_slice(), aad.as_slice());
        if encrypt {
            self.seal(py, i, d, a)
        } else {
            self.open(py, i, d, a)
        }
    }

    fn seal<'py>(&self, py: Python<'py>, i: &[u8], d: &[u8], a: &[u8]) -> PyResult<Packet<'py>> {
        let tl = self.esp.tag_len();
        let esp = &self.esp;
        let mut sum = 0;
        let out = PyBytes::new_with(py, d.len() + tl, |out| {
            let (body, tag) = out.split_at_mut(d.len());
            body.copy_from_slice(d);
            let (t, s) =
                maybe_detached(py, d.len(), || esp.seal_in_place_with_checksum(i, a, body))
                    .map_err(err)?;
            tag.copy_from_slice(t.as_bytes());
            sum = s;
            Ok(())
        })?;
        Ok(Packet(out, sum))
    }

    fn open<'py>(&self, py: Python<'py>, i: &[u8], d: &[u8], a: &[u8]) -> PyResult<Packet<'py>> {
        let tl = self.esp.tag_len();
        if d.len() < tl {
            return Err(InvalidTag::new_err(()));
        }
        let (ct, tag) = d.split_at(d.len() - tl);
        let esp = &self.esp;
        let mut sum = 0;
        let out = PyBytes::new_with(py, ct.len(), |out| {
            out.copy_from_slice(ct);
            sum =
                maybe_detached(py, ct.len(), || esp.open_in_place(i, a, out, tag)).map_err(err)?;
            Ok(())
        })?;
        Ok(Packet(out, sum))
    }
}

#[pymethods]
impl Esp {
    #[new]
    #[pyo3(signature = (key, salt, tag_length = 16, *, backend = None))]
    fn new(
        key: &Bound<'_, PyAny>,
        salt: &Bound<'_, PyAny>,
        tag_length: usize,
        backend: Option<&str>,
    ) -> PyResult<Self> {
        let (key, salt) = (Buf::read(key)?, Buf::read(salt)?);
        let esp = aesx::Esp::with_backend(
            key.as_slice(),
            salt.as_slice(),
            tag_length,
            pick_backend(backend)?,
        )
        .map_err(err)?;
        Ok(Esp { esp: Box::new(esp) })
    }

    /// A context from RFC 4106 keying material: the key then the 4-byte salt
    /// (20, 28 or 36 bytes).
    #[staticmethod]
    #[pyo3(signature = (keymat, tag_length = 16, *, backend = None))]
    fn from_keying_material(
        keymat: &Bound<'_, PyAny>,
        tag_length: usize,
        backend: Option<&str>,
    ) -> PyResult<Self> {
        let km = Buf::read(keymat)?;
        let k = km.as_slice();
        if !matches!(k.len(), 20 | 28 | 36) {
            return Err(PyValueError::new_err(format!(
                "RFC 4106 keying material must be 20, 28 or 36 bytes, got {}",
                k.len()
            )));
        }
        let (key, salt) = k.split_at(k.len() - 4);
        let esp =
            aesx::Esp::with_backend(key, salt, tag_length, pick_backend(backend)?).map_err(err)?;
        Ok(Esp { esp: Box::new(esp) })
    }

    /// The ICV length in bytes.
    #[getter]
    fn tag_length(&self) -> usize {
        self.esp.tag_len()
    }

    /// The backend this key runs on.
    #[getter]
    fn backend(&self) -> &'static str {
        self.esp.backend().name()
    }

    /// The ESP payload: ciphertext followed by the ICV.
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.packet(py, true, iv, data, aad).map(|p| p.0)
    }

    /// Verifies the ICV at the end of `data` and returns the plaintext;
    /// InvalidTag if it does not verify.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.packet(py, false, iv, data, aad).map(|p| p.0)
    }

    /// As encrypt, with the one's-complement checksum of the plaintext.
    fn encrypt_with_checksum<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        self.packet(py, true, iv, data, aad).map(|p| (p.0, p.1))
    }

    /// As decrypt, with the one's-complement checksum of the plaintext.
    fn decrypt_with_checksum<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        self.packet(py, false, iv, data, aad).map(|p| (p.0, p.1))
    }
}

/// One direction of a streaming GCM message.
enum Dir {
    Enc(aesx::GcmEncryptor<'static>),
    Dec(aesx::hazmat::GcmDecryptorHazmat<'static>),
}

/// A streaming GCM encryption or decryption, the engine of
/// `Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()`/`decryptor()`.
/// pyca's rules (call order, limits, tag lengths, messages) are checked by
/// the Python context in `aesx/ciphers.py`; this object does the
/// cryptography. A decryption releases plaintext before the tag is checked,
/// as pyca's does.
#[pyclass(module = "aesx")]
pub struct GcmStream {
    /// Borrows `*gcm`; dropped before it (see `Drop`).
    dir: Option<Dir>,
    /// The key, on the heap for the life of this object, never mutated.
    gcm: NonNull<aesx::Gcm>,
}

// SAFETY: `gcm` is an owned `Box<aesx::Gcm>` in raw form (Gcm is Send and
// Sync: expanded keys and tables), only ever read through shared
// references; `dir` holds an encryptor or decryptor borrowing it, which is
// Send and Sync for the same reason. pyo3 hands out `&mut self` only under
// its borrow checker, so no two threads mutate `dir` at once.
unsafe impl Send for GcmStream {}
// SAFETY: shared references reach only `gcm` (Sync) and `dir` behind pyo3's
// borrow checker, which gives `&mut self` to one thread at a time.
unsafe impl Sync for GcmStream {}

impl Drop for GcmStream {
    fn drop(&mut self) {
        // The borrower goes first.
        self.dir = None;
        // SAFETY: `gcm` came from `Box::into_raw` in `_gcm_stream` and is
        // freed only here, once; its only borrow (`dir`) is gone.
        drop(unsafe { Box::from_raw(self.gcm.as_ptr()) });
    }
}

fn finalized() -> PyErr {
    AlreadyFinalized::new_err("Context was already finalized.")
}

impl GcmStream {
    fn dir(&mut self) -> PyResult<&mut Dir> {
        self.dir.as_mut().ok_or_else(finalized)
    }
}

impl Dir {
    fn run(&mut self, src: &[u8], dst: &mut [u8]) -> aesx::Result<()> {
        match self {
            Dir::Enc(e) => e.encrypt_to(src, dst),
            Dir::Dec(d) => d.decrypt_to(src, dst),
        }
    }

    fn run_in_place(&mut self, buf: &mut [u8]) -> aesx::Result<()> {
        match self {
            Dir::Enc(e) => e.encrypt_in_place(buf),
            Dir::Dec(d) => d.decrypt_in_place(buf),
        }
    }
}

#[pymethods]
impl GcmStream {
    /// Adds associated data (before any data).
    fn aad(&mut self, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = Buf::read(data)?;
        match self.dir()? {
            Dir::Enc(e) => e.aad(d.as_slice()),
            Dir::Dec(x) => x.aad(d.as_slice()),
        }
        .map_err(err)
    }

    /// Encrypts or decrypts the next piece.
    fn update<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = Buf::read(data)?;
        let src = d.as_slice();
        let dir = self.dir()?;
        PyBytes::new_with(py, src.len(), |out| {
            maybe_detached(py, src.len(), || dir.run(src, out)).map_err(err)
        })
    }

    /// As update, into `buf` (at least len(data) bytes; it may be the
    /// input's own memory). Returns the bytes written.
    fn update_into(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let d = Buf::read(data)?;
        let mut out = Buf::write(buf)?;
        let n = d.len();
        if out.len() < n {
            return Err(PyValueError::new_err(format!(
                "buffer must be at least {n} bytes for this payload"
            )));
        }
        let how = alias(&d, &out);
        let copy = (how == Alias::Partial).then(|| d.as_slice().to_vec());
        let dir = self.dir()?;
        let dst = &mut out.as_mut_slice()[..n];
        match (how, &copy) {
            (Alias::Same, _) => maybe_detached(py, n, || dir.run_in_place(dst)),
            (_, Some(c)) => maybe_detached(py, n, || dir.run(c, dst)),
            (_, None) => {
                let s = d.as_slice();
                maybe_detached(py, n, || dir.run(s, dst))
            }
        }
        .map_err(err)?;
        Ok(n)
    }

    /// Ends an encryption; returns the 16-byte tag.
    fn finalize_encrypt<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        match self.dir.take() {
            Some(Dir::Enc(e)) => Ok(PyBytes::new(py, e.finish().as_bytes())),
            Some(other) => {
                self.dir = Some(other);
                Err(PyValueError::new_err("not an encryption"))
            }
            None => Err(finalized()),
        }
    }

    /// Ends a decryption: checks `tag` (4 to 16 bytes, compared with the
    /// computed tag's first bytes in constant time); InvalidTag if it
    /// differs.
    fn finalize_decrypt(&mut self, tag: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = Buf::read(tag)?;
        let t = t.as_slice();
        if !(4..=TAG).contains(&t.len()) {
            return Err(PyValueError::new_err(format!(
                "Authentication tag must be between 4 and {TAG} bytes"
            )));
        }
        match self.dir.take() {
            Some(Dir::Dec(d)) => {
                let want = d.finish_tag();
                if aesx::ct_eq(&want.as_bytes()[..t.len()], t) {
                    Ok(())
                } else {
                    Err(InvalidTag::new_err(()))
                }
            }
            Some(other) => {
                self.dir = Some(other);
                Err(PyValueError::new_err("not a decryption"))
            }
            None => Err(finalized()),
        }
    }
}

/// Starts a streaming GCM message under `key` and `nonce` (8 to 128 bytes;
/// the Python wrapper has checked both as pyca does).
#[pyfunction]
#[pyo3(signature = (key, nonce, encrypt, backend = None))]
fn _gcm_stream(
    key: &Bound<'_, PyAny>,
    nonce: &Bound<'_, PyAny>,
    encrypt: bool,
    backend: Option<&str>,
) -> PyResult<GcmStream> {
    let k = Buf::read(key)?;
    let n = Buf::read(nonce)?;
    let gcm = aesx::Gcm::with_backend(k.as_slice(), pick_backend(backend)?).map_err(err)?;
    let mut s = GcmStream {
        dir: None,
        gcm: NonNull::from(Box::leak(Box::new(gcm))),
    };
    // SAFETY: `s.gcm` points to a live heap Gcm that `s` owns and frees in
    // its Drop only after dropping `dir`, the one holder of this reference;
    // nothing mutates or moves the Gcm meanwhile, so the reference stays
    // valid for as long as it is used.
    let g: &'static aesx::Gcm = unsafe { s.gcm.as_ref() };
    s.dir = Some(if encrypt {
        Dir::Enc(g.encryptor(n.as_slice()).map_err(err)?)
    } else {
        Dir::Dec(aesx::hazmat::GcmDecryptorHazmat::new(g, n.as_slice()).map_err(err)?)
    });
    Ok(s)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AesGcm>()?;
    m.add_class::<Esp>()?;
    m.add_class::<GcmStream>()?;
    m.add_function(wrap_pyfunction!(_gcm_stream, m)?)?;
    Ok(())
}
