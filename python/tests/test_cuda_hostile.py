"""aesx.cuda under hostile arguments, on any machine (no GPU needed).

Fake ``__cuda_array_interface__`` objects and DLPack capsules built with
ctypes (legacy and versioned) go through the same parsing as real CuPy,
PyTorch or JAX arrays: the byte count of every NumPy dtype kind, read-only
memory on every path that writes, DLPack checked as strictly as the array
interface, and one error policy (no OverflowError, IndexError or
PanicException reaches the caller; the CPU classes' messages for the same
mistakes). A stub libcuda (compiled here with the C compiler, skipped
without one) checks that a driver lacking entry points is NoDeviceError,
never a panic, and that ``available()`` probes once per process.

Without a GPU every call that passes its checks ends in NoDeviceError, which
is how a test here sees that the checks passed (with a GPU, the fake
addresses are refused by the driver instead: ValueError).
"""

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

import aesx
import aesx.cuda as cuda

GPU = cuda.available()
KEY = bytes(range(32))
XKEY = bytes(range(64))
NONCE = bytes(range(12))
P1, P2, P3 = 1 << 20, 1 << 24, 1 << 28

# What passing every argument check ends in on this machine: no GPU, or
# (with one) the driver refusing a fake address.
PASSED = (cuda.NoDeviceError,) if not GPU else (cuda.NoDeviceError, ValueError)
# What an argument error may be: never OverflowError, IndexError, ...
REFUSED = (ValueError, TypeError)


def cai(shape, typestr="|u1", *, ptr=P1, readonly=False, strides=None, version=3, **extra):
    """An object with a hand-written __cuda_array_interface__ (v3)."""

    class Fake:
        pass

    f = Fake()
    d = dict(shape=shape, typestr=typestr, data=(ptr, readonly), version=version,
             strides=strides)
    d.update(extra)
    f.__cuda_array_interface__ = d
    return f


def u8(n, **kw):
    return cai((n,), "|u1", **kw)


# ---- DLPack capsules, legacy and versioned ----------------------------------


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManaged(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


class DLVersion(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32)]


class DLManagedVersioned(ctypes.Structure):
    _fields_ = [("version", DLVersion), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p), ("flags", ctypes.c_uint64),
                ("dl_tensor", DLTensor)]


READ_ONLY, IS_COPIED = 1, 2

_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeDLPack:
    """A DLPack producer over a hand-built tensor (no deleter). `versioned`:
    DLPack 1.x (answers max_version with a "dltensor_versioned" capsule and
    `flags`); else legacy (rejects max_version as old producers do)."""

    def __init__(self, shape, *, strides=None, device=(2, 0), tensor_device=None,
                 code=1, bits=8, lanes=1, ptr=P1, byte_offset=0, ndim=None,
                 null_shape=False, versioned=False, flags=0, major=1, name=None,
                 module=None):
        self.shape = (ctypes.c_int64 * max(len(shape), 1))(*shape)
        self.strides = (ctypes.c_int64 * len(strides))(*strides) if strides else None
        if tensor_device is None:
            fits = (isinstance(device, tuple) and len(device) == 2
                    and all(isinstance(v, int) and -(2**31) <= v < 2**31 for v in device))
            tensor_device = device if fits else (2, 0)
        t = DLTensor(
            data=ptr,
            device=DLDevice(*tensor_device),
            ndim=len(shape) if ndim is None else ndim,
            dtype=DLDataType(code, bits, lanes),
            shape=None if null_shape else ctypes.cast(self.shape, ctypes.POINTER(ctypes.c_int64)),
            strides=self.strides,
            byte_offset=byte_offset,
        )
        if versioned:
            self.m = DLManagedVersioned(version=DLVersion(major, 0), flags=flags, dl_tensor=t)
        else:
            self.m = DLManaged(dl_tensor=t)
        self.device = device
        self.versioned = versioned
        self.name = name or (b"dltensor_versioned" if versioned else b"dltensor")
        self.calls = []
        if module is not None:
            self.__class__ = type("Fake", (FakeDLPack,), {"__module__": module})

    def __dlpack_device__(self):
        return self.device

    def __dlpack__(self, stream=None, max_version=None):
        self.calls.append((stream, max_version))
        if max_version is not None and not self.versioned:
            raise TypeError("__dlpack__() got an unexpected keyword argument 'max_version'")
        return _new_capsule(ctypes.addressof(self.m), self.name, None)


def nbytes(obj):
    return cuda._array(obj).nbytes


# ---- 1. byte counts from the real item size ----------------------------------


