"""``Cipher(algorithm, mode)`` as in ``cryptography``, on aesx."""

from . import _aesx
from ._exceptions import UnsupportedAlgorithm

__all__ = ["Cipher"]

_SUPPORTED = ("ECB", "CBC", "CTR", "XTS")


class Cipher:
    """A cipher: ``Cipher(algorithms.AES(key), modes.CBC(iv))``.

    ``algorithm`` and ``mode`` may also be ``cryptography``'s own objects
    (AES with ECB, CBC, CTR or XTS). ``backend`` is ignored unless it is an
    aesx backend name (see :func:`aesx.backends`).
    """

    def __init__(self, algorithm, mode, backend=None):
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
                f"aesx.Cipher supports ECB, CBC, CTR and XTS, not {name}"
                " (use aesx.AESGCM for GCM)"
            )
        mode.validate_for_algorithm(algorithm)
        self.algorithm = algorithm
        self.mode = mode
        self._backend = backend if isinstance(backend, str) else None

    def _context(self, encrypt: bool):
        name = self.mode.name
        key = self.algorithm.key
        if name != "XTS" and self.algorithm.key_size not in (128, 192, 256):
            raise ValueError("Only 128, 192, and 256 bit keys are allowed for this AES mode")
        iv = {
            "ECB": None,
            "CBC": getattr(self.mode, "initialization_vector", None),
            "CTR": getattr(self.mode, "nonce", None),
            "XTS": getattr(self.mode, "tweak", None),
        }[name]
        pkcs7 = bool(getattr(self.mode, "pkcs7", False))
        return _aesx._context(name, key, iv, encrypt, pkcs7, self._backend)

    def encryptor(self) -> "_aesx.CipherContext":
        """A context that encrypts."""
        return self._context(True)

    def decryptor(self) -> "_aesx.CipherContext":
        """A context that decrypts."""
        return self._context(False)
