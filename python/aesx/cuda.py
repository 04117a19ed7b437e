"""aesx on data that lives on an NVIDIA GPU: CuPy, PyTorch, Numba, JAX and
cuDF arrays (anything with ``__cuda_array_interface__`` or ``__dlpack__``)
encrypted where they are, with no copy through the host.

- :func:`available`, :func:`device_info`; without a usable GPU (no NVIDIA
  driver, no device, no NVRTC) every call that needs one raises
  :class:`NoDeviceError` with the reason. Importing never fails.
- :class:`AESGCM` (``encrypt``/``decrypt`` as ``aesx.AESGCM``, plus
  ``encrypt_into``/``decrypt_into`` with a detached tag, and
  ``seal_many``/``open_many`` for many messages in one launch),
  :class:`CTR`, :class:`ECB`, :class:`CBC` (decryption), :class:`XTS`
  (sector API).
- :func:`encrypt_to_file` / :func:`decrypt_from_file`: the format of
  ``aesx encrypt`` with the chunks sealed and opened on the GPU.

Arrays: C-contiguous, any dtype of plain bytes (all the bytes are what is
encrypted, counted with the dtype's real item size: ``<U4`` is 16 bytes an
item; object dtypes are refused), on one device. Results of out-of-place calls are :class:`DeviceBuffer` objects
(memory aesx allocates on the input's device) exposing
``__cuda_array_interface__``: ``cupy.asarray(buf)``,
``torch.as_tensor(buf, device="cuda")`` or ``numba.cuda.as_cuda_array(buf)``
view them without a copy; ``buf.to_bytes()`` copies them to the host.
Or pass ``out=`` (any writable device array of the right size, or the input
itself for in place).

Streams: ``stream=`` takes a CuPy stream (``.ptr``), a PyTorch stream
(``.cuda_stream``), a Numba stream (``.handle``) or a raw ``CUstream``
handle as an int (0 and 1: the legacy default stream, 2: the per-thread
default stream). Without it: the stream the first array's
``__cuda_array_interface__`` (v3) names, else the current stream of a
PyTorch or CuPy array's library, else the legacy default stream. The work is queued on that
stream; ECB, CTR, CBC and XTS return at once, GCM waits for its own digest
(the tag is needed on the host) but not for the decryption it queues.

Arguments are checked before the GPU is looked for, with the CPU classes'
messages and order (an int that fits no size, handle or ordinal is a
``ValueError``). Read-only memory (an interface's ``data[1]``, a DLPack 1.x
read-only or is-copied flag, JAX arrays) is never written; a pre-1.0 DLPack
capsule cannot say, and is written as told.
"""

import ctypes
import math
import operator
import os
import re
import sys

from . import _aesx
from ._aesx import InvalidTag

_c = _aesx._cuda

NoDeviceError = _c.NoDeviceError
DeviceBuffer = _c.DeviceBuffer

__all__ = [
    "AESGCM",
    "CBC",
    "CTR",
    "DeviceBuffer",
    "ECB",
    "InvalidTag",
    "NoDeviceError",
    "XTS",
    "available",
    "decrypt_from_file",
    "device_info",
    "encrypt_to_file",
]


def available():
    """Whether a CUDA GPU can be used (device 0 opens: driver, device,
    kernels compiled or cached, self-test passed). The first call may take
    NVRTC tens of seconds; the result is kept for the process."""
    return _c.available()


def device_info(device=0):
    """``{"device", "name", "compute_capability", "total_memory", "arch"}``;
    :class:`NoDeviceError` without a GPU (or without that device);
    ``ValueError`` for a negative ordinal, ``TypeError`` for a non-int."""
    return _c.device_info(_ordinal(device))


# ---- arrays ---------------------------------------------------------------

# DLPack device types that are CUDA memory (kDLCUDA, kDLCUDAManaged).
_DL_CUDA = (2, 13)
_DL_HOST = {1: "host (CPU)", 3: "pinned host", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 10: "ROCm"}
# DLPack dtype code of opaque handles (pointers, no plain bytes).
_DL_OPAQUE = 3
# DLManagedTensorVersioned.flags (DLPack 1.0).
_DL_READ_ONLY = 1 << 0
_DL_IS_COPIED = 1 << 1
# More dimensions than any array library makes (NumPy and CuPy: 64); a
# larger DLPack ndim is a broken producer, not an array to walk.
_MAX_NDIM = 64

