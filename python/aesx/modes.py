"""Modes for :class:`aesx.Cipher` (as ``cryptography``'s, plus ``pkcs7``):
ECB, CBC, CTR, XTS, GCM (streaming), and the legacy CFB, CFB8 and OFB.

``ECB(pkcs7=True)`` and ``CBC(iv, pkcs7=True)`` add PKCS#7 padding on
encryption and check and remove it on decryption (``finalize`` raises
``ValueError("Invalid padding bytes.")``); without it, as in
``cryptography``, the data must be whole 16-byte blocks.
"""

from ._util import check_byteslike, nbytes

__all__ = ["ECB", "CBC", "CTR", "XTS", "GCM", "CFB", "CFB8", "OFB"]


def _check_aes_key(algorithm) -> None:
    # pyca's _check_aes_key_length: a 512-bit key is XTS's alone.
    if getattr(algorithm, "name", None) == "AES" and algorithm.key_size > 256:
        raise ValueError("Only 128, 192, and 256 bit keys are allowed for this AES mode")


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
        _check_aes_key(algorithm)
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


class _FeedbackIV(_OneBlock):
    """A legacy feedback mode with a 16-byte IV (CFB, CFB8, OFB): a stream
    of any length, no padding, no integrity."""

    _what = "IV"

    def __init__(self, initialization_vector):
        super().__init__("initialization_vector", initialization_vector)

    @property
    def initialization_vector(self):
        return self._value


class CFB(_FeedbackIV):
    """CFB128 (SP 800-38A, full-block feedback) with a 16-byte IV. Decryption
    runs the wide kernels; encryption is a serial chain."""

    name = "CFB"


class CFB8(_FeedbackIV):
    """CFB8 (SP 800-38A, 8-bit feedback) with a 16-byte IV: one AES call per
    byte when encrypting."""

    name = "CFB8"


class OFB(_FeedbackIV):
    """OFB (SP 800-38A) with a 16-byte IV: encrypting and decrypting are the
    same keystream XOR, a serial chain of AES calls."""

    name = "OFB"


class GCM(Mode):
    """GCM as a streaming cipher context, as ``cryptography``'s ``modes.GCM``:
    ``initialization_vector`` of 8 to 128 bytes; ``tag`` (decryption only,
    or pass it to ``finalize_with_tag`` instead) at least ``min_tag_length``
    (4 to 16) bytes.

    A streaming decryptor returns plaintext from ``update`` before the tag
    is checked at ``finalize``, exactly as ``cryptography``'s does: hold it
    back until ``finalize`` returns. :class:`aesx.AESGCM` checks the tag
    before releasing anything and is the faster path for whole messages.
    """

    name = "GCM"
    _MAX_ENCRYPTED_BYTES = (2**39 - 256) // 8
    _MAX_AAD_BYTES = (2**64 - 1) // 8

    def __init__(self, initialization_vector, tag=None, min_tag_length: int = 16):
        check_byteslike("initialization_vector", initialization_vector)
        if not 8 <= nbytes(initialization_vector) <= 128:
            raise ValueError(
                "initialization_vector must be between 8 and 128 bytes (64 "
                "and 1024 bits)."
            )
        self._initialization_vector = initialization_vector
        if min_tag_length < 4:
            raise ValueError("min_tag_length must be >= 4")
        if tag is not None:
            if not isinstance(tag, bytes):
                raise TypeError("tag must be bytes")
            if len(tag) < min_tag_length:
                raise ValueError(
                    f"Authentication tag must be {min_tag_length} bytes or longer."
                )
        self._tag = tag
        self._min_tag_length = min_tag_length

    @property
    def tag(self):
        return self._tag

    @property
    def initialization_vector(self):
        return self._initialization_vector

    def validate_for_algorithm(self, algorithm) -> None:
        _check_aes_key(algorithm)
        block = algorithm.block_size // 8
        if self._tag is not None and len(self._tag) > block:
            raise ValueError(f"Authentication tag cannot be more than {block} bytes.")
