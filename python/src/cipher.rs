//! Streaming ECB, CBC, CTR, XTS, CFB, CFB8 and OFB contexts with pyca's
//! `update`/`update_into`/`finalize`, and the XTS sector API.
//!
//! The pyca-shaped `Cipher(algorithms.AES(key), modes.CBC(iv))` objects are
//! Python (`aesx/ciphers.py`); they validate the arguments as pyca does and
//! build a [`CipherContext`] here.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::backend::pick_backend;
use crate::buf::{alias, maybe_detached, Alias, Buf};
use crate::checks::key_len;
use crate::errors::{err, AlreadyFinalized, UnsupportedAlgorithm};

const BLOCK: usize = 16;

// Boxed once per context (CipherContext::mode), so the variants' sizes do
// not matter.
#[allow(clippy::large_enum_variant)]
enum Mode {
    Ecb(aesx::Ecb),
    Cbc(aesx::Cbc, [u8; BLOCK]),
    Ctr(aesx::Ctr),
    Xts(aesx::Xts, [u8; BLOCK]),
    Cfb(aesx::Cfb),
    Cfb8(aesx::Cfb8),
    Ofb(aesx::Ofb),
}

/// A streaming encryption or decryption (pyca's CipherContext).
#[pyclass(module = "aesx")]
pub struct CipherContext {
    // Boxed: key schedules may need more alignment than Python's
    // allocator gives a pyclass object.
    mode: Option<Box<Mode>>,
    encrypt: bool,
    pkcs7: bool,
    /// Bytes not yet processed: a partial block, or (decrypting with PKCS#7)
    /// up to one whole block held back until finalize.
    pend: Vec<u8>,
}

impl Mode {
    /// Whole blocks (ECB/CBC) or any bytes (CTR) from `src` to `dst`.
    fn run(&mut self, encrypt: bool, src: &[u8], dst: &mut [u8]) -> aesx::Result<()> {
        match self {
            Mode::Ecb(e) if encrypt => e.encrypt(src, dst, aesx::Padding::None).map(|_| ()),
            Mode::Ecb(e) => e.decrypt(src, dst, aesx::Padding::None).map(|_| ()),
            Mode::Cbc(c, iv) if encrypt => c.encrypt_chained_to(iv, src, dst),
            Mode::Cbc(c, iv) => c.decrypt_chained_to(iv, src, dst),
            Mode::Ctr(c) => c.apply_keystream_to(src, dst),
            Mode::Xts(x, t) if encrypt => x.encrypt_to(t, src, dst),
            Mode::Xts(x, t) => x.decrypt_to(t, src, dst),
            Mode::Cfb(c) if encrypt => c.encrypt_to(src, dst),
            Mode::Cfb(c) => c.decrypt_to(src, dst),
            Mode::Cfb8(c) if encrypt => c.encrypt_to(src, dst),
            Mode::Cfb8(c) => c.decrypt_to(src, dst),
            Mode::Ofb(o) => o.apply_keystream_to(src, dst),
        }
    }

    /// In place, same rules as `run`.
    fn run_in_place(&mut self, encrypt: bool, buf: &mut [u8]) -> aesx::Result<()> {
        match self {
            Mode::Ecb(e) if encrypt => e.encrypt_in_place(buf),
            Mode::Ecb(e) => e.decrypt_in_place(buf),
            Mode::Cbc(c, iv) if encrypt => c.encrypt_chained(iv, buf),
            Mode::Cbc(c, iv) => c.decrypt_chained(iv, buf),
            Mode::Ctr(c) => {
                c.apply_keystream(buf);
                Ok(())
            }
            Mode::Xts(x, t) if encrypt => x.encrypt(t, buf),
            Mode::Xts(x, t) => x.decrypt(t, buf),
            Mode::Cfb(c) if encrypt => {
                c.encrypt(buf);
                Ok(())
            }
            Mode::Cfb(c) => {
                c.decrypt(buf);
                Ok(())
            }
            Mode::Cfb8(c) if encrypt => {
                c.encrypt(buf);
                Ok(())
            }
            Mode::Cfb8(c) => {
                c.decrypt(buf);
                Ok(())
            }
            Mode::Ofb(o) => {
                o.apply_keystream(buf);
                Ok(())
            }
        }
    }

    fn is_block(&self) -> bool {
        matches!(self, Mode::Ecb(_) | Mode::Cbc(..))
    }
}

