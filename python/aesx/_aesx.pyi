"""Type stubs for the compiled core, aesx._aesx."""

from typing import Any, List, Optional, Protocol, Tuple, Union

import sys

if sys.version_info >= (3, 12):
    from collections.abc import Buffer
else:
    from typing_extensions import Buffer

from os import PathLike

_Path = Union[str, bytes, "PathLike[str]", "PathLike[bytes]"]
_Key = Union[Buffer, str]

RELEASE_GIL_AT: int
CHUNK_LEN: int
ENC_CHUNK_LEN: int

# The classes of aesx._exceptions (subclasses of cryptography's where it is
# installed), which the core raises.
from ._exceptions import (
    AlreadyFinalized as AlreadyFinalized,
    InvalidSignature as InvalidSignature,
    InvalidTag as InvalidTag,
    InvalidUnwrap as InvalidUnwrap,
    UnsupportedAlgorithm as UnsupportedAlgorithm,
)

class DecryptionError(ValueError): ...

def all_backends() -> List[str]: ...
def backends() -> List[str]: ...
def default_backend() -> str: ...
def use_backend(name: Optional[str]) -> None: ...

class AESGCM:
    def __init__(self, key: Buffer, *, backend: Optional[str] = None) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...
    @property
    def backend(self) -> str: ...
    def encrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], *, threads: int = 1
    ) -> bytes: ...
    def decrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], *, threads: int = 1
    ) -> bytes: ...
    def encrypt_into(
        self,
        nonce: Buffer,
        data: Buffer,
        associated_data: Optional[Buffer],
        buf: Buffer,
        *,
        threads: int = 1,
    ) -> int: ...
    def decrypt_into(
        self,
        nonce: Buffer,
        data: Buffer,
        associated_data: Optional[Buffer],
        buf: Buffer,
        *,
        threads: int = 1,
    ) -> int: ...

class _Aead:
    """``threads`` > 1 splits an AESGCMSIV call; the others take 1 only."""

    @property
    def backend(self) -> str: ...
    def encrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], *, threads: int = 1
    ) -> bytes: ...
    def decrypt(
        self, nonce: Buffer, data: Buffer, associated_data: Optional[Buffer], *, threads: int = 1
    ) -> bytes: ...
    def encrypt_into(
        self,
        nonce: Buffer,
        data: Buffer,
        associated_data: Optional[Buffer],
        buf: Buffer,
        *,
        threads: int = 1,
    ) -> int: ...
    def decrypt_into(
        self,
        nonce: Buffer,
        data: Buffer,
        associated_data: Optional[Buffer],
        buf: Buffer,
        *,
        threads: int = 1,
    ) -> int: ...

class AESGCMSIV(_Aead):
    """RFC 8452; keys of 16 or 32 bytes, 12-byte nonces."""

    def __init__(self, key: Buffer, *, backend: Optional[str] = None) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...

class XAES256GCM(_Aead):
    """c2sp.org/XAES-256-GCM; 32-byte keys, 24-byte nonces. Not in cryptography."""

    def __init__(self, key: Buffer, *, backend: Optional[str] = None) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...

class AESCCM(_Aead):
    """SP 800-38C; keys of 16, 24 or 32 bytes, tags 4..16 (even), nonces 7..13 bytes."""

    def __init__(
        self, key: Buffer, tag_length: int = 16, *, backend: Optional[str] = None
    ) -> None: ...
    @staticmethod
    def generate_key(bit_length: int) -> bytes: ...

def _keywrap(op: str, wrapping_key: Buffer, data: Buffer, backend: Optional[str] = None) -> bytes: ...

class _Algorithm(Protocol):
    name: str
    key: Buffer

class CMAC:
    def __init__(self, algorithm: _Algorithm, backend: Any = None) -> None: ...
    def update(self, data: Buffer) -> None: ...
    def finalize(self) -> bytes: ...
    def verify(self, signature: bytes) -> None: ...
    def copy(self) -> "CMAC": ...

