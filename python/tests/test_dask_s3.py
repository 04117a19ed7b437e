"""aesx.dask trees on object storage: an S3 server of the tests' own on
loopback (moto, conftest's `s3_server`), reached through s3fs with an
endpoint URL as a user would, on a 2-process LocalCluster. The tree suite
runs on local paths, on s3://, and mixed (local -> S3, S3 -> local)."""

import hashlib
import json
import os
import subprocess

import pytest

distributed = pytest.importorskip("distributed")

import aesx  # noqa: E402
import aesx.dask  # noqa: E402

RANGE = 65536
KEY = bytes(range(32))

FILES = {
    "a.txt": 10,
    "empty": 0,
    "sub/one_chunk": 16384,
    "sub/deeper/x.bin": 5 * 16384 + 7,
    "big/exact": 4 * RANGE,  # a whole number of ranges
    "big/odd": 3 * RANGE + 999,
}


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


class Place:
    """A tree root, local (a directory under tmp_path) or on S3 (a prefix
    in the test's bucket), with the few operations the tests need."""

    def __init__(self, kind, tmp_path, bucket, name):
        self.kind = kind
        if kind == "local":
            import fsspec

            self.fs = fsspec.filesystem("file")
            self.root = str(tmp_path / name)
            self.url = self.root
            self.so = None
        else:
            import s3fs

            bname, so = bucket
            self.fs = s3fs.S3FileSystem(**so)
            self.root = f"{bname}/{name}"
            self.url = f"s3://{self.root}"
            self.so = so

    def path(self, rel):
        return f"{self.root}/{rel}"

    def write(self, rel, data):
        if self.kind == "local":
            os.makedirs(os.path.dirname(self.path(rel)), exist_ok=True)
        self.fs.pipe_file(self.path(rel), data)

    def read(self, rel):
        return self.fs.cat_file(self.path(rel))

    def exists(self, rel):
        return self.fs.exists(self.path(rel))

    def keys(self):
        """Every file under the root, relative (directories left out)."""
        if not self.fs.exists(self.root):
            return []
        return sorted(p[len(self.root) + 1:] for p in self.fs.find(self.root))

    def leftovers(self):
        return [k for k in self.keys() if ".aesx-" in k]


def places(kinds, tmp_path, bucket):
    return [Place(k, tmp_path, bucket, n) for k, n in zip(kinds, ("src", "enc", "dec"))]


def so_for(*ps):
    for p in ps:
        if p.so:
            return p.so
    return None


def make_tree(place, files=FILES):
    data = {rel: os.urandom(n) for rel, n in files.items()}
    for rel, d in data.items():
        place.write(rel, d)
    return data


def enc_tree(client, a, b, key=KEY, **kw):
    return aesx.dask.encrypt_tree(client, a.url, b.url, key=key, range_size=RANGE,
                                  storage_options=so_for(a, b), **kw)


def dec_tree(client, a, b, key=KEY, **kw):
    return aesx.dask.decrypt_tree(client, a.url, b.url, key=key, range_size=RANGE,
                                  storage_options=so_for(a, b), **kw)


# src, enc, dec: on S3, local, and each way across.
LAYOUTS = [
    ("s3", "s3", "s3"),
    ("local", "s3", "local"),
    ("s3", "local", "s3"),
    ("local", "local", "local"),
]


