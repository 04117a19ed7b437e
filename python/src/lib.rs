//! The `aesx._aesx` extension module: thin doors onto the aesx library and
//! the aesx-file format. The Python-facing package (`python/aesx/`) wraps
//! these in pyca-shaped classes where that is more natural in Python.

use std::sync::Mutex;

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

mod aead;
mod buf;
mod checks;
mod cipher;
mod cmac;
mod cuda;
mod file;
mod gcm;
mod keywrap;
mod methods;

/// Calls that process at least this many bytes release the GIL. Below it,
/// releasing and re-taking the GIL costs more than other threads gain.
pub const RELEASE_GIL_AT: usize = 4096;

create_exception!(
    aesx,
    InvalidTag,
    PyException,
    "The authentication tag did not verify: the key, nonce, associated data or ciphertext is wrong. No plaintext was released."
);
create_exception!(
    aesx,
    AlreadyFinalized,
    PyException,
    "The cipher context was already finalized."
);
create_exception!(
    aesx,
    DecryptionError,
    PyValueError,
    "An aesx encrypted file could not be decrypted: not an aesx file, wrong key or passphrase, truncated, extended or modified. Nothing unverified was released."
);

/// The backend chosen with `use_backend`, if any.
static DEFAULT_BACKEND: Mutex<Option<aesx::Backend>> = Mutex::new(None);

/// Maps a library error to the exception pyca raises for it.
pub fn err(e: aesx::Error) -> PyErr {
    match e {
        aesx::Error::AuthenticationFailed => InvalidTag::new_err(()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// The backend for a new key: the named one, else the one set with
/// `use_backend`, else `AESX_BACKEND`, else the fastest.
pub fn pick_backend(name: Option<&str>) -> PyResult<aesx::Backend> {
    match name {
        Some(n) => parse_backend(n),
        None => {
            let set = *DEFAULT_BACKEND.lock().unwrap_or_else(|p| p.into_inner());
            match set {
                Some(b) => Ok(b),
                None => aesx::Backend::preferred().map_err(err),
            }
        }
    }
}

fn parse_backend(name: &str) -> PyResult<aesx::Backend> {
    let b: aesx::Backend = name.trim().parse().map_err(err)?;
    b.require().map_err(err)
}

/// The backends this machine can run, slowest first (the last is the
/// default unless `use_backend` or the environment variable `AESX_BACKEND`
/// says otherwise).
#[pyfunction]
fn backends() -> Vec<&'static str> {
    aesx::Backend::available()
        .iter()
        .map(|b| b.name())
        .collect()
}

/// The backend that new keys use when no `backend=` is given.
#[pyfunction]
fn default_backend() -> PyResult<&'static str> {
    pick_backend(None).map(|b| b.name())
}

/// Makes `name` (one of `backends()`) the default for keys created from now
/// on in this process; `None` goes back to `AESX_BACKEND` or the fastest.
/// A backend this machine cannot run raises ValueError.
#[pyfunction]
#[pyo3(signature = (name))]
fn use_backend(name: Option<&str>) -> PyResult<()> {
    let b = name.map(parse_backend).transpose()?;
    *DEFAULT_BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = b;
    Ok(())
}

#[pymodule]
fn _aesx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidTag", py.get_type::<InvalidTag>())?;
    m.add("AlreadyFinalized", py.get_type::<AlreadyFinalized>())?;
    m.add("DecryptionError", py.get_type::<DecryptionError>())?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(default_backend, m)?)?;
    m.add_function(wrap_pyfunction!(use_backend, m)?)?;
    m.add("RELEASE_GIL_AT", RELEASE_GIL_AT)?;
    gcm::register(m)?;
    aead::register(m)?;
    keywrap::register(m)?;
    cmac::register(m)?;
    cipher::register(m)?;
    file::register(m)?;
    cuda::register(m)?;
    Ok(())
}
