"""AESGCM against cryptography: same bytes, same exceptions."""

import array
import os
import random

import numpy as np
import pytest
from cryptography.exceptions import InvalidTag as PycaInvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaAESGCM

import aesx


def outcome(f):
    try:
        return ("ok", f())
    except Exception as e:  # noqa: BLE001
        name = "InvalidTag" if isinstance(e, (aesx.InvalidTag, PycaInvalidTag)) else type(e).__name__
        return (name, str(e) if name != "InvalidTag" else "")


K16 = b"k" * 16
GOOD = PycaAESGCM(K16).encrypt(b"n" * 12, b"hello", b"ad")

CASES = [
    lambda m: m(b"x" * 15),
    lambda m: m(b"x" * 33),
    lambda m: m("x" * 16),
    lambda m: m(None),
    lambda m: m(16),
    lambda m: m(b"x" * 24).encrypt(b"n" * 12, b"d", None),
    lambda m: m(bytearray(32)).encrypt(b"n" * 12, b"d", b""),
    lambda m: m(memoryview(b"x" * 16)).encrypt(b"n" * 12, b"d", None),
    lambda m: m(K16).encrypt(b"n" * 7, b"d", None),
    lambda m: m(K16).encrypt(b"n" * 8, b"d", None),
    lambda m: m(K16).encrypt(b"n" * 128, b"d", None),
    lambda m: m(K16).encrypt(b"n" * 129, b"d", None),
    lambda m: m(K16).encrypt(b"", b"d", None),
    lambda m: m(K16).encrypt("n" * 12, b"d", None),
    lambda m: m(K16).encrypt(b"n" * 12, "d", None),
    lambda m: m(K16).encrypt(b"n" * 12, None, None),
    lambda m: m(K16).encrypt(b"n" * 12, b"d", "ad"),
    lambda m: m(K16).encrypt(b"n" * 12, b"d", 5),
    lambda m: m(K16).encrypt(b"n" * 12, b"d", [1]),
    lambda m: m(K16).encrypt(b"n" * 12, b"d"),
    lambda m: m(K16).encrypt(nonce=b"n" * 12, data=b"d", associated_data=b"a"),
    lambda m: m(K16).decrypt(b"n" * 12, GOOD, b"ad"),
    lambda m: m(K16).decrypt(b"n" * 12, GOOD, b"AD"),
    lambda m: m(K16).decrypt(b"n" * 12, GOOD, None),
    lambda m: m(K16).decrypt(b"n" * 12, GOOD[:-1], b"ad"),
    lambda m: m(K16).decrypt(b"n" * 12, b"x" * 15, None),
    lambda m: m(K16).decrypt(b"n" * 12, b"", None),
    lambda m: m(K16).decrypt(b"n" * 7, b"x" * 15, None),
    lambda m: m(K16).decrypt(b"n" * 12, None, None),
    lambda m: m(K16).decrypt(b"n" * 12, bytes(GOOD[:-1]) + bytes([GOOD[-1] ^ 1]), b"ad"),
    lambda m: m.generate_key(100),
    lambda m: m.generate_key("128"),
    lambda m: m.generate_key(128.0),
    lambda m: m.generate_key(True),
    lambda m: m.generate_key(None),
    lambda m: m.generate_key(2**70),
    lambda m: len(m.generate_key(128)),
    lambda m: len(m.generate_key(bit_length=192)),
    lambda m: len(m.generate_key(256)),
    lambda m: m(K16).encrypt_into(b"n" * 12, b"abc", None, bytearray(19)),
    lambda m: m(K16).encrypt_into(b"n" * 12, b"abc", None, bytearray(18)),
    lambda m: m(K16).encrypt_into(b"n" * 12, b"abc", None, bytearray(20)),
    lambda m: m(K16).encrypt_into(b"n" * 12, b"abc", None, b"x" * 19),
    lambda m: m(K16).encrypt_into(b"n" * 12, b"abc", None, "x" * 19),
    lambda m: m(K16).decrypt_into(b"n" * 12, GOOD, b"ad", bytearray(5)),
    lambda m: m(K16).decrypt_into(b"n" * 12, GOOD, b"ad", bytearray(6)),
    lambda m: m(K16).decrypt_into(b"n" * 12, GOOD, b"xx", bytearray(5)),
    lambda m: m(K16).encrypt(b"n" * 12, np.zeros((4, 4), np.uint8)[:, :2], None),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_same_behaviour_as_pyca(case):
    mine = outcome(lambda: CASES[case](aesx.AESGCM))
    theirs = outcome(lambda: CASES[case](PycaAESGCM))
    assert mine[0] == theirs[0], (mine, theirs)
    if mine[0] in ("ok", "ValueError", "TypeError", "InvalidTag"):
        assert mine == theirs


def test_generate_key_is_random():
    assert aesx.AESGCM.generate_key(256) != aesx.AESGCM.generate_key(256)


@pytest.mark.parametrize("klen", [16, 24, 32])
def test_random_differential(klen, backend):
    rng = random.Random(klen)
    for n in list(range(0, 300)) + [1500, 4095, 4096, 4097, 65536 + 3, 1 << 20]:
        key = rng.randbytes(klen)
        nonce = rng.randbytes(rng.choice([8, 12, 12, 12, 13, 16, 60, 128]))
        data = rng.randbytes(n)
        aad = rng.choice([None, b"", rng.randbytes(rng.randrange(100))])
        ours = aesx.AESGCM(key, backend=backend)
        ref = PycaAESGCM(key).encrypt(nonce, data, aad)
        assert ours.encrypt(nonce, data, aad) == ref
        assert ours.decrypt(nonce, ref, aad) == data
        # *_into, out of place and in place
        out = bytearray(n + 16)
        assert ours.encrypt_into(nonce, data, aad, out) == n + 16 and out == ref
        buf = bytearray(data) + bytearray(16)
        assert ours.encrypt_into(nonce, memoryview(buf)[:n], aad, buf) == n + 16 and buf == ref
        pt = bytearray(n)
        assert ours.decrypt_into(nonce, ref, aad, pt) == n and pt == data
        buf = bytearray(ref)
        assert ours.decrypt_into(nonce, buf, aad, memoryview(buf)[:n]) == n and buf[:n] == data
    assert ours.backend == backend


def test_buffers_without_copies():
    key = os.urandom(32)
    g, ref = aesx.AESGCM(key), PycaAESGCM(key)
    data = os.urandom(10000)
    expect = ref.encrypt(b"n" * 12, data, b"a")
    for form in (
        data,
        bytearray(data),
        memoryview(data),
        np.frombuffer(data, dtype=np.uint8),
        np.frombuffer(data, dtype=np.uint8).reshape(100, 100),
        np.frombuffer(data, dtype=np.float64),
        array.array("B", data),
        memoryview(bytearray(b"zz" + data))[2:],
    ):
        assert g.encrypt(b"n" * 12, form, b"a") == expect
        assert g.decrypt(np.frombuffer(b"n" * 12, np.uint8), np.frombuffer(expect, np.uint8), bytearray(b"a")) == data
    # Non-contiguous views are refused as pyca refuses them.
    with pytest.raises(BufferError):
        g.encrypt(b"n" * 12, np.zeros((10, 10), np.uint8)[:, ::2], None)
    # Writing into a NumPy array.
    out = np.empty(len(data) + 16, np.uint8)
    g.encrypt_into(b"n" * 12, data, b"a", out)
    assert out.tobytes() == expect
    with pytest.raises(TypeError):
        g.encrypt_into(b"n" * 12, data, b"a", memoryview(bytes(len(data) + 16)))


def test_invalid_tag_releases_nothing():
    g = aesx.AESGCM(b"k" * 16)
    ct = bytearray(g.encrypt(b"n" * 12, b"secret!" * 100, None))
    ct[3] ^= 1
    out = bytearray(b"\xaa" * (len(ct) - 16))
    with pytest.raises(aesx.InvalidTag):
        g.decrypt_into(b"n" * 12, ct, None, out)
    assert out == bytearray(len(out))
    assert issubclass(aesx.InvalidTag, Exception)


def test_backend_selection():
    names = aesx.backends()
    assert "soft" in names and aesx.default_backend() in names
    with pytest.raises(ValueError):
        aesx.AESGCM(b"k" * 16, backend="nonsense")
    try:
        aesx.use_backend("soft")
        assert aesx.default_backend() == "soft"
        assert aesx.AESGCM(b"k" * 16).backend == "soft"
    finally:
        aesx.use_backend(None)
    assert aesx.AESGCM(b"k" * 16).backend == aesx.default_backend()