impl CipherContext {
    fn mode(&mut self) -> PyResult<&mut Mode> {
        self.mode
            .as_deref_mut()
            .ok_or_else(|| AlreadyFinalized::new_err("Context was already finalized."))
    }

    /// Output length of `update` on `n` more bytes (block modes).
    fn out_len(&self, n: usize) -> usize {
        let total = self.pend.len() + n;
        let whole = total - total % BLOCK;
        if !self.encrypt && self.pkcs7 && total.is_multiple_of(BLOCK) && total > 0 {
            whole - BLOCK
        } else {
            whole
        }
    }

    /// Processes `src` into `dst` (exactly the output length) for the block
    /// modes: completes the pending block, runs the whole blocks straight
    /// from the caller's buffer, keeps the rest. `src` and `dst` are
    /// disjoint.
    fn block_update(&mut self, py: Python<'_>, src: &[u8], dst: &mut [u8]) -> PyResult<()> {
        let out = dst.len();
        let encrypt = self.encrypt;
        let mut taken = 0;
        let mut head = None;
        if !self.pend.is_empty() && out > 0 {
            taken = BLOCK - self.pend.len();
            let mut h = [0u8; BLOCK];
            h[..self.pend.len()].copy_from_slice(&self.pend);
            h[self.pend.len()..].copy_from_slice(&src[..taken]);
            self.pend.clear();
            head = Some(h);
        }
        let mode = self.mode()?;
        let mut written = 0;
        if let Some(h) = head {
            mode.run(encrypt, &h, &mut dst[..BLOCK]).map_err(err)?;
            written = BLOCK;
        }
        let body = out - written;
        let s = &src[taken..taken + body];
        let d = &mut dst[written..];
        maybe_detached(py, body, || mode.run(encrypt, s, d)).map_err(err)?;
        self.pend.extend_from_slice(&src[taken + body..]);
        Ok(())
    }

    fn check_xts(&self, n: usize) -> PyResult<()> {
        if matches!(self.mode.as_deref(), Some(Mode::Xts(..))) && n < BLOCK {
            return Err(PyValueError::new_err(
                "In XTS mode you must supply at least a full block in the first update call. For AES this is 16 bytes.",
            ));
        }
        Ok(())
    }

    fn update_impl(&mut self, py: Python<'_>, src: &[u8], dst: &mut [u8]) -> PyResult<()> {
        if self.mode()?.is_block() {
            self.block_update(py, src, dst)
        } else {
            let encrypt = self.encrypt;
            let mode = self.mode()?;
            maybe_detached(py, src.len(), || mode.run(encrypt, src, dst)).map_err(err)
        }
    }
}

