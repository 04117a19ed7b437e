//! `aesx._aesx._cuda`: the doors of `aesx.cuda` (python/aesx/cuda.py) onto
//! aesx-cuda's raw-pointer API. Python finds the address, length, device
//! and stream of an array (`__cuda_array_interface__`, DLPack); these take
//! them as integers, check every argument (raising what `aesx` raises),
//! and only then open the GPU, so that argument errors are the same with
//! and without one. Without a driver, device or NVRTC every call that needs
//! the GPU raises `NoDeviceError` with the reason.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use aesx_cuda::raw::{self, Overlap};
use aesx_cuda::{CudaAes, CudaError, CudaGcm, CudaXts, Gpu};
use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use zeroize::Zeroizing;

use crate::checks::key_len;
use crate::errors::{err, InvalidTag};

mod file;

create_exception!(
    aesx.cuda,
    NoDeviceError,
    PyRuntimeError,
    "No usable CUDA GPU: no NVIDIA driver (libcuda), no device, or no NVRTC (libnvrtc) to compile the kernels. The message says which."
);

/// The GPUs opened so far, by ordinal (opening compiles or loads the
/// kernels and runs the self-test: once per process).
static GPUS: Mutex<Vec<Option<Gpu>>> = Mutex::new(Vec::new());

fn gpu(device: usize) -> PyResult<Gpu> {
    let mut gpus = GPUS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(Some(g)) = gpus.get(device) {
        return Ok(g.clone());
    }
    let g = Gpu::new(device).map_err(cuda_err)?;
    if gpus.len() <= device {
        gpus.resize(device + 1, None);
    }
    gpus[device] = Some(g.clone());
    Ok(g)
}

/// aesx-cuda's errors as Python's: the library's argument errors and
/// `InvalidTag` as `aesx` raises them, no GPU as `NoDeviceError`.
pub(crate) fn cuda_err(e: CudaError) -> PyErr {
    match e {
        CudaError::Aes(e) => err(e),
        e @ (CudaError::NoDevice(_) | CudaError::NoNvrtc(_)) => {
            NoDeviceError::new_err(e.to_string())
        }
        e => PyRuntimeError::new_err(e.to_string()),
    }
}

fn ptr_err(e: raw::PointerError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

fn batch_err(e: raw::BatchError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// A stream handle from Python: 0 and `None` are the legacy default stream.
fn stream_of(h: Option<u64>) -> Option<raw::CUstream> {
    h.filter(|&h| h != 0).map(|h| h as usize as raw::CUstream)
}

/// A `stream=` argument given to Rust directly (DeviceBuffer's methods),
/// by the rules of every aesx.cuda call (`aesx.cuda._stream_handle`: a
/// CuPy, PyTorch or Numba stream, or an int from 0 to 2**64 - 1; else the
/// same TypeError or ValueError, never an OverflowError).
fn stream_arg(py: Python<'_>, stream: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    match stream {
        None => Ok(None),
        Some(s) if s.is_none() => Ok(None),
        Some(s) => py
            .import("aesx.cuda")?
            .getattr("_stream_handle")?
            .call1((s,))?
            .extract::<Option<u64>>(),
    }
}

/// Runs `f` without the GIL. Raw stream handles are not `Send`; the integer
/// is, and is turned back into a handle inside.
fn detached<T: Send>(
    py: Python<'_>,
    f: impl FnOnce() -> aesx_cuda::Result<T> + Send,
) -> PyResult<T> {
    py.allow_threads(f).map_err(cuda_err)
}

/// Whether aesx can use a CUDA GPU here (device 0 opens: driver, device,
/// NVRTC or cached PTX, self-test). The first call may compile the kernels;
/// its answer, yes or no, is kept for the process.
#[pyfunction]
fn available(py: Python<'_>) -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    if let Some(&a) = ANSWER.get() {
        return a;
    }
    *py.allow_threads(|| ANSWER.get_or_init(|| gpu(0).is_ok()))
}