class ESP:
    def __init__(
        self, key: Buffer, salt: Buffer, tag_length: int = 16, *, backend: Optional[str] = None
    ) -> None: ...
    @staticmethod
    def from_keying_material(
        keymat: Buffer, tag_length: int = 16, *, backend: Optional[str] = None
    ) -> "ESP": ...
    @property
    def tag_length(self) -> int: ...
    @property
    def backend(self) -> str: ...
    def encrypt(self, iv: Buffer, data: Buffer, aad: Buffer) -> bytes: ...
    def encrypt_with_checksum(self, iv: Buffer, data: Buffer, aad: Buffer) -> Tuple[bytes, int]: ...
    def decrypt(self, iv: Buffer, data: Buffer, aad: Buffer) -> bytes: ...
    def decrypt_with_checksum(self, iv: Buffer, data: Buffer, aad: Buffer) -> Tuple[bytes, int]: ...

class XTS:
    def __init__(self, key: Buffer, *, backend: Optional[str] = None) -> None: ...
    @property
    def backend(self) -> str: ...
    def encrypt(self, tweak: Buffer, data: Buffer) -> bytes: ...
    def decrypt(self, tweak: Buffer, data: Buffer) -> bytes: ...
    def encrypt_sector(self, sector: int, data: Buffer) -> bytes: ...
    def decrypt_sector(self, sector: int, data: Buffer) -> bytes: ...
    def encrypt_sectors(self, data: Buffer, sector_size: int, first_sector: int) -> bytes: ...
    def decrypt_sectors(self, data: Buffer, sector_size: int, first_sector: int) -> bytes: ...
    def encrypt_sectors_into(
        self, data: Buffer, sector_size: int, first_sector: int, buf: Buffer
    ) -> int: ...
    def decrypt_sectors_into(
        self, data: Buffer, sector_size: int, first_sector: int, buf: Buffer
    ) -> int: ...

class CipherContext:
    def update(self, data: Buffer) -> bytes: ...
    def update_into(self, data: Buffer, buf: Buffer) -> int: ...
    def finalize(self) -> bytes: ...
    def reset_nonce(self, nonce: Buffer) -> None: ...

def _context(
    mode: str,
    key: Buffer,
    iv: Optional[Buffer],
    encrypt: bool,
    pkcs7: bool = False,
    backend: Optional[str] = None,
    threads: int = 1,
) -> CipherContext: ...

class GcmStream:
    """The engine of Cipher(AES, GCM) contexts (aesx/ciphers.py)."""

    def aad(self, data: Buffer) -> None: ...
    def update(self, data: Buffer) -> bytes: ...
    def update_into(self, data: Buffer, buf: Buffer) -> int: ...
    def finalize_encrypt(self) -> bytes: ...
    def finalize_decrypt(self, tag: Buffer) -> None: ...

def _gcm_stream(
    key: Buffer, nonce: Buffer, encrypt: bool, backend: Optional[str] = None
) -> GcmStream: ...

class _FileCall(Protocol):
    """encrypt_file and decrypt_file: the same arguments either way."""

    def __call__(
        self,
        src: _Path,
        dst: _Path,
        *,
        key: Optional[_Key] = None,
        passphrase: Optional[Union[str, Buffer]] = None,
        backend: Optional[str] = None,
        threads: Optional[int] = None,
        force: bool = False,
    ) -> None: ...

encrypt_file: _FileCall
decrypt_file: _FileCall

class _Reader:
    def __init__(
        self,
        path: _Path,
        *,
        key: Optional[_Key] = None,
        passphrase: Optional[Union[str, Buffer]] = None,
        backend: Optional[str] = None,
    ) -> None: ...
    @property
    def size(self) -> int: ...
    def readinto_at(self, pos: int, buf: Buffer) -> int: ...

def _prefix_len(head: Buffer) -> int: ...
def _new_prefix(key: _Key) -> bytes: ...
def _seal_chunks(key: _Key, prefix: Buffer, first_chunk: int, data: Buffer, last: bool) -> bytes: ...
def _open_chunks(key: _Key, prefix: Buffer, first_chunk: int, ct: Buffer, last: bool) -> bytes: ...
def _range_at(encrypt: bool, key: _Key, prefix: Buffer, first_chunk: int, src_fd: int, start: int,
              length: int, last: bool, dst_fd: int, offset: int) -> tuple[float, float, float]: ...
def _hash_fd(fd: int) -> tuple[int, str]: ...
