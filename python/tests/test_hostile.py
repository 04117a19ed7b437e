"""Hostile input: every failure is the documented exception, never a crash
(a crash would take the test process down)."""

import os
import random
import time

import numpy as np
import pytest

import aesx
from aesx import Cipher, algorithms, modes

DOCUMENTED = (TypeError, ValueError, BufferError, OverflowError, aesx.InvalidTag, aesx.AlreadyFinalized)

JUNK = [None, 0, -1, 2**80, 1.5, "str", "x" * 16, [], {}, object(), b"", b"x" * 7, b"x" * 16,
        bytearray(33), memoryview(b"x" * 64)[::2], np.zeros((3, 3), np.uint8)[:, ::2],
        np.zeros(16, np.uint8), np.zeros(4, np.float32), True]


def test_junk_arguments_everywhere():
    rng = random.Random(0)
    calls = [
        lambda a, b, c, d: aesx.AESGCM(a),
        lambda a, b, c, d: aesx.AESGCM(b"k" * 16).encrypt(a, b, c),
        lambda a, b, c, d: aesx.AESGCM(b"k" * 16).decrypt(a, b, c),
        lambda a, b, c, d: aesx.AESGCM(b"k" * 16).encrypt_into(b"n" * 12, a, None, b),
        lambda a, b, c, d: aesx.AESGCM(b"k" * 16).decrypt_into(b"n" * 12, a, None, b),
        lambda a, b, c, d: aesx.AESGCM.generate_key(a),
        lambda a, b, c, d: aesx.ESP(a, b, c),
        lambda a, b, c, d: aesx.ESP(b"k" * 16, b"salt").decrypt(a, b, c),
        lambda a, b, c, d: aesx.XTS(a),
        lambda a, b, c, d: aesx.XTS(os.urandom(32)).encrypt_sectors(a, b, c),
        lambda a, b, c, d: aesx.XTS(os.urandom(32)).decrypt(a, b),
        lambda a, b, c, d: Cipher(algorithms.AES(a), modes.CBC(b)).encryptor().update(c),
        lambda a, b, c, d: Cipher(algorithms.AES(b"k" * 16), modes.CTR(b"n" * 16)).decryptor().update_into(a, b),
        lambda a, b, c, d: Cipher(algorithms.AES(b"k" * 16), modes.ECB()).decryptor().update_into(a, b),
        lambda a, b, c, d: aesx.use_backend(a),
    ]
    for _ in range(3000):
        f = rng.choice(calls)
        args = [rng.choice(JUNK) for _ in range(4)]
        try:
            f(*args)
        except DOCUMENTED:
            pass
    aesx.use_backend(None)


def test_cipher_context_misuse():
    e = Cipher(algorithms.AES(b"k" * 16), modes.CBC(b"i" * 16)).encryptor()
    e.update(b"x" * 16)
    e.finalize()
    for f in (lambda: e.update(b"x"), lambda: e.update_into(b"x", bytearray(32)), e.finalize):
        with pytest.raises(aesx.AlreadyFinalized):
            f()


def write(p, b):
    p.write_bytes(bytes(b))
    return p


def test_not_aesx_and_truncations(tmp_path):
    key = os.urandom(32)
    plain = write(tmp_path / "plain", os.urandom(2 * 16384 + 10))
    aesx.encrypt_file(plain, tmp_path / "c", key=key)
    good = (tmp_path / "c").read_bytes()
    cases = [b"", b"aes", b"nope" * 10, good[:5], good[:6], good[:61], good[:62], good[:62 + 16400],
             good[:62 + 2 * 16400], good[:-1], good[:-16], good + b"x", good + good[-26:], good[:4] + b"\x02" + good[5:],
             good[:5] + b"\x09" + good[6:], good[:10] + bytes([good[10] ^ 1]) + good[11:]]
    rng = random.Random(3)
    for _ in range(30):
        b = bytearray(good)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        cases.append(bytes(b))
    for i, c in enumerate(cases):
        src = write(tmp_path / f"bad{i}", c)
        with pytest.raises(aesx.DecryptionError):
            aesx.decrypt_file(src, tmp_path / "out", key=key)
        assert not (tmp_path / "out").exists()
        with pytest.raises(aesx.DecryptionError):
            aesx.open_encrypted(src, key=key).read()
    assert not [p for p in tmp_path.iterdir() if ".aesx-tmp-" in p.name]
    with pytest.raises(aesx.DecryptionError, match="appended"):
        aesx.decrypt_file(write(tmp_path / "app", good + b"\x00"), tmp_path / "out", key=key)


@pytest.mark.parametrize(
    "memory_kib, passes, lanes, refusal",
    [
        # A passphrase header asking for 4 TiB of memory and 2^32 - 1 passes.
        (2**32 - 1, 2**32 - 1, 2**32 - 1, "refusing"),
        # Within the hard caps (2 GiB, 3 passes, 4 lanes) but above the
        # default decryption ceiling of 1 GiB that the CLI also applies.
        (2 * 1024 * 1024, 3, 4, "above the limit"),
    ],
    ids=["above_the_hard_caps", "above_the_default_ceiling"],
)
def test_hostile_kdf_cost_refused_before_any_work(tmp_path, memory_kib, passes, lanes, refusal):
    params = b"".join(v.to_bytes(4, "big") for v in (memory_kib, passes, lanes))
    hdr = b"aesx\x01\x02" + params + os.urandom(16)
    src = write(tmp_path / "h", hdr + os.urandom(56 + 16))
    t0 = time.perf_counter()
    with pytest.raises(aesx.DecryptionError, match=refusal):
        aesx.decrypt_file(src, tmp_path / "out", passphrase="x")
    assert time.perf_counter() - t0 < 1
    assert not (tmp_path / "out").exists()


def test_bad_keys_for_files(tmp_path):
    src = write(tmp_path / "p", b"data")
    for key in (b"short", "zz" * 32, "ab" * 31, 5, None):
        with pytest.raises((TypeError, ValueError)):
            aesx.encrypt_file(src, tmp_path / "o", key=key)
    with pytest.raises(TypeError):
        aesx.encrypt_file(src, tmp_path / "o")
    with pytest.raises(TypeError):
        aesx.encrypt_file(src, tmp_path / "o", key=bytes(32), passphrase="x")
    with pytest.raises(ValueError):
        aesx.encrypt_file(src, tmp_path / "o", passphrase="")
    aesx.encrypt_file(src, tmp_path / "o", key=bytes(32))
    with pytest.raises(aesx.DecryptionError, match="wrong key"):
        aesx.decrypt_file(tmp_path / "o", tmp_path / "p2", key=b"\x01" * 32)
