"""aesx: fast AES for Python, on the aesx Rust engine.

Change one import and go faster::

    from aesx import AESGCM          # was: from cryptography...aead import AESGCM
    from aesx import Cipher, algorithms, modes

- :class:`AESGCM`, :class:`AESGCMSIV` and :class:`AESCCM` behave as
  ``cryptography``'s (same arguments, same
  ``ValueError``/``TypeError``/``OverflowError``, :class:`InvalidTag`), plus
  ``backend=`` and a ``backend`` attribute; :class:`XAES256GCM` (24-byte
  random nonces, not in ``cryptography``) has the same interface.
- :mod:`aesx.keywrap` (RFC 3394/5649) and :mod:`aesx.cmac` as
  ``cryptography``'s modules of those names.
- :class:`Cipher` with :mod:`aesx.algorithms` and :mod:`aesx.modes` gives
  streaming ECB, CBC (optionally with PKCS#7), CTR and XTS contexts with
  ``update``/``update_into``/``finalize``; :class:`XTS` is the sector API,
  :class:`ESP` is RFC 4106 with the one's-complement checksum.
- :mod:`aesx.padding`: PKCS7 and ANSIX923 as ``cryptography``'s.
- Where ``cryptography`` is installed, aesx's exceptions derive from its
  exceptions of the same names (``except cryptography.exceptions.InvalidTag``
  catches :class:`InvalidTag`), and the cipher and padding contexts are
  registered with its ``CipherContext`` and ``PaddingContext`` ABCs.
- Any C-contiguous buffer is accepted without a copy; ``*_into`` methods
  write into the caller's buffer; calls on 4 KiB or more release the GIL.
- Files in the format of ``aesx encrypt``: :func:`encrypt_file`,
  :func:`decrypt_file`, :func:`open_encrypted`; whole trees on a Dask
  cluster: :mod:`aesx.dask`.
"""

from ._exceptions import (
    AlreadyFinalized,
    InvalidSignature,
    InvalidTag,
    InvalidUnwrap,
    UnsupportedAlgorithm,
    pyca_attr as _pyca_attr,
)
from ._aesx import (
    AESCCM,
    AESGCM,
    AESGCMSIV,
    ESP,
    XAES256GCM,
    XTS,
    CipherContext,
    DecryptionError,
    all_backends,
    backends,
    decrypt_file,
    default_backend,
    encrypt_file,
    use_backend,
)
from . import algorithms, cmac, keywrap, modes, padding
from . import ciphers
from . import ciphers as base  # pyca's `ciphers.base` module, for its imports
from .ciphers import Cipher
from ._files import EncryptedFile, open_encrypted

__version__ = "0.1.0"

__all__ = [
    "AESCCM",
    "AESGCM",
    "AESGCMSIV",
    "ESP",
    "XAES256GCM",
    "XTS",
    "AlreadyFinalized",
    "Cipher",
    "CipherContext",
    "DecryptionError",
    "EncryptedFile",
    "InvalidSignature",
    "InvalidTag",
    "InvalidUnwrap",
    "UnsupportedAlgorithm",
    "algorithms",
    "cmac",
    "keywrap",
    "all_backends",
    "backends",
    "decrypt_file",
    "default_backend",
    "encrypt_file",
    "modes",
    "open_encrypted",
    "padding",
    "use_backend",
]


def _register_with_pyca() -> None:
    # pyca's ABCs, so that isinstance checks in code written for pyca hold
    # for aesx's contexts. Nothing to do without cryptography.
    ctx = _pyca_attr("cryptography.hazmat.primitives.ciphers", "CipherContext")
    if ctx is not None:
        ctx.register(CipherContext)
    for abc, cls in (
        ("AEADEncryptionContext", ciphers.GCMEncryptionContext),
        ("AEADDecryptionContext", ciphers.GCMDecryptionContext),
        # pyca's mode objects (GCM) check that the algorithm is a block cipher.
        ("BlockCipherAlgorithm", algorithms.AES),
    ):
        base = _pyca_attr("cryptography.hazmat.primitives.ciphers", abc)
        if base is not None:
            base.register(cls)
    pad = _pyca_attr("cryptography.hazmat.primitives.padding", "PaddingContext")
    if pad is not None:
        for cls in padding._CONTEXTS:
            pad.register(cls)


_register_with_pyca()


def __getattr__(name):
    # `aesx.dask` without an explicit import, but only if Dask is wanted:
    # importing it pulls in dask.distributed.
    if name == "dask":
        import importlib

        return importlib.import_module(".dask", __name__)
    raise AttributeError(f"module 'aesx' has no attribute {name!r}")