@pytest.mark.parametrize("typestr,items,want", [
    ("|b1", 5, 5), ("|i1", 3, 3), ("<i2", 3, 6), ("<i4", 3, 12), (">i8", 3, 24),
    ("|u1", 7, 7), ("<u2", 7, 14), ("<u4", 7, 28), ("<u8", 7, 56),
    ("<f2", 4, 8), ("<f4", 4, 16), ("<f8", 4, 32), ("<f16", 4, 64), ("<f12", 2, 24),
    ("<c8", 2, 16), ("<c16", 2, 32), ("<c32", 2, 64),
    ("<m8", 3, 24), ("<m8[ns]", 3, 24), ("<m8[25s]", 3, 24),
    ("<M8", 2, 16), ("<M8[ns]", 2, 16), ("<M8[D]", 2, 16), ("=M8[us]", 2, 16),
    ("|S1", 9, 9), ("|S4", 4, 16), ("|S7", 3, 21),
    ("<U1", 4, 16), ("<U4", 4, 64), (">U3", 5, 60),
    ("|V1", 3, 3), ("|V3", 5, 15), ("|V16", 2, 32),
])
def test_every_kind_counts_its_real_item_size(typestr, items, want):
    assert nbytes(cai((items,), typestr)) == want
    # Contiguous strides in the real item size are contiguous.
    size = want // items
    assert nbytes(cai((items, 1), typestr, strides=(size, size))) == want


def test_numpy_dtypes_give_numpys_nbytes():
    np = pytest.importorskip("numpy")
    dtypes = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
              np.uint64, np.float16, np.float32, np.float64, np.longdouble, np.complex64,
              np.complex128, np.clongdouble, "m8[ns]", "m8[25s]", "M8[ns]", "M8[D]", "M8",
              "S1", "S5", "U1", "U4", "U7", "V1", "V3", "V13",
              np.dtype([("a", "<i4"), ("b", "S3")]),
              np.dtype([("a", "<u2"), ("b", "<f8")], align=True),
              np.dtype(("<i2", (3,)))]
    for dt in dtypes:
        for shape in [(6,), (2, 3), (0, 5), (1,), ()]:
            a = np.zeros(shape, dtype=dt)
            ai = a.__array_interface__
            fake = cai(ai["shape"], ai["typestr"], strides=ai["strides"], descr=ai["descr"])
            assert nbytes(fake) == a.nbytes, (dt, shape, ai["typestr"])
        b = np.zeros((4, 6), dtype=dt)
        for view in (b[:, ::2], b.T, b[::2]):
            ai = view.__array_interface__
            fake = cai(ai["shape"], ai["typestr"], strides=ai["strides"])
            if view.flags.c_contiguous:
                assert nbytes(fake) == view.nbytes
            else:
                with pytest.raises(ValueError, match="C-contiguous"):
                    nbytes(fake)


def test_a_unicode_array_is_encrypted_whole():
    # 4 items of <U4 are 64 bytes, not 16: out= of 64 bytes fits, 16 does not.
    g = cuda.AESGCM(KEY)
    src = cai((4,), "<U4")
    with pytest.raises(PASSED):
        g.encrypt_into(NONCE, src, None, out=u8(64, ptr=P2))
    with pytest.raises(ValueError, match="16 bytes, the input 64"):
        g.encrypt_into(NONCE, src, None, out=u8(16, ptr=P2))
    with pytest.raises(ValueError, match="block"):
        cuda.ECB(KEY).encrypt(cai((1,), "<U3"))  # 12 bytes
    with pytest.raises(PASSED):
        cuda.ECB(KEY).encrypt(cai((1,), "<U4"))  # 16 bytes
    with pytest.raises(PASSED):
        g.encrypt(NONCE, cai((2,), "<M8[ns]"), None)


@pytest.mark.parametrize("typestr", ["|O8", "|O4", "<O8"])
def test_objects_are_refused(typestr):
    with pytest.raises(TypeError, match="plain bytes"):
        nbytes(cai((2,), typestr))


def test_structured_arrays_with_objects_are_refused():
    descr = [("a", "<i8"), ("b", "|O8")]
    with pytest.raises(TypeError, match="plain bytes"):
        nbytes(cai((2,), "|V16", descr=descr))
    nested = [("x", [("a", "<i8"), ("o", "|O8")])]
    with pytest.raises(TypeError, match="plain bytes"):
        nbytes(cai((2,), "|V16", descr=nested))
    assert nbytes(cai((2,), "|V16", descr=[("a", "<i8"), ("b", "<f8")])) == 32