_STREAM_LEGACY = 1
_U64 = 1 << 64
# The most bytes a buffer can have (a C ptrdiff_t, Rust's isize).
_MAX_NBYTES = (1 << 63) - 1


_READ_ONLY = "the array is read-only; it cannot be written in place"


class _Array:
    """What a call needs of an array: address, size, device, its stream, and
    why it must not be written (None: it may be)."""

    __slots__ = ("ptr", "nbytes", "device", "stream", "keep", "obj", "read_only")

    def __init__(self, ptr, nbytes, device, stream, keep, obj, read_only=None):
        self.ptr = ptr
        self.nbytes = nbytes
        self.device = device
        self.stream = stream
        self.keep = keep
        self.obj = obj
        self.read_only = read_only

    def writable(self):
        """Itself, if it may be written; else TypeError saying why not."""
        if self.read_only is not None:
            raise TypeError(self.read_only)
        return self


def _c_contiguous(shape, strides, itemsize):
    """Whether byte `strides` lay `shape` out C-contiguously (None: yes)."""
    if strides is None:
        return True
    if any(n == 0 for n in shape):
        return True
    want = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != want:
            return False
        want *= n
    return True


# NumPy's array-interface type strings: byte order, kind, size (in bytes;
# for U in 4-byte characters), and for datetimes (M) and timedeltas (m) an
# optional unit such as [ns] or [25s].
_TYPESTR = re.compile(r"([<>|=])([biufcmMOSUV])([0-9]{1,20})(\[[0-9]{0,20}[A-Za-z]{1,10}\])?")
# Bytes per unit of a kind's size: U counts UCS-4 characters.
_UNIT_BYTES = {"U": 4}


def _itemsize(typestr, descr=None):
    """Bytes per item of an array-interface `typestr` (``<U4``: 16,
    ``<M8[ns]``: 8); TypeError for what is not one, or holds objects."""
    what = "__cuda_array_interface__ typestr"
    if not isinstance(typestr, str):
        raise TypeError(f"{what} {typestr!r} is not a numpy type string")
    m = _TYPESTR.fullmatch(typestr)
    if m is None:
        if len(typestr) >= 2 and typestr[0] in "<>|=" and typestr[1] in "biufcmMOSUV":
            raise TypeError(f"{what} {typestr!r} has no item size")
        raise TypeError(f"{what} {typestr!r} is not a numpy type string")
    kind, size, unit = m.group(2), int(m.group(3)), m.group(4)
    if kind == "O" or (kind == "V" and _descr_has_objects(descr)):
        raise TypeError(f"arrays of typestr {typestr!r} hold no plain bytes (Python objects)")
    if unit is not None and kind not in "mM":
        raise TypeError(f"{what} {typestr!r} is not a numpy type string")
    if size == 0:
        raise TypeError(f"{what} {typestr!r} has no item size")
    return size * _UNIT_BYTES.get(kind, 1)


def _descr_has_objects(descr, depth=0):
    """Whether a structured dtype's `descr` (a list of (name, typestr[,
    shape]) entries, typestr maybe itself a list) has an object field."""
    if not isinstance(descr, list) or depth > 32:
        return False
    for field in descr:
        if not (isinstance(field, tuple) and len(field) >= 2):
            continue
        t = field[1]
        if isinstance(t, str) and len(t) >= 2 and t[1] == "O":
            return True
        if isinstance(t, list) and _descr_has_objects(t, depth + 1):
            return True
    return False


def _ints(t, what, source="__cuda_array_interface__"):
    """A tuple of ints (NumPy integers too), else TypeError."""
    if not isinstance(t, tuple):
        raise TypeError(f"{source} {what} must be a tuple of ints")
    try:
        return tuple(operator.index(n) for n in t)
    except TypeError:
        raise TypeError(f"{source} {what} must be a tuple of ints") from None


