"""aesx.dask on a LocalCluster with 2 worker processes."""

import json
import hashlib
import os
import subprocess

import pytest

distributed = pytest.importorskip("distributed")

import aesx  # noqa: E402
import aesx.dask  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as c:
            yield c


FILES = {
    "a.txt": 10,
    "empty": 0,
    "sub/one_chunk": 16384,
    "sub/deeper/x.bin": 5 * 16384 + 7,
    "big/exact": 4 * 65536,  # a whole number of ranges
    "big/odd": 3 * 65536 + 999,
}
RANGE = 65536


def make_tree(root):
    for rel, n in FILES.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(os.urandom(n))


def test_round_trip_manifest_rerun_and_cli(tmp_path, client, cli):
    src, enc, dec = tmp_path / "src", tmp_path / "enc", tmp_path / "dec"
    make_tree(src)
    key = os.urandom(32)
    r = aesx.dask.encrypt_tree(client, str(src), str(enc), key=key, range_size=RANGE)
    assert r.ok and sorted(r.done) == sorted(FILES) and not r.skipped, r
    m = json.loads((enc / "aesx-manifest.json").read_text())
    assert set(m["files"]) == set(FILES)
    for rel, e in m["files"].items():
        ct = (enc / rel).read_bytes()
        assert e["size"] == len(ct) and e["sha256"] == hashlib.sha256(ct).hexdigest()
        assert e["source_size"] == FILES[rel]
    # The CLI reads what the cluster wrote (ranged files included).
    (tmp_path / "k").write_text(key.hex() + "\n")
    for rel in FILES:
        out = tmp_path / "cli.out"
        subprocess.run([cli, "decrypt", "-q", "-f", "-k", tmp_path / "k", "-o", out, enc / rel], check=True)
        assert out.read_bytes() == (src / rel).read_bytes(), rel
    # A re-run skips everything that is done and verified...
    r = aesx.dask.encrypt_tree(client, src, enc, key=key, range_size=RANGE)
    assert r.ok and not r.done and sorted(r.skipped) == sorted(FILES), r
    # ...and redoes what changed or was damaged.
    (enc / "a.txt").write_bytes(b"damaged")
    (src / "sub" / "one_chunk").write_bytes(os.urandom(100))
    r = aesx.dask.encrypt_tree(client, src, enc, key=key, range_size=RANGE)
    assert sorted(r.done) == ["a.txt", "sub/one_chunk"], r
    # Decrypt the tree back, by ranges and whole.
    r = aesx.dask.decrypt_tree(client, enc, dec, key=key.hex(), range_size=RANGE)
    assert r.ok and sorted(r.done) == sorted(FILES), r
    for rel in FILES:
        assert (dec / rel).read_bytes() == (src / rel).read_bytes(), rel
    assert not [p for p in dec.rglob("*") if ".aesx-" in p.name]


def test_failures_reported_per_file_nothing_half_written(tmp_path, client):
    src, enc, dec = tmp_path / "src", tmp_path / "enc", tmp_path / "dec"
    make_tree(src)
    key = os.urandom(32)
    assert aesx.dask.encrypt_tree(client, src, enc, key=key, range_size=RANGE).ok
    b = bytearray((enc / "big" / "odd").read_bytes())
    b[len(b) // 2] ^= 1
    (enc / "big" / "odd").write_bytes(b)
    (enc / "sub" / "deeper" / "x.bin").write_bytes((enc / "sub" / "deeper" / "x.bin").read_bytes()[:-3])
    (enc / "junk").write_bytes(b"not an aesx file")
    r = aesx.dask.decrypt_tree(client, enc, dec, key=key, range_size=RANGE)
    assert set(r.failed) == {"big/odd", "sub/deeper/x.bin", "junk"}, r
    assert "failed authentication" in r.failed["big/odd"]
    assert "not an aesx" in r.failed["junk"]
    assert sorted(r.done) == sorted(set(FILES) - {"big/odd", "sub/deeper/x.bin"})
    assert not (dec / "big" / "odd").exists() and not (dec / "sub" / "deeper" / "x.bin").exists()
    assert not [p for p in dec.rglob("*") if ".aesx-" in p.name]
    with pytest.raises(RuntimeError, match="3 file"):
        r.raise_for_failures()
    # Wrong key: every file fails, nothing is written.
    r = aesx.dask.decrypt_tree(client, enc, tmp_path / "dec2", key=os.urandom(32), range_size=RANGE)
    assert len(r.failed) == len(FILES) + 1 and not r.done
    assert [p.name for p in (tmp_path / "dec2").rglob("*")] == ["aesx-manifest.json"]
