"""Modes for :class:`aesx.Cipher` (as ``cryptography``'s, plus ``pkcs7``).

``ECB(pkcs7=True)`` and ``CBC(iv, pkcs7=True)`` add PKCS#7 padding on
encryption and check and remove it on decryption (``finalize`` raises
``ValueError("Invalid padding bytes.")``); without it, as in
``cryptography``, the data must be whole 16-byte blocks.
"""

from ._util import check_byteslike, nbytes

__all__ = ["ECB", "CBC", "CTR", "XTS"]


class Mode:
    name = ""

    def validate_for_algorithm(self, algorithm) -> None:
        pass


class ECB(Mode):
    """Electronic codebook: each block on its own. Leaks equal blocks."""

    name = "ECB"

    def __init__(self, *, pkcs7: bool = False):
        self.pkcs7 = bool(pkcs7)


class _OneBlock(Mode):
    """A mode with one value that must be a block long (CBC's IV, CTR's
    nonce), checked against the algorithm as ``cryptography`` does."""

    # What the value is called in the error message.
    _what = ""

    def __init__(self, arg: str, value):
        check_byteslike(arg, value)
        self._value = value

    def validate_for_algorithm(self, algorithm) -> None:
        n = nbytes(self._value)
        if n * 8 != algorithm.block_size:
            raise ValueError(f"Invalid {self._what} size ({n}) for {self.name}.")


class CBC(_OneBlock):
    """Cipher block chaining with a 16-byte IV."""

    name = "CBC"
    _what = "IV"

    def __init__(self, initialization_vector, *, pkcs7: bool = False):
        super().__init__("initialization_vector", initialization_vector)
        self.pkcs7 = bool(pkcs7)

    @property
    def initialization_vector(self):
        return self._value


class CTR(_OneBlock):
    """Counter mode: `nonce` is the whole 16-byte initial counter block,
    incremented as a 128-bit big-endian integer."""

    name = "CTR"
    _what = "nonce"

    def __init__(self, nonce):
        super().__init__("nonce", nonce)

    @property
    def nonce(self):
        return self._value


class XTS(Mode):
    """XTS with a 16-byte tweak. Each ``update`` call is one whole data unit
    (at least 16 bytes) under this tweak, as in ``cryptography``."""

    name = "XTS"

    def __init__(self, tweak):
        check_byteslike("tweak", tweak)
        if nbytes(tweak) != 16:
            raise ValueError("tweak must be 128-bits (16 bytes)")
        self._tweak = tweak

    @property
    def tweak(self):
        return self._tweak

    def validate_for_algorithm(self, algorithm) -> None:
        if algorithm.key_size not in (256, 512):
            raise ValueError(
                "The XTS specification requires a 256-bit key for AES-128-XTS"
                " and 512-bit key for AES-256-XTS"
            )