@pytest.mark.parametrize("typestr", [
    "u1", "<", "<u", "<u0", "|S0", "<U0", "<x4", "<i", "<i4[ns]", "<S4[s]", "<M8[", "<M8[]",
    "<i-4", "<i+4", "<i 4", "<i\u0664", "<f4 ", " <f4", b"<f4", 4, None, "<u1<u1",
])
def test_bad_typestrs_are_type_errors(typestr):
    with pytest.raises(TypeError):
        nbytes(cai((4,), typestr))


def test_sizes_that_fit_no_buffer_are_value_errors():
    for shape, typestr in [((2**64,), "|u1"), ((2**62, 4), "|u1"), ((2**61,), "<U4"),
                           ((2**70,), "<f8"), ((1,), "|S99999999999999999999")]:
        with pytest.raises(ValueError, match="too large"):
            nbytes(cai(shape, typestr))
    assert nbytes(cai((0, 2**70), "<f8")) == 0
    with pytest.raises(ValueError, match="too large"):
        nbytes(FakeDLPack((2**62, 4), bits=16))


# ---- 2. read-only memory is never written ------------------------------------


def writers(target, key=KEY):
    """Every call that writes `target` (in place, or as out=)."""
    src = u8(64, ptr=P3)
    g = cuda.AESGCM(key)
    return {
        "gcm encrypt_into in place": lambda: g.encrypt_into(NONCE, target, None),
        "gcm decrypt_into in place": lambda: g.decrypt_into(NONCE, target, bytes(16), None),
        "gcm encrypt_into out": lambda: g.encrypt_into(NONCE, src, None, out=target),
        "gcm decrypt_into out": lambda: g.decrypt_into(NONCE, src, bytes(16), None, out=target),
        "gcm seal_many": lambda: g.seal_many([NONCE], target, 64),
        "gcm open_many": lambda: g.open_many([NONCE], target, 64, [bytes(16)]),
        "ecb encrypt out": lambda: cuda.ECB(key).encrypt(src, out=target),
        "ecb decrypt out": lambda: cuda.ECB(key).decrypt(src, out=target),
        "ecb in place": lambda: cuda.ECB(key).encrypt(target, out=target),
        "ctr out": lambda: cuda.CTR(key).apply(bytes(16), src, out=target),
        "ctr in place": lambda: cuda.CTR(key).apply(bytes(16), target, out=target),
        "cbc out": lambda: cuda.CBC(key).decrypt(bytes(16), src, out=target),
        "xts encrypt out": lambda: cuda.XTS(XKEY).encrypt_sectors(src, 32, 0, out=target),
        "xts decrypt in place": lambda: cuda.XTS(XKEY).decrypt_sectors(target, 32, 0, out=target),
    }


READ_ONLY_TARGETS = {
    "array interface": lambda: u8(64, readonly=True),
    "array interface, 2-d f4": lambda: cai((4, 4), "<f4", readonly=True),
    "DLPack 1.x read-only flag": lambda: FakeDLPack((64,), versioned=True, flags=READ_ONLY),
    "DLPack 1.x read-only copy": lambda: FakeDLPack((64,), versioned=True,
                                                    flags=READ_ONLY | IS_COPIED),
    "DLPack 1.x copy": lambda: FakeDLPack((64,), versioned=True, flags=IS_COPIED),
    "JAX array (legacy capsule)": lambda: FakeDLPack((64,), module="jaxlib.xla_extension"),
    "JAX array (DLPack 1.x)": lambda: FakeDLPack((64,), versioned=True, module="jax._src.array"),
}


@pytest.mark.parametrize("kind", READ_ONLY_TARGETS)
def test_read_only_memory_is_refused_on_every_writing_path(kind):
    for name, call in writers(READ_ONLY_TARGETS[kind]()).items():
        with pytest.raises(TypeError, match="read-only|cannot be written in place") as e:
            call()
        assert "read-only" in str(e.value) or "copy" in str(e.value), (kind, name)


@pytest.mark.parametrize("kind", ["array interface", "DLPack 1.x", "DLPack legacy"])
def test_writable_memory_passes_every_writing_path(kind):
    make = {
        "array interface": lambda: u8(64),
        "DLPack 1.x": lambda: FakeDLPack((64,), versioned=True),
        "DLPack legacy": lambda: FakeDLPack((64,)),
    }[kind]
    for name, call in writers(make()).items():
        with pytest.raises(PASSED):
            call()


