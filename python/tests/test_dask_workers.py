"""aesx.dask trees when workers die or fail: a worker process SIGKILLed by
the test while it holds a file's ranges, a task that raises on a worker, a
source that vanishes mid-run. The run completes on the other workers or
reports the files failed; no output holds unverified or partial data; a
rerun finishes the rest, skipping only what the manifest proves. Local and
S3 (conftest's loopback moto server) destinations."""

import os
import signal
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

import aesx  # noqa: E402
import aesx.dask  # noqa: E402

from test_dask_s3 import KEY, Place  # noqa: E402

RANGE = 65536


def cluster_client(allowed_failures=None):
    cfg = {} if allowed_failures is None else {"distributed.scheduler.allowed-failures": allowed_failures}
    with dask.config.set(cfg):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None)
    return cluster, distributed.Client(cluster)


@pytest.fixture
def client():
    cluster, c = cluster_client()
    try:
        yield c
    finally:
        c.close()
        cluster.close()


def files_for_kill():
    # Many ranges per file, so that a worker is caught holding some.
    files = {f"big/{i}": 24 * RANGE + i for i in range(4)}
    files.update({f"small/{i}": 100 + i for i in range(6)})
    return files


def setup(tmp_path, s3_bucket, kinds, files):
    src = Place(kinds[0], tmp_path, s3_bucket, "src")
    dst = Place(kinds[1], tmp_path, s3_bucket, "enc")
    data = {rel: os.urandom(n) for rel, n in files.items()}
    for rel, d in data.items():
        src.write(rel, d)
    so = src.so or dst.so
    return src, dst, data, so


def check_clean(dst, done):
    """dst holds the outputs of the done files and the manifest, nothing
    else: no output of a failed file, no temporary, no part."""
    assert dst.leftovers() == []
    assert set(dst.keys()) == set(done) | {aesx.dask.MANIFEST_NAME}


def check_outputs(client, dst, data, done, so, tmp_path):
    """Every output of a done file decrypts to its source; nothing else is at
    dst."""
    check_clean(dst, done)
    back = tmp_path / f"back-{time.monotonic_ns()}"
    r = aesx.dask.decrypt_tree(client, dst.url, str(back), key=KEY, range_size=RANGE, storage_options=so)
    assert r.ok, r
    for rel in done:
        assert (back / rel).read_bytes() == data[rel], rel


def kill_a_worker_holding_ranges(client, pids, stop):
    """SIGKILLs the first worker seen with range tasks of the run; returns
    its address, or None if the run ended first."""
    while not stop.is_set():
        for addr, keys in client.processing().items():
            if any("_range_task" in str(k) for k in keys) and addr in pids:
                os.kill(pids[addr], signal.SIGKILL)
                return addr
        time.sleep(0.005)
    return None


def run_in_thread(fn):
    out = {}

    def target():
        try:
            out["report"] = fn()
        except BaseException as e:  # noqa: BLE001 - re-raised in the test
            out["error"] = e

    t = threading.Thread(target=target)
    t.start()
    return t, out


KINDS = [("local", "local"), ("local", "s3"), ("s3", "local")]


@pytest.mark.parametrize("allowed_failures", [None, 0], ids=["retried", "reported"])
@pytest.mark.parametrize("kinds", KINDS, ids=["-".join(k) for k in KINDS])
def test_worker_sigkilled_mid_file(tmp_path, s3_bucket, kinds, allowed_failures):
    cluster, client = cluster_client(allowed_failures)
    try:
        files = files_for_kill()
        src, dst, data, so = setup(tmp_path, s3_bucket, kinds, files)
        pids = client.run(os.getpid)
        stop = threading.Event()
        t, out = run_in_thread(lambda: aesx.dask.encrypt_tree(
            client, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so))
        try:
            killed = kill_a_worker_holding_ranges(client, pids, stop)
        finally:
            stop.set()
            t.join(300)
        assert not t.is_alive()
        if "error" in out:
            raise out["error"]
        r = out["report"]
        assert killed is not None, "the run ended before a worker could be killed"
        # Every file accounted for.
        assert set(r.done) | set(r.failed) == set(files) and not set(r.done) & set(r.failed), r
        if allowed_failures is None:
            # The scheduler reruns the lost tasks on the other worker.
            assert r.ok, r
        else:
            # No retries: the files the dead worker held fail, reported.
            assert r.failed and all("KilledWorker" in m or "worker" in m.lower() for m in r.failed.values()), r
        check_clean(dst, r.done)
        # A rerun finishes the rest and skips exactly what was proven.
        r2 = aesx.dask.encrypt_tree(client, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so)
        assert r2.ok and sorted(r2.skipped) == sorted(r.done) and sorted(r2.done) == sorted(r.failed), r2
        check_outputs(client, dst, data, files, so, tmp_path)
    finally:
        client.close()
        cluster.close()


