//! The `aesx._aesx` extension module: thin doors onto the aesx library and
//! the aesx-file format. The Python-facing package (`python/aesx/`) wraps
//! these in pyca-shaped classes where that is more natural in Python.

use std::sync::Mutex;

use aesx_file::backend_name;
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

/// Calls that process at least this many bytes release the GIL. Below it,
/// releasing and re-taking the GIL costs more than other threads gain.
pub const RELEASE_GIL_AT: usize = 4096;

/// Declares a Rust handle on an exception class that `aesx/_exceptions.py`
/// defines: there, each derives from `cryptography`'s exception of the same
/// name when `cryptography` is installed (so pyca's `except` lines catch it),
/// else from `Exception`. `Name::new_err(args)` makes the error lazily, as
/// `create_exception!` types do, so it can be built without the GIL.
// A macro because each exception needs a type of its own with its own
// `PyTypeInfo` impl and static type cell: a generic type or a blanket impl
// of pyo3's foreign trait is not allowed (orphan rule), and `&str` const
// generics are unstable.
macro_rules! python_exception {
    ($name:ident) => {
        pub struct $name;

        impl $name {
            pub fn new_err<A>(args: A) -> PyErr
            where
                A: pyo3::PyErrArguments + Send + Sync + 'static,
            {
                PyErr::new::<$name, A>(args)
            }
        }

        // SAFETY: `type_object_raw` returns a type object (a subclass of
        // BaseException) that the static cell holds a strong reference to
        // for the life of the process, so the pointer stays valid.
        unsafe impl pyo3::type_object::PyTypeInfo for $name {
            const NAME: &'static str = stringify!($name);
            const MODULE: Option<&'static str> = Some("aesx");

            fn type_object_raw(py: Python<'_>) -> *mut pyo3::ffi::PyTypeObject {
                static TYPE: pyo3::sync::GILOnceCell<Py<pyo3::types::PyType>> =
                    pyo3::sync::GILOnceCell::new();
                TYPE.get_or_init(py, || exception_class(py, stringify!($name)))
                    .as_ptr()
                    .cast()
            }
        }
    };
}

/// The class `name` of `aesx._exceptions`. Should that module be missing or
/// broken (a damaged install), a plain Exception subclass of that name, so
/// that raising never fails.
fn exception_class(py: Python<'_>, name: &str) -> Py<pyo3::types::PyType> {
    let found = py
        .import("aesx._exceptions")
        .and_then(|m| m.getattr(name))
        .and_then(|c| {
            c.downcast_into::<pyo3::types::PyType>()
                .map_err(PyErr::from)
        });
    match found {
        Ok(c)
            if c.is_subclass_of::<pyo3::exceptions::PyBaseException>()
                .unwrap_or(false) =>
        {
            c.unbind()
        }
        _ => {
            let qualified = std::ffi::CString::new(format!("aesx.{name}"))
                .expect("exception names have no NUL");
            let base = py.get_type::<PyException>();
            PyErr::new_type(py, &qualified, None, Some(&base), None)
                .expect("a subclass of Exception can always be created")
        }
    }
}

python_exception!(InvalidTag);
python_exception!(AlreadyFinalized);
python_exception!(InvalidSignature);
python_exception!(UnsupportedAlgorithm);
python_exception!(InvalidUnwrap);

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

#[pymodule]
fn _aesx(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("InvalidTag", py.get_type::<InvalidTag>())?;
    m.add("AlreadyFinalized", py.get_type::<AlreadyFinalized>())?;
    m.add("InvalidSignature", py.get_type::<InvalidSignature>())?;
    m.add(
        "UnsupportedAlgorithm",
        py.get_type::<UnsupportedAlgorithm>(),
    )?;
    m.add("InvalidUnwrap", py.get_type::<InvalidUnwrap>())?;
    m.add("DecryptionError", py.get_type::<DecryptionError>())?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(all_backends, m)?)?;
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
