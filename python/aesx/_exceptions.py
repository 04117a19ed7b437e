"""aesx's exceptions, and its place in ``cryptography``'s class tree.

Where ``cryptography`` (pyca) is installed, each exception here derives from
pyca's exception of the same name, so code ported from pyca by changing its
imports keeps working with pyca's own ``except`` lines::

    except cryptography.exceptions.InvalidTag:   # catches aesx.InvalidTag

Without ``cryptography`` (or with a copy that fails to import) they derive
from ``Exception`` and nothing else changes. The compiled core raises these
very classes (it looks them up here by name).
"""

import importlib

__all__ = [
    "AlreadyFinalized",
    "InvalidSignature",
    "InvalidTag",
    "InvalidUnwrap",
    "UnsupportedAlgorithm",
    "pyca_attr",
]


def pyca_attr(module: str, name: str):
    """``module.name`` from ``cryptography``, or None where it cannot be
    imported. Any failure counts: a missing package, one blocked with
    ``sys.modules['cryptography'] = None``, or one whose OpenSSL bindings
    fail to load must leave aesx importable."""
    try:
        return getattr(importlib.import_module(module), name)
    except Exception:
        return None


def _base(module: str, name: str) -> type:
    cls = pyca_attr(module, name)
    if isinstance(cls, type) and issubclass(cls, Exception):
        return cls
    return Exception


_EXC = "cryptography.exceptions"

# pyca's reason code for "this cipher or mode cannot do that", which pyca's
# own tests check on UnsupportedAlgorithm; None without pyca.
_reasons = pyca_attr(_EXC, "_Reasons")
_UNSUPPORTED_CIPHER = getattr(_reasons, "UNSUPPORTED_CIPHER", None)


class InvalidTag(_base(_EXC, "InvalidTag")):
    """The authentication tag did not verify: the key, nonce, associated
    data or ciphertext is wrong. No plaintext was released."""


class AlreadyFinalized(_base(_EXC, "AlreadyFinalized")):
    """The context was already finalized."""


class InvalidSignature(_base(_EXC, "InvalidSignature")):
    """The MAC did not verify: wrong key, message or tag."""


_UnsupportedBase = _base(_EXC, "UnsupportedAlgorithm")


class UnsupportedAlgorithm(_UnsupportedBase):
    """The algorithm or mode cannot do what was asked (for instance CMAC over
    a cipher other than AES, or ``reset_nonce`` outside CTR mode)."""

    def __init__(self, message: str = "", reason=None) -> None:
        if reason is None:
            reason = _UNSUPPORTED_CIPHER
        if _UnsupportedBase is Exception:
            super().__init__(message)
        else:
            super().__init__(message, reason)
        self._reason = reason

    def __reduce__(self):
        # pyca's reason codes cannot be pickled; the default one comes back
        # on unpickling, so a pickled error (a Dask worker's) survives.
        return (type(self), tuple(self.args[:1]))


class InvalidUnwrap(_base("cryptography.hazmat.primitives.keywrap", "InvalidUnwrap")):
    """The wrapped key did not unwrap: wrong wrapping key, or modified or
    truncated data. Nothing was released."""


# The names users see (and pickle) are the public ones.
for _cls in (InvalidTag, AlreadyFinalized, InvalidSignature, UnsupportedAlgorithm):
    _cls.__module__ = "aesx"
InvalidUnwrap.__module__ = "aesx.keywrap"
del _cls