def _checked_nbytes(shape, itemsize):
    nbytes = math.prod(shape) * itemsize
    if nbytes > _MAX_NBYTES:
        raise ValueError(f"the array is too large ({nbytes} bytes; at most 2**63 - 1)")
    return nbytes


def _handle(h, what="stream handle"):
    """A CUDA handle as an int from 0 to 2**64 - 1: TypeError for what is
    not an int (bool included), ValueError outside the range."""
    if isinstance(h, bool):
        raise TypeError(f"{what} must be an int, not bool")
    try:
        h = operator.index(h)
    except TypeError:
        raise TypeError(f"{what} must be an int, not {type(h).__name__}") from None
    if h < 0:
        raise ValueError(f"{what} must not be negative")
    if h >= _U64:
        raise ValueError(f"{what} must be below 2**64")
    return h


def _from_cai(obj, cai):
    if not isinstance(cai, dict):
        raise TypeError("__cuda_array_interface__ is not a dict")
    version = cai.get("version", 0)
    if not isinstance(version, int) or isinstance(version, bool) or not 0 <= version <= 3:
        raise TypeError(f"__cuda_array_interface__ version {version!r} is not supported (0 to 3)")
    shape = _ints(cai.get("shape"), "shape")
    if any(n < 0 for n in shape):
        raise TypeError("__cuda_array_interface__ shape must be a tuple of non-negative ints")
    itemsize = _itemsize(cai.get("typestr"), cai.get("descr"))
    data = cai.get("data")
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError("__cuda_array_interface__ data must be (pointer, read_only)")
    ptr, readonly = _ints((data[0],), "data pointer")[0], bool(data[1])
    if not 0 <= ptr < _U64:
        raise TypeError("__cuda_array_interface__ data pointer must be from 0 to 2**64 - 1")
    if cai.get("mask") is not None:
        raise ValueError("masked arrays are not supported")
    strides = cai.get("strides")
    if strides is not None:
        strides = _ints(strides, "strides")
        if len(strides) != len(shape):
            raise TypeError("__cuda_array_interface__ strides must have one entry per dimension")
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("the array must be C-contiguous (make a contiguous copy first)")
    nbytes = _checked_nbytes(shape, itemsize)
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        # The rules of the stream= argument, and CAI v3's: 0 is ambiguous.
        try:
            stream = _handle(stream, "__cuda_array_interface__ stream handle")
        except TypeError as e:
            raise ValueError(f"{e} (it is {stream!r})") from None
        if stream == 0:
            raise ValueError(
                f"__cuda_array_interface__ stream {stream!r} is invalid (0 is not allowed)"
            )
    if nbytes > 0 and ptr == 0:
        raise ValueError("__cuda_array_interface__ has a null data pointer")
    return _Array(ptr, nbytes, None, stream, None, obj, _READ_ONLY if readonly else None)


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class _DLPackVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class _DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [
        ("version", _DLPackVersion),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
        ("flags", ctypes.c_uint64),
        ("dl_tensor", _DLTensor),
    ]


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _dl_device(obj):
    """``__dlpack_device__()`` as (device_type, device_id), checked."""
    dev = obj.__dlpack_device__()
    if not (isinstance(dev, tuple) and len(dev) == 2):
        raise TypeError(
            f"__dlpack_device__() must return (device_type, device_id), not {dev!r}"
        )
    dev_type, dev_id = _ints(dev, "device", "__dlpack_device__()")
    if not (0 <= dev_type < 1 << 31 and 0 <= dev_id < 1 << 31):
        raise TypeError(f"__dlpack_device__() returned an invalid device {dev!r}")
    return dev_type, dev_id


def _immutable(obj):
    """Arrays of a library whose arrays are never written (JAX): read-only
    whatever their DLPack capsule says."""
    mod = type(obj).__module__ or ""
    return mod.split(".")[0] in ("jax", "jaxlib")


