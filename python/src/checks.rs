//! pyca's argument checks that more than one class makes, with pyca's
//! messages.

use pyo3::exceptions::{PyOverflowError, PyValueError};
use pyo3::prelude::*;

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