def test_read_only_inputs_may_be_read():
    ro = u8(64, readonly=True)
    ro_dl = FakeDLPack((64,), versioned=True, flags=READ_ONLY)
    jax = FakeDLPack((64,), module="jaxlib.xla_extension")
    out = u8(64, ptr=P3)
    for src in (ro, ro_dl, jax):
        for call in (
            lambda: cuda.AESGCM(KEY).encrypt(NONCE, src, None),
            lambda: cuda.AESGCM(KEY).encrypt_into(NONCE, src, None, out=out),
            lambda: cuda.ECB(KEY).encrypt(src),
            lambda: cuda.CTR(KEY).apply(bytes(16), src, out=out),
        ):
            with pytest.raises(PASSED):
                call()


def test_gcm_into_checks_its_parameters_before_the_output_as_the_cpu():
    ro, ro_dl = u8(32, readonly=True), FakeDLPack((32,), versioned=True, flags=READ_ONLY)
    with pytest.raises(ValueError) as want:
        aesx.AESGCM(KEY).encrypt_into(bytes(7), bytes(16), None, memoryview(bytes(32)))
    g = cuda.AESGCM(KEY)
    for call in (lambda: g.encrypt_into(bytes(7), ro, None),
                 lambda: g.encrypt_into(bytes(7), ro_dl, None),
                 lambda: g.encrypt_into(bytes(7), u8(32), None, out=ro),
                 lambda: g.decrypt_into(bytes(7), ro, bytes(16), None)):
        with pytest.raises(ValueError) as got:
            call()
        assert str(got.value) == str(want.value)
    with pytest.raises(ValueError, match="tag length"):
        g.decrypt_into(NONCE, ro, bytes(5), None)
    with pytest.raises(TypeError, match="read-only"):
        g.encrypt_into(NONCE, u8(32), None, out=ro)
    with pytest.raises(TypeError, match="read-only"):
        g.encrypt_into(NONCE, u8(32), None, out=u8(48, readonly=True))
    with pytest.raises(ValueError, match="48 bytes, the input 32"):
        g.encrypt_into(NONCE, u8(32), None, out=u8(48, ptr=P2))


def test_ivs_and_counters_come_before_the_arrays():
    ro = u8(64, readonly=True)
    with pytest.raises(ValueError, match="IV must be 16 bytes, got 8"):
        cuda.CBC(KEY).decrypt(bytes(8), u8(64), out=ro)
    with pytest.raises(ValueError, match="counter block .nonce. must be 16 bytes, got 12"):
        cuda.CTR(KEY).apply(bytes(12), ro, out=ro)
    with pytest.raises(ValueError, match="counter block .nonce. must be 16 bytes, got 0"):
        cuda.CTR(KEY).apply(None, object())


def test_versioned_dlpack_is_asked_for_first():
    dl = FakeDLPack((64,), versioned=True)
    a = cuda._array(dl, stream=7)
    assert (a.ptr, a.nbytes, a.device) == (P1, 64, 0)
    assert dl.calls == [(7, (1, 0))]
    legacy = FakeDLPack((64,))
    assert cuda._array(legacy).nbytes == 64
    assert legacy.calls == [(1, (1, 0)), (1, None)]
    with pytest.raises(TypeError, match="DLPack 2.0"):
        cuda._array(FakeDLPack((64,), versioned=True, major=2))


# ---- DLPack as strictly as the array interface -------------------------------