/// The device, as a dict; `NoDeviceError` without one.
#[pyfunction]
#[pyo3(signature = (device = 0))]
fn device_info(py: Python<'_>, device: usize) -> PyResult<Bound<'_, PyDict>> {
    let g = py.allow_threads(|| gpu(device))?;
    let i = g.info();
    let d = PyDict::new(py);
    d.set_item("device", i.ordinal)?;
    d.set_item("name", &i.name)?;
    d.set_item("compute_capability", i.compute_capability)?;
    d.set_item("total_memory", i.total_memory)?;
    d.set_item("arch", &i.arch)?;
    Ok(d)
}

/// The device of a device address; `NoDeviceError` without a driver,
/// `ValueError` for an address that is not device memory.
#[pyfunction]
fn device_of(ptr: u64) -> PyResult<usize> {
    raw::device_of(ptr).map_err(|e| match e {
        CudaError::Driver(m) => PyValueError::new_err(m),
        e => cuda_err(e),
    })
}

/// A key, and its copies on the GPUs it was used on (made on first use).
struct OnDevices<T> {
    key: Zeroizing<Vec<u8>>,
    made: Mutex<HashMap<usize, Arc<T>>>,
}

impl<T> OnDevices<T> {
    fn new(key: &[u8]) -> Self {
        OnDevices {
            key: Zeroizing::new(key.to_vec()),
            made: Mutex::new(HashMap::new()),
        }
    }

    fn on(
        &self,
        device: usize,
        make: impl FnOnce(&Gpu, &[u8]) -> aesx_cuda::Result<T>,
    ) -> PyResult<Arc<T>> {
        let g = gpu(device)?;
        let mut made = self.made.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = made.get(&device) {
            return Ok(k.clone());
        }
        let k = Arc::new(make(&g, &self.key).map_err(cuda_err)?);
        made.insert(device, k.clone());
        Ok(k)
    }
}

fn array16(b: &[u8], what: &str) -> PyResult<[u8; 16]> {
    b.try_into()
        .map_err(|_| PyValueError::new_err(format!("{what} must be 16 bytes, got {}", b.len())))
}

/// The device a call runs on: the one given (DLPack, DeviceBuffer), else
/// the one the driver says `ptr` is on (an empty array: device 0).
fn device_for(device: Option<usize>, ptr: u64, len: usize) -> PyResult<usize> {
    match device {
        Some(d) => Ok(d),
        None if len == 0 => Ok(0),
        None => device_of(ptr),
    }
}

/// Where a call writes: `dst`, or a new buffer of `new_len` bytes.
struct Out {
    ptr: u64,
    new: Option<DeviceBuffer>,
}

impl Out {
    fn new(py: Python<'_>, dst: Option<u64>, new_len: usize, device: usize) -> PyResult<Out> {
        match dst {
            Some(p) => Ok(Out { ptr: p, new: None }),
            None => {
                let b = DeviceBuffer::alloc(py, new_len, device)?;
                Ok(Out {
                    ptr: b.mem.ptr(),
                    new: Some(b),
                })
            }
        }
    }

    /// The new buffer, recorded as written on `stream`.
    fn finish(self, stream: Option<u64>) -> PyResult<Option<DeviceBuffer>> {
        if let Some(b) = &self.new {
            b._used_on(stream)?;
        }
        Ok(self.new)
    }
}

/// The address checks, for a destination given or one to be allocated
/// (which is disjoint from everything).
fn check_ptrs(src: u64, dst: Option<u64>, len: usize, overlap: Overlap) -> PyResult<()> {
    match dst {
        Some(d) => raw::check_buffers(src, d, len, overlap),
        None => raw::check_buffers(src, src, len, Overlap::SameOrDisjoint),
    }
    .map_err(ptr_err)
}

/// Device memory allocated by aesx for a result, exposing
/// `__cuda_array_interface__` (v3) so that `cupy.asarray(buf)`,
/// `torch.as_tensor(buf, device="cuda")` or Numba take it without a copy.
/// Freed when the last reference goes, after the work queued on it.
#[pyclass(module = "aesx.cuda", name = "DeviceBuffer", frozen)]
pub struct DeviceBuffer {
    mem: Arc<raw::DeviceBuffer>,
    device: usize,
    /// The stream of the last write, for the consumer to order after.
    stream: Mutex<Option<u64>>,
}

impl DeviceBuffer {
    fn alloc(py: Python<'_>, len: usize, device: usize) -> PyResult<DeviceBuffer> {
        let g = py.allow_threads(|| gpu(device))?;
        let mem = detached(py, || raw::DeviceBuffer::new(&g, len))?;
        Ok(DeviceBuffer {
            mem: Arc::new(mem),
            device,
            stream: Mutex::new(None),
        })
    }
}

#[pymethods]
impl DeviceBuffer {
    /// The device address.
    #[getter]
    fn ptr(&self) -> u64 {
        self.mem.ptr()
    }

    /// The size in bytes.
    #[getter]
    fn nbytes(&self) -> usize {
        self.mem.len()
    }

    /// The device ordinal.
    #[getter]
    fn device(&self) -> usize {
        self.device
    }

    fn __len__(&self) -> usize {
        self.mem.len()
    }

    fn __repr__(&self) -> String {
        format!(
            "<aesx.cuda.DeviceBuffer {} bytes on device {}>",
            self.mem.len(),
            self.device
        )
    }

    /// One-dimensional bytes (`|u1`), writable, C-contiguous; `stream` is
    /// the stream of the last write (1: the legacy default stream), on which
    /// a consumer orders its own work.
    #[getter]
    fn __cuda_array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", (self.mem.len(),))?;
        d.set_item("typestr", "|u1")?;
        d.set_item("data", (self.mem.ptr(), false))?;
        d.set_item("version", 3)?;
        d.set_item("strides", py.None())?;
        let s = *self.stream.lock().unwrap_or_else(|p| p.into_inner());
        d.set_item("stream", s.map(|h| if h == 0 { 1 } else { h }))?;
        Ok(d)
    }

    /// A copy on the host, as bytes (ordered after the work on `stream`, a
    /// stream object or handle as for every aesx.cuda call; default: the
    /// stream of the last write).
    #[pyo3(signature = (stream = None))]
    fn to_bytes<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let stream = stream_arg(py, stream)?;
        let s = stream.or(*self.stream.lock().unwrap_or_else(|p| p.into_inner()));
        let mut out = vec![0u8; self.mem.len()];
        let mem = &self.mem;
        detached(py, || {
            // SAFETY: the buffer is this object's own allocation of len bytes, alive
            // while `self` is; the stream is the caller's (a live one, or None).
            unsafe { raw::copy_to_host_raw(mem.gpu(), mem.ptr(), &mut out, stream_of(s)) }
        })?;
        Ok(PyBytes::new(py, &out))
    }

    /// Records a write queued on `stream`: the memory is freed after it,
    /// and `__cuda_array_interface__` reports that stream.
    fn _used_on(&self, stream: Option<u64>) -> PyResult<()> {
        // SAFETY: the stream is the caller's (a live one of this device, or None).
        unsafe { self.mem.used_on(stream_of(stream)) }.map_err(cuda_err)?;
        *self.stream.lock().unwrap_or_else(|p| p.into_inner()) = Some(stream.unwrap_or(0));
        Ok(())
    }
}