class _Sabotage:
    """A client that lets the test act on one file's tasks: `on_range` may
    replace the submission of its first range task, `on_commit` runs just
    before its final task is sent (with its range futures in hand)."""

    def __init__(self, client, victim, on_range=None, on_commit=None):
        self._c, self.victim = client, victim
        self.on_range, self.on_commit = on_range, on_commit
        self.ranges = []

    def submit(self, fn, *args, **kw):
        if args and args[0] == self.victim:
            if fn is aesx.dask._range_task:
                if self.on_range is not None and not self.ranges:
                    f = self.on_range(self._c)
                else:
                    f = self._c.submit(fn, *args, **kw)
                self.ranges.append(f)
                return f
            if fn in (aesx.dask._commit_task, aesx.dask._commit_local_task) and self.on_commit:
                self.on_commit(self.ranges)
        return self._c.submit(fn, *args, **kw)

    def cancel(self, futs):
        return self._c.cancel(futs)


@pytest.mark.parametrize("kinds", KINDS, ids=["-".join(k) for k in KINDS])
def test_task_that_raises_on_a_worker(tmp_path, client, s3_bucket, kinds):
    files = {"victim": 8 * RANGE + 3, "other": 5 * RANGE, "small": 10}
    src, dst, data, so = setup(tmp_path, s3_bucket, kinds, files)
    # The victim's first range is replaced by a task that raises on the
    # worker (outside aesx's own error handling): its join never runs.
    sab = _Sabotage(client, "victim", on_range=lambda c: c.submit(int, "not a number", pure=False))
    r = aesx.dask.encrypt_tree(sab, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so)
    assert set(r.failed) == {"victim"} and "ValueError" in r.failed["victim"], r
    assert sorted(r.done) == ["other", "small"], r
    check_clean(dst, r.done)
    r2 = aesx.dask.encrypt_tree(client, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so)
    assert r2.ok and r2.done == ["victim"] and sorted(r2.skipped) == ["other", "small"], r2
    check_outputs(client, dst, data, files, so, tmp_path)


@pytest.mark.parametrize("kinds", KINDS, ids=["-".join(k) for k in KINDS])
def test_source_vanishes_mid_run(tmp_path, client, s3_bucket, kinds):
    files = {"victim": 8 * RANGE + 3, "other": 5 * RANGE, "small": 10}
    src, dst, data, so = setup(tmp_path, s3_bucket, kinds, files)

    def vanish(ranges):
        ranges[0].result()  # a range of it is done: mid-file
        src.fs.rm(src.path("victim"))

    sab = _Sabotage(client, "victim", on_commit=vanish)
    r = aesx.dask.encrypt_tree(sab, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so)
    assert set(r.failed) == {"victim"}, r
    assert "vanished" in r.failed["victim"] or "No such file" in r.failed["victim"], r
    assert sorted(r.done) == ["other", "small"], r
    check_clean(dst, r.done)
    r2 = aesx.dask.encrypt_tree(client, src.url, dst.url, key=KEY, range_size=RANGE, storage_options=so)
    assert r2.ok and not r2.done and sorted(r2.skipped) == ["other", "small"], r2
    check_outputs(client, dst, data, ["other", "small"], so, tmp_path)


def test_join_that_fails_mid_upload_publishes_nothing(tmp_path, client, s3_bucket):
    """The join of a large file into S3 fails after some of its multipart
    upload went up (one of its range parts is gone): the upload is aborted,
    nothing appears at the key, no upload stays open, the parts are removed;
    a rerun writes it whole."""
    name, so = s3_bucket
    so = dict(so, default_block_size=5 * 2**20)  # S3's smallest part
    src = Place("local", tmp_path, s3_bucket, "src")
    dst = Place("s3", tmp_path, s3_bucket, "enc")
    dst.so = so
    data = {"big": os.urandom(7 * 2**20 + 11), "small": b"x"}
    for rel, d in data.items():
        src.write(rel, d)

    def lose_last_part(ranges):
        dst.fs.rm(ranges[-1].result()["part"])

    sab = _Sabotage(client, "big", on_commit=lose_last_part)
    r = aesx.dask.encrypt_tree(sab, src.url, dst.url, key=KEY, range_size=2**20, storage_options=so)
    assert set(r.failed) == {"big"} and r.done == ["small"], r
    check_clean(dst, r.done)
    assert dst.fs.call_s3("list_multipart_uploads", Bucket=name).get("Uploads", []) == []
    r2 = aesx.dask.encrypt_tree(client, src.url, dst.url, key=KEY, range_size=2**20, storage_options=so)
    assert r2.ok and r2.done == ["big"] and r2.skipped == ["small"], r2
    check_outputs(client, dst, data, data, so, tmp_path)
