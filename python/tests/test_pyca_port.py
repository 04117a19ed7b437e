"""pyca-documented snippets ported to aesx by changing the import lines only.

Each test is written as user code for ``cryptography`` is: the primitive comes
from aesx, the ``except`` lines and exception imports stay pyca's
(``from cryptography.exceptions import InvalidTag``), and the outputs are
checked against pyca's own.
"""

import os

import pytest

pytest.importorskip("cryptography")

# The lines a port leaves alone: pyca's exceptions.
from cryptography.exceptions import (  # noqa: E402
    AlreadyFinalized,
    InvalidSignature,
    InvalidTag,
    UnsupportedAlgorithm,
)
from cryptography.hazmat.primitives import cmac as pyca_cmac  # noqa: E402
from cryptography.hazmat.primitives import keywrap as pyca_keywrap  # noqa: E402
from cryptography.hazmat.primitives import padding as pyca_padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import (  # noqa: E402
    Cipher as PycaCipher,
    CipherContext,
    algorithms as pyca_algorithms,
    modes as pyca_modes,
)
from cryptography.hazmat.primitives.ciphers import aead as pyca_aead  # noqa: E402

# The lines a port changes: was `from cryptography.hazmat.primitives... import`.
from aesx import AESCCM, AESGCM, AESGCMSIV, Cipher, algorithms, modes, padding  # noqa: E402
from aesx import cmac, keywrap  # noqa: E402
from aesx.keywrap import InvalidUnwrap  # noqa: E402


def test_aesgcm_doc_example():
    data = b"a secret message"
    aad = b"authenticated but unencrypted data"
    key = AESGCM.generate_key(bit_length=128)
    aesgcm = AESGCM(key)
    nonce = os.urandom(12)
    ct = aesgcm.encrypt(nonce, data, aad)
    assert aesgcm.decrypt(nonce, ct, aad) == data
    assert ct == pyca_aead.AESGCM(key).encrypt(nonce, data, aad)

    try:
        aesgcm.decrypt(nonce, ct, b"other aad")
    except InvalidTag:
        pass
    else:
        pytest.fail("a wrong associated data must raise InvalidTag")


def test_aesgcm_encrypt_into_doc_example():
    key = AESGCM.generate_key(bit_length=256)
    aesgcm = AESGCM(key)
    nonce = os.urandom(12)
    data = b"a secret message"
    buf = bytearray(len(data) + 16)
    n = aesgcm.encrypt_into(nonce, data, None, buf)
    assert n == len(buf)
    assert bytes(buf) == pyca_aead.AESGCM(key).encrypt(nonce, data, None)
    out = bytearray(len(data))
    assert aesgcm.decrypt_into(nonce, bytes(buf), None, out) == len(data)
    assert bytes(out) == data


@pytest.mark.parametrize("tag_length", [4, 8, 16])
def test_aesccm_doc_example(tag_length):
    data = b"a secret message"
    aad = b"authenticated but unencrypted data"
    key = AESCCM.generate_key(bit_length=128)
    aesccm = AESCCM(key, tag_length=tag_length)
    nonce = os.urandom(13)
    ct = aesccm.encrypt(nonce, data, aad)
    assert aesccm.decrypt(nonce, ct, aad) == data
    ref = pyca_aead.AESCCM(key, tag_length=tag_length)
    assert ct == ref.encrypt(nonce, data, aad)

    buf = bytearray(len(data) + tag_length)
    assert aesccm.encrypt_into(nonce, data, aad, buf) == len(buf)
    assert bytes(buf) == ct
    out = bytearray(len(data))
    assert aesccm.decrypt_into(nonce, ct, aad, out) == len(data)
    assert bytes(out) == data

    with pytest.raises(InvalidTag):
        aesccm.decrypt(nonce, ct[:-1] + bytes([ct[-1] ^ 1]), aad)


def test_aesgcmsiv_doc_example():
    data = b"a secret message"
    aad = b"authenticated but unencrypted data"
    key = AESGCMSIV.generate_key(bit_length=128)
    aesgcmsiv = AESGCMSIV(key)
    nonce = os.urandom(12)
    ct = aesgcmsiv.encrypt(nonce, data, aad)
    assert aesgcmsiv.decrypt(nonce, ct, aad) == data
    assert ct == pyca_aead.AESGCMSIV(key).encrypt(nonce, data, aad)

    buf = bytearray(len(data) + 16)
    aesgcmsiv.encrypt_into(nonce, data, aad, buf)
    assert bytes(buf) == ct
    out = bytearray(len(data))
    aesgcmsiv.decrypt_into(nonce, ct, aad, out)
    assert bytes(out) == data

    try:
        aesgcmsiv.decrypt(nonce, ct, None)
    except InvalidTag:
        pass
    else:
        pytest.fail("a missing associated data must raise InvalidTag")


