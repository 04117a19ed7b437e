//! Which backend a new key runs on: `backend=`, `use_backend`,
//! `AESX_BACKEND` or the fastest, and the module functions that list and
//! choose them.

use std::sync::Mutex;

use aesx_file::backend_name;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::errors::err;

/// The backend chosen with `use_backend`, if any.
static DEFAULT_BACKEND: Mutex<Option<aesx::Backend>> = Mutex::new(None);

/// The backend for a new key: the named one (`backend=`), else the one set
/// with `use_backend`, else the one `AESX_BACKEND` names (as for the CLI),
/// else the fastest. A name this machine cannot run, or one aesx does not
/// know, is a ValueError: never a silent fallback.
pub fn pick_backend(name: Option<&str>) -> PyResult<aesx::Backend> {
    if let Some(n) = name {
        return parse_backend(n, "backend");
    }
    let set = *DEFAULT_BACKEND.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(b) = set {
        return Ok(b);
    }
    match env_backend()? {
        Some(b) => Ok(b),
        None => aesx::Backend::preferred().map_err(err),
    }
}

/// The backend `AESX_BACKEND` forces, if it is set and not empty. Read at
/// each call, so a change to `os.environ` takes effect for the next key.
fn env_backend() -> PyResult<Option<aesx::Backend>> {
    let name = backend_name::env_value().map_err(value_error)?;
    name.map(|v| parse_backend(&v, backend_name::ENV_VAR))
        .transpose()
}

/// Parses a backend name and checks that this machine can run it, with the
/// parser the aesx command uses; `source` (`backend`, `AESX_BACKEND`) says
/// where the name came from.
fn parse_backend(name: &str, source: &str) -> PyResult<aesx::Backend> {
    backend_name::parse_cpu(name, source).map_err(|e| {
        // The GPU is a choice of the command line, not of this package.
        let hint = if backend_name::is_cuda_name(name) {
            " (the GPU is the aesx CLI's; the Python package runs on the CPU)"
        } else {
            ""
        };
        PyValueError::new_err(format!("{e}{hint}"))
    })
}

/// A front end's error (an unknown or unavailable name) as a ValueError.
fn value_error(e: aesx_file::CommandError) -> PyErr {
    PyValueError::new_err(e.to_string())
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

/// Every backend aesx knows, slowest first, whether or not this machine can
/// run it: the names `backend=` and `AESX_BACKEND` accept (the library's
/// list).
#[pyfunction]
fn all_backends() -> Vec<&'static str> {
    aesx::Backend::ALL.iter().map(|b| b.name()).collect()
}

/// The backend that new keys use when no `backend=` is given; ValueError if
/// `AESX_BACKEND` names one this machine cannot run.
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
    let b = name.map(|n| parse_backend(n, "use_backend")).transpose()?;
    *DEFAULT_BACKEND.lock().unwrap_or_else(|p| p.into_inner()) = b;
    Ok(())
}

/// Adds the backend functions to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(all_backends, m)?)?;
    m.add_function(wrap_pyfunction!(default_backend, m)?)?;
    m.add_function(wrap_pyfunction!(use_backend, m)?)?;
    Ok(())
}