@pytest.mark.parametrize("kinds", LAYOUTS, ids=["-".join(k) for k in LAYOUTS])
def test_round_trip_manifest_rerun_and_cli(tmp_path, client, s3_bucket, cli, kinds):
    src, enc, dec = places(kinds, tmp_path, s3_bucket)
    data = make_tree(src)
    seen = []
    r = enc_tree(client, src, enc, progress=lambda rel, outcome, err: seen.append((rel, outcome, err)))
    assert r.ok and sorted(r.done) == sorted(FILES) and not r.skipped, r
    assert sorted(seen) == sorted((rel, "done", None) for rel in FILES)
    # The JSON report parses and names every file with its outcome.
    j = json.loads(r.to_json())
    assert j["ok"] and j["done"] == len(FILES)
    # Where the time went: the driver's phases, and the workers' (ranged
    # files always go through read / crypt / write tasks and a join).
    assert {"list", "plan", "manifest", "read", "crypt", "write", "join"} <= set(j["timings"]), j["timings"]
    assert all(v >= 0 for v in j["timings"].values())
    assert sorted((f["path"], f["outcome"]) for f in j["files"]) == sorted((rel, "done") for rel in FILES)
    m = json.loads(enc.read(aesx.dask.MANIFEST_NAME))
    assert set(m["files"]) == set(FILES)
    for rel, e in m["files"].items():
        ct = enc.read(rel)
        assert e["size"] == len(ct) and e["sha256"] == hashlib.sha256(ct).hexdigest()
        assert e["source_size"] == FILES[rel]
    # The CLI reads what the cluster wrote (the ranged files above all).
    (tmp_path / "k").write_text(KEY.hex() + "\n")
    for rel in ("big/odd", "big/exact", "a.txt"):
        (tmp_path / "ct").write_bytes(enc.read(rel))
        out = tmp_path / "cli.out"
        subprocess.run([cli, "decrypt", "-q", "-f", "-k", tmp_path / "k", "-o", out, tmp_path / "ct"], check=True)
        assert out.read_bytes() == data[rel], rel
    # A re-run skips everything done and proven...
    seen.clear()
    r = enc_tree(client, src, enc, progress=lambda rel, outcome, err: seen.append((rel, outcome)))
    assert r.ok and not r.done and sorted(r.skipped) == sorted(FILES), r
    assert sorted(seen) == sorted((rel, "skipped") for rel in FILES)
    # ...and redoes what changed or was damaged (a ranged output too).
    enc.write("a.txt", b"damaged")
    enc.write("big/odd", enc.read("big/odd")[:-1])
    data["sub/one_chunk"] = os.urandom(100)
    src.write("sub/one_chunk", data["sub/one_chunk"])
    r = enc_tree(client, src, enc)
    assert sorted(r.done) == ["a.txt", "big/odd", "sub/one_chunk"] and r.ok, r
    # Back, by ranges and whole.
    r = dec_tree(client, enc, dec)
    assert r.ok and sorted(r.done) == sorted(FILES), r
    for rel, d in data.items():
        assert dec.read(rel) == d, rel
    assert enc.leftovers() == [] and dec.leftovers() == [] and src.leftovers() == []
    assert sorted(dec.keys()) == sorted(list(FILES) + [aesx.dask.MANIFEST_NAME])


