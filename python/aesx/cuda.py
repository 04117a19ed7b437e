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

Arrays: C-contiguous, any dtype (the bytes are what is encrypted), on one
device. Results of out-of-place calls are :class:`DeviceBuffer` objects
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

Arguments are checked before the GPU is looked for: a wrong key, nonce,
tag, length, a read-only, strided or host array raises the same
``ValueError``/``TypeError`` with or without a GPU.
"""

import ctypes
import math
import operator
import os
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
    :class:`NoDeviceError` without a GPU."""
    return _c.device_info(device)


# ---- arrays ---------------------------------------------------------------

# DLPack device types that are CUDA memory (kDLCUDA, kDLCUDAManaged).
_DL_CUDA = (2, 13)
_DL_HOST = {1: "host (CPU)", 3: "pinned host", 4: "OpenCL", 7: "Vulkan", 8: "Metal", 10: "ROCm"}

_STREAM_LEGACY = 1


class _Array:
    """What a call needs of an array: address, size, device, its stream."""

    __slots__ = ("ptr", "nbytes", "device", "stream", "keep", "obj")

    def __init__(self, ptr, nbytes, device, stream, keep, obj):
        self.ptr = ptr
        self.nbytes = nbytes
        self.device = device
        self.stream = stream
        self.keep = keep
        self.obj = obj


def _c_contiguous(shape, strides, itemsize):
    if strides is None:
        return True
    if len(strides) != len(shape):
        return False
    if any(n == 0 for n in shape):
        return True
    want = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1 and s != want:
            return False
        want *= n
    return True


def _itemsize(typestr):
    if not isinstance(typestr, str) or len(typestr) < 3 or typestr[0] not in "<>|=":
        raise TypeError(f"__cuda_array_interface__ typestr {typestr!r} is not a numpy type string")
    if typestr[1] == "O":
        raise TypeError(f"arrays of typestr {typestr!r} hold no plain bytes (Python objects)")
    try:
        size = int(typestr[2:])
    except ValueError:
        raise TypeError(f"__cuda_array_interface__ typestr {typestr!r} has no item size") from None
    if size <= 0:
        raise TypeError(f"__cuda_array_interface__ typestr {typestr!r} has no item size")
    return size


def _ints(t, what):
    """A tuple of ints (NumPy integers too), else TypeError."""
    if not isinstance(t, tuple):
        raise TypeError(f"__cuda_array_interface__ {what} must be a tuple of ints")
    try:
        return tuple(operator.index(n) for n in t)
    except TypeError:
        raise TypeError(f"__cuda_array_interface__ {what} must be a tuple of ints") from None


def _from_cai(obj, cai, writable):
    if not isinstance(cai, dict):
        raise TypeError("__cuda_array_interface__ is not a dict")
    version = cai.get("version", 0)
    if not isinstance(version, int) or version > 3:
        raise TypeError(f"__cuda_array_interface__ version {version!r} is not supported (0 to 3)")
    shape = _ints(cai.get("shape"), "shape")
    if any(n < 0 for n in shape):
        raise TypeError("__cuda_array_interface__ shape must be a tuple of non-negative ints")
    itemsize = _itemsize(cai.get("typestr"))
    data = cai.get("data")
    if not (isinstance(data, tuple) and len(data) == 2):
        raise TypeError("__cuda_array_interface__ data must be (pointer, read_only)")
    ptr, readonly = _ints((data[0],), "data pointer")[0], bool(data[1])
    if ptr < 0:
        raise TypeError("__cuda_array_interface__ data pointer must not be negative")
    if cai.get("mask") is not None:
        raise ValueError("masked arrays are not supported")
    strides = cai.get("strides")
    if strides is not None:
        strides = _ints(strides, "strides")
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("the array must be C-contiguous (make a contiguous copy first)")
    if writable and readonly:
        raise TypeError("the array is read-only; it cannot be written in place")
    nbytes = math.prod(shape) * itemsize
    stream = cai.get("stream") if version >= 3 else None
    if stream is not None:
        if not isinstance(stream, int) or isinstance(stream, bool) or stream == 0:
            raise ValueError(
                f"__cuda_array_interface__ stream {stream!r} is invalid (0 is not allowed)"
            )
    if nbytes > 0 and ptr == 0:
        raise ValueError("__cuda_array_interface__ has a null data pointer")
    return _Array(ptr, nbytes, None, stream, None, obj)


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


_capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_capsule_pointer.restype = ctypes.c_void_p
_capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
_capsule_valid = ctypes.pythonapi.PyCapsule_IsValid
_capsule_valid.restype = ctypes.c_int
_capsule_valid.argtypes = [ctypes.py_object, ctypes.c_char_p]


def _from_dlpack(obj, writable, stream):
    dev = obj.__dlpack_device__()
    dev_type, dev_id = int(dev[0]), int(dev[1])
    if dev_type not in _DL_CUDA:
        where = _DL_HOST.get(dev_type, f"DLPack device type {dev_type}")
        raise TypeError(
            f"the array is in {where} memory; aesx.cuda takes CUDA device arrays "
            "(use aesx.AESGCM and the other aesx classes for host data)"
        )
    # The producer orders the data for the stream the work goes on (DLPack:
    # 1 is the legacy default stream, 2 the per-thread one).
    h = _stream_handle(stream)
    capsule = obj.__dlpack__(stream=_STREAM_LEGACY if h in (None, 0) else h)
    if not _capsule_valid(capsule, b"dltensor"):
        raise TypeError("__dlpack__ did not return a DLPack tensor capsule")
    # DLManagedTensor starts with its DLTensor. The capsule stays unconsumed
    # (its destructor releases the tensor) and is held for the call.
    t = _DLTensor.from_address(_capsule_pointer(capsule, b"dltensor"))
    shape = tuple(t.shape[i] for i in range(t.ndim))
    bits = t.dtype.bits * t.dtype.lanes
    if bits % 8:
        raise TypeError("arrays of sub-byte dtypes hold no whole bytes")
    itemsize = bits // 8
    strides = None
    if t.strides:
        strides = tuple(t.strides[i] * itemsize for i in range(t.ndim))
    if not _c_contiguous(shape, strides, itemsize):
        raise ValueError("the array must be C-contiguous (make a contiguous copy first)")
    nbytes = math.prod(shape) * itemsize
    ptr = (t.data or 0) + t.byte_offset
    del writable  # legacy DLPack says nothing about read-only memory
    return _Array(ptr, nbytes, dev_id if dev_type == 2 else None, None, capsule, obj)


def _array(obj, *, writable=False, stream=None, what="data"):
    """The device memory of `obj`, checked; TypeError for anything else."""
    if isinstance(obj, DeviceBuffer):
        # Its interface names the stream of its last write.
        a = _from_cai(obj, obj.__cuda_array_interface__, writable)
        a.device = obj.device
        return a
    try:
        cai = obj.__cuda_array_interface__
    except AttributeError:
        cai = None
    if cai is not None:
        return _from_cai(obj, cai, writable)
    if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
        return _from_dlpack(obj, writable, stream)
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
    if stream is None:
        return None
    if isinstance(stream, bool):
        raise TypeError("stream must be a stream object or an int handle")
    if isinstance(stream, int):
        if stream < 0:
            raise ValueError("stream handle must not be negative")
        return stream
    for attr in ("cuda_stream", "ptr"):
        h = getattr(stream, attr, None)
        if isinstance(h, int):
            return h
    h = getattr(stream, "handle", None)
    if h is not None:
        v = getattr(h, "value", h)
        if v is None:
            return 0
        if isinstance(v, int):
            return v
    raise TypeError(
        "stream must be a CuPy/PyTorch/Numba stream or an int handle, "
        f"not {type(stream).__name__}"
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
    o = _array(out, writable=True, stream=stream, what=what)
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
        src = _array(data, writable=out is None, stream=stream)
        o = _output(src, out, stream=stream) or src
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
        src = _array(data, writable=out is None, stream=stream)
        o = _output(src, out, stream=stream) or src
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
        tags = self._k.seal_many(ns, aad, int(stride), src.ptr, src.nbytes, dev, s)
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
        ok = self._k.open_many(ns, aad, int(stride), src.ptr, src.nbytes, ts, dev, s)
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
        counter = _bytes(nonce, "nonce")
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
        iv = _bytes(iv, "iv")
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
        if not isinstance(first_sector, int) or first_sector < 0 or first_sector >= 1 << 128:
            raise ValueError("first_sector must be an int from 0 to 2**128 - 1")
        src = _array(data, stream=stream)
        o = _output(src, out, stream=stream)
        return _run(self._k.sectors, src, o, stream, decrypt, first_sector, int(sector_size))

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
    return _c._decrypt_from_file(path, k, int(device), None if s in (None, 0, 1) else s)