@pytest.mark.parametrize("make,err,match", [
    (lambda: FakeDLPack((-4, -16)), TypeError, "non-negative"),
    (lambda: FakeDLPack((4, -1)), TypeError, "non-negative"),
    (lambda: FakeDLPack((64,), ndim=-1), TypeError, "ndim"),
    (lambda: FakeDLPack((64,), ndim=-(2**31)), TypeError, "ndim"),
    (lambda: FakeDLPack((64,), ndim=65), TypeError, "ndim"),
    (lambda: FakeDLPack((64,), ndim=2**31 - 1), TypeError, "ndim"),
    (lambda: FakeDLPack((64,), null_shape=True), TypeError, "no shape"),
    (lambda: FakeDLPack((64,), device=(2,)), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=(2, 0, 0)), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=()), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=[2, 0]), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=2), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=None), TypeError, "device_type, device_id"),
    (lambda: FakeDLPack((64,), device=("2", 0)), TypeError, "tuple of ints"),
    (lambda: FakeDLPack((64,), device=(2.0, 0)), TypeError, "tuple of ints"),
    (lambda: FakeDLPack((64,), device=(2, -1)), TypeError, "invalid device"),
    (lambda: FakeDLPack((64,), device=(2, 2**64)), TypeError, "invalid device"),
    (lambda: FakeDLPack((64,), device=(-2, 0)), TypeError, "invalid device"),
    (lambda: FakeDLPack((64,), device=(1, 0)), TypeError, "host"),
    (lambda: FakeDLPack((64,), device=(3, 0)), TypeError, "pinned host"),
    (lambda: FakeDLPack((64,), device=(2, 0), tensor_device=(1, 0)), TypeError, "device"),
    (lambda: FakeDLPack((64,), device=(2, 0), tensor_device=(2, 1)), TypeError, "device"),
    (lambda: FakeDLPack((64,), bits=0), TypeError, "item size"),
    (lambda: FakeDLPack((64,), lanes=0), TypeError, "item size"),
    (lambda: FakeDLPack((64,), bits=4), TypeError, "sub-byte"),
    (lambda: FakeDLPack((64,), bits=1, lanes=4), TypeError, "sub-byte"),
    (lambda: FakeDLPack((8,), code=3, bits=64), TypeError, "plain bytes"),
    (lambda: FakeDLPack((4, 4), strides=(1, 4)), ValueError, "C-contiguous"),
    (lambda: FakeDLPack((4, 4), strides=(-4, 1)), ValueError, "C-contiguous"),
    (lambda: FakeDLPack((4, 4), strides=(4, -1)), ValueError, "C-contiguous"),
    (lambda: FakeDLPack((64,), ptr=0), ValueError, "null"),
    (lambda: FakeDLPack((64,), ptr=2**64 - 16, byte_offset=32), TypeError, "2\\*\\*64"),
    (lambda: FakeDLPack((64,), name=b"used_dltensor"), TypeError, "capsule"),
])
def test_dlpack_hostile_tensors(make, err, match):
    with pytest.raises(err, match=match):
        cuda._array(make())
    with pytest.raises(err, match=match):
        cuda.AESGCM(KEY).encrypt(NONCE, make(), None)


def test_dlpack_sizes_and_layouts():
    assert nbytes(FakeDLPack((4, 2), bits=32)) == 32
    assert nbytes(FakeDLPack((4,), bits=8, lanes=4)) == 16
    assert nbytes(FakeDLPack((3,), code=5, bits=128)) == 48  # complex128
    assert nbytes(FakeDLPack((4, 4), strides=(4, 1), bits=16)) == 32
    assert nbytes(FakeDLPack((4, 1), strides=(1, 99))) == 4
    assert nbytes(FakeDLPack((0, 3), strides=(-5, 7))) == 0
    assert nbytes(FakeDLPack(())) == 1  # a scalar
    a = cuda._array(FakeDLPack((16,), ptr=P1, byte_offset=32))
    assert a.ptr == P1 + 32
    assert cuda._array(FakeDLPack((16,), device=(13, 0))).device is None  # managed: ask
    assert cuda._array(FakeDLPack((16,), device=(2, 3), tensor_device=(2, 3))).device == 3
    assert nbytes(FakeDLPack((0,), ptr=0)) == 0


def test_a_non_capsule_is_refused():
    class Bad:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None, max_version=None):
            return object()

    with pytest.raises(TypeError, match="capsule"):
        cuda._array(Bad())


# ---- the array interface, hostile ---------------------------------------------


@pytest.mark.parametrize("kw,err,match", [
    (dict(ptr=2**64), TypeError, "pointer"),
    (dict(ptr=2**64 + 16), TypeError, "pointer"),
    (dict(ptr=-16), TypeError, "pointer"),
    (dict(ptr=16.0), TypeError, "pointer"),
    (dict(ptr="16"), TypeError, "pointer"),
    (dict(stream=-1), ValueError, "must not be negative"),
    (dict(stream=-(2**70)), ValueError, "must not be negative"),
    (dict(stream=2**64), ValueError, "2\\*\\*64"),
    (dict(stream=0), ValueError, "0 is not allowed"),
    (dict(stream=True), ValueError, "stream"),
    (dict(stream="1"), ValueError, "stream"),
    (dict(stream=1.0), ValueError, "stream"),
    (dict(version=4), TypeError, "version"),
    (dict(version=-1), TypeError, "version"),
    (dict(version="3"), TypeError, "version"),
    (dict(version=2**64), TypeError, "version"),
    (dict(strides=(1, 1)), TypeError, "one entry per dimension"),
    (dict(strides=(2**64,)), ValueError, "C-contiguous"),
    (dict(strides=(-1,)), ValueError, "C-contiguous"),
    (dict(strides=[1]), TypeError, "strides"),
    (dict(strides=(1.0,)), TypeError, "strides"),
])
def test_array_interface_hostile_fields(kw, err, match):
    ptr = kw.pop("ptr", P1)
    with pytest.raises(err, match=match):
        cuda._array(u8(64, ptr=ptr, **kw))
    with pytest.raises(err, match=match):
        cuda.CTR(KEY).apply(bytes(16), u8(64, ptr=ptr, **kw))