def _dl_capsule(obj, stream):
    """The DLPack capsule of `obj` for work on `stream`: versioned (DLPack
    1.x, which says whether the memory is read-only) where the producer
    makes one, else legacy. Returns (tensor, flags or None, capsule)."""
    try:
        capsule = obj.__dlpack__(stream=stream, max_version=(1, 0))
    except TypeError:
        # A producer from before DLPack 1.0 takes no max_version.
        capsule = obj.__dlpack__(stream=stream)
    if _capsule_valid(capsule, b"dltensor_versioned"):
        m = _DLManagedTensorVersioned.from_address(
            _capsule_pointer(capsule, b"dltensor_versioned")
        )
        if m.version.major != 1:
            raise TypeError(
                f"__dlpack__ returned a DLPack {m.version.major}.{m.version.minor} tensor; "
                "aesx.cuda reads DLPack 1.x"
            )
        return m.dl_tensor, m.flags, capsule
    if _capsule_valid(capsule, b"dltensor"):
        # DLManagedTensor starts with its DLTensor.
        return _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor")), None, capsule
    raise TypeError("__dlpack__ did not return a DLPack tensor capsule")


def _from_dlpack(obj, stream):
    dev_type, dev_id = _dl_device(obj)
    if dev_type not in _DL_CUDA:
        where = _DL_HOST.get(dev_type, f"DLPack device type {dev_type}")
        raise TypeError(
            f"the array is in {where} memory; aesx.cuda takes CUDA device arrays "
            "(use aesx.AESGCM and the other aesx classes for host data)"
        )
    # The producer orders the data for the stream the work goes on (DLPack:
    # 1 is the legacy default stream, 2 the per-thread one).
    h = _stream_handle(stream)
    # The capsule stays unconsumed (its destructor releases the tensor) and
    # is held for the call.
    t, flags, capsule = _dl_capsule(obj, _STREAM_LEGACY if h in (None, 0) else h)
    read_only = None
    if _immutable(obj):
        read_only = (
            f"the array is read-only ({type(obj).__module__} arrays are immutable); "
            "it cannot be written in place"
        )
    elif flags is not None and flags & _DL_READ_ONLY:
        read_only = _READ_ONLY
    elif flags is not None and flags & _DL_IS_COPIED:
        read_only = (
            "__dlpack__ handed a copy of the array; it cannot be written in place "
            "(the result would be lost)"
        )
    if (t.device.device_type, t.device.device_id) != (dev_type, dev_id):
        raise TypeError(
            f"the DLPack tensor is on device ({t.device.device_type}, {t.device.device_id}), "
            f"__dlpack_device__() says ({dev_type}, {dev_id})"
        )
    ndim = t.ndim
    if not 0 <= ndim <= _MAX_NDIM:
        raise TypeError(f"DLPack ndim {ndim} is invalid (0 to {_MAX_NDIM})")
    if ndim > 0 and not t.shape:
        raise TypeError("the DLPack tensor has no shape")
    shape = tuple(t.shape[i] for i in range(ndim))
    if any(n < 0 for n in shape):
        raise TypeError("DLPack shape must be non-negative ints")
    dt = t.dtype
    if dt.code == _DL_OPAQUE:
        raise TypeError("arrays of opaque handles hold no plain bytes")
    bits = dt.bits * dt.lanes
    if bits == 0:
        raise TypeError("the DLPack dtype has no item size (0 bits or 0 lanes)")
    if bits % 8:
        raise TypeError("arrays of sub-byte dtypes hold no whole bytes")
    itemsize = bits // 8
    strides = None
    if t.strides and ndim > 0:
        strides = tuple(t.strides[i] * itemsize for i in range(ndim))
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("the array must be C-contiguous (make a contiguous copy first)")
    nbytes = _checked_nbytes(shape, itemsize)
    ptr = (t.data or 0) + t.byte_offset
    if ptr >= _U64:
        raise TypeError("DLPack data pointer plus byte_offset runs past 2**64 - 1")
    if nbytes > 0 and ptr == 0:
        raise ValueError("the DLPack tensor has a null data pointer")
    return _Array(
        ptr, nbytes, dev_id if dev_type == 2 else None, None, capsule, obj, read_only
    )


