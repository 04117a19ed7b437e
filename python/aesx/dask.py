"""Encrypt or decrypt whole trees of files on a Dask distributed cluster.

::

    from dask.distributed import Client
    import aesx.dask

    client = Client("scheduler:8786")
    key = bytes.fromhex(open("data.key").read())        # `aesx keygen -o data.key`
    report = aesx.dask.encrypt_tree(client, "s3://bucket/raw", "s3://bucket/enc", key=key)
    print(report)                     # done / skipped / failed / left out, per file
    report.raise_for_failures()       # unless every source file is in dst
    aesx.dask.decrypt_tree(client, "s3://bucket/enc", "/scratch/raw", key=key)

Every regular file under ``src`` becomes the file of the same relative path
under ``dst``, in the format of ``aesx encrypt`` (so ``aesx decrypt`` reads
it). Paths are local paths or fsspec URLs. The workers do the work: one task
per file, and for files larger than ``range_size`` one task per byte range
(the format's 16 KiB chunks are independent, so ranges encrypt in parallel)
and a final task that joins the ranges.

What a run guarantees (``python/README.md`` has the full list): ``src``
and ``dst`` may not be the same or nested trees by any name; each output
appears only complete and synced, plaintext outputs private (0600); local
destinations are entered without following symlinks; a source that changes
during the run fails, never cut or mixed silently; ``dst/aesx-manifest.json``
(authenticated with a key derived from the data key) lets a re-run skip only
verified, unchanged files; every source file is reported ``done``,
``skipped``, ``failed`` or ``excluded``, and ``ok`` is true only when nothing
failed and nothing was left out.

The key travels to the workers inside the task graph: use TLS for the
cluster's communications when the network is not trusted.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import posixpath
import stat
import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

import fsspec
from fsspec.implementations.local import LocalFileSystem

from . import _aesx

__all__ = ["encrypt_tree", "decrypt_tree", "TreeReport", "MANIFEST_NAME"]

MANIFEST_NAME = "aesx-manifest.json"
CHUNK = _aesx.CHUNK_LEN
ENC_CHUNK = _aesx.ENC_CHUNK_LEN
DEFAULT_RANGE = 64 * 1024 * 1024
_IO_BLOCK = 8 * 1024 * 1024
_TMP_MARK = ".aesx-tmp-"
_PARTS_MARK = ".aesx-parts-"
_MANIFEST_VERSION = 2
_MANIFEST_KEY_LABEL = b"aesx-manifest v2: authentication key"


@dataclass
class TreeReport:
    """What a tree operation did, per relative path.

    ``done``: written this run. ``skipped``: already in ``dst``, proven by
    the authenticated manifest and the output's hash. ``failed``: path ->
    error; nothing of it was written. ``excluded``: source files not
    processed, path -> reason (a directory left out ends with ``/``).
    ``notes``: what the run noticed about the tree as a whole (for example a
    manifest that did not verify).
    """

    operation: str
    done: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)
    failed: Dict[str, str] = field(default_factory=dict)
    excluded: Dict[str, str] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)
    manifest: str = ""
    bytes_in: int = 0
    seconds: float = 0.0
    #: Where the time went, in seconds: on the driver ("list", "plan",
    #: "manifest") and summed over the workers' tasks ("read", "crypt",
    #: "write", "join", "verify"; local whole files are one streamed call).
    timings: Dict[str, float] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """True when every source file is in ``dst``: nothing failed and
        nothing was left out."""
        return not self.failed and not self.excluded

    def raise_for_failures(self) -> None:
        """Raises RuntimeError listing the failed and the left-out files,
        if any."""
        if self.ok:
            return
        lines = [f"  FAILED {_show(p)}: {m}" for p, m in sorted(self.failed.items())]
        lines += [f"  LEFT OUT {_show(p)}: {m}" for p, m in sorted(self.excluded.items())]
        raise RuntimeError(
            f"aesx.dask.{self.operation}_tree: {len(self.failed)} file(s) failed,"
            f" {len(self.excluded)} left out:\n" + "\n".join(lines)
        )

    def to_json(self, **dumps_kw) -> str:
        """The report as JSON, for scripts: the totals, and one object per
        file with ``path``, ``outcome`` (done, skipped, failed, excluded)
        and ``error`` or ``reason`` where there is one."""
        files = [{"path": p, "outcome": "done"} for p in self.done]
        files += [{"path": p, "outcome": "skipped"} for p in self.skipped]
        files += [{"path": p, "outcome": "failed", "error": m} for p, m in sorted(self.failed.items())]
        files += [{"path": p, "outcome": "excluded", "reason": m} for p, m in sorted(self.excluded.items())]
        return json.dumps({
            "operation": self.operation,
            "ok": self.ok,
            "done": len(self.done),
            "skipped": len(self.skipped),
            "failed": len(self.failed),
            "excluded": len(self.excluded),
            "bytes_in": self.bytes_in,
            "seconds": self.seconds,
            "timings": dict(self.timings),
            "manifest": self.manifest,
            "notes": list(self.notes),
            "files": files,
        }, **dumps_kw)

    def __str__(self) -> str:
        s = (
            f"{self.operation}_tree: {len(self.done)} done, {len(self.skipped)} skipped,"
            f" {len(self.failed)} failed, {len(self.excluded)} left out"
            f" ({self.bytes_in} bytes in {self.seconds:.2f} s)"
        )
        for n in self.notes:
            s += f"\n  NOTE {n}"
        for p, m in sorted(self.failed.items()):
            s += f"\n  FAILED {_show(p)}: {m}"
        for p, m in sorted(self.excluded.items()):
            s += f"\n  LEFT OUT {_show(p)}: {m}"
        return s


def _show(rel: str) -> str:
    """A path for one report line: quoted when it holds control characters
    (a newline in a name must not forge another line)."""
    return repr(rel) if any(ord(c) < 32 or ord(c) == 127 for c in rel) else rel


def _key_bytes(key) -> bytes:
    if isinstance(key, str):
        try:
            key = bytes.fromhex(key.strip())
        except ValueError:
            raise ValueError("key must be 32 bytes, or a str of 64 hex digits") from None
    key = bytes(memoryview(key).cast("B"))
    if len(key) != 32:
        raise ValueError(f"key must be 32 bytes (an aesx key file), got {len(key)}")
    return key


def _join(root: str, rel: str) -> str:
    return posixpath.join(root.rstrip("/"), rel) if root else rel


def _tmp_name(name: str) -> str:
    # Room for the marker within NAME_MAX, whatever the name's length.
    stem = os.fsdecode(os.fsencode(name)[:200])
    return f".{stem}{_TMP_MARK}{uuid.uuid4().hex[:16]}"


def _remove(fs, path: str) -> None:
    try:
        if fs.exists(path):
            fs.rm(path, recursive=True)
    except Exception:
        pass


def _is_local(*fss) -> bool:
    return all(isinstance(fs, LocalFileSystem) for fs in fss)


def _reserved(rel: str) -> Optional[str]:
    """Why a source file cannot be processed under its name, if it cannot."""
    if rel == MANIFEST_NAME:
        return f"its name is reserved for the manifest at the root of dst ({MANIFEST_NAME})"
    if _TMP_MARK in posixpath.basename(rel):
        return f"its name holds {_TMP_MARK!r}, which marks aesx's temporary files"
    return None


# --- src and dst ------------------------------------------------------------


def _nearest_existing(path: str) -> str:
    while not os.path.exists(path):
        parent = os.path.dirname(path)
        if parent == path:
            break
        path = parent
    return path


def _ancestors(path: str):
    while True:
        yield path
        parent = os.path.dirname(path)
        if parent == path:
            return
        path = parent


def _dir_id(path: str) -> Optional[Tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _check_roots(fs_src, src_root: str, fs_dst, dst_root: str, src, dst) -> None:
    """Refuses src and dst that are the same tree or nested, by any name."""
    same = f"src and dst are the same directory ({src} and {dst}): refusing to write over the sources"
    dst_in_src = f"dst {dst} is inside src {src}: its outputs would be read back as sources"
    src_in_dst = f"src {src} is inside dst {dst}: outputs would be written over the sources"
    if _is_local(fs_src, fs_dst):
        rs, rd = os.path.realpath(src_root), os.path.realpath(dst_root)

        def within(a, b):
            return a == b or a.startswith(b.rstrip(os.sep) + os.sep)

        if rs == rd:
            raise ValueError(same)
        if within(rd, rs):
            raise ValueError(dst_in_src)
        if within(rs, rd):
            raise ValueError(src_in_dst)
        # The same directory under another path (a bind mount): compare
        # identities up both chains of ancestors.
        sid = _dir_id(rs)
        did = _dir_id(rd)
        if did is not None and did == sid:
            raise ValueError(same)
        if any(_dir_id(a) == sid for a in _ancestors(_nearest_existing(rd))):
            raise ValueError(dst_in_src)
        if did is not None and any(_dir_id(a) == did for a in _ancestors(rs)):
            raise ValueError(src_in_dst)
        return
    if type(fs_src) is not type(fs_dst) or fs_src.protocol != fs_dst.protocol:
        return
    a = posixpath.normpath("/" + fs_src._strip_protocol(src_root).strip("/"))
    b = posixpath.normpath("/" + fs_dst._strip_protocol(dst_root).strip("/"))
    if a == b:
        raise ValueError(same)
    if b.startswith(a.rstrip("/") + "/"):
        raise ValueError(dst_in_src)
    if a.startswith(b.rstrip("/") + "/"):
        raise ValueError(src_in_dst)


def _list_local(root: str, operation: str):
    """Regular files under `root`, without following symlinks; the rest is
    returned as left out (path -> reason) or failed (unreadable dirs)."""
    files, excluded, failed = {}, {}, {}
    stack = [("", root)]
    while stack:
        rel_dir, path = stack.pop()
        try:
            with os.scandir(path) as it:
                entries = list(it)
        except OSError as e:
            failed[(rel_dir or ".") + "/"] = f"cannot list the directory: {e.strerror or e}"
            continue
        for e in entries:
            rel = f"{rel_dir}/{e.name}" if rel_dir else e.name
            try:
                if e.is_symlink():
                    excluded[rel] = "a symbolic link: not followed"
                    continue
                if e.is_dir(follow_symlinks=False):
                    if e.name.startswith(_PARTS_MARK):
                        excluded[rel + "/"] = f"a directory named {_PARTS_MARK}*, which marks aesx's range parts"
                    else:
                        stack.append((rel, e.path))
                    continue
                if not e.is_file(follow_symlinks=False):
                    excluded[rel] = "not a regular file (a FIFO, socket or device)"
                    continue
                st = e.stat(follow_symlinks=False)
            except OSError as err:
                failed[rel] = f"cannot stat: {err.strerror or err}"
                continue
            if operation == "decrypt" and rel == MANIFEST_NAME:
                continue  # the encrypted tree's own manifest
            why = _reserved(rel)
            if why:
                excluded[rel] = why
                continue
            files[rel] = {"path": e.path, "size": st.st_size, "mtime": st.st_mtime_ns}
    return files, excluded, failed


def _list_fsspec(fs, root: str, operation: str):
    files, excluded = {}, {}
    root = root.rstrip("/")
    for path, info in fs.find(root, detail=True).items():
        rel = path[len(root):].lstrip("/") if path.startswith(root) else posixpath.basename(path)
        kind = info.get("type", "file")
        if kind != "file":
            excluded[rel] = f"not a regular file ({kind})"
            continue
        parts = rel.split("/")
        if any(p.startswith(_PARTS_MARK) for p in parts[:-1]):
            excluded[rel] = f"inside a directory named {_PARTS_MARK}*, which marks aesx's range parts"
            continue
        if operation == "decrypt" and rel == MANIFEST_NAME:
            continue
        why = _reserved(rel)
        if why:
            excluded[rel] = why
            continue
        files[rel] = {"path": path, "size": int(info.get("size") or 0), "mtime": _mtime(info), "etag": _etag(info)}
    return files, excluded, {}


def _etag(info: dict):
    # S3's ETag changes with every write, even one that keeps the size and
    # lands in the same second as LastModified (whose resolution is 1 s).
    v = info.get("ETag") or info.get("etag")
    return str(v) if v is not None else None


def _mtime(info: dict):
    for k in ("mtime", "LastModified", "last_modified", "updated", "modified"):
        v = info.get(k)
        if v is not None:
            return v if isinstance(v, (int, float)) else str(v)
    return None


# --- local destinations, entered without following symlinks ---------------

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# A FIFO planted where a file was listed must fail, not block an open().
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def _open_dst_dir(root: str, rel_dir: str, create: bool) -> int:
    """A descriptor of `root`/`rel_dir`, each component opened (and made,
    if `create`) relative to its parent without following a symlink: a link
    inside dst fails with ELOOP instead of leading outside it."""
    fd = os.open(root, _DIR_FLAGS)
    try:
        done = []
        for part in rel_dir.split("/") if rel_dir else []:
            if create:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
            try:
                nfd = os.open(part, _DIR_FLAGS | _NOFOLLOW, dir_fd=fd)
            except OSError as e:
                if e.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    where = _join(root, "/".join(done + [part]))
                    raise OSError(
                        errno.ELOOP, f"{where}: not a directory of dst (a symbolic link is not followed)"
                    ) from None
                raise
            os.close(fd)
            fd = nfd
            done.append(part)
        return fd
    except BaseException:
        os.close(fd)
        raise


def _hash_fd(fd: int) -> Tuple[int, str]:
    # In Rust, without the GIL, through a page-aligned buffer: hashlib over
    # fresh bytes objects ran at a third of the speed.
    return _aesx._hash_fd(fd)


def _create_local_tmp(dst_root: str, rel: str, encrypt: bool) -> str:
    """Creates the temporary output of a ranged local file, before any range
    is written: private for plaintext (0600), with the mode of the file it
    will replace if there is one. Returns its name (in the output's dir)."""
    d, name = posixpath.split(rel)
    fd = _open_dst_dir(dst_root, d, create=True)
    try:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None and stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, f"cannot write {_join(dst_root, rel)}: is a directory")
        if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
            raise OSError(errno.EINVAL, f"cannot write {_join(dst_root, rel)}: not a regular file")
        keep = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else None
        mode = 0o666 if encrypt and keep is None else 0o600
        for _ in range(16):
            tmp = _tmp_name(name)
            try:
                tfd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, mode, dir_fd=fd)
            except FileExistsError:
                continue
            try:
                if keep is not None:
                    os.fchmod(tfd, keep)
            except BaseException:
                os.close(tfd)
                os.unlink(tmp, dir_fd=fd)
                raise
            os.close(tfd)
            return tmp
        raise OSError(errno.EEXIST, "cannot find a free temporary name")
    finally:
        os.close(fd)