@pytest.mark.parametrize("kinds", LAYOUTS[:3], ids=["-".join(k) for k in LAYOUTS[:3]])
def test_failures_reported_per_file_nothing_half_written(tmp_path, client, s3_bucket, kinds):
    src, enc, dec = places(kinds, tmp_path, s3_bucket)
    data = make_tree(src)
    assert enc_tree(client, src, enc).ok
    b = bytearray(enc.read("big/odd"))
    b[len(b) // 2] ^= 1
    enc.write("big/odd", bytes(b))  # fails in its second range
    enc.write("sub/deeper/x.bin", enc.read("sub/deeper/x.bin")[:-3])
    enc.write("junk", b"not an aesx file")
    r = dec_tree(client, enc, dec)
    assert set(r.failed) == {"big/odd", "sub/deeper/x.bin", "junk"}, r
    assert "failed authentication" in r.failed["big/odd"]
    assert sorted(r.done) == sorted(set(FILES) - {"big/odd", "sub/deeper/x.bin"})
    for rel in r.done:
        assert dec.read(rel) == data[rel]
    assert not dec.exists("big/odd") and not dec.exists("sub/deeper/x.bin")
    assert dec.leftovers() == []
    # Wrong key: every file fails, nothing but the manifest is written.
    r = dec_tree(client, enc, dec, key=os.urandom(32))
    assert len(r.failed) == len(FILES) + 1 and not r.done
    assert dec.leftovers() == []


def test_multipart_upload_and_ranged_reads(tmp_path, client, s3_bucket):
    """An output larger than s3fs's part size goes up as a multipart upload
    (its ETag ends in -N), completed only after every range's tags checked;
    large sources are read by ranges."""
    name, so = s3_bucket
    so = dict(so, default_block_size=5 * 2**20)  # S3's smallest part
    src = Place("s3", tmp_path, s3_bucket, "src")
    src.so = so
    enc = Place("s3", tmp_path, s3_bucket, "enc")
    dec = Place("s3", tmp_path, s3_bucket, "dec")
    data = os.urandom(11 * 2**20 + 5)
    src.write("huge", data)
    r = aesx.dask.encrypt_tree(client, src.url, enc.url, key=KEY, range_size=2**20, storage_options=so)
    assert r.ok and r.done == ["huge"], r
    etag = enc.fs.info(enc.path("huge"))["ETag"]
    assert "-" in etag.strip('"'), f"not a multipart upload: {etag}"
    r = aesx.dask.decrypt_tree(client, enc.url, dec.url, key=KEY, range_size=2**20, storage_options=so)
    assert r.ok and dec.read("huge") == data, r
    # A tampered byte far into the object: the multipart upload of the
    # plaintext is never completed, the key never appears, no upload is
    # left open.
    b = bytearray(enc.read("huge"))
    b[9 * 2**20] ^= 1
    enc.write("huge", bytes(b))
    out = Place("s3", tmp_path, s3_bucket, "dec2")
    r = aesx.dask.decrypt_tree(client, enc.url, out.url, key=KEY, range_size=2**20, storage_options=so)
    assert "huge" in r.failed and "failed authentication" in r.failed["huge"], r
    assert out.keys() == [aesx.dask.MANIFEST_NAME]
    uploads = enc.fs.call_s3("list_multipart_uploads", Bucket=name).get("Uploads", [])
    assert uploads == [], uploads


# --- hostile cases that apply to object stores ------------------------------


@pytest.mark.parametrize("how", ["same", "trailing", "dst_inside", "src_inside", "bucket"])
def test_same_or_nested_prefixes_refused(tmp_path, client, s3_bucket, how):
    name, so = s3_bucket
    src = Place("s3", tmp_path, s3_bucket, "tree")
    make_tree(src, {"small": 10, "big": 3 * RANGE + 5})
    before = {k: src.read(k) for k in src.keys()}
    dst = {
        "same": f"s3://{name}/tree",
        "trailing": f"s3://{name}/tree//",
        "dst_inside": f"s3://{name}/tree/enc",
        "src_inside": f"s3://{name}/",
        "bucket": f"s3://{name}",
    }[how]
    for fn in (aesx.dask.encrypt_tree, aesx.dask.decrypt_tree):
        with pytest.raises(ValueError, match="same directory|inside"):
            fn(client, src.url, dst, key=KEY, range_size=RANGE, storage_options=so)
    assert {k: src.read(k) for k in src.keys()} == before


ODD = ["sp ace", "uni-\u00fc\u6f22", "pct%20x", "hash#x", "q?x=1", "plus+x", "semi;colon", "a'b\"c", "dir/x.y.z"]


@pytest.mark.parametrize("kinds", LAYOUTS[:3], ids=["-".join(k) for k in LAYOUTS[:3]])
def test_odd_key_names(tmp_path, client, s3_bucket, kinds):
    src, enc, dec = places(kinds, tmp_path, s3_bucket)
    files = {n: (3 * RANGE + 1 if i % 2 else 100) for i, n in enumerate(ODD)}
    data = make_tree(src, files)
    r = enc_tree(client, src, enc)
    assert r.ok and sorted(r.done) == sorted(files), r
    r = dec_tree(client, enc, dec)
    assert r.ok and sorted(r.done) == sorted(files), r
    for rel, d in data.items():
        assert dec.read(rel) == d, rel
    assert enc.leftovers() == [] and dec.leftovers() == []


@pytest.mark.parametrize("dst_kind", ["s3", "local"])
def test_key_that_is_also_a_directory(tmp_path, client, s3_bucket, dst_kind):
    """S3 holds `d` and `d/f` at once; a local tree cannot. Into S3 both go
    through; into a local tree one of them fails cleanly and is reported."""
    src = Place("s3", tmp_path, s3_bucket, "src")
    dst = Place(dst_kind, tmp_path, s3_bucket, "enc")
    data = {"d": os.urandom(3 * RANGE + 3), "d/f": os.urandom(50), "ok": b"fine"}
    for rel, d in data.items():
        src.write(rel, d)
    r = aesx.dask.encrypt_tree(client, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=src.so)
    if dst_kind == "s3":
        assert r.ok and sorted(r.done) == sorted(data), r
        back = Place("s3", tmp_path, s3_bucket, "back")
        r2 = dec_tree(client, dst, back)
        assert r2.ok and all(back.read(k) == v for k, v in data.items()), r2
    else:
        assert "ok" in r.done and len(r.failed) == 1 and set(r.failed) < {"d", "d/f"}, r
        assert set(r.done) | set(r.failed) == set(data)
        assert dst.leftovers() == []
        m = json.loads(dst.read(aesx.dask.MANIFEST_NAME))
        assert set(m["files"]) == set(r.done)


class _ChangingClient:
    """Rewrites one source object just before the run's first file task is
    sent: listed with one ETag, read as another."""

    def __init__(self, client, change):
        self._c, self._change, self._done = client, change, False

    def submit(self, fn, *args, **kw):
        if not self._done and fn is not aesx.dask._verify_task:
            self._done = True
            self._change()
        return self._c.submit(fn, *args, **kw)

    def cancel(self, futs):
        return self._c.cancel(futs)


@pytest.mark.parametrize("size", [1000, 3 * RANGE + 5])
@pytest.mark.parametrize("change", ["same_size", "grow", "delete"])
@pytest.mark.parametrize("dst_kind", ["s3", "local"])
def test_object_changed_during_run_fails(tmp_path, client, s3_bucket, size, change, dst_kind):
    src = Place("s3", tmp_path, s3_bucket, "src")
    dst = Place(dst_kind, tmp_path, s3_bucket, "enc")
    src.write("f", os.urandom(size))
    src.write("g", b"untouched")

    def do():
        if change == "same_size":  # same size, same second: only the ETag tells
            src.write("f", os.urandom(size))
        elif change == "grow":
            src.write("f", os.urandom(size + 1))
        else:
            src.fs.rm(src.path("f"))

    c = _ChangingClient(client, do)
    r = aesx.dask.encrypt_tree(c, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=src.so)
    assert "f" in r.failed and ("changed" in r.failed["f"] or "vanished" in r.failed["f"]), r
    assert r.done == ["g"], r
    assert not dst.exists("f") and dst.leftovers() == []


def test_forged_manifest_on_s3_not_trusted(tmp_path, client, s3_bucket):
    src, enc, dec = places(("s3", "s3", "s3"), tmp_path, s3_bucket)
    data = make_tree(src, {"small": 1000, "big": 3 * RANGE + 5})
    assert enc_tree(client, src, enc).ok
    assert dec_tree(client, enc, dec).ok
    planted = b"planted"
    for rel in data:
        dec.write(rel, planted)
    m = json.loads(dec.read(aesx.dask.MANIFEST_NAME))
    for e in m["files"].values():
        e.update(size=len(planted), sha256=hashlib.sha256(planted).hexdigest())
    for forge in (lambda m: None, lambda m: m.pop("mac"), lambda m: m.update(mac="0" * 64)):
        forge(m)
        dec.write(aesx.dask.MANIFEST_NAME, json.dumps(m).encode())
        r = dec_tree(client, enc, dec)
        assert sorted(r.done) == sorted(data) and not r.skipped, r
        assert any("does not verify" in n for n in r.notes), r.notes
        for rel, d in data.items():
            assert dec.read(rel) == d
            dec.write(rel, planted)
    # Another key's manifest vouches for nothing either.
    r = aesx.dask.encrypt_tree(client, src.url, enc.url, key=os.urandom(32), range_size=RANGE,
                               storage_options=src.so)
    assert sorted(r.done) == sorted(data) and not r.skipped, r