def _array(obj, *, writable=False, stream=None, what="data"):
    """The device memory of `obj`, checked (and that it may be written, if
    `writable`); TypeError for anything else."""
    a = _parse(obj, stream, what)
    return a.writable() if writable else a


def _parse(obj, stream, what):
    if isinstance(obj, DeviceBuffer):
        # Its interface names the stream of its last write.
        a = _from_cai(obj, obj.__cuda_array_interface__)
        a.device = obj.device
        return a
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        cai = None
    if cai is not None:
        return _from_cai(obj, cai)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj, stream)
    if isinstance(obj, (bytes, bytearray, memoryview)) or hasattr(obj, "__array_interface__"):
        raise TypeError(
            f"{what} is in host memory ({type(obj).__name__}); aesx.cuda takes CUDA device "
            "arrays (use aesx.AESGCM and the other aesx classes for host data)"
        )
    raise TypeError(
        f"{what} must be a CUDA device array (__cuda_array_interface__ or __dlpack__), "
        f"not {type(obj).__name__}"
    )


def _stream_handle(stream):
    """A ``stream=`` argument as a raw handle (None: none given)."""
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream must be a stream object or an int handle")
    if isinstance(stream, int):
        return _handle(stream)
    for attr in ("cuda_stream", "ptr"):
        h = getattr(stream, attr, None)
        if isinstance(h, int) and not isinstance(h, bool):
            return _handle(h)
    h = getattr(stream, "handle", None)
    if h is not None:
        v = getattr(h, "value", h)
        if v is None:
            return 0
        if isinstance(v, int) and not isinstance(v, bool):
            return _handle(v)
    raise TypeError(
        "stream must be a CuPy/PyTorch/Numba stream or an int handle, "
        f"not {type(stream).__name__}"
    )


def _ordinal(device):
    """A CUDA device ordinal: TypeError for what is not an int, ValueError
    for a negative (or absurd) one, as the C API's AESX_ERR_INVALID_ARGUMENT."""
    try:
        d = operator.index(device)
    except TypeError:
        raise TypeError(
            f"device must be an int (a CUDA device ordinal), not {type(device).__name__}"
        ) from None
    if not 0 <= d < 1 << 31:
        raise ValueError(f"device must be a CUDA device ordinal (0, 1, ...), got {d}")
    return d


def _size(v, what, message):
    """A size argument as the Rust side takes it: TypeError for what is not
    an int (as aesx's CPU classes), ValueError with the rule's own
    `message` for one that no size can be (negative, 2**64 or more)."""
    try:
        n = operator.index(v)
    except TypeError:
        raise TypeError(f"{what} must be an int, not {type(v).__name__}") from None
    if not 0 <= n < _U64:
        raise ValueError(message.format(n))
    return n


# The messages of aesx.XTS (aesx::Error::InvalidSectorSize) and of a batch's
# stride (aesx_cuda::raw::BatchError::Stride), for sizes beyond a usize.
_SECTOR_SIZE_RULE = "invalid sector size {}: must be a non-zero multiple of 16, at most 2^24"
_STRIDE_RULE = (
    "invalid stride {}: the stride of a batch must be a multiple of 16 from 16 to 16384 bytes"
)


def _library_stream(obj):
    """The current stream of the array's library, where the interface does
    not name it: PyTorch (``__cuda_array_interface__`` v2, no stream) and
    CuPy arrays; None for others."""
    mod = type(obj).__module__ or ""
    try:
        if mod.startswith("torch") and getattr(obj, "is_cuda", False):
            torch = sys.modules.get("torch")
            if torch is not None:
                return torch.cuda.current_stream(obj.device).cuda_stream
        if mod.startswith("cupy"):
            cupy = sys.modules.get("cupy")
            if cupy is not None:
                return cupy.cuda.get_current_stream().ptr
    except Exception:  # an exotic subclass or a library without these: no guess
        return None
    return None


