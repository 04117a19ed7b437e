"""AESGCM(..., threads=n): one message split over threads gives the bytes
of one thread, on every backend, and a forged message releases nothing."""

import os

import pytest

import aesx

SEG = 128 * 1024  # the library's shortest segment per thread


@pytest.mark.parametrize("backend", aesx.backends())
def test_threads_give_one_threads_bytes(backend):
    g = aesx.AESGCM(os.urandom(32), backend=backend)
    for n in (0, 100, 2 * SEG - 1, 2 * SEG + 17, 5 * SEG + 3):
        nonce, data, aad = os.urandom(12), os.urandom(n), os.urandom(n % 40)
        want = g.encrypt(nonce, data, aad)
        for t in (1, 2, 3, 8):
            assert g.encrypt(nonce, data, aad, threads=t) == want
            assert g.decrypt(nonce, want, aad, threads=t) == data
            out = bytearray(n + 16)
            assert g.encrypt_into(nonce, data, aad, out, threads=t) == n + 16
            assert out == want
            back = bytearray(n)
            assert g.decrypt_into(nonce, want, aad, back, threads=t) == n
            assert back == data


def test_forged_message_releases_nothing():
    g = aesx.AESGCM(os.urandom(16))
    n = 3 * SEG + 5
    nonce, data = os.urandom(12), os.urandom(n)
    forged = bytearray(g.encrypt(nonce, data, None))
    forged[n // 2] ^= 1
    with pytest.raises(aesx.InvalidTag):
        g.decrypt(nonce, bytes(forged), None, threads=3)
    back = bytearray(b"\xff" * n)
    with pytest.raises(aesx.InvalidTag):
        g.decrypt_into(nonce, bytes(forged), None, back, threads=3)
    assert back == bytearray(n)


def test_threads_must_be_a_count():
    g = aesx.AESGCM(os.urandom(16))
    for bad in (0, -1, -(2**70)):
        with pytest.raises(ValueError, match="threads must be at least 1"):
            g.encrypt(os.urandom(12), b"x", None, threads=bad)
        with pytest.raises(ValueError, match="threads must be at least 1"):
            g.decrypt_into(os.urandom(12), b"x" * 16, None, bytearray(0), threads=bad)
    for bad in ("2", 2.0, True):
        with pytest.raises(TypeError, match="threads must be an int"):
            g.encrypt(os.urandom(12), b"x", None, threads=bad)
    # None is the default: one thread.
    nonce = os.urandom(12)
    assert g.encrypt(nonce, b"x", None, threads=None) == g.encrypt(nonce, b"x", None)


# AESGCMSIV(..., threads=n) and Cipher(AES, CTR, threads=n): the same rules.

SIV_LENGTHS = (0, 100, 2 * SEG - 1, 2 * SEG, 2 * SEG + 17, 3 * SEG + 5)


@pytest.mark.parametrize("backend", aesx.backends())
def test_gcm_siv_threads_give_one_threads_bytes(backend):
    for key_len in (16, 32):
        s = aesx.AESGCMSIV(os.urandom(key_len), backend=backend)
        for n in SIV_LENGTHS:
            nonce, data, aad = os.urandom(12), os.urandom(n), os.urandom(n % 40)
            want = s.encrypt(nonce, data, aad)
            for t in (1, 2, 3, 4):
                assert s.encrypt(nonce, data, aad, threads=t) == want, (n, t)
                assert s.decrypt(nonce, want, aad, threads=t) == data, (n, t)
                out = bytearray(n + 16)
                assert s.encrypt_into(nonce, data, aad, out, threads=t) == n + 16
                assert out == want
                back = bytearray(n)
                assert s.decrypt_into(nonce, want, aad, back, threads=t) == n
                assert back == data


def test_gcm_siv_forged_message_releases_nothing():
    s = aesx.AESGCMSIV(os.urandom(32))
    n = 3 * SEG + 5
    nonce, data = os.urandom(12), os.urandom(n)
    sealed = s.encrypt(nonce, data, None)
    for at in (0, n // 2, n + 3):  # first byte, middle, tag
        forged = bytearray(sealed)
        forged[at] ^= 1
        with pytest.raises(aesx.InvalidTag):
            s.decrypt(nonce, bytes(forged), None, threads=3)
        back = bytearray(b"\xff" * n)
        with pytest.raises(aesx.InvalidTag):
            s.decrypt_into(nonce, bytes(forged), None, back, threads=3)
        assert back == bytearray(n)


@pytest.mark.parametrize("backend", aesx.backends())
def test_ctr_cipher_threads_give_one_threads_bytes(backend):
    from aesx import Cipher, algorithms, modes

    key, nonce = os.urandom(32), os.urandom(16)
    # A counter that wraps modulo 2^128 inside the message, and a random one.
    for iv in (nonce, b"\xff" * 15 + b"\xf0"):
        data = os.urandom(3 * SEG + 29)
        one = Cipher(algorithms.AES(key), modes.CTR(iv), backend=backend)
        want = one.encryptor().update(data)
        for t in (1, 2, 3, 4):
            c = Cipher(algorithms.AES(key), modes.CTR(iv), backend=backend, threads=t)
            assert c.encryptor().update(data) == want, t
            assert c.decryptor().update(want) == data, t
            # Pieces that leave partial blocks between updates.
            e = c.encryptor()
            got = e.update(data[:7]) + e.update(data[7 : 2 * SEG + 100]) + e.update(data[2 * SEG + 100 :])
            assert got + e.finalize() == want, t
            out = bytearray(len(data))
            assert c.encryptor().update_into(data, out) == len(data)
            assert out == want


def test_threads_must_be_a_positive_int():
    from aesx import Cipher, algorithms, modes

    s = aesx.AESGCMSIV(os.urandom(16))
    for bad in (0, -1, -(2**70)):
        with pytest.raises(ValueError, match="threads must be at least 1"):
            s.encrypt(os.urandom(12), b"x", None, threads=bad)
        with pytest.raises(ValueError, match="threads must be at least 1"):
            s.decrypt_into(os.urandom(12), b"x" * 16, None, bytearray(0), threads=bad)
        with pytest.raises(ValueError, match="threads must be at least 1"):
            Cipher(algorithms.AES(os.urandom(16)), modes.CTR(os.urandom(16)), threads=bad)
    for bad in ("2", 2.0, True, b"\x02"):
        with pytest.raises(TypeError, match="threads must be an int"):
            s.encrypt(os.urandom(12), b"x", None, threads=bad)
        with pytest.raises(TypeError, match="threads must be an int"):
            Cipher(algorithms.AES(os.urandom(16)), modes.CTR(os.urandom(16)), threads=bad)
    # A huge count is held to the library's most, as with_threads does.
    assert s.encrypt(b"\x01" * 12, b"abc", None, threads=2**70) == s.encrypt(b"\x01" * 12, b"abc", None)
    # Positional: pyca's Cipher(algorithm, mode, backend) keeps its shape.
    with pytest.raises(TypeError):
        Cipher(algorithms.AES(os.urandom(16)), modes.CTR(os.urandom(16)), None, 2)


def test_threads_only_where_a_call_splits():
    from aesx import Cipher, algorithms, modes

    for a, nonce in ((aesx.AESCCM(os.urandom(16)), 13), (aesx.XAES256GCM(os.urandom(32)), 24)):
        n = os.urandom(nonce)
        assert a.encrypt(n, b"abc", None, threads=1) == a.encrypt(n, b"abc", None)
        with pytest.raises(ValueError, match="one thread"):
            a.encrypt(n, b"abc", None, threads=2)
    with pytest.raises(ValueError, match="CTR and XTS only"):
        Cipher(algorithms.AES(os.urandom(16)), modes.CBC(os.urandom(16)), threads=2)
    Cipher(algorithms.AES(os.urandom(16)), modes.CBC(os.urandom(16)), threads=1)


@pytest.mark.parametrize("backend", aesx.backends())
def test_xts_cipher_threads_give_one_threads_bytes(backend):
    from aesx import Cipher, algorithms, modes

    key = os.urandom(64)
    # Whole blocks, and a partial last block (ciphertext stealing).
    for n in (2 * SEG, 3 * SEG + 16 * 5, 3 * SEG + 7, 5 * SEG + 31):
        tweak, data = os.urandom(16), os.urandom(n)
        one = Cipher(algorithms.AES(key), modes.XTS(tweak), backend=backend)
        want = one.encryptor().update(data)
        for t in (1, 2, 3, 4):
            c = Cipher(algorithms.AES(key), modes.XTS(tweak), backend=backend, threads=t)
            assert c.encryptor().update(data) == want, (n, t)
            assert c.decryptor().update(want) == data, (n, t)
