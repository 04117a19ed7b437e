//! The AEADs beside GCM: AES-GCM-SIV and AES-CCM with pyca's `AESGCMSIV`
//! and `AESCCM` interfaces, and XAES-256-GCM (not in pyca) in the same shape.
//!
//! The three classes differ only in their keys, nonces and length rules; the
//! sealing and opening around the library call is [`Sealed`], shared.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use aesx::parallel::for_call;

use crate::backend::pick_backend;
use crate::buf::{alias, maybe_detached, AeadArgs, Alias, Buf};
use crate::checks::{data_len, key_len};
use crate::errors::{err, InvalidTag};
use crate::gcm::generate;

/// One keyed library AEAD.
enum Kind {
    Siv(aesx::GcmSiv),
    Xaes(aesx::Xaes256Gcm),
    Ccm(aesx::Ccm),
}

impl Kind {
    /// `threads=` of a call: GCM-SIV splits a long message; XAES-256-GCM
    /// and CCM run on one thread, so they take 1 only.
    fn threads(&self, threads: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
        let n = crate::checks::threads(threads)?;
        if n > 1 && !matches!(self, Kind::Siv(_)) {
            return Err(PyValueError::new_err(
                "threads > 1 splits AESGCMSIV and AESGCM calls only; this AEAD runs on one thread",
            ));
        }
        Ok(n)
    }

    fn seal(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        threads: usize,
    ) -> aesx::Result<aesx::Tag> {
        match self {
            Kind::Siv(a) => for_call(a, threads, buf.len(), aesx::GcmSiv::with_threads)
                .seal_in_place_detached(nonce, aad, buf),
            Kind::Xaes(a) => a.seal_in_place_detached(nonce, aad, buf),
            Kind::Ccm(a) => a.seal_in_place_detached(nonce, aad, buf),
        }
    }

    fn open(
        &self,
        nonce: &[u8],
        aad: &[u8],
        buf: &mut [u8],
        tag: &[u8],
        threads: usize,
    ) -> aesx::Result<()> {
        match self {
            Kind::Siv(a) => for_call(a, threads, buf.len(), aesx::GcmSiv::with_threads)
                .open_in_place_detached(nonce, aad, buf, tag),
            Kind::Xaes(a) => a.open_in_place_detached(nonce, aad, buf, tag),
            Kind::Ccm(a) => a.open_in_place_detached(nonce, aad, buf, tag),
        }
    }

    fn backend(&self) -> aesx::Backend {
        match self {
            Kind::Siv(a) => a.backend(),
            Kind::Xaes(a) => a.backend(),
            Kind::Ccm(a) => a.backend(),
        }
    }

    /// pyca's checks, in pyca's order: the nonce, then the lengths. `len` is
    /// the plaintext's (when opening, the ciphertext's without its tag).
    fn check(
        &self,
        nonce: usize,
        data: usize,
        aad: usize,
        len: usize,
        sealing: bool,
    ) -> PyResult<()> {
        let fixed = |n: usize| {
            if nonce == n {
                Ok(())
            } else {
                Err(PyValueError::new_err(format!(
                    "Nonce must be {n} bytes long"
                )))
            }
        };
        match self {
            Kind::Siv(_) => fixed(12)?,
            Kind::Xaes(_) => fixed(24)?,
            Kind::Ccm(_) if !(7..=13).contains(&nonce) => {
                return Err(PyValueError::new_err(
                    "Nonce must be between 7 and 13 bytes",
                ))
            }
            Kind::Ccm(_) => {}
        }
        data_len(data, aad)?;
        // RFC 3610: the length field has 15 - nonce bytes, so a payload of
        // 2^(8L) bytes cannot be sealed; pyca lets a ciphertext of exactly
        // that length through to a failed open (InvalidTag).
        if let Kind::Ccm(_) = self {
            let limit = 1u64 << (8 * (15 - nonce)).min(63);
            let len = len as u64;
            if len > limit || (sealing && len == limit) {
                return Err(PyValueError::new_err("Data too long for nonce"));
            }
        }
        Ok(())
    }
}

