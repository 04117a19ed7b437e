//! One failure type for the file calls, turned into one exception at the
//! Python boundary.

use aesx_file::header::HeaderError;
use aesx_file::payload::PayloadError;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::PyErr;

use crate::errors::DecryptionError;

/// One failure, turned into one exception at the Python boundary.
pub(crate) enum Failure {
    /// The file is not a valid aesx file for this key (DecryptionError).
    Format(String),
    /// A caller mistake (ValueError).
    Value(String),
    /// The operating system said no (OSError with errno).
    Io(std::io::Error, String),
    /// A Python exception (KeyboardInterrupt from a signal handler).
    Python(PyErr),
}

impl From<Failure> for PyErr {
    fn from(f: Failure) -> PyErr {
        match f {
            Failure::Format(m) => DecryptionError::new_err(m),
            Failure::Value(m) => PyValueError::new_err(m),
            Failure::Io(e, ctx) => {
                // "No such file or directory", without Rust's "(os error 2)":
                // Python shows the number itself.
                let text = e.to_string();
                let text = match text.rfind(" (os error ") {
                    Some(i) if e.raw_os_error().is_some() => &text[..i],
                    _ => &text,
                };
                let msg = format!("{ctx}: {text}");
                match e.raw_os_error() {
                    Some(code) => PyOSError::new_err((code, msg)),
                    None => PyOSError::new_err(msg),
                }
            }
            Failure::Python(e) => e,
        }
    }
}

pub(crate) fn payload_err(e: PayloadError) -> Failure {
    Failure::Format(e.to_string())
}

pub(crate) fn header_err(e: HeaderError) -> Failure {
    Failure::Format(e.to_string())
}

pub(crate) fn io(ctx: impl Into<String>) -> impl FnOnce(std::io::Error) -> Failure {
    let ctx = ctx.into();
    move |e| Failure::Io(e, ctx)
}

/// Fills `buf` from the OS CSPRNG.
pub(crate) fn fill_random(buf: &mut [u8]) -> Result<(), Failure> {
    getrandom::fill(buf).map_err(|e| Failure::Value(format!("no randomness from the OS: {e}")))
}