def test_shapes_that_are_not_shapes():
    for shape in [(-1,), (-4, -16), (2**64, -1), [64], (64.0,), ("64",), None, 64]:
        with pytest.raises(TypeError, match="shape"):
            nbytes(cai(shape))
    for data in [None, (P1,), (P1, False, 0), [P1, False], P1]:
        f = u8(64)
        f.__cuda_array_interface__["data"] = data
        with pytest.raises(TypeError, match="data"):
            nbytes(f)


def test_stream_in_the_interface_follows_the_stream_argument_rules():
    for bad in (-1, 2**64):
        with pytest.raises(ValueError) as arg:
            cuda.CTR(KEY).apply(bytes(16), u8(64), stream=bad)
        with pytest.raises(ValueError) as inner:
            cuda.CTR(KEY).apply(bytes(16), u8(64, stream=bad))
        assert str(arg.value) in str(inner.value)


# ---- 4. one error policy -------------------------------------------------------

HOSTILE_INTS = [-1, -16, -(2**63), 2**63, 2**64, 2**64 + 16, 2**128, 2**200]
NOT_INTS = [1.5, "16", None, b"16", object()]


def no_bad_exception(call):
    """Runs `call`: it must raise ValueError/TypeError/NoDeviceError/
    InvalidTag (or pass), nothing else (no OverflowError, IndexError,
    PanicException, which is not even an Exception)."""
    try:
        call()
    except (ValueError, TypeError, cuda.NoDeviceError, aesx.InvalidTag) as e:
        assert not isinstance(e, OverflowError)
        return e
    except BaseException as e:  # noqa: B036 -- the point of the test
        pytest.fail(f"{type(e).__name__}: {e}")
    return None


def test_no_overflow_error_for_any_integer_argument():
    g = cuda.AESGCM(KEY)
    a = u8(64)
    calls = {
        "stride": lambda v: g.seal_many([NONCE], a, v),
        "stride (open)": lambda v: g.open_many([NONCE], a, v, [bytes(16)]),
        "sector_size": lambda v: cuda.XTS(XKEY).encrypt_sectors(a, v, 0),
        "sector_size (decrypt)": lambda v: cuda.XTS(XKEY).decrypt_sectors(a, v, 0),
        "first_sector": lambda v: cuda.XTS(XKEY).encrypt_sectors(a, 32, v),
        "device_info": lambda v: cuda.device_info(v),
        "decrypt_from_file device": lambda v: cuda.decrypt_from_file("/nonexistent", key=KEY,
                                                                     device=v),
        "stream": lambda v: cuda.CTR(KEY).apply(bytes(16), a, stream=v),
        "stream in the interface": lambda v: cuda.CTR(KEY).apply(bytes(16), u8(64, stream=v)),
        "data pointer": lambda v: cuda.CTR(KEY).apply(bytes(16), u8(64, ptr=v)),
        "shape": lambda v: cuda.CTR(KEY).apply(bytes(16), cai((v,))),
        "strides": lambda v: cuda.CTR(KEY).apply(bytes(16), cai((64,), strides=(v,))),
        "DLPack shape": lambda v: cuda.CTR(KEY).apply(bytes(16), FakeDLPack((v % 2**63,))),
    }
    for name, call in calls.items():
        for v in HOSTILE_INTS + NOT_INTS:
            e = no_bad_exception(lambda: call(v))
            assert e is not None, (name, v)


def test_int_arguments_pass_through_index():
    np = pytest.importorskip("numpy")
    g = cuda.AESGCM(KEY)
    with pytest.raises(PASSED):
        g.seal_many([NONCE], u8(64), np.int64(64))
    with pytest.raises(PASSED):
        cuda.XTS(XKEY).encrypt_sectors(u8(64), np.uint16(32), np.int8(3))
    with pytest.raises(ValueError, match="device"):
        cuda.device_info(np.int32(-1))
    if not GPU:
        with pytest.raises(cuda.NoDeviceError):
            cuda.device_info(np.int32(0))


def test_device_ordinals():
    for bad in (-1, -(2**63), 2**31, 2**64):
        with pytest.raises(ValueError, match="device"):
            cuda.device_info(bad)
        with pytest.raises(ValueError, match="device"):
            cuda.decrypt_from_file("/nonexistent", key=KEY, device=bad)
    for bad in ("0", 0.0, None):
        with pytest.raises(TypeError, match="device"):
            cuda.device_info(bad)