/// A keyed AEAD with pyca's `encrypt`/`decrypt` (ciphertext then tag).
struct Sealed {
    // Boxed: the key schedule may need more alignment (64 bytes for
    // AVX-512 tables) than Python's allocator gives a pyclass object.
    kind: Box<Kind>,
    tag_len: usize,
}

impl Sealed {
    fn new(kind: aesx::Result<Kind>, tag_len: usize) -> PyResult<Self> {
        Ok(Sealed {
            kind: Box::new(kind.map_err(err)?),
            tag_len,
        })
    }

    /// pyca's `encrypt` (`sealing`) or `decrypt`.
    fn call<'py>(
        &self,
        py: Python<'py>,
        sealing: bool,
        nonce: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
        aad: Option<&Bound<'py, PyAny>>,
        threads: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let threads = self.kind.threads(threads)?;
        let args = AeadArgs::read(nonce, data, aad)?;
        let (n, a, d) = (args.nonce.as_slice(), args.aad(), args.data.as_slice());
        let (kind, tl) = (&self.kind, self.tag_len);
        let len = if sealing {
            d.len()
        } else {
            d.len().saturating_sub(tl)
        };
        kind.check(n.len(), d.len(), a.len(), len, sealing)?;
        if sealing {
            return PyBytes::new_with(py, d.len() + tl, |out| {
                let (body, tag) = out.split_at_mut(d.len());
                body.copy_from_slice(d);
                let t =
                    maybe_detached(py, d.len(), || kind.seal(n, a, body, threads)).map_err(err)?;
                tag.copy_from_slice(t.as_bytes());
                Ok(())
            });
        }
        if d.len() < tl {
            return Err(InvalidTag::new_err(()));
        }
        let (ct, tag) = d.split_at(len);
        PyBytes::new_with(py, len, |out| {
            out.copy_from_slice(ct);
            maybe_detached(py, len, || kind.open(n, a, out, tag, threads)).map_err(|e| match e {
                // A ciphertext just at CCM's length limit: pyca's InvalidTag.
                aesx::Error::MessageTooLong => InvalidTag::new_err(()),
                e => err(e),
            })
        })
    }

    /// pyca's `encrypt_into` (`sealing`) or `decrypt_into`, with `threads=`
    /// as `call` takes it: the output goes into `buf`, which must be exactly
    /// the output's length and may be the input's own memory. A failed open
    /// leaves `buf` zeroed.
    fn call_into(
        &self,
        py: Python<'_>,
        (sealing, threads): (bool, Option<&Bound<'_, PyAny>>),
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        aad: Option<&Bound<'_, PyAny>>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let threads = self.kind.threads(threads)?;
        let args = AeadArgs::read(nonce, data, aad)?;
        // pyca converts `buf` with the other arguments, before any check.
        let mut out = Buf::write(buf)?;
        let (n, a, d) = (args.nonce.as_slice(), args.aad(), args.data.as_slice());
        let (kind, tl) = (&self.kind, self.tag_len);
        let len = if sealing {
            d.len()
        } else {
            d.len().saturating_sub(tl)
        };
        // pyca's order: the nonce and lengths, a ciphertext shorter than its
        // tag, then the buffer's size.
        kind.check(n.len(), d.len(), a.len(), len, sealing)?;
        if !sealing && d.len() < tl {
            return Err(InvalidTag::new_err(()));
        }
        let total = if sealing { len + tl } else { len };
        if out.len() != total {
            return Err(PyValueError::new_err(format!(
                "buffer must be {total} bytes"
            )));
        }
        // The tag is read before the output is written: in place, the
        // output may cover it.
        let mut tag = [0u8; 16];
        if !sealing {
            tag[..tl].copy_from_slice(&d[len..]);
        }
        // The text goes into `buf` first (nothing to do when it is already
        // there), then is sealed or opened in place.
        match alias(&args.data, &out) {
            Alias::Same => {}
            Alias::None => out.as_mut_slice()[..len].copy_from_slice(&d[..len]),
            Alias::Partial => {
                let body = d[..len].to_vec();
                out.as_mut_slice()[..len].copy_from_slice(&body);
            }
        }
        let o = out.as_mut_slice();
        if sealing {
            let (body, tag_out) = o.split_at_mut(len);
            let t = maybe_detached(py, len, || kind.seal(n, a, body, threads)).map_err(err)?;
            tag_out.copy_from_slice(t.as_bytes());
        } else {
            let tag = &tag[..tl];
            let r = maybe_detached(py, len, || kind.open(n, a, o, tag, threads));
            if let Err(e) = r {
                // The library zeroes what it decrypted; an open refused
                // before decrypting leaves the ciphertext copied in, which
                // is not the caller's plaintext either, but a failed call
                // leaves zeros in all cases.
                o.fill(0);
                return Err(match e {
                    // A ciphertext just at CCM's length limit: pyca's InvalidTag.
                    aesx::Error::MessageTooLong => InvalidTag::new_err(()),
                    e => err(e),
                });
            }
        }
        Ok(total)
    }

    fn backend(&self) -> &'static str {
        self.kind.backend().name()
    }
}

