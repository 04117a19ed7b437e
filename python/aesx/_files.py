"""Random read access to aesx encrypted files."""

import io
import os

from . import _aesx

__all__ = ["EncryptedFile", "open_encrypted"]


class EncryptedFile(io.RawIOBase):
    """A read-only, seekable file object over the plaintext of an aesx file.

    Only the 16 KiB chunks a read touches are read and decrypted, and each is
    verified before its bytes are returned; the final chunk is verified when
    the file is opened, which proves the plaintext length (``size``). A chunk
    that fails raises :class:`aesx.DecryptionError` from the read.
    """

    def __init__(self, reader, name):
        super().__init__()
        self._r = reader
        self._pos = 0
        self.name = name

    @property
    def mode(self) -> str:
        return "rb"

    @property
    def size(self) -> int:
        """Plaintext length in bytes."""
        return self._r.size

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def writable(self) -> bool:
        return False

    def readinto(self, b) -> int:
        self._checkClosed()
        if self._pos >= self.size:
            # Past the end (any position, even beyond 2**64): nothing.
            return 0
        n = self._r.readinto_at(self._pos, b)
        self._pos += n
        return n

    def readall(self) -> bytes:
        self._checkClosed()
        buf = bytearray(max(self.size - self._pos, 0))
        n = self._r.readinto_at(self._pos, buf) if buf else 0
        self._pos += n
        return bytes(buf[:n])

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        self._checkClosed()
        if whence == io.SEEK_SET:
            pos = offset
        elif whence == io.SEEK_CUR:
            pos = self._pos + offset
        elif whence == io.SEEK_END:
            pos = self.size + offset
        else:
            raise ValueError(f"invalid whence ({whence}, should be 0, 1 or 2)")
        if pos < 0:
            raise ValueError(f"negative seek position {pos}")
        self._pos = pos
        return pos

    def tell(self) -> int:
        self._checkClosed()
        return self._pos

    def close(self) -> None:
        self._r = _Closed()
        super().close()


class _Closed:
    size = 0

    def readinto_at(self, pos, b):
        raise ValueError("I/O operation on closed file.")


def open_encrypted(path, *, key=None, passphrase=None, backend=None) -> EncryptedFile:
    """Opens an aesx encrypted file for reading its plaintext at random.

    ``key`` is the 32 bytes of an aesx key file (or its 64 hex digits as a
    str); ``passphrase`` a str or bytes. Raises :class:`aesx.DecryptionError`
    if the file is not an aesx file, the key is wrong or the file was
    truncated or extended (the header and final chunk are checked here).
    """
    reader = _aesx._Reader(path, key=key, passphrase=passphrase, backend=backend)
    return EncryptedFile(reader, os.fspath(path))