#[pymethods]
impl CipherContext {
    /// Processes `data`; returns what is ready (block modes keep a partial
    /// block, and a PKCS#7 decryptor the last block, until finalize).
    fn update<'py>(
        &mut self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let data = Buf::read(data)?;
        let src = data.as_slice();
        self.mode()?;
        self.check_xts(src.len())?;
        let encrypt = self.encrypt;
        if let Some(Mode::Xts(..)) = self.mode.as_deref() {
            let mode = self.mode()?;
            return PyBytes::new_with(py, src.len(), |out| {
                maybe_detached(py, src.len(), || mode.run(encrypt, src, out)).map_err(err)
            });
        }
        let n = if self.mode()?.is_block() {
            self.out_len(src.len())
        } else {
            src.len()
        };
        PyBytes::new_with(py, n, |out| self.update_impl(py, src, out))
    }

    /// As update, writing into `buf` (at least len(data) + 15 bytes for ECB
    /// and CBC, len(data) for the stream modes and XTS; it may be the input's own
    /// memory). Returns the bytes written.
    fn update_into(
        &mut self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let data = Buf::read(data)?;
        let mut out = Buf::write(buf)?;
        let is_block = self.mode()?.is_block();
        let n = data.len();
        let need = if is_block { n + BLOCK - 1 } else { n };
        if out.len() < need {
            return Err(PyValueError::new_err(format!(
                "buffer must be at least {need} bytes for this payload"
            )));
        }
        self.check_xts(n)?;
        let how = alias(&data, &out);
        let copy = (how == Alias::Partial).then(|| data.as_slice().to_vec());
        let encrypt = self.encrypt;
        if is_block {
            let written = self.out_len(n);
            if how == Alias::Same && self.pend.is_empty() {
                // In place from a block boundary: the whole blocks run in
                // place; the bytes kept for later are still unwritten.
                let o = out.as_mut_slice();
                let mode = self.mode()?;
                let d = &mut o[..written];
                maybe_detached(py, written, || mode.run_in_place(encrypt, d)).map_err(err)?;
                self.pend.extend_from_slice(&o[written..n]);
                return Ok(written);
            }
            // In place after a partial block shifts the output against the
            // input: work from a copy then, as for a partial overlap.
            let copy = match (how, copy) {
                (Alias::None, _) => None,
                (_, Some(c)) => Some(c),
                (_, None) => Some(data.as_slice().to_vec()),
            };
            let src: &[u8] = copy.as_deref().unwrap_or(data.as_slice());
            let dst = &mut out.as_mut_slice()[..written];
            self.block_update(py, src, dst)?;
            return Ok(written);
        }
        let mode = self.mode()?;
        let dst = &mut out.as_mut_slice()[..n];
        match (how, &copy) {
            (Alias::Same, _) => {
                maybe_detached(py, n, || mode.run_in_place(encrypt, dst)).map_err(err)?
            }
            (_, Some(c)) => maybe_detached(py, n, || mode.run(encrypt, c, dst)).map_err(err)?,
            (_, None) => {
                let s = data.as_slice();
                maybe_detached(py, n, || mode.run(encrypt, s, dst)).map_err(err)?
            }
        }
        Ok(n)
    }

    /// CTR mode only: starts the keystream again from the 16-byte initial
    /// counter block `nonce`, as a fresh context with that nonce would (the
    /// context keeps its key and direction). Other modes raise
    /// UnsupportedAlgorithm, as in `cryptography`.
    fn reset_nonce(&mut self, nonce: &Bound<'_, PyAny>) -> PyResult<()> {
        let nonce = Buf::read(nonce)?;
        let Mode::Ctr(ctr) = self.mode()? else {
            return Err(UnsupportedAlgorithm::new_err(
                "This algorithm or mode does not support resetting the nonce.",
            ));
        };
        let n = nonce.as_slice();
        if n.len() != BLOCK {
            return Err(PyValueError::new_err(format!(
                "Nonce must be {BLOCK} bytes long"
            )));
        }
        *ctr = aesx::Ctr::from_aes(ctr.aes().clone(), n).map_err(err)?;
        Ok(())
    }

    /// Ends the operation: adds or checks and removes PKCS#7 padding, or
    /// raises ValueError if a block mode without padding was given a
    /// partial block. Later calls raise AlreadyFinalized.
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let mut mode = self
            .mode
            .take()
            .ok_or_else(|| AlreadyFinalized::new_err("Context was already finalized."))?;
        let pend = std::mem::take(&mut self.pend);
        if !mode.is_block() {
            return Ok(PyBytes::new(py, &[]));
        }
        if !self.pkcs7 {
            if !pend.is_empty() {
                return Err(PyValueError::new_err(
                    "The length of the provided data is not a multiple of the block length.",
                ));
            }
            return Ok(PyBytes::new(py, &[]));
        }
        let mut block = [0u8; BLOCK];
        if self.encrypt {
            let pad = (BLOCK - pend.len()) as u8;
            block[..pend.len()].copy_from_slice(&pend);
            block[pend.len()..].fill(pad);
            mode.run_in_place(true, &mut block).map_err(err)?;
            return Ok(PyBytes::new(py, &block));
        }
        if pend.len() != BLOCK {
            return Err(PyValueError::new_err("Invalid padding bytes."));
        }
        let mut out = [0u8; BLOCK];
        let n = match &*mode {
            Mode::Ecb(e) => e.decrypt(&pend, &mut out, aesx::Padding::Pkcs7),
            Mode::Cbc(c, iv) => c.decrypt(iv, &pend, &mut out, aesx::Padding::Pkcs7),
            _ => unreachable!("block modes only"),
        }
        .map_err(|_| PyValueError::new_err("Invalid padding bytes."))?;
        Ok(PyBytes::new(py, &out[..n]))
    }
}