/// `DeviceBuffer` of `len` bytes on `device` (zeroed).
#[pyfunction]
fn _alloc(py: Python<'_>, len: usize, device: usize) -> PyResult<DeviceBuffer> {
    DeviceBuffer::alloc(py, len, device)
}

/// Copies `len` bytes at `ptr` to the host.
#[pyfunction]
fn _to_host<'py>(
    py: Python<'py>,
    ptr: u64,
    len: usize,
    device: Option<usize>,
    stream: Option<u64>,
) -> PyResult<Bound<'py, PyBytes>> {
    let device = device_for(device, ptr, len)?;
    let g = py.allow_threads(|| gpu(device))?;
    let mut out = vec![0u8; len];
    detached(py, || {
        // SAFETY: the Python layer passes the address and length of a live device
        // array of this device that it holds for the call; the stream is the
        // caller's.
        unsafe { raw::copy_to_host_raw(&g, ptr, &mut out, stream_of(stream)) }
    })?;
    Ok(PyBytes::new(py, &out))
}

/// Copies host bytes to `ptr`.
#[pyfunction]
fn _from_host(
    py: Python<'_>,
    data: &[u8],
    ptr: u64,
    device: Option<usize>,
    stream: Option<u64>,
) -> PyResult<()> {
    let device = device_for(device, ptr, data.len())?;
    let g = py.allow_threads(|| gpu(device))?;
    detached(py, || {
        // SAFETY: `ptr` is the address of a live device array of this device
        // with room for `data` that the Python layer holds for the call; the
        // stream is the caller's.
        unsafe { raw::copy_from_host_raw(&g, data, ptr, stream_of(stream)) }
    })
}

