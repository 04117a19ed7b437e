//! AES key wrap, RFC 3394 (KW) and RFC 5649 (KWP), with the functions,
//! argument checks and exceptions of `cryptography.hazmat.primitives.keywrap`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use zeroize::Zeroize;

use crate::backend::pick_backend;
use crate::buf::{maybe_detached, Buf};
use crate::errors::{err, InvalidUnwrap};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Wrap,
    Unwrap,
    WrapPad,
    UnwrapPad,
}

/// pyca's checks (as of cryptography 50), in pyca's order: unwrapping checks
/// the data before the key.
fn check(op: Op, key: usize, data: usize) -> PyResult<()> {
    let bad_key = || {
        Err(PyValueError::new_err(
            "The wrapping key must be a valid AES key length",
        ))
    };
    let key_ok = matches!(key, 16 | 24 | 32);
    match op {
        Op::Wrap if !key_ok => bad_key(),
        Op::Wrap if data < 16 => Err(PyValueError::new_err(
            "The key to wrap must be at least 16 bytes",
        )),
        Op::Wrap if !data.is_multiple_of(8) => Err(PyValueError::new_err(
            "The key to wrap must be a multiple of 8 bytes",
        )),
        Op::Unwrap if data < 24 => Err(InvalidUnwrap::new_err("Must be at least 24 bytes")),
        Op::Unwrap if !data.is_multiple_of(8) => Err(InvalidUnwrap::new_err(
            "The wrapped key must be a multiple of 8 bytes",
        )),
        Op::WrapPad if !key_ok => bad_key(),
        Op::WrapPad if data == 0 || data as u64 > u64::from(u32::MAX) => Err(
            PyValueError::new_err("key_to_wrap must be between 1 and 2^32 bytes"),
        ),
        Op::UnwrapPad if data < 16 => Err(InvalidUnwrap::new_err("Must be at least 16 bytes")),
        Op::UnwrapPad if !data.is_multiple_of(8) => Err(InvalidUnwrap::new_err(
            "The wrapped key must be a multiple of 8 bytes",
        )),
        Op::Unwrap | Op::UnwrapPad if !key_ok => bad_key(),
        _ => Ok(()),
    }
}

fn run<'py>(
    py: Python<'py>,
    op: Op,
    wrapping_key: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    backend: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let (key, data) = (Buf::read(wrapping_key)?, Buf::read(data)?);
    check(op, key.len(), data.len())?;
    let kw = aesx::KeyWrap::with_backend(key.as_slice(), pick_backend(backend)?).map_err(err)?;
    let d = data.as_slice();
    let r = maybe_detached(py, d.len(), || match op {
        Op::Wrap => kw.wrap(d),
        Op::Unwrap => kw.unwrap(d),
        Op::WrapPad => kw.wrap_pad(d),
        Op::UnwrapPad => kw.unwrap_pad(d),
    });
    let mut out = r.map_err(|e| match e {
        aesx::Error::AuthenticationFailed => InvalidUnwrap::new_err(()),
        e => err(e),
    })?;
    let bytes = PyBytes::new(py, &out);
    // An unwrapped key is secret: leave no copy in freed memory.
    out.zeroize();
    Ok(bytes)
}

/// One key-wrap operation ("wrap", "unwrap", "wrap_pad", "unwrap_pad");
/// `aesx/keywrap.py` gives them pyca's names.
#[pyfunction]
#[pyo3(signature = (op, wrapping_key, data, backend = None))]
fn _keywrap<'py>(
    py: Python<'py>,
    op: &str,
    wrapping_key: &Bound<'py, PyAny>,
    data: &Bound<'py, PyAny>,
    backend: Option<&str>,
) -> PyResult<Bound<'py, PyBytes>> {
    let op = match op {
        "wrap" => Op::Wrap,
        "unwrap" => Op::Unwrap,
        "wrap_pad" => Op::WrapPad,
        "unwrap_pad" => Op::UnwrapPad,
        _ => {
            return Err(PyValueError::new_err(format!(
                "unknown key-wrap operation {op:?}"
            )))
        }
    };
    run(py, op, wrapping_key, data, backend)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_keywrap, m)?)?;
    Ok(())
}