/// Builds a context; `mode` is "ECB", "CBC", "CTR", "XTS", "CFB", "CFB8" or
/// "OFB", `threads` (CTR and XTS) the threads one large update may use, `iv` the IV,
/// counter block or tweak (ignored for ECB). Arguments are validated by the
/// Python wrappers (aesx.Cipher) as pyca does.
#[pyfunction]
#[pyo3(signature = (mode, key, iv, encrypt, pkcs7 = false, backend = None, threads = None))]
fn _context(
    mode: &str,
    key: &Bound<'_, PyAny>,
    iv: Option<&Bound<'_, PyAny>>,
    encrypt: bool,
    pkcs7: bool,
    backend: Option<&str>,
    threads: Option<&Bound<'_, PyAny>>,
) -> PyResult<CipherContext> {
    let threads = crate::checks::threads(threads)?;
    if threads > 1 && !matches!(mode, "CTR" | "XTS") {
        return Err(PyValueError::new_err(format!(
            "threads > 1 splits CTR and XTS only; {mode} runs on one thread"
        )));
    }
    let key = Buf::read(key)?;
    let k = key.as_slice();
    let b = pick_backend(backend)?;
    let iv16 = || -> PyResult<[u8; BLOCK]> {
        let iv = iv.ok_or_else(|| PyValueError::new_err("this mode needs an IV"))?;
        let iv = Buf::read(iv)?;
        iv.as_slice()
            .try_into()
            .map_err(|_| PyValueError::new_err(format!("Invalid IV size ({})", iv.len())))
    };
    let m = match mode {
        "ECB" => Mode::Ecb(aesx::Ecb::with_backend(k, b).map_err(err)?),
        "CBC" => Mode::Cbc(aesx::Cbc::with_backend(k, b).map_err(err)?, iv16()?),
        "CTR" => Mode::Ctr(
            aesx::Ctr::with_backend(k, &iv16()?, b)
                .map_err(err)?
                .with_threads(threads),
        ),
        "CFB" => Mode::Cfb(aesx::Cfb::with_backend(k, &iv16()?, b).map_err(err)?),
        "CFB8" => Mode::Cfb8(aesx::Cfb8::with_backend(k, &iv16()?, b).map_err(err)?),
        "OFB" => Mode::Ofb(aesx::Ofb::with_backend(k, &iv16()?, b).map_err(err)?),
        "XTS" => {
            let x = aesx::Xts::with_backend(k, b)
                .map_err(err)?
                .with_threads(threads);
            if encrypt && k[..k.len() / 2] == k[k.len() / 2..] {
                return Err(PyValueError::new_err(
                    "In XTS mode duplicated keys are not allowed",
                ));
            }
            Mode::Xts(x, iv16()?)
        }
        other => return Err(PyValueError::new_err(format!("unknown mode {other:?}"))),
    };
    let pkcs7 = pkcs7 && m.is_block();
    Ok(CipherContext {
        mode: Some(Box::new(m)),
        encrypt,
        pkcs7,
        pend: Vec::with_capacity(BLOCK),
    })
}

/// XTS-AES for disks and images: `key` is 32 bytes (XTS-AES-128) or 64
/// (XTS-AES-256); halves must differ to encrypt. A data unit is 16 bytes to
/// 16 MiB; sector numbers are 128-bit little-endian tweaks (IEEE 1619).
#[pyclass(frozen, module = "aesx", name = "XTS")]
pub struct Xts {
    // Boxed: key schedules may need more alignment than Python's
    // allocator gives a pyclass object.
    xts: Box<aesx::Xts>,
}

fn tweak(t: &Bound<'_, PyAny>) -> PyResult<[u8; BLOCK]> {
    let b = Buf::read(t)?;
    b.as_slice()
        .try_into()
        .map_err(|_| PyValueError::new_err("tweak must be 128-bits (16 bytes)"))
}

