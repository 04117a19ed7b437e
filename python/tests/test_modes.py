"""ECB, CBC (with and without PKCS#7), CTR and XTS against cryptography:
every length, random splits, update_into in place and out of place."""

import os
import random

import numpy as np
import pytest
from cryptography.hazmat.primitives import padding as pypad
from cryptography.hazmat.primitives.ciphers import Cipher as PC
from cryptography.hazmat.primitives.ciphers import algorithms as PA
from cryptography.hazmat.primitives.ciphers import modes as PM

import aesx
from aesx import Cipher, algorithms, modes


def pyca(mode_name, key, iv, data, encrypt, pkcs7=False):
    m = {"ECB": lambda: PM.ECB(), "CBC": lambda: PM.CBC(iv), "CTR": lambda: PM.CTR(iv), "XTS": lambda: PM.XTS(iv)}[mode_name]()
    c = PC(PA.AES(key), m)
    if encrypt:
        if pkcs7:
            p = pypad.PKCS7(128).padder()
            data = p.update(data) + p.finalize()
        e = c.encryptor()
        return e.update(data) + e.finalize()
    d = c.decryptor()
    out = d.update(data) + d.finalize()
    if pkcs7:
        u = pypad.PKCS7(128).unpadder()
        out = u.update(out) + u.finalize()
    return out


def ours(mode_name, key, iv, pkcs7=False, backend=None):
    m = {
        "ECB": lambda: modes.ECB(pkcs7=pkcs7),
        "CBC": lambda: modes.CBC(iv, pkcs7=pkcs7),
        "CTR": lambda: modes.CTR(iv),
        "XTS": lambda: modes.XTS(iv),
    }[mode_name]()
    return Cipher(algorithms.AES(key), m, backend)


def split_run(ctx, data, rng, into=False, in_place=False):
    """Feeds `data` in random pieces; returns the concatenated output."""
    out = bytearray()
    i = 0
    while i < len(data):
        j = min(len(data), i + rng.choice([0, 1, 5, 15, 16, 17, 31, 64, 100, 4096, 5000]))
        piece = data[i:j]
        if into:
            if in_place:
                buf = bytearray(piece) + bytearray(15)
                n = ctx.update_into(memoryview(buf)[: len(piece)], buf)
            else:
                buf = bytearray(len(piece) + 15)
                n = ctx.update_into(piece, buf)
            out += buf[:n]
        else:
            out += ctx.update(piece)
        i = j
    out += ctx.finalize()
    return bytes(out)


LENGTHS = list(range(0, 200)) + [4095, 4096, 4097, 65536, 100000]


@pytest.mark.parametrize("mode", ["ECB", "CBC", "CTR"])
@pytest.mark.parametrize("klen", [16, 24, 32])
def test_differential(mode, klen, backend):
    rng = random.Random(f"{mode}{klen}{backend}")
    for n in LENGTHS:
        if mode != "CTR" and n % 16:
            continue
        key, iv, data = rng.randbytes(klen), rng.randbytes(16), rng.randbytes(n)
        ref = pyca(mode, key, iv, data, True)
        for into, in_place in ((False, False), (True, False), (True, True)):
            got = split_run(ours(mode, key, iv, backend=backend).encryptor(), data, rng, into, in_place)
            assert got == ref, (mode, n, into, in_place)
            back = split_run(ours(mode, key, iv, backend=backend).decryptor(), ref, rng, into, in_place)
            assert back == data


@pytest.mark.parametrize("mode", ["ECB", "CBC"])
def test_pkcs7(mode, backend):
    rng = random.Random(mode + backend)
    for n in range(0, 100):
        key, iv, data = rng.randbytes(16), rng.randbytes(16), rng.randbytes(n)
        ref = pyca(mode, key, iv, data, True, pkcs7=True)
        for into, in_place in ((False, False), (True, False), (True, True)):
            got = split_run(ours(mode, key, iv, True, backend).encryptor(), data, rng, into, in_place)
            assert got == ref
            assert split_run(ours(mode, key, iv, True, backend).decryptor(), ref, rng, into, in_place) == data
    # Bad padding is a ValueError from finalize, and nothing else leaks.
    key, iv = rng.randbytes(16), rng.randbytes(16)
    bad = pyca(mode, key, iv, b"\x00" * 16, True)
    d = ours(mode, key, iv, True).decryptor()
    assert d.update(bad) == b""
    with pytest.raises(ValueError, match="Invalid padding bytes."):
        d.finalize()


@pytest.mark.parametrize("klen", [32, 64])
def test_xts_differential(klen, backend):
    rng = random.Random(klen)
    for n in list(range(16, 300)) + [4096, 65536 + 5]:
        key = rng.randbytes(klen)
        tweak, data = rng.randbytes(16), rng.randbytes(n)
        ref = pyca("XTS", key, tweak, data, True)
        e = ours("XTS", key, tweak, backend=backend).encryptor()
        assert e.update(data) == ref
        assert e.update(data) == ref  # each update is one data unit
        buf = bytearray(data)
        d = ours("XTS", key, tweak, backend=backend).decryptor()
        assert d.update_into(bytes(ref), buf) == n and buf == data
        buf = bytearray(ref)
        assert d.update_into(buf, buf) == n and buf == data
        assert d.finalize() == b""


