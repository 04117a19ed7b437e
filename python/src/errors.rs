//! The exceptions the extension raises: pyca's (defined in
//! `aesx/_exceptions.py`, so that pyca's `except` lines catch them), the
//! file format's `DecryptionError`, and [`err`], the library error mapped
//! to them.

use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyValueError};
use pyo3::prelude::*;

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

/// Maps a library error to the exception pyca raises for it.
pub fn err(e: aesx::Error) -> PyErr {
    match e {
        aesx::Error::AuthenticationFailed => InvalidTag::new_err(()),
        e => PyValueError::new_err(e.to_string()),
    }
}

/// Adds the exception classes to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
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
    Ok(())
}
