"""Block padding as ``cryptography.hazmat.primitives.padding``::

    from aesx import padding

    padder = padding.PKCS7(128).padder()
    padded = padder.update(b"data") + padder.finalize()
    unpadder = padding.PKCS7(128).unpadder()
    data = unpadder.update(padded) + unpadder.finalize()   # ValueError if bad

``PKCS7`` and ``ANSIX923`` take a block size in bits (0 to 2040, a multiple
of 8), as pyca's; contexts take any C-contiguous buffer, and ``update`` or
``finalize`` after ``finalize`` raise :class:`aesx.AlreadyFinalized`. A bad
padding raises ``ValueError("Invalid padding bytes.")``.

For AES-CBC/ECB, ``modes.CBC(iv, pkcs7=True)`` pads inside the cipher
context in one pass; these classes are for code written against pyca's.
"""

import operator

from ._exceptions import AlreadyFinalized

__all__ = ["ANSIX923", "PKCS7", "PaddingContext"]

_INVALID = "Invalid padding bytes."


def _byte_padding_check(block_size) -> None:
    # pyca's checks and messages, in pyca's order.
    if not (0 <= block_size <= 2040):
        raise ValueError("block_size must be in range(0, 2041).")
    if block_size % 8 != 0:
        raise ValueError("block_size must be a multiple of 8.")


def _block_bytes(block_size) -> int:
    n = operator.index(block_size) // 8
    if n == 0:
        # pyca accepts PKCS7(0) but its contexts cannot pad to 0-byte blocks
        # (its finalize divides by zero): refuse cleanly here instead.
        raise ValueError("block_size must be at least 8 to pad.")
    return n


def _bytes_of(data) -> memoryview:
    """`data` as a flat byte view; TypeError for a non-buffer, as pyca."""
    try:
        view = memoryview(data)
    except TypeError:
        raise TypeError(
            f'Cannot convert "{type(data)!r}" instance to a buffer.'
        ) from None
    if not view.c_contiguous:
        raise BufferError("Buffer is not contiguous.")
    return view.cast("B") if view.format != "B" or view.ndim != 1 else view


class PaddingContext:
    """Base of the padding contexts: ``update(data)`` returns the bytes that
    are ready, ``finalize()`` the rest. (Registered as a virtual subclass of
    pyca's ``PaddingContext`` where ``cryptography`` is installed.)"""

    def __init__(self, block_size) -> None:
        self._n = _block_bytes(block_size)
        self._buf = bytearray()
        self._done = False

    def _check_open(self) -> None:
        if self._done:
            raise AlreadyFinalized("Context was already finalized.")

    def update(self, data) -> bytes:
        raise NotImplementedError

    def finalize(self) -> bytes:
        raise NotImplementedError


class _Padder(PaddingContext):
    # As pyca's: the data goes straight through (only its length is kept),
    # and finalize returns the padding alone.
    def __init__(self, block_size) -> None:
        super().__init__(block_size)
        self._seen = 0

    def update(self, data) -> bytes:
        view = _bytes_of(data)
        self._check_open()
        self._seen += view.nbytes
        return view.tobytes()

    def finalize(self) -> bytes:
        self._check_open()
        self._done = True
        return self._padding(self._n - self._seen % self._n)

    def _padding(self, pad: int) -> bytes:
        raise NotImplementedError


class _Unpadder(PaddingContext):
    def update(self, data) -> bytes:
        view = _bytes_of(data)
        self._check_open()
        self._buf += view
        # Whole blocks go out as pyca releases them, all but the last (which
        # holds the padding) and any partial one.
        cut = max(len(self._buf) // self._n - 1, 0) * self._n
        out = bytes(self._buf[:cut])
        del self._buf[:cut]
        return out

    def finalize(self) -> bytes:
        self._check_open()
        self._done = True
        rest, self._buf = bytes(self._buf), bytearray()
        if len(rest) != self._n:
            raise ValueError(_INVALID)
        pad = rest[-1]
        # Every byte of the block is looked at whatever the padding holds,
        # and the verdict is one flag: no early exit tells where a bad
        # padding went wrong. (Python gives no timing guarantee beyond that;
        # aesx's CBC with pkcs7=True checks in Rust.)
        bad = (pad == 0) | (pad > self._n)
        for i in range(self._n - 1):
            in_pad = i >= self._n - pad
            bad |= in_pad & self._bad_pad_byte(rest[i], pad)
        if bad:
            raise ValueError(_INVALID)
        return rest[: self._n - pad]

    def _bad_pad_byte(self, byte: int, pad: int) -> bool:
        raise NotImplementedError


class _PKCS7Padder(_Padder):
    def _padding(self, pad: int) -> bytes:
        return bytes([pad]) * pad


class _PKCS7Unpadder(_Unpadder):
    def _bad_pad_byte(self, byte: int, pad: int) -> bool:
        return byte != pad


class _ANSIX923Padder(_Padder):
    def _padding(self, pad: int) -> bytes:
        return bytes(pad - 1) + bytes([pad])


class _ANSIX923Unpadder(_Unpadder):
    def _bad_pad_byte(self, byte: int, pad: int) -> bool:
        return byte != 0


class PKCS7:
    """PKCS #7 (RFC 5652) padding to `block_size` bits: n bytes of value n."""

    def __init__(self, block_size: int):
        _byte_padding_check(block_size)
        self.block_size = block_size

    def padder(self) -> PaddingContext:
        return _PKCS7Padder(self.block_size)

    def unpadder(self) -> PaddingContext:
        return _PKCS7Unpadder(self.block_size)


class ANSIX923:
    """ANSI X9.23 padding to `block_size` bits: zeros, then the count."""

    def __init__(self, block_size: int):
        _byte_padding_check(block_size)
        self.block_size = block_size

    def padder(self) -> PaddingContext:
        return _ANSIX923Padder(self.block_size)

    def unpadder(self) -> PaddingContext:
        return _ANSIX923Unpadder(self.block_size)


_CONTEXTS = (_PKCS7Padder, _PKCS7Unpadder, _ANSIX923Padder, _ANSIX923Unpadder)
