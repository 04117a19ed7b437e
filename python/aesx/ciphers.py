"""``Cipher(algorithm, mode)`` as in ``cryptography``, on aesx."""

from . import _aesx
from ._exceptions import AlreadyFinalized, UnsupportedAlgorithm, _base

__all__ = ["Cipher"]

_SUPPORTED = ("ECB", "CBC", "CTR", "XTS", "CFB", "CFB8", "OFB", "GCM")

# The exceptions of cryptography's AEAD contexts that aesx raises only here:
# subclasses of pyca's own where it imports (so its `except` lines catch
# them), else of Exception.
_EXC = "cryptography.exceptions"


class AlreadyUpdated(_base(_EXC, "AlreadyUpdated")):
    """Associated data after ``update`` on a GCM context."""


class NotYetFinalized(_base(_EXC, "NotYetFinalized")):
    """A GCM encryptor's ``tag`` read before ``finalize``."""


class Cipher:
    """A cipher: ``Cipher(algorithms.AES(key), modes.CBC(iv))``.

    ``algorithm`` and ``mode`` may also be ``cryptography``'s own objects
    (AES with ECB, CBC, CTR or XTS). ``backend`` is ignored unless it is an
    aesx backend name (see :func:`aesx.backends`).

    ``threads`` (keyword-only, an int >= 1; aesx's own, not pyca's): with
    CTR or XTS, an update of at least 128 KiB per extra thread is split over
    that many threads (counter ranges; XTS: block ranges of the one data
    unit, each from its power of the tweak), with the bytes of one thread.
    Other modes take 1 only.
    """

    def __init__(self, algorithm, mode, backend=None, *, threads=1):
        if not isinstance(getattr(algorithm, "name", None), str) or not hasattr(
            algorithm, "key"
        ):
            raise TypeError("Expected interface of CipherAlgorithm.")
        if algorithm.name != "AES":
            # A cipher algorithm (pyca's Camellia, say) that aesx lacks.
            raise UnsupportedAlgorithm(
                f"aesx.Cipher supports AES only, not {algorithm.name}"
            )
        name = getattr(mode, "name", None)
        if not isinstance(name, str):
            raise TypeError("Expected interface of Mode.")
        if name not in _SUPPORTED:
            # pyca's exception for a mode its backend lacks.
            raise UnsupportedAlgorithm(
                f"aesx.Cipher supports ECB, CBC, CTR, XTS, GCM, CFB, CFB8"
                f" and OFB, not {name}"
            )
        if isinstance(threads, bool) or not isinstance(threads, int):
            raise TypeError(f"threads must be an int, not {type(threads).__name__}")
        if threads < 1:
            raise ValueError(f"threads must be at least 1, got {threads}")
        if threads > 1 and name not in ("CTR", "XTS"):
            raise ValueError(f"threads > 1 splits CTR and XTS only; {name} runs on one thread")
        mode.validate_for_algorithm(algorithm)
        self._threads = threads
        self.algorithm = algorithm
        self.mode = mode
        self._backend = backend if isinstance(backend, str) else None

    def _context(self, encrypt: bool):
        name = self.mode.name
        key = self.algorithm.key
        if name != "XTS" and self.algorithm.key_size not in (128, 192, 256):
            raise ValueError("Only 128, 192, and 256 bit keys are allowed for this AES mode")
        if name == "GCM":
            return GCMEncryptionContext(self) if encrypt else GCMDecryptionContext(self)
        if name in ("CBC", "CFB", "CFB8", "OFB"):
            iv = getattr(self.mode, "initialization_vector", None)
        else:
            iv = {
                "ECB": None,
                "CTR": getattr(self.mode, "nonce", None),
                "XTS": getattr(self.mode, "tweak", None),
            }[name]
        pkcs7 = bool(getattr(self.mode, "pkcs7", False))
        return _aesx._context(name, key, iv, encrypt, pkcs7, self._backend, self._threads)

    def encryptor(self):
        """A context that encrypts (for GCM, with ``tag`` after
        ``finalize``)."""
        return self._context(True)

    def decryptor(self):
        """A context that decrypts (for GCM: plaintext comes out of
        ``update`` before ``finalize`` checks the tag, as in
        ``cryptography``)."""
        return self._context(False)


def _nbytes(data) -> int:
    """The byte length of a buffer argument; pyca's TypeError otherwise."""
    try:
        return memoryview(data).nbytes
    except TypeError:
        msg = f'Cannot convert "{type(data)!r}" instance to a buffer.'
        if isinstance(data, str):
            msg += "\nDid you mean to pass a bytestring instead?"
        raise TypeError(msg) from None