def test_cipher_cbc_doc_example():
    key = os.urandom(32)
    iv = os.urandom(16)
    cipher = Cipher(algorithms.AES(key), modes.CBC(iv))
    encryptor = cipher.encryptor()
    ct = encryptor.update(b"a secret message") + encryptor.finalize()
    decryptor = cipher.decryptor()
    assert decryptor.update(ct) + decryptor.finalize() == b"a secret message"

    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.CBC(iv)).encryptor()
    assert ct == ref.update(b"a secret message") + ref.finalize()
    assert isinstance(encryptor, CipherContext)
    assert isinstance(decryptor, CipherContext)

    with pytest.raises(AlreadyFinalized):
        encryptor.update(b"more")


def test_cipher_ecb_and_padding_doc_example():
    key = os.urandom(16)
    padder = padding.PKCS7(128).padder()
    padded_data = padder.update(b"11111111111111112222222222")
    padded_data += padder.finalize()
    assert padded_data == b"11111111111111112222222222\x06\x06\x06\x06\x06\x06"

    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    ct = encryptor.update(padded_data) + encryptor.finalize()
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.ECB()).encryptor()
    assert ct == ref.update(padded_data) + ref.finalize()

    decryptor = Cipher(algorithms.AES(key), modes.ECB()).decryptor()
    unpadder = padding.PKCS7(128).unpadder()
    data = unpadder.update(decryptor.update(ct) + decryptor.finalize())
    assert data + unpadder.finalize() == b"11111111111111112222222222"

    try:
        bad = padding.PKCS7(128).unpadder()
        bad.update(b"1111111111111111")
        bad.finalize()
    except ValueError as e:
        assert str(e) == "Invalid padding bytes."
    else:
        pytest.fail("bad padding must raise ValueError")
    assert isinstance(padder, pyca_padding.PaddingContext)


def test_cipher_ctr_and_reset_nonce():
    key = os.urandom(32)
    nonce = os.urandom(16)
    encryptor = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor()
    ct = encryptor.update(b"a secret message") + encryptor.finalize()
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.CTR(nonce)).encryptor()
    assert ct == ref.update(b"a secret message")

    # reset_nonce, as pyca documents it: the same context, a new nonce.
    ctx = Cipher(algorithms.AES(key), modes.CTR(nonce)).encryptor()
    pyca_ctx = PycaCipher(pyca_algorithms.AES(key), pyca_modes.CTR(nonce)).encryptor()
    assert ctx.update(b"first message") == pyca_ctx.update(b"first message")
    nonce2 = os.urandom(16)
    ctx.reset_nonce(nonce2)
    pyca_ctx.reset_nonce(nonce2)
    assert ctx.update(b"second message") == pyca_ctx.update(b"second message")

    cbc = Cipher(algorithms.AES(key), modes.CBC(nonce)).encryptor()
    try:
        cbc.reset_nonce(nonce2)
    except UnsupportedAlgorithm:
        pass
    else:
        pytest.fail("reset_nonce outside CTR must raise UnsupportedAlgorithm")


def test_cipher_xts_doc_example():
    key = os.urandom(64)
    tweak = (1234).to_bytes(16, "little")
    data = os.urandom(4096)
    encryptor = Cipher(algorithms.AES(key), modes.XTS(tweak)).encryptor()
    ct = encryptor.update(data) + encryptor.finalize()
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.XTS(tweak)).encryptor()
    assert ct == ref.update(data) + ref.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.XTS(tweak)).decryptor()
    assert decryptor.update(ct) + decryptor.finalize() == data


def test_keywrap_doc_example():
    wrapping_key = os.urandom(32)
    key_to_wrap = os.urandom(32)
    wrapped = keywrap.aes_key_wrap(wrapping_key, key_to_wrap)
    assert wrapped == pyca_keywrap.aes_key_wrap(wrapping_key, key_to_wrap)
    assert keywrap.aes_key_unwrap(wrapping_key, wrapped) == key_to_wrap

    padded = keywrap.aes_key_wrap_with_padding(wrapping_key, b"short")
    assert padded == pyca_keywrap.aes_key_wrap_with_padding(wrapping_key, b"short")

    try:
        keywrap.aes_key_unwrap(os.urandom(32), wrapped)
    except pyca_keywrap.InvalidUnwrap:
        pass
    else:
        pytest.fail("a wrong wrapping key must raise InvalidUnwrap")
    # aesx's own name for it is the same class.
    with pytest.raises(InvalidUnwrap):
        keywrap.aes_key_unwrap_with_padding(wrapping_key, padded[:-8] + bytes(8))


def test_cmac_doc_example():
    key = os.urandom(16)
    c = cmac.CMAC(algorithms.AES(key))
    c.update(b"message to authenticate")
    tag = c.copy().finalize()
    ref = pyca_cmac.CMAC(pyca_algorithms.AES(key))
    ref.update(b"message to authenticate")
    assert tag == ref.finalize()
    c.verify(tag)

    c = cmac.CMAC(algorithms.AES(key))
    c.update(b"message to authenticate")
    try:
        c.verify(b"an incorrect signature")
    except InvalidSignature:
        pass
    else:
        pytest.fail("a wrong tag must raise InvalidSignature")

    with pytest.raises(AlreadyFinalized):
        c.update(b"more")