def _remove_local_tmp(dst_root: str, rel: str, tmp: str) -> None:
    try:
        fd = _open_dst_dir(dst_root, posixpath.dirname(rel), create=False)
    except OSError:
        return
    try:
        os.unlink(tmp, dir_fd=fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _prune_empty_dirs(dst_root: str, rel: str) -> None:
    """Removes the directories made for a failed output, if left empty
    (entered without following symlinks)."""
    parts = posixpath.dirname(rel).split("/") if posixpath.dirname(rel) else []
    while parts:
        try:
            fd = _open_dst_dir(dst_root, "/".join(parts[:-1]), create=False)
        except OSError:
            return
        try:
            os.rmdir(parts[-1], dir_fd=fd)
        except OSError:
            return
        finally:
            os.close(fd)
        parts.pop()


def _publish_local(fd: int, tmp: str, name: str, head: bytes, check=None) -> Tuple[int, str]:
    """Runs `check`, writes `head` at the start of the temporary file `tmp`
    (in the directory `fd`), syncs it and renames it to `name`; returns its
    size and SHA-256. On any failure `tmp` is removed."""
    try:
        if check is not None:
            check()
        tfd = os.open(tmp, os.O_RDWR | _NOFOLLOW, dir_fd=fd)
        try:
            _pwrite_all(tfd, head, 0)
            os.fsync(tfd)
            written = _hash_fd(tfd)
        finally:
            os.close(tfd)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException:
        try:
            os.unlink(tmp, dir_fd=fd)
        except OSError:
            pass
        raise
    try:
        # The new name is durable once the directory is synced; the data
        # already is, so a failure here does not fail the file.
        os.fsync(fd)
    except OSError:
        pass
    return written


def _write_local_atomic(dst_root: str, name: str, data: bytes) -> None:
    fd = os.open(dst_root, _DIR_FLAGS)
    try:
        tmp = _tmp_name(name)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o666, dir_fd=fd))
        _publish_local(fd, tmp, name, data)
    finally:
        os.close(fd)


