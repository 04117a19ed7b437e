"""Cipher algorithms for :class:`aesx.Cipher` (as ``cryptography``'s)."""

from ._util import check_byteslike

__all__ = ["AES", "AES128", "AES256"]


class AES:
    """AES with a 128-, 192- or 256-bit key (512 bits: XTS-AES-256 only)."""

    name = "AES"
    block_size = 128
    key_sizes = frozenset([128, 192, 256, 512])

    def __init__(self, key):
        check_byteslike("key", key)
        self.key = key
        if self.key_size not in self.key_sizes:
            raise ValueError(f"Invalid key size ({self.key_size}) for {self.name}.")

    @property
    def key_size(self) -> int:
        return len(memoryview(self.key).cast("B")) * 8


class AES128(AES):
    """AES with a 128-bit key."""

    key_sizes = frozenset([128])
    key_size = 128


class AES256(AES):
    """AES with a 256-bit key."""

    key_sizes = frozenset([256])
    key_size = 256