/// Queues a device-to-device copy.
#[pyfunction]
fn _copy(
    py: Python<'_>,
    src: u64,
    dst: u64,
    len: usize,
    device: Option<usize>,
    stream: Option<u64>,
) -> PyResult<()> {
    let device = device_for(device, src, len)?;
    let g = py.allow_threads(|| gpu(device))?;
    detached(py, || {
        // SAFETY: `src` and `dst` are addresses of live device arrays of this
        // device, `len` bytes each, that the Python layer holds for the call;
        // the stream is the caller's.
        unsafe { raw::copy_raw(&g, src, dst, len, stream_of(stream)) }
    })
}

/// An AES key for ECB, CTR and CBC decryption on device memory.
#[pyclass(module = "aesx.cuda", frozen)]
struct _Aes(OnDevices<CudaAes>);

/// The block-mode calls: checks the addresses (`overlap`), finds the device
/// and the output (`dst`, or a new buffer), runs `body` without the GIL with
/// the key on that device, the output's address and the stream, and returns
/// the new buffer if one was made. `body` queues the work through an
/// `unsafe` raw call, sound because every address reaching it is `src` or
/// the output: `len` bytes of live device memory of that device (the
/// caller's arrays, which the Python layer holds until the stream's work is
/// done, or the buffer made here), checked here for alignment, overlap and
/// extent.
#[allow(clippy::too_many_arguments)]
fn block_call<K: Send + Sync>(
    keys: &OnDevices<K>,
    py: Python<'_>,
    src: u64,
    dst: Option<u64>,
    len: usize,
    device: Option<usize>,
    stream: Option<u64>,
    overlap: Overlap,
    make: impl FnOnce(&Gpu, &[u8]) -> aesx_cuda::Result<K>,
    body: impl FnOnce(&K, u64, Option<raw::CUstream>) -> aesx_cuda::Result<()> + Send,
) -> PyResult<Option<DeviceBuffer>> {
    check_ptrs(src, dst, len, overlap)?;
    let dev = device_for(device, src, len)?;
    let k = keys.on(dev, make)?;
    let out = Out::new(py, dst, len, dev)?;
    let d = out.ptr;
    detached(py, || body(&k, d, stream_of(stream)))?;
    out.finish(stream)
}

#[pymethods]
impl _Aes {
    #[new]
    fn new(key: &[u8]) -> PyResult<Self> {
        key_len(
            key,
            &[16, 24, 32],
            "Invalid key size for AES: must be 128, 192 or 256 bits.",
        )?;
        Ok(_Aes(OnDevices::new(key)))
    }