def test_xts_sector_api(backend):
    key = os.urandom(64)
    x = aesx.XTS(key, backend=backend)
    image = os.urandom(8 * 512)
    enc = x.encrypt_sectors(image, 512, 1000)
    for i in range(8):
        tweak = (1000 + i).to_bytes(16, "little")
        assert enc[i * 512:(i + 1) * 512] == pyca("XTS", key, tweak, image[i * 512:(i + 1) * 512], True)
        assert x.decrypt_sector(1000 + i, enc[i * 512:(i + 1) * 512]) == image[i * 512:(i + 1) * 512]
        assert x.encrypt(tweak, image[i * 512:(i + 1) * 512]) == enc[i * 512:(i + 1) * 512]
    assert x.decrypt_sectors(enc, 512, 1000) == image
    buf = np.frombuffer(bytearray(image), np.uint8)
    assert x.encrypt_sectors_into(buf, 512, 1000, buf) == len(image) and buf.tobytes() == enc
    out = bytearray(len(image))
    x.decrypt_sectors_into(enc, 512, 1000, out)
    assert out == image
    with pytest.raises(ValueError):
        x.encrypt_sectors(image[:-1], 512, 0)
    with pytest.raises(ValueError):
        x.encrypt_sectors(image, 500, 0)
    with pytest.raises(ValueError):
        aesx.XTS(b"k" * 32).encrypt_sector(0, b"x" * 16)  # equal halves


def outcome(f):
    try:
        f()
        return "ok"
    except Exception as e:  # noqa: BLE001
        return f"{type(e).__name__}: {e}"


ERROR_CASES = [
    lambda A, M, C: A(b"x" * 15),
    lambda A, M, C: A("x" * 16),
    lambda A, M, C: M.CBC("x" * 16),
    lambda A, M, C: C(A(b"x" * 16), M.CBC(b"x" * 15)),
    lambda A, M, C: C(A(b"x" * 16), M.CTR(b"x" * 8)),
    lambda A, M, C: C(A(b"x" * 16), M.XTS(b"x" * 16)),
    lambda A, M, C: M.XTS(b"x" * 15),
    lambda A, M, C: C(A(b"x" * 32), M.XTS(b"x" * 16)).encryptor(),
    lambda A, M, C: C(A(b"x" * 32), M.XTS(b"x" * 16)).decryptor().update(b"a" * 16),
    lambda A, M, C: C(A(b"x" * 16 + b"y" * 16), M.XTS(b"x" * 16)).encryptor().update(b"a" * 15),
    lambda A, M, C: C(A(b"x" * 64), M.ECB()).encryptor(),
    lambda A, M, C: C(b"x", M.ECB()),
    lambda A, M, C: C(A(b"x" * 16), M.CBC(b"x" * 16)).encryptor().update("abc"),
    lambda A, M, C: (lambda e: (e.update(b"a" * 5), e.finalize()))(C(A(b"x" * 16), M.CBC(b"x" * 16)).encryptor()),
    lambda A, M, C: (lambda e: (e.update(b"a" * 5), e.finalize()))(C(A(b"x" * 16), M.ECB()).decryptor()),
    lambda A, M, C: (lambda e: (e.finalize(), e.finalize()))(C(A(b"x" * 16), M.ECB()).encryptor()),
    lambda A, M, C: (lambda e: (e.finalize(), e.update(b"")))(C(A(b"x" * 16), M.CTR(b"x" * 16)).encryptor()),
    lambda A, M, C: C(A(b"x" * 16), M.CTR(b"x" * 16)).encryptor().update_into(b"a" * 5, bytearray(4)),
    lambda A, M, C: C(A(b"x" * 16), M.CBC(b"x" * 16)).encryptor().update_into(b"a" * 5, bytearray(19)),
    lambda A, M, C: C(A(b"x" * 16), M.CBC(b"x" * 16)).encryptor().update_into(b"a" * 5, b"x" * 20),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_as_pyca(case):
    mine = outcome(lambda: ERROR_CASES[case](algorithms.AES, modes, Cipher))
    theirs = outcome(lambda: ERROR_CASES[case](PA.AES, PM, PC))
    # AlreadyFinalized lives in different modules; compare names and text.
    assert mine == theirs


def test_pyca_objects_accepted():
    key, iv, data = os.urandom(16), os.urandom(16), os.urandom(64)
    e = Cipher(PA.AES(key), PM.CBC(iv)).encryptor()
    assert e.update(data) + e.finalize() == pyca("CBC", key, iv, data, True)
