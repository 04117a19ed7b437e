//! Borrowing the bytes of any buffer-protocol object without a copy.
//!
//! The wheel is abi3 for CPython >= 3.9, and the buffer protocol entered the
//! limited API only in 3.11, so pyo3 does not expose it in this build. The
//! functions below have been exported by every CPython 3 with the same
//! signatures, and `Py_buffer` has had the same layout since 3.3, so they are
//! declared here directly.
//!
//! `bytes` (the common case, and the one the per-call overhead matters for)
//! skips the protocol: its storage is immutable and lives as long as the
//! object.

use std::ffi::{c_char, c_int, c_void};
use std::ptr;

use pyo3::exceptions::{PyBufferError, PyTypeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Calls that process at least this many bytes release the GIL. Below it,
/// releasing and re-taking the GIL costs more than other threads gain.
pub const RELEASE_GIL_AT: usize = 4096;

#[repr(C)]
struct PyBuffer {
    buf: *mut c_void,
    obj: *mut ffi::PyObject,
    len: ffi::Py_ssize_t,
    itemsize: ffi::Py_ssize_t,
    readonly: c_int,
    ndim: c_int,
    format: *mut c_char,
    shape: *mut ffi::Py_ssize_t,
    strides: *mut ffi::Py_ssize_t,
    suboffsets: *mut ffi::Py_ssize_t,
    internal: *mut c_void,
}

const PYBUF_WRITABLE: c_int = 0x0001;
const PYBUF_ND: c_int = 0x0008;
const PYBUF_STRIDES: c_int = 0x0010 | PYBUF_ND;

extern "C" {
    fn PyObject_GetBuffer(obj: *mut ffi::PyObject, view: *mut PyBuffer, flags: c_int) -> c_int;
    fn PyBuffer_Release(view: *mut PyBuffer);
    fn PyBuffer_IsContiguous(view: *const PyBuffer, fort: c_char) -> c_int;
    fn PyObject_CheckBuffer(obj: *mut ffi::PyObject) -> c_int;
}

/// The bytes of a Python object, borrowed for as long as this value lives.
/// Holding the view keeps a `bytearray` from being resized meanwhile.
pub struct Buf {
    ptr: *mut u8,
    len: usize,
    /// `Some` when a buffer view must be released on drop.
    view: Option<Box<PyBuffer>>,
}

// SAFETY: the pointer refers to memory kept alive (and, for a view, pinned
// against resizing) by the held reference or view until drop; the view is
// released on drop with the GIL held (Buf is only dropped inside pyo3 calls,
// which hold it). Moving it between threads while the GIL is released is
// what lets the heavy work run without the GIL.
unsafe impl Send for Buf {}

impl Buf {
    /// Borrows a C-contiguous buffer for reading. Errors as pyca's: a
    /// non-buffer is a `TypeError`, a non-contiguous one a `BufferError`.
    pub fn read(obj: &Bound<'_, PyAny>) -> PyResult<Buf> {
        if let Ok(b) = obj.downcast_exact::<PyBytes>() {
            let s = b.as_bytes();
            return Ok(Buf {
                ptr: s.as_ptr() as *mut u8,
                len: s.len(),
                view: None,
            });
        }
        Self::view(obj, false)
    }

    /// Borrows a writable C-contiguous buffer.
    pub fn write(obj: &Bound<'_, PyAny>) -> PyResult<Buf> {
        Self::view(obj, true)
    }

    fn view(obj: &Bound<'_, PyAny>, writable: bool) -> PyResult<Buf> {
        let mut view = Box::new(PyBuffer {
            buf: ptr::null_mut(),
            obj: ptr::null_mut(),
            len: 0,
            itemsize: 0,
            readonly: 0,
            ndim: 0,
            format: ptr::null_mut(),
            shape: ptr::null_mut(),
            strides: ptr::null_mut(),
            suboffsets: ptr::null_mut(),
            internal: ptr::null_mut(),
        });
        let flags = PYBUF_STRIDES | if writable { PYBUF_WRITABLE } else { 0 };
        // SAFETY: obj is a live object (we hold a reference and the GIL);
        // view points to writable storage of the right layout.
        let rc = unsafe { PyObject_GetBuffer(obj.as_ptr(), &mut *view, flags) };
        if rc != 0 {
            // Replace the exporter's message with pyca's.
            drop(PyErr::take(obj.py()));
            // SAFETY: obj is a live object (we hold a reference and the GIL);
            // CheckBuffer only reads its type's slots.
            let is_buffer = unsafe { PyObject_CheckBuffer(obj.as_ptr()) } != 0;
            if writable && is_buffer {
                return Err(PyTypeError::new_err("Buffer is not writable."));
            }
            return Err(not_a_buffer(obj));
        }
        // SAFETY: view was filled by a successful GetBuffer.
        let contiguous = unsafe { PyBuffer_IsContiguous(&*view, b'C' as c_char) } != 0;
        let buf = Buf {
            ptr: view.buf as *mut u8,
            len: view.len.max(0) as usize,
            view: Some(view),
        };
        if !contiguous {
            return Err(PyBufferError::new_err("Buffer is not contiguous."));
        }
        Ok(buf)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The bytes. Another Python thread could write to a shared mutable
    /// buffer while we read it with the GIL released; that changes the
    /// bytes we see, never their location or length (the view pins them).
    pub fn as_slice(&self) -> &[u8] {
        if self.len == 0 {
            return &[];
        }
        // SAFETY: ptr/len describe the exporter's live storage (see Send).
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// The bytes, writable; only for buffers obtained with [`Buf::write`].
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        if self.len == 0 {
            return &mut [];
        }
        // SAFETY: a writable view of live storage; `&mut self` keeps this
        // the only Rust slice made from this Buf at a time. Aliasing with an
        // input Buf is checked by callers with `overlaps`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// The address range, for overlap checks.
    pub fn range(&self) -> std::ops::Range<usize> {
        let p = self.ptr as usize;
        p..p + self.len
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        if let Some(view) = self.view.as_mut() {
            // SAFETY: releases the view obtained in `Buf::view`, exactly
            // once; Bufs are dropped with the GIL held (pyo3 method scope).
            unsafe { PyBuffer_Release(&mut **view) };
        }
    }
}

/// The `(nonce, data, associated_data)` arguments of an AEAD call, read in
/// pyca's order; `None` associated data is empty.
pub struct AeadArgs {
    pub nonce: Buf,
    pub data: Buf,
    aad: Option<Buf>,
}

impl AeadArgs {
    pub fn read(
        nonce: &Bound<'_, PyAny>,
        data: &Bound<'_, PyAny>,
        aad: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<AeadArgs> {
        Ok(AeadArgs {
            nonce: Buf::read(nonce)?,
            data: Buf::read(data)?,
            aad: aad.map(Buf::read).transpose()?,
        })
    }

    pub fn aad(&self) -> &[u8] {
        self.aad.as_ref().map_or(&[], Buf::as_slice)
    }
}

/// How an input relates to an output buffer.
#[derive(PartialEq, Eq, Clone, Copy)]
pub enum Alias {
    /// Disjoint memory.
    None,
    /// The same start address: the operation can run in place.
    Same,
    /// Partial overlap: the input must be copied first.
    Partial,
}

pub fn alias(input: &Buf, output: &Buf) -> Alias {
    let (a, b) = (input.range(), output.range());
    if a.is_empty() || b.is_empty() || a.end <= b.start || b.end <= a.start {
        Alias::None
    } else if a.start == b.start {
        Alias::Same
    } else {
        Alias::Partial
    }
}

pub fn not_a_buffer(obj: &Bound<'_, PyAny>) -> PyErr {
    let ty = obj
        .get_type()
        .repr()
        .map(|r| r.to_string())
        .unwrap_or_else(|_| "?".into());
    let mut msg = format!("Cannot convert \"{ty}\" instance to a buffer.");
    if obj.is_instance_of::<pyo3::types::PyString>() {
        msg.push_str("\nDid you mean to pass a bytestring instead?");
    }
    PyTypeError::new_err(msg)
}

/// Runs `f` without the GIL when the work is large enough for other threads
/// to gain more than the release costs (a few hundred nanoseconds).
pub fn maybe_detached<T: Send>(py: Python<'_>, len: usize, f: impl FnOnce() -> T + Send) -> T {
    if len >= RELEASE_GIL_AT {
        py.allow_threads(f)
    } else {
        f()
    }
}
