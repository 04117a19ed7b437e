"""RFC 4106 ESP: against AES-GCM with nonce = salt || IV, and the checksum
against a plain Python one's-complement sum."""

import os
import random

import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaAESGCM

import aesx


def ones_complement(data: bytes) -> int:
    data = data + bytes(-len(data) % 8)
    s = sum(int.from_bytes(data[i:i + 8], "little") for i in range(0, len(data), 8))
    while s >> 64:
        s = (s & (2**64 - 1)) + (s >> 64)
    return s


def test_checksum_known_value():
    # AArch64cryptolib's example: ffffeeeeddddccccbbbbaaaa sums to babb9999deddcccc.
    assert ones_complement(bytes.fromhex("ffffeeeeddddccccbbbbaaaa")).to_bytes(8, "little").hex() == "babb9999deddcccc"


@pytest.mark.parametrize("klen", [16, 24, 32])
def test_esp_roundtrip(klen, backend):
    rng = random.Random(klen)
    for n in list(range(0, 70)) + [1500, 16384, 16385, 70000]:
        key, salt, iv = rng.randbytes(klen), rng.randbytes(4), rng.randbytes(8)
        aad = rng.randbytes(rng.choice([8, 12]))
        data = rng.randbytes(n)
        esp = aesx.ESP(key, salt, 16, backend=backend)
        ct, cs = esp.encrypt_with_checksum(iv, data, aad)
        assert ct == PycaAESGCM(key).encrypt(salt + iv, data, aad)
        assert cs == ones_complement(data)
        pt, cs2 = esp.decrypt_with_checksum(iv, ct, aad)
        assert pt == data and cs2 == cs
        assert esp.decrypt(iv, esp.encrypt(iv, data, aad), aad) == data
        short = aesx.ESP.from_keying_material(key + salt, 8)
        assert short.encrypt(iv, data, aad) == ct[:n] + ct[n:n + 8]
    bad = bytearray(ct)
    bad[0] ^= 1
    with pytest.raises(aesx.InvalidTag):
        esp.decrypt(iv, bytes(bad), aad)


def test_esp_errors():
    with pytest.raises(ValueError):
        aesx.ESP(b"k" * 16, b"abc")
    with pytest.raises(ValueError):
        aesx.ESP(b"k" * 16, b"abcd", 10)
    esp = aesx.ESP(b"k" * 16, b"abcd")
    with pytest.raises(ValueError):
        esp.encrypt(b"1234567", b"data", b"\0" * 8)
    with pytest.raises(ValueError):
        esp.encrypt(b"12345678", b"data", b"\0" * 9)
    with pytest.raises(aesx.InvalidTag):
        esp.decrypt(b"12345678", b"short", b"\0" * 8)
    with pytest.raises(TypeError):
        esp.encrypt(b"12345678", "text", b"\0" * 8)