def _prepare(arrays, stream):
    """The device if an array names it (DLPack, DeviceBuffer; else the
    driver is asked after the arguments are checked) and the stream: the
    one given, else the first an array's interface names, else the current
    stream of its library (PyTorch, CuPy), else the legacy default (None)."""
    s = _stream_handle(stream)
    if s is None:
        s = next((a.stream for a in arrays if a.stream is not None), None)
    if s is None:
        s = next((h for h in map(_library_stream, (a.obj for a in arrays)) if h is not None), None)
    dev = next((a.device for a in arrays if a.device is not None), None)
    return dev, (None if s in (None, 0, _STREAM_LEGACY) else s)


def _written(objs, s):
    for o in objs:
        if isinstance(o, DeviceBuffer):
            o._used_on(s)


def _output(src, out, *, stream, what="out"):
    """The checked `out` array, or None."""
    if out is None:
        return None
    return _same_size(src, _array(out, writable=True, stream=stream, what=what), what)


def _same_size(src, o, what="out"):
    if o.nbytes != src.nbytes:
        raise ValueError(f"{what} has {o.nbytes} bytes, the input {src.nbytes}")
    return o


def _bytes(b, what):
    if b is None:
        return b""
    try:
        return bytes(memoryview(b))
    except TypeError:
        raise TypeError(f"{what} must be a bytes-like object") from None


def _block16(b, what):
    """A counter block or IV, checked before the arrays (as a pyca mode
    checks its IV when it is made); the message of the Rust side's check."""
    if len(b) != 16:
        raise ValueError(f"{what} must be 16 bytes, got {len(b)}")
    return b


def _key(key):
    try:
        return bytes(memoryview(key))
    except TypeError:
        raise TypeError("key must be a bytes-like object") from None


def _run(key_call, src, out, stream, *args):
    """key_call(*args, src, dst, len, device, stream) into `out`, else into
    a new DeviceBuffer (made after the arguments are checked); returns the
    output object."""
    dev, s = _prepare([src] + ([out] if out is not None else []), stream)
    new = key_call(*args, src.ptr, None if out is None else out.ptr, src.nbytes, dev, s)
    if out is None:
        return new
    _written([out.obj], s)
    return out.obj


# ---- AES-GCM --------------------------------------------------------------