def _check_source_any(fs, spath: str, info: dict) -> None:
    """Fails if a source (local or not) is no longer what was listed. Local
    sources are compared by os.stat (the listing's nanosecond mtime: fsspec's
    LocalFileSystem.info gives float seconds, which never equal it); others
    by a fresh info (size, modification time and ETag; the listing may be
    cached in the filesystem object, so the cache is dropped first)."""
    if _is_local(fs):
        _check_source(spath, info)
        return
    try:
        fs.invalidate_cache(spath)
    except Exception:  # noqa: BLE001 - a filesystem without a cache
        pass
    try:
        now = fs.info(spath)
    except FileNotFoundError:
        raise OSError(f"{spath}: the file vanished during the run; run again") from None
    if (now.get("type", "file") != "file" or int(now.get("size") or 0) != info["size"]
            or _mtime(now) != info["mtime"] or _etag(now) != info.get("etag")):
        raise OSError(f"{spath}: the file changed during the run; run again")


def _check_source(spath: str, info: dict) -> None:
    """Fails if a local source is no longer what was listed."""
    st = os.stat(spath, follow_symlinks=False)
    if not stat.S_ISREG(st.st_mode) or st.st_size != info["size"] or st.st_mtime_ns != info["mtime"]:
        raise OSError(
            f"{spath}: the file changed during the run ({info['size']} bytes when listed,"
            f" {st.st_size} now); run again"
        )


