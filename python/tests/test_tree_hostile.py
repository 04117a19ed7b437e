"""aesx.dask trees against hostile and careless inputs: the same or nested
trees, symlinks inside dst and src, a tampered manifest, names aesx uses
itself, special files, files changing during a run, private outputs."""

import hashlib
import json
import os
import stat

import pytest

distributed = pytest.importorskip("distributed")

import aesx  # noqa: E402
import aesx.dask  # noqa: E402

RANGE = 65536
BIG = 3 * RANGE + 5  # goes through the range path
KEY = bytes(range(32))


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


def tree(root, files):
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    return root


def snapshot(root):
    """Every path under root (symlinks not followed) with its bytes."""
    out = {}
    for dirpath, dirs, names in os.walk(root):
        for n in names + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, n)
            rel = os.path.relpath(p, root)
            out[rel] = ("link", os.readlink(p)) if os.path.islink(p) else open(p, "rb").read()
    return out


def leftovers(root):
    return [os.path.join(d, n) for d, dirs, names in os.walk(root) for n in names + dirs if ".aesx-" in n]


def encrypt(client, src, dst, **kw):
    return aesx.dask.encrypt_tree(client, str(src), str(dst), key=KEY, range_size=RANGE, **kw)


def decrypt(client, src, dst, **kw):
    return aesx.dask.decrypt_tree(client, str(src), str(dst), key=KEY, range_size=RANGE, **kw)


# --- src and dst: same or nested trees are refused, sources untouched ------


@pytest.mark.parametrize("how", ["same", "trailing", "dotdot", "symlink", "dst_inside", "src_inside"])
def test_same_or_nested_trees_refused(tmp_path, client, how):
    src = tree(tmp_path / "src", {"small": b"x" * 10, "big": os.urandom(BIG), "d/f": b"y"})
    before = snapshot(src)
    (tmp_path / "link").symlink_to(src)
    dst = {
        "same": src,
        "trailing": str(src) + "//",
        "dotdot": src / "d" / "..",
        "symlink": tmp_path / "link",
        "dst_inside": src / "enc",
        "src_inside": tmp_path,
    }[how]
    with pytest.raises(ValueError, match="same directory|inside"):
        encrypt(client, src, dst)
    with pytest.raises(ValueError, match="same directory|inside"):
        decrypt(client, src, dst)
    assert snapshot(src) == before


def test_same_tree_refused_through_a_symlinked_src(tmp_path, client):
    real = tree(tmp_path / "real", {"big": os.urandom(BIG)})
    (tmp_path / "alias").symlink_to(real)
    with pytest.raises(ValueError):
        encrypt(client, tmp_path / "alias", real / "sub")
    assert not (real / "sub").exists()


# --- dst: symlinks inside it are never followed ---------------------------


@pytest.mark.parametrize("name,size", [("small", 100), ("big", BIG)])
def test_symlinked_directory_in_dst_not_followed(tmp_path, client, name, size):
    src = tree(tmp_path / "src", {f"sub/{name}": os.urandom(size), "top": b"ok"})
    elsewhere = tree(tmp_path / "elsewhere", {name: b"precious"})
    dst = tmp_path / "dst"
    dst.mkdir()
    (dst / "sub").symlink_to(elsewhere)
    r = encrypt(client, src, dst)
    assert f"sub/{name}" in r.failed and "symbolic link" in r.failed[f"sub/{name}"], r
    assert r.done == ["top"] and not r.ok
    assert snapshot(elsewhere) == {name: b"precious"}
    assert leftovers(elsewhere) == [] and leftovers(dst) == []


def test_symlinked_file_in_dst_is_replaced_not_written_through(tmp_path, client):
    src = tree(tmp_path / "src", {"a": os.urandom(100), "b": os.urandom(BIG)})
    target = tree(tmp_path / "t", {"victim": b"precious"})
    dst = tmp_path / "dst"
    dst.mkdir()
    (dst / "a").symlink_to(target / "victim")
    (dst / "b").symlink_to(target / "victim")
    r = encrypt(client, src, dst)
    assert r.ok and sorted(r.done) == ["a", "b"], r
    assert (target / "victim").read_bytes() == b"precious"
    assert not (dst / "a").is_symlink() and not (dst / "b").is_symlink()


# --- the manifest: only what the key vouches for is skipped ---------------


def test_tampered_output_and_manifest_not_skipped(tmp_path, client):
    files = {"small": os.urandom(1000), "big": os.urandom(BIG)}
    src = tree(tmp_path / "src", files)
    enc, dec = tmp_path / "enc", tmp_path / "dec"
    assert encrypt(client, src, enc).ok
    assert decrypt(client, enc, dec).ok
    # Plant a file and write its hash into the manifest.
    mpath = dec / aesx.dask.MANIFEST_NAME
    for rel in files:
        (dec / rel).write_bytes(b"planted")
    m = json.loads(mpath.read_text())
    for rel in files:
        m["files"][rel]["sha256"] = hashlib.sha256(b"planted").hexdigest()
        m["files"][rel]["size"] = 7
    mpath.write_text(json.dumps(m))
    r = decrypt(client, enc, dec)
    assert sorted(r.done) == sorted(files) and not r.skipped, r
    assert any("does not verify" in n for n in r.notes), r.notes
    for rel, data in files.items():
        assert (dec / rel).read_bytes() == data
    # A forged manifest without a MAC, or with another key's, is no better.
    for forge in (lambda m: m.pop("mac"), lambda m: m.update(mac="0" * 64)):
        m = json.loads(mpath.read_text())
        (dec / "small").write_bytes(b"planted")
        m["files"]["small"]["sha256"] = hashlib.sha256(b"planted").hexdigest()
        m["files"]["small"]["size"] = 7
        forge(m)
        mpath.write_text(json.dumps(m))
        r = decrypt(client, enc, dec)
        assert "small" in r.done and "small" not in r.skipped, r
        assert (dec / "small").read_bytes() == files["small"]
    # An untouched re-run skips everything.
    r = decrypt(client, enc, dec)
    assert sorted(r.skipped) == sorted(files) and not r.done and r.ok, r


