"""aesx.cuda: device arrays on an NVIDIA GPU.

Everywhere: the module imports, argument errors are raised before any GPU
is looked for (fake ``__cuda_array_interface__`` and DLPack objects), and
without a GPU every call raises NoDeviceError. With a GPU (AESX_REQUIRE_GPU=1
makes its absence a failure): CuPy and PyTorch arrays (each skipped if not
installed) through every call, bytes equal to aesx on the CPU and to
``cryptography`` when installed, forgeries refused with zeroed output,
streams honoured, files readable by aesx.decrypt_file.
"""

import ctypes
import os

import pytest

import aesx
import aesx.cuda as cuda
from aesx import Cipher, algorithms, modes

GPU = cuda.available()
REQUIRE = os.environ.get("AESX_REQUIRE_GPU") == "1"

KEY = bytes(range(32))
XKEY = bytes(range(64))
NONCE = bytes(range(12))


class FakeArray:
    """An object with a hand-written __cuda_array_interface__."""

    def __init__(self, nbytes=64, *, ptr=1 << 20, typestr="|u1", shape=None, strides=None,
                 readonly=False, version=3, stream=None, **extra):
        itemsize = int(typestr[2:]) if len(typestr) > 2 and typestr[2:].isdigit() else 1
        self.__cuda_array_interface__ = dict(
            shape=shape if shape is not None else (nbytes // itemsize,),
            typestr=typestr,
            data=(ptr, readonly),
            version=version,
            strides=strides,
            **({"stream": stream} if version >= 3 else {}),
            **extra,
        )


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLManaged(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", _DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", _DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
        ("manager_ctx", ctypes.c_void_p),
        ("deleter", ctypes.c_void_p),
    ]


_new_capsule = ctypes.pythonapi.PyCapsule_New
_new_capsule.restype = ctypes.py_object
_new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeDLPack:
    """An object exporting a hand-built DLPack tensor (no deleter)."""

    def __init__(self, shape, *, strides=None, device_type=2, bits=8, ptr=1 << 20):
        self.shape = (ctypes.c_int64 * len(shape))(*shape)
        self.strides = (ctypes.c_int64 * len(shape))(*strides) if strides else None
        self.t = _DLManaged(
            data=ptr,
            device=_DLDevice(device_type, 0),
            ndim=len(shape),
            dtype=_DLDataType(1, bits, 1),
            shape=self.shape,
            strides=self.strides,
            byte_offset=0,
        )
        self.device_type = device_type
        self.streams = []

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        return _new_capsule(ctypes.addressof(self.t), b"dltensor", None)


# ---- everywhere -----------------------------------------------------------


def test_import_and_availability():
    assert isinstance(GPU, bool)
    assert issubclass(cuda.NoDeviceError, RuntimeError)
    assert cuda.InvalidTag is aesx.InvalidTag
    if REQUIRE:
        assert GPU, "AESX_REQUIRE_GPU=1 but aesx.cuda.available() is False"


def test_host_objects_are_type_errors():
    np = pytest.importorskip("numpy")

    g = cuda.AESGCM(KEY)
    for host in (b"x" * 32, bytearray(32), memoryview(b"y" * 32), np.zeros(32, np.uint8)):
        with pytest.raises(TypeError, match="host"):
            g.encrypt(NONCE, host, None)
        with pytest.raises(TypeError, match="host"):
            cuda.CTR(KEY[:16]).apply(bytes(16), host)
    with pytest.raises(TypeError, match="CUDA device array"):
        g.encrypt(NONCE, object(), None)
    with pytest.raises(TypeError, match="host"):
        g.encrypt(NONCE, FakeDLPack((32,), device_type=1), None)


def test_typestr_shape_and_contiguity():
    g = cuda.AESGCM(KEY)
    with pytest.raises(TypeError, match="plain bytes"):
        g.encrypt(NONCE, FakeArray(typestr="|O8"), None)
    with pytest.raises(TypeError, match="type string"):
        g.encrypt(NONCE, FakeArray(typestr="u1"), None)
    with pytest.raises(TypeError, match="item size"):
        g.encrypt(NONCE, FakeArray(typestr="<fx"), None)
    with pytest.raises(TypeError, match="version"):
        g.encrypt(NONCE, FakeArray(version=4), None)
    with pytest.raises(TypeError, match="shape"):
        g.encrypt(NONCE, FakeArray(shape=[4]), None)
    with pytest.raises(ValueError, match="C-contiguous"):
        g.encrypt(NONCE, FakeArray(shape=(4, 4), strides=(4, 8), typestr="<f4"), None)
    with pytest.raises(ValueError, match="C-contiguous"):
        g.encrypt(NONCE, FakeArray(shape=(8,), strides=(2,), typestr="|u1"), None)
    with pytest.raises(ValueError, match="masked"):
        g.encrypt(NONCE, FakeArray(mask=FakeArray()), None)
    with pytest.raises(ValueError, match="stream"):
        g.encrypt(NONCE, FakeArray(stream=0), None)
    with pytest.raises(ValueError, match="C-contiguous"):
        g.encrypt(NONCE, FakeDLPack((4, 4), strides=(1, 4)), None)
    with pytest.raises(TypeError, match="sub-byte"):
        g.encrypt(NONCE, FakeDLPack((8,), bits=1), None)


def test_read_only_arrays_are_not_written_in_place():
    g = cuda.AESGCM(KEY)
    ro = FakeArray(readonly=True)
    with pytest.raises(TypeError, match="read-only"):
        g.encrypt_into(NONCE, ro, None)
    with pytest.raises(TypeError, match="read-only"):
        g.decrypt_into(NONCE, ro, bytes(16), None)
    with pytest.raises(TypeError, match="read-only"):
        g.seal_many([NONCE], ro, 64)
    with pytest.raises(TypeError, match="read-only"):
        cuda.CTR(KEY[:16]).apply(bytes(16), FakeArray(), out=ro)


def test_argument_errors_come_before_the_device():
    g = cuda.AESGCM(KEY)
    a = FakeArray(64)
    with pytest.raises(ValueError, match="AESGCM key"):
        cuda.AESGCM(KEY[:15])
    with pytest.raises(ValueError, match="Nonce"):
        g.encrypt(bytes(7), a, None)
    with pytest.raises(ValueError, match="Nonce"):
        g.encrypt_into(bytes(129), a, None)
    with pytest.raises(ValueError, match="tag"):
        g.decrypt_into(NONCE, a, bytes(5), None)
    with pytest.raises(aesx.InvalidTag):
        g.decrypt(NONCE, FakeArray(15), None)
    with pytest.raises(ValueError, match="bytes"):
        g.encrypt_into(NONCE, a, None, out=FakeArray(48, ptr=1 << 21))
    with pytest.raises(ValueError, match="aligned"):
        g.encrypt(NONCE, FakeArray(64, ptr=(1 << 20) + 8), None)
    with pytest.raises(ValueError, match="overlap"):
        g.encrypt_into(NONCE, a, None, out=FakeArray(64, ptr=(1 << 20) + 16))
    with pytest.raises(ValueError, match="12 bytes"):
        g.seal_many([bytes(11)], a, 64)
    with pytest.raises(ValueError):
        g.seal_many([NONCE], a, 100)
    with pytest.raises(ValueError):
        g.seal_many([NONCE], FakeArray(128), 64)
    with pytest.raises(ValueError):
        g.seal_many([], a, 64)
    with pytest.raises(ValueError, match="tags"):
        g.open_many([NONCE, NONCE], FakeArray(128), 64, [bytes(16)])
    with pytest.raises(ValueError, match="16 bytes"):
        g.open_many([NONCE], a, 64, [bytes(15)])
    with pytest.raises(ValueError, match="key size"):
        cuda.ECB(bytes(15))
    with pytest.raises(ValueError, match="block"):
        cuda.ECB(KEY).encrypt(FakeArray(65))
    with pytest.raises(ValueError, match="16 bytes"):
        cuda.CTR(KEY).apply(bytes(12), a)
    with pytest.raises(ValueError, match="16 bytes"):
        cuda.CBC(KEY).decrypt(bytes(8), a)
    with pytest.raises(ValueError, match="overlap"):
        cuda.CBC(KEY).decrypt(bytes(16), a, out=a)
    with pytest.raises(ValueError, match="key size"):
        cuda.XTS(bytes(48))
    with pytest.raises(ValueError):
        cuda.XTS(bytes(32)).encrypt_sectors(a, 32, 0)  # equal halves
    with pytest.raises(ValueError):
        cuda.XTS(XKEY).encrypt_sectors(a, 24, 0)
    with pytest.raises(ValueError):
        cuda.XTS(XKEY).encrypt_sectors(FakeArray(96), 64, 0)
    with pytest.raises(ValueError, match="first_sector"):
        cuda.XTS(XKEY).encrypt_sectors(a, 32, -1)
    with pytest.raises(TypeError, match="stream"):
        cuda.CTR(KEY).apply(bytes(16), a, stream="default")
    with pytest.raises(ValueError, match="32 bytes"):
        cuda.encrypt_to_file(a, "/nonexistent/x", key=bytes(16))
    with pytest.raises(ValueError, match="hex"):
        cuda.decrypt_from_file("/nonexistent/x", key="zz")


def test_streams_are_read_from_objects():
    class TorchLike:
        cuda_stream = 1234

    class CupyLike:
        ptr = 5678

    class NumbaLike:
        handle = ctypes.c_void_p(91011)

    assert cuda._stream_handle(TorchLike()) == 1234
    assert cuda._stream_handle(CupyLike()) == 5678
    assert cuda._stream_handle(NumbaLike()) == 91011
    assert cuda._stream_handle(7) == 7
    assert cuda._stream_handle(None) is None
    with pytest.raises(TypeError):
        cuda._stream_handle(True)
    # The array's own stream is the default; stream= wins; legacy is None.
    arr = cuda._array(FakeArray(stream=42))
    assert cuda._prepare([arr], None) == (None, 42)
    assert cuda._prepare([arr], 77) == (None, 77)
    assert cuda._prepare([cuda._array(FakeArray(stream=1))], None) == (None, None)
    assert cuda._prepare([cuda._array(FakeArray(version=2))], None) == (None, None)
    dl = FakeDLPack((16,))
    a = cuda._array(dl, stream=99)
    assert (a.ptr, a.nbytes, a.device) == (1 << 20, 16, 0)
    assert dl.streams == [99]
    cuda._array(dl)
    assert dl.streams[-1] == 1  # the legacy default stream, as DLPack numbers it


def test_sizes_of_any_dtype():
    a = cuda._array(FakeArray(shape=(3, 5), typestr="<f8"))
    assert a.nbytes == 120
    a = cuda._array(FakeArray(shape=(3, 0), typestr="<f8", strides=(7, 9)))
    assert a.nbytes == 0
    a = cuda._array(FakeArray(shape=(2, 1, 4), typestr="<i2", strides=(8, 99, 2)))
    assert a.nbytes == 16
    a = cuda._array(FakeDLPack((4, 2), bits=32))
    assert a.nbytes == 32
    np = pytest.importorskip("numpy")

    a = cuda._array(FakeArray(shape=(np.int64(4),), typestr="|S4", ptr=np.uint64(1 << 20)))
    assert (a.ptr, a.nbytes) == (1 << 20, 16)
    with pytest.raises(TypeError, match="tuple of ints"):
        cuda._array(FakeArray(shape=(4.0,)))
    with pytest.raises(TypeError, match="pointer"):
        cuda._array(FakeArray(ptr=-16))


@pytest.mark.skipif(GPU, reason="a GPU is present")
def test_without_a_gpu_every_call_raises_no_device(tmp_path):
    a, b = FakeArray(64), FakeArray(64, ptr=1 << 21)
    g = cuda.AESGCM(KEY)
    calls = [
        lambda: cuda.device_info(),
        lambda: g.encrypt(NONCE, a, b"aad"),
        lambda: g.decrypt(NONCE, a, None),
        lambda: g.encrypt_into(NONCE, a, None),
        lambda: g.encrypt_into(NONCE, FakeArray(64, readonly=True), None, out=b),
        lambda: g.decrypt_into(NONCE, a, bytes(16), None),
        lambda: g.seal_many([NONCE], a, 64),
        lambda: g.open_many([NONCE], a, 64, [bytes(16)]),
        lambda: g.encrypt(NONCE, FakeArray(0, ptr=0), None),
        lambda: g.encrypt(NONCE, FakeDLPack((64,)), None),
        lambda: cuda.CTR(KEY).apply(bytes(16), a),
        lambda: cuda.CTR(KEY).apply(bytes(16), a, out=a),
        lambda: cuda.ECB(KEY).encrypt(a),
        lambda: cuda.ECB(KEY).decrypt(a, out=b),
        lambda: cuda.CBC(KEY).decrypt(bytes(16), a, out=b),
        lambda: cuda.XTS(XKEY).encrypt_sectors(a, 32, 0),
        lambda: cuda.XTS(XKEY).decrypt_sectors(a, 32, 5, out=b),
        lambda: cuda.encrypt_to_file(a, tmp_path / "x.aesx", key=KEY),
        lambda: cuda.decrypt_from_file(tmp_path / "x.aesx", key=KEY),
    ]
    for call in calls:
        with pytest.raises(cuda.NoDeviceError, match="no CUDA device|NVRTC"):
            call()
    assert not (tmp_path / "x.aesx").exists()
    assert os.listdir(tmp_path) == []


# ---- with a GPU -------------------------------------------------------------

gpu = pytest.mark.skipif(not GPU, reason="no CUDA GPU (AESX_REQUIRE_GPU=1 makes this a failure)")


class CupyLib:
    def __init__(self):
        self.cp = pytest.importorskip("cupy")

    def array(self, data):
        return self.cp.asarray(bytearray(data), dtype=self.cp.uint8)

    def host(self, a):
        if isinstance(a, cuda.DeviceBuffer):
            a = self.cp.asarray(a)
        return self.cp.asnumpy(a).tobytes()

    def stream(self):
        return self.cp.cuda.Stream(non_blocking=True)

    def sync(self, s):
        s.synchronize()


class TorchLib:
    def __init__(self):
        self.torch = pytest.importorskip("torch")
        if not self.torch.cuda.is_available():
            pytest.skip("torch has no CUDA")

    def array(self, data):
        t = self.torch.frombuffer(bytearray(data), dtype=self.torch.uint8) if data else (
            self.torch.empty(0, dtype=self.torch.uint8))
        return t.cuda()

    def host(self, a):
        if isinstance(a, cuda.DeviceBuffer):
            a = self.torch.as_tensor(a, device="cuda")
        return a.cpu().numpy().tobytes()

    def stream(self):
        return self.torch.cuda.Stream()

    def sync(self, s):
        s.synchronize()


@pytest.fixture(params=["cupy", "torch"])
def lib(request):
    if not GPU:
        pytest.skip("no CUDA GPU")
    return CupyLib() if request.param == "cupy" else TorchLib()


SIZES = [0, 1, 15, 16, 17, 1000, 16384, 65536 + 7, (1 << 20) + 3]


def data(n, seed=1):
    return bytes((i * 131 + seed * 7 + (i >> 8)) & 0xFF for i in range(n))


@gpu
def test_device_info():
    info = cuda.device_info()
    assert info["name"] and info["total_memory"] > 0
    assert info["arch"].startswith("compute_")


@gpu
@pytest.mark.parametrize("n", SIZES)
def test_gcm_matches_the_cpu(lib, n):
    pt = data(n)
    aad = b"header"
    want = aesx.AESGCM(KEY).encrypt(NONCE, pt, aad)
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM as Pyca
    except ImportError:
        Pyca = None
    if Pyca is not None:
        assert Pyca(KEY).encrypt(NONCE, pt, aad) == want
    g = cuda.AESGCM(KEY)
    x = lib.array(pt)
    ct = g.encrypt(NONCE, x, aad)
    assert isinstance(ct, cuda.DeviceBuffer) and len(ct) == n + 16
    assert lib.host(ct) == want == ct.to_bytes()
    assert lib.host(x) == pt
    back = g.decrypt(NONCE, ct, aad)
    assert lib.host(back) == pt
    # in place, detached tag
    tag = g.encrypt_into(NONCE, x, aad)
    assert tag == want[n:] and lib.host(x) == want[:n]
    g.decrypt_into(NONCE, x, tag, aad)
    assert lib.host(x) == pt
    # into another array
    y = lib.array(bytes(n))
    assert g.encrypt_into(NONCE, x, aad, out=y) == want[n:]
    assert lib.host(y) == want[:n] and lib.host(x) == pt


@gpu
@pytest.mark.parametrize("n", [1, 100, 70000])
def test_gcm_forgeries_are_refused_with_zeroed_output(lib, n):
    pt = data(n)
    g = cuda.AESGCM(KEY)
    want = aesx.AESGCM(KEY).encrypt(NONCE, pt, None)
    bad = bytearray(want)
    bad[n // 2] ^= 1
    with pytest.raises(aesx.InvalidTag):
        g.decrypt(NONCE, lib.array(bytes(bad)), None)
    x = lib.array(want[:n])
    badtag = bytearray(want[n:])
    badtag[0] ^= 0x80
    with pytest.raises(aesx.InvalidTag):
        g.decrypt_into(NONCE, x, bytes(badtag), None)
    assert lib.host(x) == bytes(n)
    out = lib.array(b"\x55" * n)
    with pytest.raises(aesx.InvalidTag):
        g.decrypt_into(NONCE, lib.array(want[:n]), want[n:], b"other aad", out=out)
    assert lib.host(out) == bytes(n)


@gpu
def test_many_messages(lib):
    stride, n = 16384, 3 * 16384 + 100
    pt = data(n, 3)
    nonces = [bytes([i]) * 12 for i in range(4)]
    aad = b"batch"
    g, cpu = cuda.AESGCM(KEY), aesx.AESGCM(KEY)
    x = lib.array(pt)
    tags = g.seal_many(nonces, x, stride, aad)
    got = lib.host(x)
    for i in range(4):
        m = pt[i * stride:(i + 1) * stride]
        w = cpu.encrypt(nonces[i], m, aad)
        assert got[i * stride:i * stride + len(m)] == w[:-16]
        assert tags[i] == w[-16:]
    tags[2] = bytes(16)
    assert g.open_many(nonces, x, stride, tags, aad) == [True, True, False, True]
    got = lib.host(x)
    assert got[:2 * stride] == pt[:2 * stride]
    assert got[2 * stride:3 * stride] == bytes(stride)
    assert got[3 * stride:] == pt[3 * stride:]


@gpu
@pytest.mark.parametrize("n", [0, 16, 4096, (1 << 20) + 5])
def test_block_modes_match_the_cpu(lib, n):
    pt = data(n, 5)
    ctr = bytes(range(100, 116))
    want = Cipher(algorithms.AES(KEY), modes.CTR(ctr)).encryptor().update(pt)
    x = lib.array(pt)
    assert lib.host(cuda.CTR(KEY).apply(ctr, x)) == want
    cuda.CTR(KEY).apply(ctr, x, out=x)
    assert lib.host(x) == want
    nb = n - n % 16
    blocks = pt[:nb]
    ecb = Cipher(algorithms.AES(KEY), modes.ECB()).encryptor().update(blocks)
    y = lib.array(blocks)
    assert lib.host(cuda.ECB(KEY).encrypt(y)) == ecb
    e = cuda.ECB(KEY).encrypt(y, out=y)
    assert lib.host(cuda.ECB(KEY).decrypt(e)) == blocks
    iv = bytes(range(16))
    cbc = Cipher(algorithms.AES(KEY), modes.CBC(iv)).encryptor().update(blocks)
    assert lib.host(cuda.CBC(KEY).decrypt(iv, lib.array(cbc))) == blocks
    out = lib.array(bytes(nb))
    cuda.CBC(KEY).decrypt(iv, lib.array(cbc), out=out)
    assert lib.host(out) == blocks


@gpu
@pytest.mark.parametrize("sector_size,count", [(512, 9), (4096, 3), (16, 1)])
def test_xts_sectors_match_the_cpu(lib, sector_size, count):
    pt = data(sector_size * count, 7)
    first = (1 << 70) + 5
    want = aesx.XTS(XKEY).encrypt_sectors(pt, sector_size, first)
    x = lib.array(pt)
    ct = cuda.XTS(XKEY).encrypt_sectors(x, sector_size, first)
    assert lib.host(ct) == want
    cuda.XTS(XKEY).decrypt_sectors(ct, sector_size, first, out=ct)
    assert lib.host(ct) == pt


@gpu
def test_other_dtypes_are_their_bytes(lib):
    if isinstance(lib, CupyLib):
        x = lib.cp.arange(1000, dtype=lib.cp.float32).reshape(10, 100)
    else:
        x = lib.torch.arange(1000, dtype=lib.torch.float32, device="cuda").reshape(10, 100)
    raw = lib.host(x)
    ct = cuda.AESGCM(KEY).encrypt(NONCE, x, None)
    assert ct.to_bytes() == aesx.AESGCM(KEY).encrypt(NONCE, raw, None)


@gpu
def test_streams_are_honoured(lib):
    n = 8 << 20
    pt = data(1 << 16) * (n >> 16)
    s = lib.stream()
    x = lib.array(pt)
    ctr = bytes(16)
    want = Cipher(algorithms.AES(KEY), modes.CTR(ctr)).encryptor().update(pt)
    for _ in range(3):  # the work queued on s runs in order there
        cuda.CTR(KEY).apply(ctr, x, out=x, stream=s)
        cuda.CTR(KEY).apply(ctr, x, out=x, stream=s)
    cuda.CTR(KEY).apply(ctr, x, out=x, stream=s)
    lib.sync(s)
    assert lib.host(x) == want
    tag = cuda.AESGCM(KEY).encrypt_into(NONCE, x, None, stream=s)
    cuda.AESGCM(KEY).decrypt_into(NONCE, x, tag, None, stream=s)
    lib.sync(s)
    assert lib.host(x) == want
    if isinstance(lib, CupyLib):
        with s:  # CuPy names its current stream in __cuda_array_interface__
            y = lib.cp.asarray(bytearray(pt), dtype=lib.cp.uint8)
            assert y.__cuda_array_interface__["stream"] == s.ptr
            buf = cuda.CTR(KEY).apply(ctr, y)
            assert buf.__cuda_array_interface__["stream"] == s.ptr
        s.synchronize()
        assert buf.to_bytes() == want


@gpu
@pytest.mark.parametrize("n", [0, 5, 16384, 16384 * 3 + 1, (1 << 20) + 9])
def test_files_round_trip_with_the_cpu_format(lib, tmp_path, n):
    pt = data(n, 11)
    x = lib.array(pt)
    p = tmp_path / "a.aesx"
    cuda.encrypt_to_file(x, p, key=KEY)
    assert lib.host(x) == pt
    aesx.decrypt_file(p, tmp_path / "a.out", key=KEY)
    assert (tmp_path / "a.out").read_bytes() == pt
    with pytest.raises(FileExistsError):
        cuda.encrypt_to_file(x, p, key=KEY)
    cuda.encrypt_to_file(x, p, key=KEY.hex(), force=True)
    aesx.encrypt_file(tmp_path / "a.out", tmp_path / "b.aesx", key=KEY)
    assert cuda.decrypt_from_file(tmp_path / "b.aesx", key=KEY).to_bytes() == pt
    raw = bytearray((tmp_path / "b.aesx").read_bytes())
    raw[-1] ^= 1
    (tmp_path / "c.aesx").write_bytes(bytes(raw))
    with pytest.raises(aesx.DecryptionError):
        cuda.decrypt_from_file(tmp_path / "c.aesx", key=KEY)
    (tmp_path / "d.aesx").write_bytes(bytes(raw[:-1]))
    with pytest.raises(aesx.DecryptionError):
        cuda.decrypt_from_file(tmp_path / "d.aesx", key=KEY)
    with pytest.raises(aesx.DecryptionError):
        cuda.decrypt_from_file(tmp_path / "b.aesx", key=bytes(32))


@gpu
def test_torch_state_dict_example(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    import io

    model = torch.nn.Linear(64, 32).cuda()
    b = io.BytesIO()
    torch.save(model.state_dict(), b)
    blob = torch.frombuffer(bytearray(b.getbuffer()), dtype=torch.uint8).cuda()
    cuda.encrypt_to_file(blob, tmp_path / "m.aesx", key=KEY)
    aesx.decrypt_file(tmp_path / "m.aesx", tmp_path / "m.pt", key=KEY)
    sd = torch.load(tmp_path / "m.pt")
    assert torch.equal(sd["weight"].cuda(), model.weight)