def test_negative_sizes_say_what_the_cpu_says():
    cpu = aesx.XTS(XKEY)
    with pytest.raises(ValueError) as want:
        cpu.encrypt_sectors(bytes(64), 24, 0)
    for size in (24, -16, -1, 2**64, 2**70):
        with pytest.raises(ValueError) as got:
            cuda.XTS(XKEY).encrypt_sectors(u8(64), size, 0)
        assert str(got.value) == str(want.value).replace("size 24:", f"size {size}:")
    with pytest.raises(TypeError):
        cpu.encrypt_sectors(bytes(64), 32.0, 0)
    with pytest.raises(TypeError):
        cuda.XTS(XKEY).encrypt_sectors(u8(64), 32.0, 0)


@pytest.mark.parametrize("key,n,size,first", [
    (XKEY, 96, 64, 0),  # a partial last sector
    (XKEY, 64, 2**25, 0),  # a sector size over 2^24
    (XKEY, 64, 0, 0),
    (XKEY, 64, 24, 0),
    (bytes(32), 96, 64, 0),  # equal halves and a partial sector: the sector first
    (bytes(32), 64, 24, 0),  # equal halves and a bad size: the size first
    (bytes(32), 64, 32, 0),  # equal halves alone
    (XKEY, 64, 32, 2**128 - 1),  # sector numbers past 2^128 - 1
    (bytes(32), 64, 32, 2**128 - 1),  # equal halves before the sector numbers
])
def test_xts_errors_are_the_cpus(key, n, size, first):
    with pytest.raises(ValueError) as want:
        aesx.XTS(key).encrypt_sectors(bytes(n), size, first)
    with pytest.raises(ValueError) as got:
        cuda.XTS(key).encrypt_sectors(u8(n), size, first)
    assert str(got.value) == str(want.value)


def test_a_partial_sector_is_not_called_a_block_error():
    with pytest.raises(ValueError, match="not a whole number of 64-byte sectors") as e:
        cuda.XTS(XKEY).decrypt_sectors(u8(96), 64, 0)
    assert "block" not in str(e.value)


@pytest.mark.parametrize("nonce,n", [(bytes(7), 15), (bytes(7), 0), (bytes(129), 3),
                                     (b"", 100), (NONCE, 15), (NONCE, 0)])
def test_gcm_decrypt_checks_the_nonce_first_as_the_cpu(nonce, n):
    want_type = ValueError if not 8 <= len(nonce) <= 128 else aesx.InvalidTag
    with pytest.raises(want_type) as want:
        aesx.AESGCM(KEY).decrypt(nonce, bytes(n), None)
    with pytest.raises(want_type) as got:
        cuda.AESGCM(KEY).decrypt(nonce, u8(n), None)
    assert str(got.value) == str(want.value)


def test_seal_many_messages_name_their_rule():
    g = cuda.AESGCM(KEY)
    a = u8(64)
    for stride in (16400, 100, 8, 0, -16, 2**64, 32768):
        for call in (lambda: g.seal_many([NONCE], a, stride),
                     lambda: g.open_many([NONCE], a, stride, [bytes(16)])):
            with pytest.raises(ValueError, match="stride") as e:
                call()
            msg = str(e.value)
            assert f"invalid stride {stride}" in msg and "16384" in msg, msg
            assert "sector" not in msg
    for call in (lambda: g.seal_many([], a, 64), lambda: g.open_many([], a, 64, [])):
        with pytest.raises(ValueError, match="at least one message") as e:
            call()
        assert "state" not in str(e.value)
    with pytest.raises(ValueError, match="128 bytes do not hold 1 message every 64 bytes"):
        g.seal_many([NONCE], u8(128), 64)
    with pytest.raises(ValueError, match="from 64 to 128"):
        g.open_many([NONCE] * 2, u8(48), 64, [bytes(16)] * 2)
    with pytest.raises(ValueError, match="12 bytes"):
        g.seal_many([bytes(11)], a, 64)
    with pytest.raises(TypeError):
        g.seal_many([NONCE], a, 64.0)
    with pytest.raises(PASSED):
        g.seal_many([NONCE] * 2, u8(64), 64)  # the last message empty


def test_available_is_a_bool_and_stable():
    assert cuda.available() is GPU
    assert cuda.available() is GPU


# ---- a driver that is not one: never a panic, probed once ------------------------

