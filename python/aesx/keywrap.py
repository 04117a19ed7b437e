"""AES key wrap as ``cryptography.hazmat.primitives.keywrap``: RFC 3394
(KW) and RFC 5649 (KWP, with padding), the same arguments, the same
``ValueError`` and :class:`InvalidUnwrap` in the same places.

``backend`` is ignored unless it is an aesx backend name (see
:func:`aesx.backends`). Unwrapping checks the integrity value in constant
time and releases nothing on failure.
"""

from ._aesx import _keywrap
from ._exceptions import InvalidUnwrap

__all__ = [
    "InvalidUnwrap",
    "aes_key_unwrap",
    "aes_key_unwrap_with_padding",
    "aes_key_wrap",
    "aes_key_wrap_with_padding",
]


def _name(backend):
    return backend if isinstance(backend, str) else None


def aes_key_wrap(wrapping_key, key_to_wrap, backend=None) -> bytes:
    """RFC 3394: `key_to_wrap` is 16 bytes or more, a multiple of 8."""
    return _keywrap("wrap", wrapping_key, key_to_wrap, _name(backend))


def aes_key_unwrap(wrapping_key, wrapped_key, backend=None) -> bytes:
    """RFC 3394 unwrap; :class:`InvalidUnwrap` if the check fails."""
    return _keywrap("unwrap", wrapping_key, wrapped_key, _name(backend))


def aes_key_wrap_with_padding(wrapping_key, key_to_wrap, backend=None) -> bytes:
    """RFC 5649: `key_to_wrap` of any length from 1 byte."""
    return _keywrap("wrap_pad", wrapping_key, key_to_wrap, _name(backend))


def aes_key_unwrap_with_padding(wrapping_key, wrapped_key, backend=None) -> bytes:
    """RFC 5649 unwrap; :class:`InvalidUnwrap` if the check or padding fails."""
    return _keywrap("unwrap_pad", wrapping_key, wrapped_key, _name(backend))