# --- other filesystems (fsspec) --------------------------------------------


def _is_s3(fs) -> bool:
    protos = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return any(p in ("s3", "s3a") for p in protos)


def _write_atomic(fs, path: str, pieces) -> tuple:
    """Writes `pieces` (bytes-likes) to `path` so that nothing partial is
    ever visible there; returns (size, sha256 hex).

    S3: straight to the key. s3fs sends a small object in one PUT at close,
    a large one as a multipart upload (parts of the filesystem's block
    size) that S3 shows only once completed, at close; on any failure the
    upload is aborted (`discard`) and close is never reached, so the key
    keeps its old object or none. No temporary key, no copy.
    Other filesystems: a temporary name, then a move."""
    if _is_s3(fs):
        h = hashlib.sha256()
        size = 0
        f = fs.open(path, "wb")
        try:
            for p in pieces:
                h.update(p)
                f.write(p)
                size += len(p)
        except BaseException:
            try:
                f.discard()
            except Exception:  # noqa: BLE001 - the upload is left to the lifecycle
                pass
            # fsspec's files close themselves when collected, and closing
            # is what publishes: mark it closed so that nothing tries.
            f.closed = True
            raise
        f.close()
        return size, h.hexdigest()
    parent = posixpath.dirname(path)
    if parent:
        fs.makedirs(parent, exist_ok=True)
    tmp = _join(parent, _tmp_name(posixpath.basename(path)))
    h = hashlib.sha256()
    size = 0
    try:
        with fs.open(tmp, "wb") as f:
            for p in pieces:
                h.update(p)
                f.write(p)
                size += len(p)
        fs.mv(tmp, path)
    except BaseException:
        _remove(fs, tmp)
        raise
    return size, h.hexdigest()


def _hash_file(fs, path: str) -> tuple:
    h = hashlib.sha256()
    size = 0
    with fs.open(path, "rb") as f:
        while True:
            b = f.read(_IO_BLOCK)
            if not b:
                break
            h.update(b)
            size += len(b)
    return size, h.hexdigest()


