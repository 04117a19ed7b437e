//! AES-CMAC (SP 800-38B) with the interface of
//! `cryptography.hazmat.primitives.cmac.CMAC`: `update`, `finalize`,
//! `verify`, `copy`, and `AlreadyFinalized` after `finalize` or `verify`.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::backend::pick_backend;
use crate::buf::{maybe_detached, Buf};
use crate::errors::{err, AlreadyFinalized, InvalidSignature, UnsupportedAlgorithm};

/// A CMAC computation in progress. The hasher owns its copy of the key: a
/// Python object cannot hold a borrow.
#[derive(Clone)]
struct Running {
    hasher: aesx::CmacHasher<'static>,
}

impl Running {
    fn start(key: aesx::Cmac) -> Self {
        Running {
            hasher: key.into_hasher(),
        }
    }

    /// Ends the computation with `end`.
    fn finish<T>(self, end: impl FnOnce(aesx::CmacHasher<'_>) -> T) -> T {
        end(self.hasher)
    }
}

/// AES-CMAC, as `cryptography`'s CMAC: `CMAC(algorithms.AES(key))` (aesx's
/// or `cryptography`'s AES object; 16, 24 or 32-byte keys).
#[pyclass(module = "aesx.cmac", name = "CMAC")]
pub struct Cmac {
    run: Option<Running>,
}

fn finalized() -> PyErr {
    AlreadyFinalized::new_err("Context was already finalized.")
}

impl Cmac {
    fn running(&mut self) -> PyResult<&mut Running> {
        self.run.as_mut().ok_or_else(finalized)
    }

    fn take(&mut self) -> PyResult<Running> {
        self.running()?;
        Ok(self.run.take().expect("checked just above"))
    }
}

#[pymethods]
impl Cmac {
    /// `backend` is ignored unless it is an aesx backend name.
    #[new]
    #[pyo3(signature = (algorithm, backend = None))]
    fn new(algorithm: &Bound<'_, PyAny>, backend: Option<&Bound<'_, PyAny>>) -> PyResult<Self> {
        let name = algorithm
            .getattr("name")
            .and_then(|n| n.extract::<String>());
        let key = algorithm.getattr("key");
        // pyca takes any BlockCipherAlgorithm and refuses other algorithms
        // (a stream cipher such as ChaCha20) with TypeError; a block
        // cipher is what has a block size.
        let block = algorithm.hasattr("block_size").unwrap_or(false);
        let (Ok(name), Ok(key), true) = (name, key, block) else {
            return Err(PyTypeError::new_err(
                "Expected instance of BlockCipherAlgorithm.",
            ));
        };
        let key = Buf::read(&key)?;
        if name != "AES" || !matches!(key.len(), 16 | 24 | 32) {
            return Err(UnsupportedAlgorithm::new_err(
                "CMAC is not supported with this algorithm",
            ));
        }
        let backend = backend.and_then(|b| b.extract::<String>().ok());
        let b = pick_backend(backend.as_deref())?;
        let cmac = aesx::Cmac::with_backend(key.as_slice(), b).map_err(err)?;
        Ok(Cmac {
            run: Some(Running::start(cmac)),
        })
    }

    /// Appends `data` (any buffer) to the message.
    fn update(&mut self, py: Python<'_>, data: &Bound<'_, PyAny>) -> PyResult<()> {
        let data = Buf::read(data)?;
        let run = self.running()?;
        let d = data.as_slice();
        maybe_detached(py, d.len(), || run.hasher.update(d));
        Ok(())
    }

    /// The 16-byte tag; the context is finished afterwards.
    fn finalize<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let tag = self.take()?.finish(|h| h.finalize());
        Ok(PyBytes::new(py, &tag))
    }

    /// Checks `signature` (bytes, the full 16-byte tag, compared in constant
    /// time); raises InvalidSignature if it does not match. The context is
    /// finished afterwards.
    fn verify(&mut self, signature: &[u8]) -> PyResult<()> {
        let run = self.take()?;
        // pyca compares whole tags: a truncated one does not match.
        let full = signature.len() == aesx::Cmac::TAG_LEN;
        let ok = run.finish(|h| h.verify(signature).is_ok()) && full;
        if ok {
            Ok(())
        } else {
            Err(InvalidSignature::new_err("Signature did not match digest."))
        }
    }

    /// An independent context with the same key and the message so far.
    fn copy(&self) -> PyResult<Cmac> {
        let run = self.run.clone().ok_or_else(finalized)?;
        Ok(Cmac { run: Some(run) })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Cmac>()?;
    Ok(())
}