/// Defines a pyclass around [`Sealed`]: its constructor (`$make` builds the
/// library object from the key bytes `$k` and the backend `$b`), its
/// `generate_key`, and the shared `backend`, `encrypt`, `decrypt` (over
/// [`Sealed::call`]) and `encrypt_into`, `decrypt_into` (over
/// [`Sealed::call_into`]).
// A macro because pyo3 needs one concrete `#[pyclass]` type with its own
// `#[pymethods]` block per Python class: a generic struct cannot be a
// pyclass, and the three classes must keep pyca's flat shape (no shared
// Python base class), so their method lists are stamped from this one.
macro_rules! aead_class {
    (
        $(#[$doc:meta])*
        $ty:ident, $name:literal,
        sig: ($($sig:tt)*), args: ($($arg:ident: $argty:ty),*),
        keys: $bits:expr, $bits_msg:literal,
        |$k:ident, $b:ident| $make:expr
    ) => {
        $(#[$doc])*
        #[pyclass(frozen, module = "aesx", name = $name)]
        pub struct $ty(Sealed);

        #[pymethods]
        impl $ty {
            #[new]
            #[pyo3(signature = ($($sig)*))]
            fn new(key: &Bound<'_, PyAny>, $($arg: $argty,)* backend: Option<&str>) -> PyResult<Self> {
                let $k = Buf::read(key)?;
                let $k = $k.as_slice();
                let $b = backend;
                $make.map($ty)
            }

            /// A fresh random key from the OS CSPRNG.
            #[staticmethod]
            fn generate_key<'py>(
                py: Python<'py>,
                bit_length: &Bound<'py, PyAny>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                generate(py, bit_length, &$bits, $bits_msg)
            }

            /// The backend this key runs on.
            #[getter]
            fn backend(&self) -> &'static str {
                self.0.backend()
            }

            /// Encrypts and authenticates `data`; returns the ciphertext
            /// followed by the tag. `associated_data` may be None.
            /// `threads` (keyword-only, an int >= 1; AESGCMSIV only, the
            /// others take 1) splits a message of at least 128 KiB per extra
            /// thread over that many threads, with the bytes of one thread.
            #[pyo3(signature = (nonce, data, associated_data, *, threads = None))]
            fn encrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
                threads: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                self.0.call(py, true, nonce, data, associated_data, threads)
            }

            /// Verifies the tag at the end of `data` and returns the
            /// plaintext; raises InvalidTag (releasing nothing) otherwise.
            /// `threads` as for encrypt: the tag over the whole message is
            /// checked before anything is returned.
            #[pyo3(signature = (nonce, data, associated_data, *, threads = None))]
            fn decrypt<'py>(
                &self,
                py: Python<'py>,
                nonce: &Bound<'py, PyAny>,
                data: &Bound<'py, PyAny>,
                associated_data: Option<&Bound<'py, PyAny>>,
                threads: Option<&Bound<'py, PyAny>>,
            ) -> PyResult<Bound<'py, PyBytes>> {
                self.0.call(py, false, nonce, data, associated_data, threads)
            }

            /// As encrypt, writing ciphertext and tag into `buf`, a writable
            /// buffer of exactly len(data) + the tag length (it may be the
            /// input's own memory); returns the bytes written.
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
                self.0.call_into(py, (true, threads), nonce, data, associated_data, buf)
            }

            /// As decrypt, writing the plaintext into `buf`, a writable buffer
            /// of exactly len(data) - the tag length (it may be the input's
            /// own memory). On InvalidTag `buf` is zeroed.
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
                self.0.call_into(py, (false, threads), nonce, data, associated_data, buf)
            }
        }
    };
}

