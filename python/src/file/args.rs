//! The arguments of the file calls: paths, the key or passphrase, the
//! thread count, and unlocking a file's header with them.

use std::os::fd::BorrowedFd;
use std::path::PathBuf;

use aesx_file::header::KeySource;
use aesx_file::kdf;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;
use zeroize::Zeroizing;

use super::failure::Failure;
use crate::buf::Buf;

/// What the caller gave to unlock a file.
pub(crate) enum Secret {
    Key(Zeroizing<[u8; kdf::KEY_LEN]>),
    Passphrase(Zeroizing<Vec<u8>>),
}

/// A key: 32 bytes of any buffer, or the 64 hex digits of a key file as str.
pub(crate) fn key_bytes(obj: &Bound<'_, PyAny>) -> PyResult<Zeroizing<[u8; kdf::KEY_LEN]>> {
    let mut key = Zeroizing::new([0u8; kdf::KEY_LEN]);
    if let Ok(s) = obj.downcast::<PyString>() {
        let s = s.to_cow()?;
        let s = s.trim();
        let ok = s.len() == 2 * kdf::KEY_LEN
            && s.is_ascii()
            && (0..kdf::KEY_LEN).all(|i| {
                u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
                    .map(|b| key[i] = b)
                    .is_ok()
            });
        if !ok {
            return Err(PyValueError::new_err(
                "key must be 32 bytes, or a str of 64 hex digits (an aesx key file)",
            ));
        }
        return Ok(key);
    }
    let b = Buf::read(obj)?;
    if b.len() != kdf::KEY_LEN {
        return Err(PyValueError::new_err(format!(
            "key must be 32 bytes (an aesx key file), got {}",
            b.len()
        )));
    }
    key.copy_from_slice(b.as_slice());
    Ok(key)
}

pub(crate) fn secret(
    key: Option<&Bound<'_, PyAny>>,
    passphrase: Option<&Bound<'_, PyAny>>,
) -> PyResult<Secret> {
    match (key, passphrase) {
        (Some(k), None) => Ok(Secret::Key(key_bytes(k)?)),
        (None, Some(p)) => {
            let bytes = match p.downcast::<PyString>() {
                Ok(s) => s.to_cow()?.as_bytes().to_vec(),
                Err(_) => Buf::read(p)?.as_slice().to_vec(),
            };
            if bytes.is_empty() {
                return Err(PyValueError::new_err("empty passphrase"));
            }
            Ok(Secret::Passphrase(Zeroizing::new(bytes)))
        }
        (None, None) => Err(PyTypeError::new_err("give key= (32 bytes) or passphrase=")),
        (Some(_), Some(_)) => Err(PyTypeError::new_err(
            "give either key= or passphrase=, not both",
        )),
    }
}

pub(crate) fn threads(t: Option<usize>) -> usize {
    t.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// The input key for a file's header.
pub(crate) fn unlock(secret: &Secret, source: &KeySource) -> Result<Zeroizing<[u8; 32]>, Failure> {
    match (secret, source) {
        (Secret::Key(k), KeySource::Key) => Ok(k.clone()),
        (Secret::Passphrase(p), KeySource::Argon2id(params)) => {
            // The header is not authenticated yet, so its cost is the
            // attacker's to choose: the hard caps, then the same default
            // ceilings as the CLI.
            kdf::check_caps(params)
                .and_then(|()| kdf::check_limits(params, &kdf::Limits::default()))
                .map_err(|e| Failure::Format(e.to_string()))?;
            kdf::argon2id(p, params).map_err(|e| Failure::Format(e.to_string()))
        }
        (Secret::Passphrase(_), KeySource::Key) => Err(Failure::Value(
            "this file was encrypted with a key: give key=, not passphrase=".into(),
        )),
        (Secret::Key(_), KeySource::Argon2id(_)) => Err(Failure::Value(
            "this file was encrypted with a passphrase: give passphrase=, not key=".into(),
        )),
    }
}

/// A path from any path-like object (str, bytes, os.PathLike).
pub(crate) fn path_of(obj: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let os = obj.py().import("os")?;
    let p = os.call_method1("fspath", (obj,))?;
    if let Ok(s) = p.downcast::<PyString>() {
        return Ok(PathBuf::from(s.to_cow()?.as_ref()));
    }
    let b: Vec<u8> = p.extract()?;
    use std::os::unix::ffi::OsStringExt;
    Ok(PathBuf::from(std::ffi::OsString::from_vec(b)))
}

/// Borrows a descriptor that the (private) caller keeps open for the call
/// (the tree calls of aesx.dask pass directory and file descriptors).
pub(crate) fn borrowed_fd(fd: i32, what: &str) -> Result<BorrowedFd<'static>, Failure> {
    if fd < 0 {
        return Err(Failure::Value(format!("{what}: not a file descriptor")));
    }
    // SAFETY: `fd` is a descriptor the (private) caller, aesx.dask, opened
    // and closes only after the call that borrows it returns; every caller
    // uses the borrow inside that call alone, and a descriptor that is not
    // open makes the first operation on it fail with EBADF.
    Ok(unsafe { BorrowedFd::borrow_raw(fd) })
}