class AESGCM:
    """AES-GCM with a 16-byte tag on device arrays; the key (16, 24 or 32
    bytes) is checked here and copied to a GPU on first use there."""

    def __init__(self, key):
        self._k = _c._Gcm(_key(key))

    @staticmethod
    def generate_key(bit_length):
        """A fresh random key, as ``aesx.AESGCM.generate_key``."""
        return _aesx.AESGCM.generate_key(bit_length)

    def encrypt(self, nonce, data, associated_data, *, stream=None):
        """Ciphertext then the 16-byte tag, as ``aesx.AESGCM.encrypt``, in a
        new :class:`DeviceBuffer` of ``len(data) + 16`` bytes on the data's
        device. `data` is not changed."""
        nonce, aad = _bytes(nonce, "nonce"), _bytes(associated_data, "associated_data")
        src = _array(data, stream=stream)
        dev, s = _prepare([src], stream)
        _, buf = self._k.seal(nonce, aad, src.ptr, None, src.nbytes, dev, s, True)
        return buf

    def decrypt(self, nonce, data, associated_data, *, stream=None):
        """The plaintext of ciphertext-then-tag `data` in a new
        :class:`DeviceBuffer`; :class:`InvalidTag` (nothing released) if it
        does not verify."""
        nonce, aad = _bytes(nonce, "nonce"), _bytes(associated_data, "associated_data")
        src = _array(data, stream=stream)
        dev, s = _prepare([src], stream)
        return self._k.open_appended(nonce, aad, src.ptr, src.nbytes, dev, s)

    def encrypt_into(self, nonce, data, associated_data, out=None, *, stream=None):
        """Encrypts `data` in place (or into `out`, a device array of the same
        size) and returns the 16-byte tag (bytes, on the host)."""
        nonce, aad = _bytes(nonce, "nonce"), _bytes(associated_data, "associated_data")
        src = _array(data, stream=stream)
        o = src if out is None else _array(out, stream=stream, what="out")
        # aesx.AESGCM.encrypt_into's order: the parameters, then the output.
        self._k.check(nonce, len(aad), src.nbytes, None)
        _same_size(src, o.writable())
        dev, s = _prepare([src, o], stream)
        try:
            tag, _ = self._k.seal(nonce, aad, src.ptr, o.ptr, src.nbytes, dev, s, False)
        finally:
            _written([o.obj], s)
        return tag

    def decrypt_into(self, nonce, data, tag, associated_data, out=None, *, stream=None):
        """Verifies `tag` (4, 8 or 12 to 16 bytes) and decrypts `data` in
        place (or into `out`). On :class:`InvalidTag` the output is zeroed
        (queued on the stream) and no plaintext was produced."""
        nonce, aad = _bytes(nonce, "nonce"), _bytes(associated_data, "associated_data")
        tag = _bytes(tag, "tag")
        src = _array(data, stream=stream)
        o = src if out is None else _array(out, stream=stream, what="out")
        self._k.check(nonce, len(aad), src.nbytes, len(tag))
        _same_size(src, o.writable())
        dev, s = _prepare([src, o], stream)
        try:
            self._k.open(nonce, aad, tag, src.ptr, o.ptr, src.nbytes, dev, s)
        finally:
            _written([o.obj], s)

    def seal_many(self, nonces, data, stride, associated_data=None, *, stream=None):
        """Seals many messages of one device array in place in one launch:
        message ``i`` is ``stride`` bytes at byte ``i * stride`` (``stride`` a
        multiple of 16, at most 16384; only the last message shorter, maybe
        empty), with the 12-byte ``nonces[i]``, all with the same associated
        data. Returns the 16-byte tags (a list of bytes)."""
        ns = [_bytes(n, "nonce") for n in nonces]
        aad = _bytes(associated_data, "associated_data")
        src = _array(data, writable=True, stream=stream)
        dev, s = _prepare([src], stream)
        stride = _size(stride, "stride", _STRIDE_RULE)
        tags = self._k.seal_many(ns, aad, stride, src.ptr, src.nbytes, dev, s)
        _written([src.obj], s)
        return tags

    def open_many(self, nonces, data, stride, tags, associated_data=None, *, stream=None):
        """Opens messages laid out as for :meth:`seal_many` in place against
        their 16-byte tags. Returns a list of bools, one per message: the
        messages that verified are decrypted, the others zeroed (none is
        decrypted before its own tag verified)."""
        ns = [_bytes(n, "nonce") for n in nonces]
        ts = [_bytes(t, "tag") for t in tags]
        aad = _bytes(associated_data, "associated_data")
        src = _array(data, writable=True, stream=stream)
        dev, s = _prepare([src], stream)
        stride = _size(stride, "stride", _STRIDE_RULE)
        ok = self._k.open_many(ns, aad, stride, src.ptr, src.nbytes, ts, dev, s)
        _written([src.obj], s)
        return ok


# ---- block modes ----------------------------------------------------------


class ECB:
    """AES-ECB on device arrays (whole 16-byte blocks)."""

    def __init__(self, key):
        self._k = _c._Aes(_key(key))

    def _ecb(self, decrypt, data, out, stream):
        src = _array(data, stream=stream)
        o = _output(src, out, stream=stream)
        return _run(self._k.ecb, src, o, stream, decrypt)

    def encrypt(self, data, out=None, *, stream=None):
        """Into `out` (``out=data``: in place), else a new DeviceBuffer."""
        return self._ecb(False, data, out, stream)

    def decrypt(self, data, out=None, *, stream=None):
        """Into `out` (``out=data``: in place), else a new DeviceBuffer."""
        return self._ecb(True, data, out, stream)


class CTR:
    """AES-CTR on device arrays: a 16-byte initial counter block (128-bit
    big-endian counter, wrapping), any length. Encryption and decryption
    are the same."""

    def __init__(self, key):
        self._k = _c._Aes(_key(key))

    def apply(self, nonce, data, out=None, *, stream=None):
        """Into `out` (``out=data``: in place), else a new DeviceBuffer."""
        counter = _block16(_bytes(nonce, "nonce"), "the counter block (nonce)")
        src = _array(data, stream=stream)
        o = _output(src, out, stream=stream)
        return _run(self._k.ctr, src, o, stream, counter)

    encrypt = apply
    decrypt = apply