aead_class! {
    /// AES-GCM-SIV (RFC 8452), as `cryptography`'s AESGCMSIV: nonce-misuse
    /// resistant, 12-byte nonces, 16-byte tags. Keys are 16, 24 or 32 bytes
    /// (24: AES-192-GCM-SIV as OpenSSL and pyca derive it; RFC 8452 has 16
    /// and 32 only).
    AesGcmSiv, "AESGCMSIV",
    sig: (key, *, backend = None), args: (),
    keys: [128, 192, 256], "bit_length must be 128, 192, or 256",
    |key, backend| {
        key_len(key, &[16, 24, 32], "AES-GCM-SIV key must be 128, 192 or 256 bits.")?;
        let b = pick_backend(backend)?;
        Sealed::new(aesx::GcmSiv::with_backend(key, b).map(Kind::Siv), 16)
    }
}

aead_class! {
    /// XAES-256-GCM (c2sp.org/XAES-256-GCM): AES-256-GCM with 24-byte random
    /// nonces, safe for about 2^80 messages per key. Not in `cryptography`;
    /// the interface is its AESGCM's. Keys are 32 bytes.
    Xaes256Gcm, "XAES256GCM",
    sig: (key, *, backend = None), args: (),
    keys: [256], "bit_length must be 256",
    |key, backend| {
        key_len(key, &[32], "XAES256GCM key must be 256 bits.")?;
        let b = pick_backend(backend)?;
        Sealed::new(aesx::Xaes256Gcm::with_backend(key, b).map(Kind::Xaes), 16)
    }
}

aead_class! {
    /// AES-CCM (SP 800-38C, RFC 3610), as `cryptography`'s AESCCM: 16, 24
    /// or 32-byte keys, tags of 4, 6, ..., 16 bytes, nonces of 7 to 13 bytes
    /// (a 13-byte nonce allows 64 KiB messages; 15 - len(nonce) bytes hold
    /// the length).
    AesCcm, "AESCCM",
    sig: (key, tag_length = 16, *, backend = None), args: (tag_length: usize),
    keys: [128, 192, 256], "bit_length must be 128, 192, or 256",
    |key, backend| {
        key_len(key, &[16, 24, 32], "AESCCM key must be 128, 192, or 256 bits.")?;
        if !matches!(tag_length, 4 | 6 | 8 | 10 | 12 | 14 | 16) {
            return Err(PyValueError::new_err("Invalid tag_length"));
        }
        let b = pick_backend(backend)?;
        Sealed::new(aesx::Ccm::with_backend(key, tag_length, b).map(Kind::Ccm), tag_length)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<AesGcmSiv>()?;
    m.add_class::<Xaes256Gcm>()?;
    m.add_class::<AesCcm>()?;
    Ok(())
}