impl Xts {
    /// Runs `f` from `data` into new bytes of its length.
    fn map<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        f: impl FnOnce(&aesx::Xts, &[u8], &mut [u8]) -> aesx::Result<()> + Send,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let d = Buf::read(data)?;
        let s = d.as_slice();
        let x = &self.xts;
        PyBytes::new_with(py, s.len(), |o| {
            maybe_detached(py, s.len(), || f(x, s, o)).map_err(err)
        })
    }

    fn one<'py>(
        &self,
        py: Python<'py>,
        encrypt: bool,
        t: [u8; BLOCK],
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.map(py, data, |x, s, o| {
            if encrypt {
                x.encrypt_to(&t, s, o)
            } else {
                x.decrypt_to(&t, s, o)
            }
        })
    }

    fn sectors<'py>(
        &self,
        py: Python<'py>,
        encrypt: bool,
        data: &Bound<'py, PyAny>,
        sector_size: usize,
        first_sector: u128,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.map(py, data, |x, s, o| {
            if encrypt {
                x.encrypt_sectors_to(sector_size, first_sector, s, o)
            } else {
                x.decrypt_sectors_to(sector_size, first_sector, s, o)
            }
        })
    }

    fn sectors_into(
        &self,
        py: Python<'_>,
        encrypt: bool,
        data: &Bound<'_, PyAny>,
        sector_size: usize,
        first_sector: u128,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        let d = Buf::read(data)?;
        let mut out = Buf::write(buf)?;
        if out.len() != d.len() {
            return Err(PyValueError::new_err(format!(
                "buffer must be {} bytes",
                d.len()
            )));
        }
        let how = alias(&d, &out);
        let copy = (how == Alias::Partial).then(|| d.as_slice().to_vec());
        let x = &self.xts;
        let n = d.len();
        let o = out.as_mut_slice();
        let src = match (&copy, how) {
            (Some(c), _) => Some(c.as_slice()),
            (None, Alias::Same) => None,
            (None, _) => Some(d.as_slice()),
        };
        maybe_detached(py, n, || match (src, encrypt) {
            (Some(s), true) => x.encrypt_sectors_to(sector_size, first_sector, s, o),
            (Some(s), false) => x.decrypt_sectors_to(sector_size, first_sector, s, o),
            (None, true) => x.encrypt_sectors(sector_size, first_sector, o),
            (None, false) => x.decrypt_sectors(sector_size, first_sector, o),
        })
        .map_err(err)?;
        Ok(n)
    }
}

#[pymethods]
impl Xts {
    #[new]
    #[pyo3(signature = (key, *, backend = None))]
    fn new(key: &Bound<'_, PyAny>, backend: Option<&str>) -> PyResult<Self> {
        let k = Buf::read(key)?;
        key_len(
            k.as_slice(),
            &[32, 64],
            "The XTS specification requires a 256-bit key for AES-128-XTS and 512-bit key for AES-256-XTS",
        )?;
        let xts = aesx::Xts::with_backend(k.as_slice(), pick_backend(backend)?).map_err(err)?;
        Ok(Xts { xts: Box::new(xts) })
    }

    /// The backend this key runs on.
    #[getter]
    fn backend(&self) -> &'static str {
        self.xts.backend().name()
    }

    /// Encrypts one data unit under a 16-byte tweak.
    fn encrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.one(py, true, self::tweak(tweak)?, data)
    }

    /// Decrypts one data unit under a 16-byte tweak.
    fn decrypt<'py>(
        &self,
        py: Python<'py>,
        tweak: &Bound<'py, PyAny>,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.one(py, false, self::tweak(tweak)?, data)
    }

    /// Encrypts data unit number `sector` (tweak: its 128-bit little-endian
    /// encoding).
    fn encrypt_sector<'py>(
        &self,
        py: Python<'py>,
        sector: u128,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.one(py, true, sector.to_le_bytes(), data)
    }

    /// Decrypts data unit number `sector`.
    fn decrypt_sector<'py>(
        &self,
        py: Python<'py>,
        sector: u128,
        data: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.one(py, false, sector.to_le_bytes(), data)
    }

    /// Encrypts consecutive sectors of `sector_size` bytes (a multiple of
    /// 16, e.g. 512 or 4096) numbered from `first_sector`; `data` must be a
    /// whole number of sectors.
    fn encrypt_sectors<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        sector_size: usize,
        first_sector: u128,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.sectors(py, true, data, sector_size, first_sector)
    }

    /// Decrypts consecutive sectors, as encrypt_sectors.
    fn decrypt_sectors<'py>(
        &self,
        py: Python<'py>,
        data: &Bound<'py, PyAny>,
        sector_size: usize,
        first_sector: u128,
    ) -> PyResult<Bound<'py, PyBytes>> {
        self.sectors(py, false, data, sector_size, first_sector)
    }

    /// As encrypt_sectors, into `buf` (same length as `data`; may be the
    /// same memory).
    fn encrypt_sectors_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        sector_size: usize,
        first_sector: u128,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.sectors_into(py, true, data, sector_size, first_sector, buf)
    }

    /// As decrypt_sectors, into `buf`.
    fn decrypt_sectors_into(
        &self,
        py: Python<'_>,
        data: &Bound<'_, PyAny>,
        sector_size: usize,
        first_sector: u128,
        buf: &Bound<'_, PyAny>,
    ) -> PyResult<usize> {
        self.sectors_into(py, false, data, sector_size, first_sector, buf)
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<CipherContext>()?;
    m.add_class::<Xts>()?;
    m.add_function(wrap_pyfunction!(_context, m)?)?;
    Ok(())
}