STUB = r"""
static int inits = 0;
int aesx_stub_inits(void) { return inits; }
int cuInit(unsigned flags) { (void)flags; inits++; return INIT_RESULT; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuGetErrorName(int e, const char **s) { (void)e; *s = "CUDA_ERROR_STUB"; return 0; }
int cuGetErrorString(int e, const char **s) { (void)e; *s = "stub"; return 0; }
#define STUB(name) int name(void) { return 999; }
EXTRA
"""

DRIVER_SYMBOLS = """cuDeviceGet cuDeviceGetAttribute cuDeviceGetName cuDeviceTotalMem_v2
cuDevicePrimaryCtxRetain cuDevicePrimaryCtxRelease_v2 cuCtxSetCurrent cuCtxGetCurrent
cuCtxSynchronize cuModuleLoadData cuModuleGetFunction cuModuleUnload cuLaunchKernel
cuStreamCreate cuStreamDestroy_v2 cuStreamSynchronize cuStreamWaitEvent cuEventCreate
cuEventRecord cuEventSynchronize cuEventDestroy_v2 cuMemAlloc_v2 cuMemFree_v2 cuMemAllocAsync
cuMemFreeAsync cuMemHostAlloc cuMemFreeHost cuMemcpyHtoDAsync_v2 cuMemcpyDtoHAsync_v2
cuMemcpyDtoDAsync_v2 cuMemsetD8Async cuPointerGetAttribute""".split()


def stub_driver(tmp_path, *, missing=(), init_result=100):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler for the stub libcuda")
    extra = "\n".join(f"STUB({s})" for s in DRIVER_SYMBOLS if s not in missing)
    src = tmp_path / "stub.c"
    src.write_text(STUB.replace("EXTRA", extra).replace("INIT_RESULT", str(init_result)))
    lib = tmp_path / "libcuda.so"
    subprocess.run([cc, "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    return tmp_path


def run_with(libdir, code):
    env = dict(os.environ, LD_LIBRARY_PATH=str(libdir))
    r = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "panicked" not in r.stderr, r.stderr
    return r.stdout


PROBE = """
import ctypes, aesx, aesx.cuda as cuda
lib = ctypes.CDLL("libcuda.so")
out = []
out.append(cuda.available())
out.append(cuda.available())
out.append(cuda.available())
out.append(lib.aesx_stub_inits())
for call in (
    lambda: cuda.device_info(),
    lambda: cuda.device_info(3),
    lambda: cuda.CTR(bytes(16)).apply(bytes(16), Fake()),
    lambda: cuda.AESGCM(bytes(16)).encrypt(bytes(12), Fake(), None),
    lambda: cuda.decrypt_from_file("/nonexistent", key=bytes(32)),
):
    try:
        call()
        out.append("no error")
    except cuda.NoDeviceError as e:
        out.append("NoDeviceError: " + str(e))
    except BaseException as e:
        out.append(type(e).__name__ + ": " + str(e))
print(repr(out))
"""

FAKE = """
class Fake:
    __cuda_array_interface__ = dict(shape=(64,), typestr="|u1", data=(1 << 20, False),
                                    version=3, strides=None)
"""


def test_a_driver_without_cudeviceget_is_no_device_not_a_panic(tmp_path):
    libdir = stub_driver(tmp_path, missing=("cuDeviceGet",), init_result=0)
    out = eval(run_with(libdir, FAKE + PROBE))
    assert out[:3] == [False, False, False]
    assert out[3] == 0  # refused before a driver call
    for line in out[4:]:
        assert line.startswith("NoDeviceError:"), line
        assert "cuDeviceGet" in line or "not found" in line or "no CUDA device" in line, line


def test_available_probes_once(tmp_path):
    libdir = stub_driver(tmp_path, init_result=100)  # CUDA_ERROR_NO_DEVICE
    out = eval(run_with(libdir, FAKE + PROBE))
    assert out[:3] == [False, False, False]
    assert out[3] == 1, "available() probed the driver more than once"
    for line in out[4:]:
        assert line.startswith("NoDeviceError:"), line


@pytest.mark.skipif(not GPU, reason="DeviceBuffer needs a GPU")
def test_device_buffer_streams_follow_the_same_rules():
    buf = cuda._c._alloc(64, 0)
    for bad in (-1, 2**64):
        with pytest.raises(ValueError, match="stream handle"):
            buf.to_bytes(stream=bad)
    with pytest.raises(TypeError, match="stream"):
        buf.to_bytes(stream="default")
    assert buf.to_bytes(stream=0) == bytes(64)
    with pytest.raises(TypeError, match="read-only"):
        cuda.CTR(KEY).apply(bytes(16), buf, out=u8(64, ptr=buf.ptr, readonly=True))