class CBC:
    """AES-CBC decryption on device arrays (whole blocks; every block is
    decrypted in parallel). ``out`` must not overlap ``data``."""

    def __init__(self, key):
        self._k = _c._Aes(_key(key))

    def decrypt(self, iv, data, out=None, *, stream=None):
        """Into `out` (disjoint from `data`), else a new DeviceBuffer."""
        iv = _block16(_bytes(iv, "iv"), "the IV")
        src = _array(data, stream=stream)
        o = _output(src, out, stream=stream)
        return _run(self._k.cbc_decrypt, src, o, stream, iv)


class XTS:
    """AES-XTS sector API on device arrays, as ``aesx.XTS.encrypt_sectors``:
    consecutive sectors of ``sector_size`` bytes (a multiple of 16) from
    sector number ``first_sector`` (the little-endian tweak); the key is 32
    or 64 bytes (two halves, which must differ for encryption)."""

    def __init__(self, key):
        self._k = _c._Xts(_key(key))

    def _xts(self, decrypt, data, sector_size, first_sector, out, stream):
        sector_size = _size(sector_size, "sector_size", _SECTOR_SIZE_RULE)
        try:
            first_sector = operator.index(first_sector)
        except TypeError:
            raise TypeError(
                f"first_sector must be an int, not {type(first_sector).__name__}"
            ) from None
        if not 0 <= first_sector < 1 << 128:
            raise ValueError("first_sector must be an int from 0 to 2**128 - 1")
        src = _array(data, stream=stream)
        o = _output(src, out, stream=stream)
        return _run(self._k.sectors, src, o, stream, decrypt, first_sector, sector_size)

    def encrypt_sectors(self, data, sector_size, first_sector, out=None, *, stream=None):
        """Into `out` (``out=data``: in place), else a new DeviceBuffer."""
        return self._xts(False, data, sector_size, first_sector, out, stream)

    def decrypt_sectors(self, data, sector_size, first_sector, out=None, *, stream=None):
        """Into `out` (``out=data``: in place), else a new DeviceBuffer."""
        return self._xts(True, data, sector_size, first_sector, out, stream)


# ---- files ----------------------------------------------------------------


def _file_key(key):
    if isinstance(key, str):
        try:
            k = bytes.fromhex(key.strip())
        except ValueError:
            k = b""
        if len(k) != 32:
            raise ValueError("key must be 32 bytes, or a str of 64 hex digits (an aesx key file)")
        return k
    return _key(key)


def encrypt_to_file(array, path, *, key, force=False, stream=None):
    """Writes the bytes of device array `array` to `path` in the format of
    ``aesx encrypt`` (AES-256-GCM, 16 KiB chunks; ``aesx decrypt`` and
    :func:`aesx.decrypt_file` read it). The chunks are sealed on the GPU,
    2048 per launch, and only ciphertext is copied to the host; `array` is
    not changed. `key`: 32 bytes, or the 64 hex digits of an aesx key file.
    The file appears only when complete (written under a temporary name,
    then renamed); an existing `path` raises FileExistsError unless
    ``force=True``."""
    k = _file_key(key)
    src = _array(array, stream=stream, what="array")
    path = os.fspath(path)
    dev, s = _prepare([src], stream)
    _c._encrypt_to_file(src.ptr, src.nbytes, dev, s, path, k, bool(force))


def decrypt_from_file(path, *, key, device=0, stream=None):
    """Decrypts a file written by ``aesx encrypt -k KEYFILE`` (or
    :func:`encrypt_to_file`) into a new :class:`DeviceBuffer` on `device`:
    ciphertext is copied to the GPU and every chunk opened there. Raises
    :class:`aesx.DecryptionError` if the file is not an aesx file, the key
    is wrong, or the file was truncated, extended or modified; no plaintext
    is returned then (what was decrypted is zeroed)."""
    k = _file_key(key)
    path = os.fspath(path)
    s = _stream_handle(stream)
    return _c._decrypt_from_file(path, k, _ordinal(device), None if s in (None, 0, 1) else s)