    /// ecb(decrypt, src, dst, len, device, stream) -> DeviceBuffer | None
    #[allow(clippy::too_many_arguments)]
    fn ecb(
        &self,
        py: Python<'_>,
        decrypt: bool,
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Option<DeviceBuffer>> {
        if !len.is_multiple_of(16) {
            return Err(err(aesx::Error::NotBlockAligned { len }));
        }
        let keys = &self.0;
        block_call(
            keys,
            py,
            src,
            dst,
            len,
            device,
            stream,
            Overlap::SameOrDisjoint,
            CudaAes::new,
            |k, d, s| {
                // SAFETY: `src` and `d` are `len` bytes of live device memory of this
                // device, as block_call checked and says; `s` the caller's stream.
                unsafe {
                    if decrypt {
                        k.ecb_decrypt_raw(src, d, len, s)
                    } else {
                        k.ecb_encrypt_raw(src, d, len, s)
                    }
                }
            },
        )
    }

    /// ctr(counter, src, dst, len, device, stream) -> DeviceBuffer | None
    #[allow(clippy::too_many_arguments)]
    fn ctr(
        &self,
        py: Python<'_>,
        counter: &[u8],
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Option<DeviceBuffer>> {
        let c = array16(counter, "the counter block (nonce)")?;
        let keys = &self.0;
        block_call(
            keys,
            py,
            src,
            dst,
            len,
            device,
            stream,
            Overlap::SameOrDisjoint,
            CudaAes::new,
            |k, d, s| {
                // SAFETY: `src` and `d` are `len` bytes of live device memory of this
                // device, as block_call checked and says; `s` the caller's stream.
                unsafe { k.ctr_apply_raw(&c, src, d, len, s) }
            },
        )
    }

    /// cbc_decrypt(iv, src, dst, len, device, stream) -> DeviceBuffer | None
    #[allow(clippy::too_many_arguments)]
    fn cbc_decrypt(
        &self,
        py: Python<'_>,
        iv: &[u8],
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Option<DeviceBuffer>> {
        let iv = array16(iv, "the IV")?;
        if !len.is_multiple_of(16) {
            return Err(err(aesx::Error::NotBlockAligned { len }));
        }
        let keys = &self.0;
        block_call(
            keys,
            py,
            src,
            dst,
            len,
            device,
            stream,
            Overlap::Disjoint,
            CudaAes::new,
            |k, d, s| {
                // SAFETY: `src` and `d` are `len` bytes of live device memory of this
                // device, as block_call checked and says; `s` the caller's stream.
                unsafe { k.cbc_decrypt_raw(&iv, src, d, len, s) }
            },
        )
    }
}

/// An XTS key (32 or 64 bytes) for the sector API on device memory.
#[pyclass(module = "aesx.cuda", frozen)]
struct _Xts {
    keys: OnDevices<CudaXts>,
    equal_halves: bool,
}

#[pymethods]
impl _Xts {
    #[new]
    fn new(key: &[u8]) -> PyResult<Self> {
        key_len(
            key,
            &[32, 64],
            "Invalid key size for XTS: must be 256 or 512 bits.",
        )?;
        let (a, b) = key.split_at(key.len() / 2);
        Ok(_Xts {
            keys: OnDevices::new(key),
            equal_halves: aesx::ct_eq(a, b),
        })
    }

    /// sectors(decrypt, first_sector, sector_size, src, dst, len, device,
    /// stream) -> DeviceBuffer | None
    #[allow(clippy::too_many_arguments)]
    fn sectors(
        &self,
        py: Python<'_>,
        decrypt: bool,
        first_sector: u128,
        sector_size: usize,
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Option<DeviceBuffer>> {
        // aesx.XTS's order: the sector size, whole sectors, the key halves,
        // the sector numbers; then the addresses.
        raw::check_sector_args(len, sector_size).map_err(err)?;
        if !decrypt && self.equal_halves {
            return Err(err(aesx::Error::XtsEqualKeyHalves));
        }
        raw::check_sector_numbers(first_sector, len, sector_size).map_err(err)?;
        let keys = &self.keys;
        block_call(
            keys,
            py,
            src,
            dst,
            len,
            device,
            stream,
            Overlap::SameOrDisjoint,
            CudaXts::new,
            |k, d, s| {
                // SAFETY: `src` and `d` are `len` bytes of live device memory of this
                // device, as block_call checked and says; `s` the caller's stream.
                unsafe {
                    if decrypt {
                        k.decrypt_sectors_raw(first_sector, sector_size, src, d, len, s)
                    } else {
                        k.encrypt_sectors_raw(first_sector, sector_size, src, d, len, s)
                    }
                }
            },
        )
    }
}

/// An AES-GCM key on device memory.
#[pyclass(module = "aesx.cuda", frozen)]
struct _Gcm(OnDevices<CudaGcm>);

fn gcm_nonce(nonce: &[u8], len: usize, aad: usize) -> PyResult<()> {
    // pyca's nonce rule and message, as aesx.AESGCM; the length limits are
    // GCM's (device arrays may exceed pyca's 2**31 - 1 bytes).
    if !(8..=128).contains(&nonce.len()) {
        return Err(PyValueError::new_err(
            "Nonce must be between 8 and 128 bytes",
        ));
    }
    raw::check_gcm_args(nonce, aad, len, None).map_err(err)
}

fn nonces12(nonces: &[Vec<u8>]) -> PyResult<Vec<[u8; 12]>> {
    nonces
        .iter()
        .map(|n| {
            n.as_slice().try_into().map_err(|_| {
                PyValueError::new_err(format!(
                    "every nonce of a batch must be 12 bytes, got {}",
                    n.len()
                ))
            })
        })
        .collect()
}

#[pymethods]
impl _Gcm {
    #[new]
    fn new(key: &[u8]) -> PyResult<Self> {
        key_len(
            key,
            &[16, 24, 32],
            "AESGCM key must be 128, 192, or 256 bits.",
        )?;
        Ok(_Gcm(OnDevices::new(key)))
    }

    /// check(nonce, aad_len, len, tag_len): the checks of seal (`tag_len`
    /// None) or open on their parameters, without a device, so that the
    /// Python layer can make them before it checks the output array (the
    /// order of aesx.AESGCM's `*_into` methods).
    #[staticmethod]
    fn check(nonce: &[u8], aad_len: usize, len: usize, tag_len: Option<usize>) -> PyResult<()> {
        gcm_nonce(nonce, len, aad_len)?;
        if let Some(t) = tag_len {
            raw::check_gcm_args(nonce, aad_len, len, Some(t)).map_err(err)?;
        }
        Ok(())
    }

    /// seal(nonce, aad, src, dst, len, device, stream, append_tag)
    /// -> (tag, DeviceBuffer | None)
    ///
    /// Without `dst`, a new buffer of `len` bytes, or `len + 16` with the
    /// tag after the ciphertext when `append_tag`.
    #[allow(clippy::too_many_arguments)]
    fn seal<'py>(
        &self,
        py: Python<'py>,
        nonce: &[u8],
        aad: &[u8],
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
        append_tag: bool,
    ) -> PyResult<(Bound<'py, PyBytes>, Option<DeviceBuffer>)> {
        gcm_nonce(nonce, len, aad.len())?;
        check_ptrs(src, dst, len, Overlap::SameOrDisjoint)?;
        let dev = device_for(device, src, len)?;
        let k = self.0.on(dev, CudaGcm::new)?;
        let g = gpu(dev)?;
        let extra = if append_tag && dst.is_none() { 16 } else { 0 };
        let out = Out::new(py, dst, len + extra, dev)?;
        let d = out.ptr;
        let tag = detached(py, || {
            let s = stream_of(stream);
            // SAFETY: `src` and `d` `len` bytes of live device memory of this
            // device (the caller's arrays, held for the call, or `out`, made
            // here); the tag goes to the 16 bytes after the ciphertext of the
            // buffer made here with room for them; the stream the caller's.
            unsafe {
                let tag = k.seal_raw(nonce, aad, src, d, len, s)?;
                if extra > 0 {
                    raw::copy_from_host_raw(&g, &tag, d + len as u64, s)?;
                }
                Ok(tag)
            }
        })?;
        Ok((PyBytes::new(py, &tag), out.finish(stream)?))
    }

    /// open(nonce, aad, tag, src, dst, len, device, stream) -> DeviceBuffer | None
    #[allow(clippy::too_many_arguments)]
    fn open(
        &self,
        py: Python<'_>,
        nonce: &[u8],
        aad: &[u8],
        tag: &[u8],
        src: u64,
        dst: Option<u64>,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Option<DeviceBuffer>> {
        gcm_nonce(nonce, len, aad.len())?;
        raw::check_gcm_args(nonce, aad.len(), len, Some(tag.len())).map_err(err)?;
        let keys = &self.0;
        block_call(
            keys,
            py,
            src,
            dst,
            len,
            device,
            stream,
            Overlap::SameOrDisjoint,
            CudaGcm::new,
            |k, d, s| {
                // SAFETY: `src` and `d` are `len` bytes of live device memory of this
                // device, as block_call checked and says; `s` the caller's stream.
                unsafe { k.open_raw(nonce, aad, src, d, len, tag, s) }
            },
        )
    }

    /// open_appended(nonce, aad, src, len, device, stream) -> DeviceBuffer
    ///
    /// pyca's decrypt: `src` is ciphertext then a 16-byte tag (`len` bytes in
    /// all, at least 16); the plaintext goes to a new buffer.
    #[allow(clippy::too_many_arguments)]
    fn open_appended(
        &self,
        py: Python<'_>,
        nonce: &[u8],
        aad: &[u8],
        src: u64,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<DeviceBuffer> {
        // aesx.AESGCM.decrypt's order: the nonce, then the length.
        gcm_nonce(nonce, len.saturating_sub(16), aad.len())?;
        if len < 16 {
            return Err(InvalidTag::new_err(()));
        }
        let n = len - 16;
        raw::check_buffers(src, src, n, Overlap::SameOrDisjoint).map_err(ptr_err)?;
        let dev = device_for(device, src, len)?;
        let k = self.0.on(dev, CudaGcm::new)?;
        let g = gpu(dev)?;
        let out = Out::new(py, None, n, dev)?;
        let d = out.ptr;
        detached(py, || {
            let s = stream_of(stream);
            let mut tag = [0u8; 16];
            // SAFETY: `src` holds `n` + 16 bytes of live device memory of this
            // device (the caller's array, held for the call), the tag its last
            // 16; `d` is `out`, made here for `n` bytes; the stream the caller's.
            unsafe {
                raw::copy_to_host_raw(&g, src + n as u64, &mut tag, s)?;
                k.open_raw(nonce, aad, src, d, n, &tag, s)
            }
        })?;
        out.finish(stream)?
            .ok_or_else(|| PyRuntimeError::new_err("no output buffer"))
    }

    #[allow(clippy::too_many_arguments)]
    fn seal_many<'py>(
        &self,
        py: Python<'py>,
        nonces: Vec<Vec<u8>>,
        aad: &[u8],
        stride: usize,
        ptr: u64,
        len: usize,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Vec<Bound<'py, PyBytes>>> {
        let nonces = nonces12(&nonces)?;
        raw::check_many_args(nonces.len(), stride, len).map_err(batch_err)?;
        raw::check_buffers(ptr, ptr, len, Overlap::SameOrDisjoint).map_err(ptr_err)?;
        let dev = device_for(device, ptr, len)?;
        let k = self.0.on(dev, CudaGcm::new)?;
        let tags = detached(py, || {
            // SAFETY: `ptr` holds `len` bytes of live device memory of this
            // device (the caller's array, held for the call; the batch's
            // strides checked above); the stream the caller's.
            unsafe { k.seal_many_raw(&nonces, aad, stride, ptr, len, stream_of(stream)) }
        })?;
        Ok(tags.iter().map(|t| PyBytes::new(py, t)).collect())
    }

    #[allow(clippy::too_many_arguments)]
    fn open_many(
        &self,
        py: Python<'_>,
        nonces: Vec<Vec<u8>>,
        aad: &[u8],
        stride: usize,
        ptr: u64,
        len: usize,
        tags: Vec<Vec<u8>>,
        device: Option<usize>,
        stream: Option<u64>,
    ) -> PyResult<Vec<bool>> {
        let nonces = nonces12(&nonces)?;
        if tags.len() != nonces.len() {
            return Err(PyValueError::new_err(format!(
                "{} nonces but {} tags",
                nonces.len(),
                tags.len()
            )));
        }
        let tags = tags
            .iter()
            .map(|t| array16(t, "every tag of a batch"))
            .collect::<PyResult<Vec<_>>>()?;
        raw::check_many_args(nonces.len(), stride, len).map_err(batch_err)?;
        raw::check_buffers(ptr, ptr, len, Overlap::SameOrDisjoint).map_err(ptr_err)?;
        let dev = device_for(device, ptr, len)?;
        let k = self.0.on(dev, CudaGcm::new)?;
        detached(py, || {
            // SAFETY: `ptr` holds `len` bytes of live device memory of this
            // device (the caller's array, held for the call; the batch's
            // strides checked above); the stream the caller's.
            unsafe { k.open_many_raw(&nonces, aad, stride, ptr, len, &tags, stream_of(stream)) }
        })
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    let c = PyModule::new(py, "_cuda")?;
    c.add("NoDeviceError", py.get_type::<NoDeviceError>())?;
    c.add_function(wrap_pyfunction!(available, &c)?)?;
    c.add_function(wrap_pyfunction!(device_info, &c)?)?;
    c.add_function(wrap_pyfunction!(device_of, &c)?)?;
    c.add_function(wrap_pyfunction!(_alloc, &c)?)?;
    c.add_function(wrap_pyfunction!(_to_host, &c)?)?;
    c.add_function(wrap_pyfunction!(_from_host, &c)?)?;
    c.add_function(wrap_pyfunction!(_copy, &c)?)?;
    c.add_class::<DeviceBuffer>()?;
    c.add_class::<_Aes>()?;
    c.add_class::<_Xts>()?;
    c.add_class::<_Gcm>()?;
    file::register(&c)?;
    m.add_submodule(&c)?;
    Ok(())
}