def _pwrite_all(fd: int, data, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n


def _read_remote(fs, path: str, start: int, length: int, etag) -> bytes:
    """`length` bytes at `start` of a non-local file, in one ranged request
    on S3 (no read-ahead cache: memory stays the range). s3fs sends each
    request with If-Match on the ETag it saw at open, which must be the one
    listed: an object rewritten since the listing, or during the read,
    fails instead of mixing versions."""
    kw = {"cache_type": "none"} if _is_s3(fs) else {}
    try:
        with fs.open(path, "rb", **kw) as f:
            seen = _etag(getattr(f, "details", None) or {})
            if etag is not None and seen is not None and seen != etag:
                raise OSError(f"{path}: the file changed during the run; run again")
            f.seek(start)
            return f.read(length)
    except FileNotFoundError:
        raise OSError(f"{path}: the file vanished during the run; run again") from None
    except OSError as e:
        if type(e).__name__ == "FileExpired" or "pre-condition" in str(e).lower():
            raise OSError(f"{path}: the file changed during the run; run again") from None
        raise


def _read_range(fs, path: str, start: int, length: int, etag=None) -> bytes:
    if _is_local(fs):
        fd = os.open(path, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError(f"{path}: no longer a regular file")
            parts, got = [], 0
            while got < length:
                b = os.pread(fd, length - got, start + got)
                if not b:
                    break
                parts.append(b)
                got += len(b)
            data = b"".join(parts)
        finally:
            os.close(fd)
    else:
        data = _read_remote(fs, path, start, length, etag)
    if len(data) != length:
        raise OSError(f"{path}: short read ({len(data)} of {length} bytes at {start}): the file changed")
    return data


def _guard(rel, fn, *args):
    """Runs a task body; any exception becomes a per-file failure."""
    try:
        return {"rel": rel, "ok": True, **fn(*args)}
    except Exception as e:  # noqa: BLE001 - reported per file
        return {"rel": rel, "ok": False, "error": f"{type(e).__name__}: {e}"}


# --- task bodies (run on the workers) -------------------------------------


def _verify_task(rel, fs_dst, dst_root, entry):
    t0 = time.perf_counter()

    def body():
        if _is_local(fs_dst):
            d, name = posixpath.split(rel)
            try:
                fd = _open_dst_dir(dst_root, d, create=False)
            except OSError:
                return {"verified": False}
            try:
                ofd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=fd)
            except OSError:
                return {"verified": False}
            finally:
                os.close(fd)
            try:
                if not stat.S_ISREG(os.fstat(ofd).st_mode):
                    return {"verified": False}
                size, sha = _hash_fd(ofd)
            finally:
                os.close(ofd)
        else:
            dpath = _join(dst_root, rel)
            if not fs_dst.exists(dpath):
                return {"verified": False}
            size, sha = _hash_file(fs_dst, dpath)
        return {"verified": size == entry.get("size") and hmac.compare_digest(sha, str(entry.get("sha256"))),
                "t": time.perf_counter() - t0}

    return _guard(rel, body)


def _local_whole(encrypt, spath, dst_root, rel, key, info):
    # Local files: the Rust path streams, writes atomically into the
    # directory opened here, and hashes the output as it writes it.
    # Changed since listed: fail before anything is written (the Rust side
    # then catches a change while it reads).
    t0 = time.perf_counter()
    _check_source(spath, info)
    d, name = posixpath.split(rel)
    fd = _open_dst_dir(dst_root, d, create=True)
    try:
        size, sha = _aesx._file_hashed(encrypt, spath, fd, name, key, info["size"], threads=1)
    finally:
        os.close(fd)
    # One streamed call: reads, crypt and writes are not told apart.
    t = {"whole file (read+crypt+write)": time.perf_counter() - t0}
    return {"size": size, "sha256": sha, "bytes_in": info["size"], "t": t}


def _whole_task(rel, encrypt, fs_src, spath, fs_dst, dst_root, key, info):
    """Encrypts or decrypts one whole file: through the Rust path for local
    files, else read whole, transformed in memory and written atomically."""
    if _is_local(fs_src, fs_dst):
        return _guard(rel, _local_whole, encrypt, spath, dst_root, rel, key, info)

    t = {}

    def transform():
        t0 = time.perf_counter()
        # Memory: the whole file, which is at most range_size bytes here.
        data = _read_range(fs_src, spath, 0, info["size"], info.get("etag"))
        # Nothing more was appended (the read stops at the listed size).
        _check_source_any(fs_src, spath, info)
        t1 = time.perf_counter()
        t["read"] = t1 - t0
        if encrypt:
            prefix = _aesx._new_prefix(key)
            parts = [prefix, _aesx._seal_chunks(key, prefix, 0, data, True)]
        else:
            pl = _aesx._prefix_len(data[:96])
            if len(data) < pl:
                raise _aesx.DecryptionError("file too short: truncated inside the header")
            parts = [_aesx._open_chunks(key, data[:pl], 0, data[pl:], True)]
        t["crypt"] = time.perf_counter() - t1
        return parts, len(data)

    def body():
        parts, n = transform()
        t2 = time.perf_counter()
        size, sha = _write_atomic(fs_dst, _join(dst_root, rel), parts)
        t["write"] = time.perf_counter() - t2
        return {"size": size, "sha256": sha, "bytes_in": n, "t": t}

    def body_local_dst():
        # A remote source into a local tree: written as local outputs
        # always are (directories entered without following symlinks, a
        # private temporary renamed into place), never through fsspec's
        # LocalFileSystem, which follows symlinks and moves a file *into*
        # a directory that holds the output's name.
        parts, n = transform()
        t2 = time.perf_counter()
        tmp = _create_local_tmp(dst_root, rel, encrypt)
        d, name = posixpath.split(rel)
        try:
            fd = _open_dst_dir(dst_root, d, create=False)
        except BaseException:
            _remove_local_tmp(dst_root, rel, tmp)
            raise
        try:
            size, sha = _publish_local(fd, tmp, name, b"".join(parts))
        finally:
            os.close(fd)
        t["write"] = time.perf_counter() - t2
        return {"size": size, "sha256": sha, "bytes_in": n, "t": t}

    return _guard(rel, body_local_dst if _is_local(fs_dst) else body)


def _range_task(rel, encrypt, fs_src, spath, info, fs_dst, target, key, prefix, first, start, length, last):
    """Encrypts or decrypts one byte range: into its place in the temporary
    output the driver created (local files, target = ("at", dst_root, tmp,
    offset)) or into a part file (other filesystems, target = ("part",
    path))."""

    def body():
        if target[0] == "at" and _is_local(fs_src):
            return local_to_local()
        t0 = time.perf_counter()
        data = _read_range(fs_src, spath, start, length, info.get("etag"))
        t1 = time.perf_counter()
        if encrypt:
            out = _aesx._seal_chunks(key, prefix, first, data, last)
        else:
            out = _aesx._open_chunks(key, prefix, first, data, last)
        t2 = time.perf_counter()
        t = {"read": t1 - t0, "crypt": t2 - t1}
        if target[0] == "at":
            _, dst_root, tmp, offset = target
            dfd = _open_dst_dir(dst_root, posixpath.dirname(rel), create=False)
            try:
                # No O_CREAT: once the driver removed the file (a failure,
                # an interrupt), a late range cannot bring it back.
                fd = os.open(tmp, os.O_WRONLY | _NOFOLLOW, dir_fd=dfd)
            finally:
                os.close(dfd)
            try:
                _pwrite_all(fd, out, offset)
            finally:
                os.close(fd)
            t["write"] = time.perf_counter() - t2
            return {"part": None, "bytes_in": len(data), "t": t}
        part = target[1]
        fs_dst.makedirs(posixpath.dirname(part), exist_ok=True)
        with fs_dst.open(part, "wb") as f:
            f.write(out)
        t["write"] = time.perf_counter() - t2
        return {"part": part, "bytes_in": len(data), "t": t}

    def local_to_local():
        # Streamed in Rust through the file pipeline (1 MiB batches in
        # recycled buffers, straight from the source's descriptor into the
        # output's): no range-sized Python objects, whose allocation and
        # copies cost several times the cipher.
        _, dst_root, tmp, offset = target
        sfd = os.open(spath, os.O_RDONLY | _NOFOLLOW | _NONBLOCK)
        try:
            if not stat.S_ISREG(os.fstat(sfd).st_mode):
                raise OSError(f"{spath}: no longer a regular file")
            dfd = _open_dst_dir(dst_root, posixpath.dirname(rel), create=False)
            try:
                # No O_CREAT: once the driver removed the file (a failure,
                # an interrupt), a late range cannot bring it back.
                fd = os.open(tmp, os.O_WRONLY | _NOFOLLOW, dir_fd=dfd)
            finally:
                os.close(dfd)
            try:
                read, crypt, write = _aesx._range_at(
                    encrypt, key, prefix, first, sfd, start, length, last, fd, offset)
            finally:
                os.close(fd)
        finally:
            os.close(sfd)
        t = {"read": read, "crypt": crypt, "write": write}
        return {"part": None, "bytes_in": length, "t": t}

    return _guard(rel, body)


def _sum_t(ts) -> dict:
    out: Dict[str, float] = {}
    for t in ts:
        for k, v in t.items():
            out[k] = out.get(k, 0.0) + v
    return out


def _first_error(results):
    bad = [r for r in results if not r["ok"]]
    if bad:
        raise RuntimeError(bad[0]["error"])


def _commit_local_task(rel, dst_root, tmp, head, fs_src, spath, info, results):
    """Local files: the ranges are in place in `tmp`; check the source did
    not change, write the head, sync, hash and rename into place (or remove
    `tmp` if anything failed)."""

    def body():
        t0 = time.perf_counter()

        def check():
            _first_error(results)
            _check_source_any(fs_src, spath, info)

        d, name = posixpath.split(rel)
        fd = _open_dst_dir(dst_root, d, create=False)
        try:
            size, sha = _publish_local(fd, tmp, name, head, check)
        finally:
            os.close(fd)
        return {"size": size, "sha256": sha, "bytes_in": sum(r["bytes_in"] for r in results),
                "t": _sum_t([r.get("t", {}) for r in results] + [{"join": time.perf_counter() - t0}])}

    return _unwrapped(_guard(rel, body))


def _commit_task(rel, fs_src, spath, fs_dst, dpath, head, parts_dir, info, results):
    """Joins the range parts (after `head`) into `dpath`, hashing as it goes."""

    def body():
        t0 = time.perf_counter()
        try:
            _first_error(results)
            # Compared in the listing's own units (nanoseconds): fsspec's
            # float-seconds mtime of a local source would make every ranged
            # local -> S3 file look changed.
            _check_source_any(fs_src, spath, info)

            def pieces():
                if head:
                    yield head
                for r in results:
                    with fs_dst.open(r["part"], "rb") as f:
                        while True:
                            b = f.read(_IO_BLOCK)
                            if not b:
                                break
                            yield b

            size, sha = _write_atomic(fs_dst, dpath, pieces())
            return {"size": size, "sha256": sha, "bytes_in": sum(r["bytes_in"] for r in results),
                "t": _sum_t([r.get("t", {}) for r in results] + [{"join": time.perf_counter() - t0}])}
        finally:
            _remove(fs_dst, parts_dir)

    return _unwrapped(_guard(rel, body))


def _unwrapped(out):
    # Report the first range's own message, not a wrapped one.
    if not out["ok"]:
        out["error"] = out["error"].replace("RuntimeError: ", "", 1)
    return out


# --- the manifest -----------------------------------------------------------


def _manifest_mac(key: bytes, body: dict) -> str:
    mkey = hmac.new(key, _MANIFEST_KEY_LABEL, hashlib.sha256).digest()
    canon = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()
    return hmac.new(mkey, canon, hashlib.sha256).hexdigest()


def _load_manifest(fs, path: str, key: bytes, operation: str, report: "TreeReport") -> dict:
    """The manifest's entries if it verifies with `key`, else none (and a
    note): an entry the key did not vouch for never makes a file skipped."""
    try:
        with fs.open(path, "rb") as f:
            m = json.load(f)
    except FileNotFoundError:
        return {}
    except Exception as e:  # noqa: BLE001 - any unreadable manifest
        report.notes.append(f"the manifest could not be read ({type(e).__name__}); every file is processed again")
        return {}
    mac = m.pop("mac", None) if isinstance(m, dict) else None
    if not isinstance(mac, str) or not hmac.compare_digest(mac, _manifest_mac(key, m)):
        report.notes.append(
            "the manifest does not verify with this key (edited, forged, written with another key"
            " or by an older aesx): every file is processed again"
        )
        return {}
    if m.get("operation") != operation or not isinstance(m.get("files"), dict):
        report.notes.append(f"the manifest is not one of {operation}_tree: every file is processed again")
        return {}
    return m["files"]


def _write_manifest(fs, dst_root: str, path: str, key: bytes, operation: str, entries: dict) -> None:
    body = {
        "format": "aesx-manifest",
        "version": _MANIFEST_VERSION,
        "operation": operation,
        "files": dict(sorted(entries.items())),
    }
    body["mac"] = _manifest_mac(key, body)
    data = json.dumps(body, indent=1).encode()
    if _is_local(fs):
        _write_local_atomic(dst_root, MANIFEST_NAME, data)
    else:
        _write_atomic(fs, path, [data])


# --- the driver -------------------------------------------------------------


def _run(operation, client, src, dst, key, range_size, storage_options, progress=None):
    t0 = time.perf_counter()
    encrypt = operation == "encrypt"
    key = _key_bytes(key)
    if range_size <= 0 or range_size % CHUNK:
        raise ValueError(f"range_size must be a positive multiple of {CHUNK}")
    so = storage_options or {}
    fs_src, src_root = fsspec.core.url_to_fs(src, **so)
    fs_dst, dst_root = fsspec.core.url_to_fs(dst, **so)
    if not fs_src.isdir(src_root):
        raise FileNotFoundError(f"{src}: not a directory")
    _check_roots(fs_src, src_root, fs_dst, dst_root, src, dst)
    # A local dst is written the local way (ranges in place in a temporary
    # file, directories entered without following symlinks) whatever src is.
    local = _is_local(fs_dst)
    fs_dst.makedirs(dst_root, exist_ok=True)
    manifest_path = _join(dst_root, MANIFEST_NAME)
    report = TreeReport(operation=operation, manifest=manifest_path)
    old = _load_manifest(fs_dst, manifest_path, key, operation, report)
    t_list = time.perf_counter()
    if _is_local(fs_src):
        files, report.excluded, report.failed = _list_local(src_root, operation)
    else:
        files, report.excluded, report.failed = _list_fsspec(fs_src, src_root, operation)
    report.timings["list"] = time.perf_counter() - t_list
    t_plan = 0.0

    futures = []
    pending_tmp = {}  # rel -> local temporary output, until its commit ran
    file_parts = {}  # rel -> its range parts (non-local dst), until removed
    range_futs = {}  # rel -> its range tasks
    try:
        # 1. Which files are already done? (hash the outputs on the workers)
        candidates = {}
        for rel, info in files.items():
            e = old.get(rel)
            if (isinstance(e, dict) and e.get("source_size") == info["size"]
                    and e.get("source_mtime") == info["mtime"]
                    and e.get("source_etag") == info.get("etag")):
                candidates[rel] = e
        checks = {
            rel: client.submit(_verify_task, rel, fs_dst, dst_root, e, pure=False)
            for rel, e in candidates.items()
        }
        futures += checks.values()
        new_entries = {}
        for rel, fut in checks.items():
            try:
                r = fut.result()
            except Exception:  # noqa: BLE001 - a lost worker: not proven, redo it
                r = {"ok": False}
            if r.get("t"):
                report.timings["verify"] = report.timings.get("verify", 0.0) + r["t"]
            if r["ok"] and r["verified"]:
                report.skipped.append(rel)
                new_entries[rel] = candidates[rel]
                if progress is not None:
                    progress(rel, "skipped", None)

        # 2. One task per file, or per range plus a join for large files.
        finals = {}
        for rel, info in sorted(files.items()):
            if rel in new_entries:
                continue
            spath, size = info["path"], info["size"]
            if size <= range_size:
                finals[rel] = client.submit(
                    _whole_task, rel, encrypt, fs_src, spath, fs_dst, dst_root, key, info, pure=False
                )
                futures.append(finals[rel])
                continue
            t_p = time.perf_counter()
            try:
                ranges, head, prefix = _plan_ranges(encrypt, fs_src, spath, size, key, range_size, info.get("etag"))
                if local:
                    tmp = _create_local_tmp(dst_root, rel, encrypt)
                    pending_tmp[rel] = tmp
            except Exception as e:  # noqa: BLE001 - reported per file
                report.failed[rel] = f"{type(e).__name__}: {e}"
                continue
            t_plan += time.perf_counter() - t_p
            if local:
                base = len(head) if encrypt else 0
                step = ENC_CHUNK if encrypt else CHUNK
                targets = [("at", dst_root, tmp, base + first * step) for first, _, _, _ in ranges]
            else:
                parts_dir = _join(dst_root, f"{_PARTS_MARK}{uuid.uuid4().hex[:12]}")
                file_parts[rel] = parts_dir
                targets = [("part", _join(parts_dir, f"{i:08d}")) for i in range(len(ranges))]
            futs = [
                client.submit(
                    _range_task, rel, encrypt, fs_src, spath, info, fs_dst, target,
                    key, prefix, first, start, length, last, pure=False,
                )
                for target, (first, start, length, last) in zip(targets, ranges)
            ]
            futures += futs
            range_futs[rel] = futs
            if local:
                finals[rel] = client.submit(
                    _commit_local_task, rel, dst_root, tmp, head, fs_src, spath, info, futs, pure=False
                )
            else:
                finals[rel] = client.submit(
                    _commit_task, rel, fs_src, spath, fs_dst, _join(dst_root, rel), head, parts_dir,
                    info, futs, pure=False,
                )
            futures.append(finals[rel])

        # In the order they finish, so that `progress` reports as it goes.
        from distributed import as_completed
        from distributed import wait as distributed_wait

        rel_of = {fut.key: rel for rel, fut in finals.items()}
        for fut in as_completed(list(finals.values())):
            rel = rel_of[fut.key]
            try:
                r = fut.result()
            except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task
                r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
            if rel in pending_tmp:
                # Its commit removed or renamed it; a lost task did not.
                _remove_local_tmp(dst_root, rel, pending_tmp.pop(rel))
            for k, v in (r.get("t") or {}).items():
                report.timings[k] = report.timings.get(k, 0.0) + v
            if r["ok"]:
                info = files[rel]
                report.done.append(rel)
                report.bytes_in += r["bytes_in"]
                new_entries[rel] = {
                    "size": r["size"],
                    "sha256": r["sha256"],
                    "source_size": info["size"],
                    "source_mtime": info["mtime"],
                }
                if info.get("etag") is not None:
                    new_entries[rel]["source_etag"] = info["etag"]
            else:
                report.failed[rel] = r["error"]
                if _is_local(fs_dst):
                    _prune_empty_dirs(dst_root, rel)
            if rel in file_parts:
                # The commit removes them; one lost with its worker, or one
                # that never ran (a range failed), did not. Its other ranges
                # may still be running and would write parts after the
                # removal: wait until they end (done, failed or lost).
                if not r["ok"]:
                    distributed_wait(range_futs.get(rel, []))
                _remove(fs_dst, file_parts.pop(rel))
            if progress is not None:
                progress(rel, "done" if r["ok"] else "failed", None if r["ok"] else r["error"])
    except BaseException:
        # An interrupt or a lost scheduler: stop the work, and leave no
        # temporary output behind (ranges never re-create a removed one).
        try:
            client.cancel(futures)
        except Exception:  # noqa: BLE001 - the client may be gone too
            pass
        for rel, tmp in pending_tmp.items():
            _remove_local_tmp(dst_root, rel, tmp)
        for d in file_parts.values():
            _remove(fs_dst, d)
        raise

    # 3. The manifest: what is in dst and verified, authenticated, written
    # atomically.
    report.timings["plan"] = t_plan
    t_m = time.perf_counter()
    _write_manifest(fs_dst, dst_root, manifest_path, key, operation, new_entries)
    report.timings["manifest"] = time.perf_counter() - t_m
    report.done.sort()
    report.skipped.sort()
    report.seconds = time.perf_counter() - t0
    return report


def _plan_ranges(encrypt, fs_src, spath, size, key, range_size, etag=None):
    """Byte ranges of a large file: (first_chunk, start, length, last) each,
    the bytes that go before the joined ranges, and the file prefix."""
    ranges = []
    if encrypt:
        prefix = _aesx._new_prefix(key)
        n_ranges = -(-size // range_size)
        per = range_size // CHUNK
        for i in range(n_ranges):
            start = i * range_size
            length = min(range_size, size - start)
            ranges.append((i * per, start, length, i == n_ranges - 1))
        # A size that is a whole number of ranges still ends with the
        # (empty) final chunk: the last range above carries it.
        return ranges, prefix, prefix
    head = _read_range(fs_src, spath, 0, 96, etag)  # the file is over range_size bytes
    pl = _aesx._prefix_len(head)
    prefix = head[:pl]
    enc = size - pl
    per = range_size // CHUNK
    enc_range = per * ENC_CHUNK
    n_ranges = max(1, -(-enc // enc_range))
    for i in range(n_ranges):
        start = i * enc_range
        length = min(enc_range, enc - start)
        ranges.append((i * per, pl + start, length, i == n_ranges - 1))
    return ranges, b"", prefix


def encrypt_tree(client, src, dst, *, key, range_size: int = DEFAULT_RANGE,
                 storage_options: Optional[dict] = None, progress=None) -> TreeReport:
    """Encrypts every regular file under ``src`` to the same relative path
    under ``dst`` on the cluster behind ``client``; see the module notes.

    ``key``: the 32 bytes of an aesx key file (or its 64 hex digits).
    ``range_size``: files larger than this (a multiple of 16 KiB) are split
    into ranges of this many plaintext bytes. ``storage_options`` go to
    fsspec for both URLs (an S3 endpoint: ``{"endpoint_url": ...}``).
    ``progress``: called on the driver as each file finishes, as
    ``progress(rel, outcome, error)`` with outcome ``"done"``, ``"skipped"``
    or ``"failed"`` (``error`` is the message of a failed file, else None);
    the run's tasks are ordinary futures, so the dashboard's progress bars
    show them too. Returns a :class:`TreeReport`. Raises ValueError
    before any work when ``src`` and ``dst`` are the same tree or nested.
    """
    return _run("encrypt", client, src, dst, key, range_size, storage_options, progress)


def decrypt_tree(client, src, dst, *, key, range_size: int = DEFAULT_RANGE,
                 storage_options: Optional[dict] = None, progress=None) -> TreeReport:
    """Decrypts every aesx file under ``src`` (its manifest excepted) to the
    same relative path under ``dst``; a file that fails to verify is reported
    and nothing of it is written. Same arguments as :func:`encrypt_tree`.
    """
    return _run("decrypt", client, src, dst, key, range_size, storage_options, progress)