class _GCMContext:
    """A streaming GCM encryption or decryption, as ``cryptography``'s
    AEADEncryptionContext / AEADDecryptionContext: the same calls, the same
    errors in the same order.

    **A decryptor releases plaintext before the tag is checked**: ``update``
    returns bytes that ``finalize`` (or ``finalize_with_tag``) may then
    reject with ``InvalidTag``. Hold them back until it returns, as with
    ``cryptography``. For whole messages use :class:`aesx.AESGCM`, which
    checks the tag first and releases nothing unverified.
    """

    def __init__(self, cipher, encrypt: bool):
        mode = cipher.mode
        if encrypt and mode.tag is not None:
            raise ValueError("Authentication tag must be None when encrypting.")
        self._mode = mode
        self._ctx = _aesx._gcm_stream(
            cipher.algorithm.key, mode.initialization_vector, encrypt, cipher._backend
        )
        self._updated = False
        # As in cryptography's contexts before 42 (and its tests): the
        # running totals that the limits are checked against.
        self._bytes_processed = 0
        self._aad_bytes_processed = 0

    def _live(self):
        if self._ctx is None:
            raise AlreadyFinalized("Context was already finalized.")
        return self._ctx

    def _count(self, n: int) -> None:
        limit = getattr(self._mode, "_MAX_ENCRYPTED_BYTES", (2**39 - 256) // 8)
        if self._bytes_processed + n > limit:
            raise ValueError("Exceeded maximum encrypted byte limit")
        self._bytes_processed += n

    def authenticate_additional_data(self, data) -> None:
        """Adds associated data; only before the first ``update``."""
        n = _nbytes(data)
        ctx = self._live()
        if self._updated:
            raise AlreadyUpdated("Update has been called on this context.")
        limit = getattr(self._mode, "_MAX_AAD_BYTES", (2**64 - 1) // 8)
        if self._aad_bytes_processed + n > limit:
            raise ValueError("Exceeded maximum AAD byte limit")
        ctx.aad(data)
        self._aad_bytes_processed += n

    def update(self, data) -> bytes:
        """Encrypts or decrypts the next piece (any length)."""
        n = _nbytes(data)
        ctx = self._live()
        self._count(n)
        self._updated = True
        return ctx.update(data)

    def update_into(self, data, buf) -> int:
        """As ``update``, into ``buf`` (at least ``len(data)`` bytes; it may
        be the input's own memory). Returns the bytes written."""
        n = _nbytes(data)
        size = _nbytes(buf)
        ctx = self._live()
        if size < n:
            raise ValueError(f"buffer must be at least {n} bytes for this payload")
        self._count(n)
        self._updated = True
        return ctx.update_into(data, buf)

    def reset_nonce(self, nonce) -> None:
        """Not for GCM (nor in ``cryptography``): UnsupportedAlgorithm."""
        raise UnsupportedAlgorithm(
            "This algorithm or mode does not support resetting the nonce."
        )


class GCMEncryptionContext(_GCMContext):
    """``Cipher(AES(key), GCM(iv)).encryptor()``: ``tag`` after
    ``finalize``."""

    def __init__(self, cipher):
        super().__init__(cipher, True)
        self._tag = None

    def finalize(self) -> bytes:
        """Ends the message and makes the tag (read it from ``tag``)."""
        ctx = self._live()
        self._tag = ctx.finalize_encrypt()
        self._ctx = None
        return b""

    @property
    def tag(self) -> bytes:
        """The 16-byte tag; NotYetFinalized before ``finalize``."""
        if self._tag is None:
            raise NotYetFinalized("You must finalize encryption before getting the tag.")
        return self._tag


class GCMDecryptionContext(_GCMContext):
    """``Cipher(AES(key), GCM(iv, tag)).decryptor()``. ``update`` returns
    plaintext before the tag is checked, as ``cryptography``'s does: keep it
    until ``finalize``/``finalize_with_tag`` returns without ``InvalidTag``
    (or use :class:`aesx.AESGCM`)."""

    def __init__(self, cipher):
        super().__init__(cipher, False)

    def _check(self, tag) -> bytes:
        ctx = self._live()
        self._ctx = None
        ctx.finalize_decrypt(tag)
        return b""

    def finalize(self) -> bytes:
        """Checks the tag given to ``modes.GCM``; InvalidTag on a mismatch."""
        self._live()
        tag = self._mode.tag
        if tag is None:
            raise ValueError("Authentication tag must be provided when decrypting.")
        return self._check(tag)

    def finalize_with_tag(self, tag) -> bytes:
        """Checks ``tag`` (the mode's ``min_tag_length`` to 16 bytes), when
        ``modes.GCM`` was given none; InvalidTag on a mismatch."""
        if not isinstance(tag, bytes):
            raise TypeError(f"'{type(tag).__name__}' object is not an instance of 'bytes'")
        self._live()
        if self._mode.tag is not None:
            raise ValueError("Authentication tag must be provided only once.")
        min_len = getattr(self._mode, "_min_tag_length", 16)
        if len(tag) < min_len:
            raise ValueError(f"Authentication tag must be {min_len} bytes or longer.")
        if len(tag) > 16:
            raise ValueError("Authentication tag cannot be more than 16 bytes.")
        return self._check(tag)
