"""Encrypt or decrypt whole trees of files on a Dask distributed cluster.

::

    from dask.distributed import Client
    import aesx.dask

    client = Client("scheduler:8786")
    key = bytes.fromhex(open("data.key").read())        # `aesx keygen -o data.key`
    report = aesx.dask.encrypt_tree(client, "s3://bucket/raw", "s3://bucket/enc", key=key)
    print(report)                                        # done / skipped / failed per file
    aesx.dask.decrypt_tree(client, "s3://bucket/enc", "/scratch/raw", key=key)

Every file under ``src`` becomes the file of the same relative path under
``dst``, in the format of ``aesx encrypt`` (so ``aesx decrypt`` reads it).
Paths are local paths or fsspec URLs. The workers do the work: one task per
file, and for files larger than ``range_size`` one task per byte range (the
format's 16 KiB chunks are independent, so ranges encrypt in parallel) and a
final task that joins the ranges.

- Nothing half-written: outputs are written under hidden temporary names
  (``.NAME.aesx-tmp-*``, range parts under ``dst/.aesx-parts-*``) and moved
  into place only when complete; on failure they are removed.
- A manifest ``dst/aesx-manifest.json`` lists every output with its size and
  the SHA-256 of its bytes (of the ciphertext, for ``encrypt_tree``), and the
  source's size and modification time.
- A re-run skips a file whose manifest entry matches the source and whose
  output still hashes to the recorded SHA-256; everything else is redone.
- Failures are reported per file in the returned :class:`TreeReport`; one
  bad file does not stop the others.

The key travels to the workers inside the task graph: use TLS for the
cluster's communications when the network is not trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import time
import uuid
from dataclasses import dataclass, field
from typing import Dict, List, Optional

import fsspec
from fsspec.implementations.local import LocalFileSystem

from . import _aesx

__all__ = ["encrypt_tree", "decrypt_tree", "TreeReport", "MANIFEST_NAME"]

MANIFEST_NAME = "aesx-manifest.json"
CHUNK = _aesx.CHUNK_LEN
ENC_CHUNK = _aesx.ENC_CHUNK_LEN
DEFAULT_RANGE = 64 * 1024 * 1024
_IO_BLOCK = 8 * 1024 * 1024


@dataclass
class TreeReport:
    """What a tree operation did, per relative path."""

    operation: str
    done: List[str] = field(default_factory=list)
    skipped: List[str] = field(default_factory=list)
    failed: Dict[str, str] = field(default_factory=dict)
    manifest: str = ""
    bytes_in: int = 0
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        """True when no file failed."""
        return not self.failed

    def raise_for_failures(self) -> None:
        """Raises RuntimeError listing the failed files, if any."""
        if self.failed:
            lines = "\n".join(f"  {p}: {m}" for p, m in sorted(self.failed.items()))
            raise RuntimeError(f"aesx.dask.{self.operation}_tree: {len(self.failed)} file(s) failed:\n{lines}")

    def __str__(self) -> str:
        s = (
            f"{self.operation}_tree: {len(self.done)} done, {len(self.skipped)} skipped,"
            f" {len(self.failed)} failed ({self.bytes_in} bytes in {self.seconds:.2f} s)"
        )
        for p, m in sorted(self.failed.items()):
            s += f"\n  FAILED {p}: {m}"
        return s


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


def _tmp_name(fs, path: str) -> str:
    d, b = posixpath.split(path)
    return _join(d, f".{b}.aesx-tmp-{uuid.uuid4().hex[:12]}")


def _remove(fs, path: str) -> None:
    try:
        if fs.exists(path):
            fs.rm(path, recursive=True)
    except Exception:
        pass


def _write_atomic(fs, path: str, pieces) -> tuple:
    """Writes `pieces` (bytes-likes) to `path` via a temporary name; returns
    (size, sha256 hex)."""
    parent = posixpath.dirname(path)
    if parent:
        fs.makedirs(parent, exist_ok=True)
    tmp = _tmp_name(fs, path)
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


def _is_local(*fss) -> bool:
    return all(isinstance(fs, LocalFileSystem) for fs in fss)


def _pwrite_all(fd: int, data, offset: int) -> None:
    view = memoryview(data)
    while view:
        n = os.pwrite(fd, view, offset)
        view, offset = view[n:], offset + n


def _read_range(fs, path: str, start: int, length: int) -> bytes:
    with fs.open(path, "rb") as f:
        f.seek(start)
        data = f.read(length)
    if len(data) != length:
        raise IOError(f"{path}: short read ({len(data)} of {length} bytes at {start}): the file changed")
    return data


def _guard(rel, fn, *args):
    """Runs a task body; any exception becomes a per-file failure."""
    try:
        return {"rel": rel, "ok": True, **fn(*args)}
    except Exception as e:  # noqa: BLE001 - reported per file
        return {"rel": rel, "ok": False, "error": f"{type(e).__name__}: {e}"}


# --- task bodies (run on the workers) -------------------------------------


def _verify_task(rel, fs_dst, dpath, entry):
    def body():
        if not fs_dst.exists(dpath):
            return {"verified": False}
        size, sha = _hash_file(fs_dst, dpath)
        return {"verified": size == entry.get("size") and sha == entry.get("sha256")}

    return _guard(rel, body)


def _local_whole(encrypt, spath, dpath, key):
    # Local files: the Rust path streams, writes atomically and hashes the
    # output as it writes it (one pass, no Python copies).
    parent = os.path.dirname(dpath)
    if parent:
        os.makedirs(parent, exist_ok=True)
    size, sha = _aesx._file_hashed(encrypt, spath, dpath, key, threads=1)
    return {"size": size, "sha256": sha, "bytes_in": os.path.getsize(spath)}


def _whole_task(rel, encrypt, fs_src, spath, fs_dst, dpath, key):
    """Encrypts or decrypts one whole file: through the Rust path for local
    files, else read whole, transformed in memory and written atomically."""
    if _is_local(fs_src, fs_dst):
        return _guard(rel, _local_whole, encrypt, spath, dpath, key)

    def body():
        with fs_src.open(spath, "rb") as f:
            data = f.read()
        if encrypt:
            prefix = _aesx._new_prefix(key)
            parts = [prefix, _aesx._seal_chunks(key, prefix, 0, data, True)]
        else:
            pl = _aesx._prefix_len(data[:96])
            if len(data) < pl:
                raise _aesx.DecryptionError("file too short: truncated inside the header")
            parts = [_aesx._open_chunks(key, data[:pl], 0, data[pl:], True)]
        size, sha = _write_atomic(fs_dst, dpath, parts)
        return {"size": size, "sha256": sha, "bytes_in": len(data)}

    return _guard(rel, body)


def _range_task(rel, encrypt, fs_src, spath, fs_dst, target, key, prefix, first, start, length, last):
    """Encrypts or decrypts one byte range: into its place in the shared
    temporary output (local files, target = ("at", tmp, offset)) or into a
    part file (other filesystems, target = ("part", path))."""

    def body():
        data = _read_range(fs_src, spath, start, length)
        if encrypt:
            out = _aesx._seal_chunks(key, prefix, first, data, last)
        else:
            out = _aesx._open_chunks(key, prefix, first, data, last)
        if target[0] == "at":
            fd = os.open(target[1], os.O_WRONLY | os.O_CREAT, 0o666)
            try:
                _pwrite_all(fd, out, target[2])
            finally:
                os.close(fd)
            return {"part": None, "bytes_in": len(data)}
        part = target[1]
        fs_dst.makedirs(posixpath.dirname(part), exist_ok=True)
        with fs_dst.open(part, "wb") as f:
            f.write(out)
        return {"part": part, "bytes_in": len(data)}

    return _guard(rel, body)


def _commit_local_task(rel, dpath, head, tmp, results):
    """Local files: the ranges are in place in `tmp`; write the head, sync,
    hash and rename into place (or remove `tmp` if any range failed)."""

    def body():
        try:
            bad = [r for r in results if not r["ok"]]
            if bad:
                raise RuntimeError(bad[0]["error"])
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT, 0o666)
            try:
                _pwrite_all(fd, head, 0)
                os.fsync(fd)
            finally:
                os.close(fd)
            size, sha = _hash_file(LocalFileSystem(), tmp)
            os.replace(tmp, dpath)
            return {"size": size, "sha256": sha, "bytes_in": sum(r["bytes_in"] for r in results)}
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    out = _guard(rel, body)
    if not out["ok"]:
        out["error"] = out["error"].replace("RuntimeError: ", "", 1)
    return out


def _commit_task(rel, fs_dst, dpath, head, parts_dir, results):
    """Joins the range parts (after `head`) into `dpath`, hashing as it goes."""

    def body():
        try:
            bad = [r for r in results if not r["ok"]]
            if bad:
                raise RuntimeError(bad[0]["error"])

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
            return {"size": size, "sha256": sha, "bytes_in": sum(r["bytes_in"] for r in results)}
        finally:
            _remove(fs_dst, parts_dir)

    out = _guard(rel, body)
    if not out["ok"]:
        # Report the first range's own message, not a wrapped one.
        out["error"] = out["error"].replace("RuntimeError: ", "", 1)
    return out


# --- the driver -------------------------------------------------------------


def _prune_empty_dirs(root: str, rel: str) -> None:
    """Removes the directories made for a failed output, if left empty."""
    d = posixpath.dirname(rel)
    while d:
        try:
            os.rmdir(_join(root, d))
        except OSError:
            return
        d = posixpath.dirname(d)


def _load_manifest(fs, path) -> dict:
    try:
        with fs.open(path, "rb") as f:
            m = json.load(f)
        if isinstance(m, dict) and isinstance(m.get("files"), dict):
            return m
    except Exception:
        pass
    return {"files": {}}


def _list(fs, root: str) -> Dict[str, dict]:
    out = {}
    root = root.rstrip("/")
    for path, info in fs.find(root, detail=True).items():
        if info.get("type", "file") != "file":
            continue
        rel = path[len(root):].lstrip("/") if path.startswith(root) else posixpath.basename(path)
        parts = rel.split("/")
        base = parts[-1]
        if rel == MANIFEST_NAME or ".aesx-tmp-" in base or any(p.startswith(".aesx-parts-") for p in parts):
            continue
        out[rel] = {"path": path, "size": int(info.get("size") or 0), "mtime": _mtime(info)}
    return out


def _mtime(info: dict):
    for k in ("mtime", "LastModified", "last_modified", "updated", "modified"):
        v = info.get(k)
        if v is not None:
            return v if isinstance(v, (int, float)) else str(v)
    return None


def _run(operation, client, src, dst, key, range_size, storage_options):
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
    fs_dst.makedirs(dst_root, exist_ok=True)
    manifest_path = _join(dst_root, MANIFEST_NAME)
    old = _load_manifest(fs_dst, manifest_path)["files"]
    files = _list(fs_src, src_root)
    report = TreeReport(operation=operation, manifest=manifest_path)

    # 1. Which files are already done? (hash the outputs on the workers)
    candidates = {}
    for rel, info in files.items():
        e = old.get(rel)
        if e and e.get("source_size") == info["size"] and e.get("source_mtime") == info["mtime"]:
            candidates[rel] = e
    checks = {
        rel: client.submit(_verify_task, rel, fs_dst, _join(dst_root, rel), e, pure=False)
        for rel, e in candidates.items()
    }
    new_entries = {}
    for rel, fut in checks.items():
        r = fut.result()
        if r["ok"] and r["verified"]:
            report.skipped.append(rel)
            new_entries[rel] = candidates[rel]

    # 2. One task per file, or per range plus a join for large files.
    finals = {}
    for rel, info in sorted(files.items()):
        if rel in new_entries:
            continue
        spath, dpath, size = info["path"], _join(dst_root, rel), info["size"]
        if size <= range_size:
            finals[rel] = client.submit(
                _whole_task, rel, encrypt, fs_src, spath, fs_dst, dpath, key, pure=False
            )
            continue
        try:
            ranges, head, prefix = _plan_ranges(encrypt, fs_src, spath, size, key, range_size)
        except Exception as e:  # noqa: BLE001 - reported per file
            report.failed[rel] = f"{type(e).__name__}: {e}"
            continue
        if _is_local(fs_src, fs_dst):
            fs_dst.makedirs(posixpath.dirname(dpath), exist_ok=True)
            tmp = _tmp_name(fs_dst, dpath)
            base = len(head) if encrypt else 0
            step = ENC_CHUNK if encrypt else CHUNK
            targets = [("at", tmp, base + first * step) for first, _, _, _ in ranges]
        else:
            parts_dir = _join(dst_root, f".aesx-parts-{uuid.uuid4().hex[:12]}")
            targets = [("part", _join(parts_dir, f"{i:08d}")) for i in range(len(ranges))]
        futs = [
            client.submit(
                _range_task, rel, encrypt, fs_src, spath, fs_dst, target,
                key, prefix, first, start, length, last, pure=False,
            )
            for target, (first, start, length, last) in zip(targets, ranges)
        ]
        if targets and targets[0][0] == "at":
            finals[rel] = client.submit(_commit_local_task, rel, dpath, head, targets[0][1], futs, pure=False)
        else:
            finals[rel] = client.submit(_commit_task, rel, fs_dst, dpath, head, parts_dir, futs, pure=False)

    for rel, fut in finals.items():
        try:
            r = fut.result()
        except Exception as e:  # noqa: BLE001 - a lost worker, a cancelled task
            r = {"ok": False, "error": f"{type(e).__name__}: {e}"}
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
        else:
            report.failed[rel] = r["error"]
            if _is_local(fs_dst):
                _prune_empty_dirs(dst_root, rel)

    # 3. The manifest: what is in dst and verified, written atomically.
    manifest = {
        "format": "aesx-manifest",
        "version": 1,
        "operation": operation,
        "files": dict(sorted(new_entries.items())),
    }
    _write_atomic(fs_dst, manifest_path, [json.dumps(manifest, indent=1).encode()])
    report.done.sort()
    report.skipped.sort()
    report.seconds = time.perf_counter() - t0
    return report


def _plan_ranges(encrypt, fs_src, spath, size, key, range_size):
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
    with fs_src.open(spath, "rb") as f:
        head = f.read(96)
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
                 storage_options: Optional[dict] = None) -> TreeReport:
    """Encrypts every file under ``src`` to the same relative path under
    ``dst`` on the cluster behind ``client``; see the module notes.

    ``key``: the 32 bytes of an aesx key file (or its 64 hex digits).
    ``range_size``: files larger than this (a multiple of 16 KiB) are split
    into ranges of this many plaintext bytes. ``storage_options`` go to
    fsspec for both URLs. Returns a :class:`TreeReport`.
    """
    return _run("encrypt", client, src, dst, key, range_size, storage_options)


def decrypt_tree(client, src, dst, *, key, range_size: int = DEFAULT_RANGE,
                 storage_options: Optional[dict] = None) -> TreeReport:
    """Decrypts every aesx file under ``src`` (the manifest excepted) to the
    same relative path under ``dst``; a file that fails to verify is reported
    and nothing of it is written. Same arguments as :func:`encrypt_tree`.
    """
    return _run("decrypt", client, src, dst, key, range_size, storage_options)
