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
        for t in (0, 1, 2, 3, 8):
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
    with pytest.raises((OverflowError, TypeError)):
        g.encrypt(os.urandom(12), b"x", None, threads=-1)
    with pytest.raises(TypeError):
        g.encrypt(os.urandom(12), b"x", None, threads="2")