def test_manifest_of_another_key_is_not_trusted(tmp_path, client):
    src = tree(tmp_path / "src", {"a": b"1" * 100})
    enc = tmp_path / "enc"
    assert encrypt(client, src, enc).ok
    r = aesx.dask.encrypt_tree(client, str(src), str(enc), key=os.urandom(32), range_size=RANGE)
    assert r.done == ["a"] and not r.skipped, r


# --- every source file is accounted for -----------------------------------


def test_left_out_files_are_reported(tmp_path, client):
    src = tree(tmp_path / "src", {
        "aesx-manifest.json": b"user data with the manifest's name",
        "x.aesx-tmp-123": b"user data with the marker",
        ".aesx-parts-abc/inner": b"user data under the parts marker",
        "real": b"processed",
        "line\nbreak": b"a name with a newline",
    })
    (src / "link").symlink_to(src / "real")
    (src / "dirlink").symlink_to(src)  # a loop, never followed
    os.mkfifo(src / "fifo")
    r = encrypt(client, src, tmp_path / "enc")
    assert sorted(r.done) == ["line\nbreak", "real"], r
    assert set(r.excluded) == {
        "aesx-manifest.json", "x.aesx-tmp-123", ".aesx-parts-abc/", "link", "dirlink", "fifo",
    }, r.excluded
    assert "symbolic link" in r.excluded["link"] and "FIFO" in r.excluded["fifo"]
    assert "manifest" in r.excluded["aesx-manifest.json"]
    assert not r.ok
    text = str(r)
    assert "6 left out" in text and "LEFT OUT link" in text
    with pytest.raises(RuntimeError, match="left out"):
        r.raise_for_failures()
    # A newline in a name cannot forge a report line.
    r.failed["evil\n  LEFT OUT nothing"] = "x"
    assert "'evil\\n  LEFT OUT nothing'" in str(r)
    # The newline name decrypts back.
    d = decrypt(client, tmp_path / "enc", tmp_path / "dec")
    assert d.ok and (tmp_path / "dec" / "line\nbreak").read_bytes() == b"a name with a newline", d


# --- files changing during a run are reported, never cut ------------------


class _ChangingClient:
    """A client that changes a source file just before the first task of
    each file is sent: the file changed after it was listed."""

    def __init__(self, client, path, change):
        self._c, self._path, self._change, self._done = client, path, change, False

    def submit(self, fn, *args, **kw):
        if not self._done and fn is not aesx.dask._verify_task:
            self._done = True
            self._change(self._path)
        return self._c.submit(fn, *args, **kw)

    def cancel(self, futs):
        return self._c.cancel(futs)


@pytest.mark.parametrize("size", [1000, BIG])
@pytest.mark.parametrize("change", ["grow", "shrink", "rewrite", "fifo"])
def test_source_changing_during_run_fails(tmp_path, client, size, change):
    src = tree(tmp_path / "src", {"f": os.urandom(size)})

    def do(p):
        data = p.read_bytes()
        st = os.stat(p)
        if change == "grow":
            p.write_bytes(data + b"more")
        elif change == "shrink":
            p.write_bytes(data[: len(data) // 2])
        elif change == "fifo":  # must fail, not block a worker in open()
            p.unlink()
            os.mkfifo(p)
        else:
            p.write_bytes(bytes(len(data)))
            os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))

    r = encrypt(_ChangingClient(client, src / "f", do), src, tmp_path / "enc")
    assert "f" in r.failed and ("changed" in r.failed["f"] or "regular file" in r.failed["f"]), r
    assert not (tmp_path / "enc" / "f").exists() and leftovers(tmp_path / "enc") == []


# --- outputs are private --------------------------------------------------


def test_plaintext_outputs_private_and_modes_kept(tmp_path, client):
    files = {"small": os.urandom(100), "big": os.urandom(BIG)}
    src = tree(tmp_path / "src", files)
    enc, dec = tmp_path / "enc", tmp_path / "dec"
    old = os.umask(0o022)
    try:
        assert encrypt(client, src, enc).ok
        assert decrypt(client, enc, dec).ok
    finally:
        os.umask(old)
    for rel in files:
        assert stat.S_IMODE(os.stat(dec / rel).st_mode) == 0o600, rel
    # A replaced output keeps its mode (as `aesx decrypt --force` does).
    os.chmod(dec / "small", 0o640)
    os.chmod(dec / "big", 0o640)
    (dec / aesx.dask.MANIFEST_NAME).unlink()
    assert decrypt(client, enc, dec).ok
    for rel in files:
        assert stat.S_IMODE(os.stat(dec / rel).st_mode) == 0o640, rel


def test_dst_entry_that_is_a_directory_fails_cleanly(tmp_path, client):
    src = tree(tmp_path / "src", {"small": b"1", "big": os.urandom(BIG)})
    dst = tmp_path / "dst"
    (dst / "small").mkdir(parents=True)
    (dst / "big").mkdir()
    r = encrypt(client, src, dst)
    assert set(r.failed) == {"small", "big"}, r
    assert leftovers(dst) == []
