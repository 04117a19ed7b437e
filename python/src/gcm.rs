//! AES-GCM with pyca's `AESGCM` interface, and RFC 4106 ESP.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::buf::{alias, maybe_detached, AeadArgs, Alias, Buf};
use crate::{err, pick_backend, InvalidTag};

const TAG: usize = 16;
/// pyca refuses data or associated data longer than this.
const MAX_LEN: usize = (1 << 31) - 1;

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
    if data > MAX_LEN || aad > MAX_LEN {
        return Err(PyOverflowError::new_err(
            "Data or associated data too long. Max 2**31 - 1 bytes",
        ));
    }
    if !(8..=128).contains(&nonce) {
        return Err(PyValueError::new_err(
            "Nonce must be between 8 and 128 bytes",
        ));
    }
    Ok(())
}

#[pymethods]
impl AesGcm {
    #[new]
    #[pyo3(signature = (key, *, backend = None))]
    fn new(key: &Bound<'_, PyAny>, backend: Option<&str>) -> PyResult<Self> {
        let key = Buf::read(key)?;
        if !matches!(key.len(), 16 | 24 | 32) {
            return Err(PyValueError::new_err(
                "AESGCM key must be 128, 192, or 256 bits.",
            ));
        }
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
    /// 16-byte tag. `associated_data` may be None.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let args = read_args(nonce, data, associated_data)?;
        let (nonce, data) = (&args.nonce, &args.data);
        let (n, a, d) = (nonce.as_slice(), args.aad(), data.as_slice());
        let gcm = &self.gcm;
        PyBytes::new_with(py, d.len() + TAG, |out| {
            maybe_detached(py, d.len(), || gcm.seal_to(n, a, d, out))
                .map(|_| ())
                .map_err(err)
        })
    }

    /// Verifies the tag at the end of `data` and returns the plaintext;
    /// raises InvalidTag (releasing nothing) if it does not verify.
    #[pyo3(signature = (nonce, data, associated_data))]
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        associated_data: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let args = read_args(nonce, data, associated_data)?;
        let (nonce, data) = (&args.nonce, &args.data);
        if data.len() < TAG {
            return Err(InvalidTag::new_err(()));
        }
        let (n, a, d) = (nonce.as_slice(), args.aad(), data.as_slice());
        let gcm = &self.gcm;
        PyBytes::new_with(py, d.len() - TAG, |out| {
            maybe_detached(py, d.len(), || gcm.open_to(n, a, d, out))
                .map(|_| ())
                .map_err(err)
        })
    }

    /// As encrypt, writing ciphertext and tag into `buf`, a writable buffer
    /// of exactly len(data) + 16 bytes (it may be the input's own memory);
    /// returns the bytes written.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn encrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let args = read_args(nonce, data, associated_data)?;
        let (nonce, data) = (&args.nonce, &args.data);
        let mut out = Buf::write(buf)?;
        let len = data.len();
        if out.len() != len + TAG {
            return Err(PyValueError::new_err(format!(
                "buffer must be {} bytes",
                len + TAG
            )));
        }
        let (n, a) = (nonce.as_slice(), args.aad());
        let gcm = &self.gcm;
        let how = alias(data, &out);
        let copy = (how == Alias::Partial).then(|| data.as_slice().to_vec());
        let src = if how == Alias::Same {
            None
        } else {
            Some(copy.as_deref().unwrap_or(data.as_slice()))
        };
        let o = out.as_mut_slice();
        maybe_detached(py, len, || match src {
            Some(s) => gcm.seal_to(n, a, s, o).map(|_| ()),
            None => {
                let (body, tag) = o.split_at_mut(len);
                let t = gcm.seal_in_place_detached(n, a, body)?;
                tag.copy_from_slice(t.as_bytes());
                Ok(())
            }
        })
        .map_err(err)?;
        Ok(len + TAG)
    }

    /// As decrypt, writing the plaintext into `buf`, a writable buffer of
    /// exactly len(data) - 16 bytes (it may be the input's own memory). On
    /// InvalidTag `buf` is zeroed.
    #[pyo3(signature = (nonce, data, associated_data, buf))]
    fn decrypt_into(
        &self,
        py: Python<'_>,
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        associated_data: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let args = read_args(nonce, data, associated_data)?;
        let (nonce, data) = (&args.nonce, &args.data);
        if data.len() < TAG {
            return Err(InvalidTag::new_err(()));
        }
        let mut out = Buf::write(buf)?;
        let len = data.len() - TAG;
        if out.len() != len {
            return Err(PyValueError::new_err(format!("buffer must be {len} bytes")));
        }
        let (n, a) = (nonce.as_slice(), args.aad());
        let gcm = &self.gcm;
        let how = alias(data, &out);
        let mut tag = [0u8; TAG];
        tag.copy_from_slice(&data.as_slice()[len..]);
        let copy = (how == Alias::Partial).then(|| data.as_slice()[..len].to_vec());
        let src = if how == Alias::Same {
            None
        } else {
            Some(copy.as_deref().unwrap_or(&data.as_slice()[..len]))
        };
        let o = out.as_mut_slice();
        maybe_detached(py, len, || match src {
            Some(s) => gcm.open_to_detached(n, a, s, &tag, o),
            None => gcm.open_in_place_detached(n, a, o, &tag),
        })
        .map_err(err)?;
        Ok(len)
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

impl Esp {
    fn seal<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        let (iv, data, aad) = (Buf::read(iv)?, Buf::read(data)?, Buf::read(aad)?);
        let (i, d, a) = (iv.as_slice(), data.as_slice(), aad.as_slice());
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
        Ok((out, sum))
    }

    fn open<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        let (iv, data, aad) = (Buf::read(iv)?, Buf::read(data)?, Buf::read(aad)?);
        let (i, d, a) = (iv.as_slice(), data.as_slice(), aad.as_slice());
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
        Ok((out, sum))
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
        self.seal(py, iv, data, aad).map(|r| r.0)
    }

    /// As encrypt, with the one's-complement checksum of the plaintext.
    fn encrypt_with_checksum<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        self.seal(py, iv, data, aad)
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
        self.open(py, iv, data, aad).map(|r| r.0)
    }

    /// As decrypt, with the one's-complement checksum of the plaintext.
    fn decrypt_with_checksum<'py>(
        &self,
        py: Python<'py>,
        iv: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: &Bound<'py, PyAny>,
    ) -> PyResult<(Bound<'py, PyBytes>, u64)> {
        self.open(py, iv, data, aad)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AesGcm>()?;
    m.add_class::<Esp>()?;
    Ok(())
}
