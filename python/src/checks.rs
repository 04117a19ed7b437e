//! pyca's argument checks that more than one class makes, with pyca's
//! messages.

use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt};

/// pyca refuses data or associated data longer than this.
const MAX_LEN: usize = (1 << 31) - 1;

/// A key of one of the `allowed` lengths, or ValueError(`msg`).
pub fn key_len(key: &[u8], allowed: &[usize], msg: &'static str) -> PyResult<()> {
    if allowed.contains(&key.len()) {
        Ok(())
    } else {
        Err(PyValueError::new_err(msg))
    }
}

/// An AEAD's data and associated data lengths.
pub fn data_len(data: usize, aad: usize) -> PyResult<()> {
    if data > MAX_LEN || aad > MAX_LEN {
        return Err(PyOverflowError::new_err(
            "Data or associated data too long. Max 2**31 - 1 bytes",
        ));
    }
    Ok(())
}

/// A `threads=` argument: None is 1; otherwise an int of at least 1
/// (TypeError for anything else, ValueError below 1). Counts above the
/// library's most are held to it there.
pub fn threads(n: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(n) = n else { return Ok(1) };
    if !n.is_instance_of::<PyInt>() || n.is_instance_of::<PyBool>() {
        return Err(PyTypeError::new_err(format!(
            "threads must be an int, not {}",
            n.get_type().name()?
        )));
    }
    if n.lt(1)? {
        return Err(PyValueError::new_err(format!(
            "threads must be at least 1, got {n}"
        )));
    }
    Ok(n.extract::<usize>().unwrap_or(usize::MAX))
}
