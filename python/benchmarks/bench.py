"""aesx vs cryptography (pyca) in one process, interleaved rounds.

    python python/benchmarks/bench.py            # AESGCM sizes, threads
    python python/benchmarks/bench.py --dask     # also a Dask LocalCluster tree

Each figure is the median of several rounds; within a round aesx and pyca
alternate, so machine noise hits both alike. Ratios are what to compare.

For Python users: what the package costs through CPython (call overhead,
buffers, the GIL released across threads, Dask) against the library they
would otherwise import. The Rust library's own speed against OpenSSL,
AWS-LC, ring and RustCrypto is `aesx bench`'s (docs/BENCHMARKS.md); the
other benchmark homes are listed at the top of crates/aesx/benches/modes.rs.
"""

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time

from cryptography.hazmat.primitives.ciphers.aead import AESGCM as PycaAESGCM

import aesx


def per_call(fn, target_s=0.2):
    n = 1
    while True:
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        dt = time.perf_counter() - t0
        if dt >= target_s:
            return dt / n
        n = max(n * 2, int(n * target_s / max(dt, 1e-9)))


def gcm_sizes(rounds):
    key = os.urandom(32)
    nonce = os.urandom(12)
    rows = []
    for size in (16, 64, 256, 1500, 8192, 65536, 1 << 20):
        data = os.urandom(size)
        ours, theirs = aesx.AESGCM(key), PycaAESGCM(key)
        r_ours, r_theirs = [], []
        for _ in range(rounds):
            r_ours.append(per_call(lambda: ours.encrypt(nonce, data, None)))
            r_theirs.append(per_call(lambda: theirs.encrypt(nonce, data, None)))
        a, b = statistics.median(r_ours), statistics.median(r_theirs)
        rows.append((size, a, b))
        print(
            f"AESGCM.encrypt {size:>8} B  aesx {a * 1e6:9.2f} us ({size / a / 1e9:6.2f} GB/s)"
            f"  cryptography {b * 1e6:9.2f} us ({size / b / 1e9:6.2f} GB/s)  ratio {b / a:5.2f}x",
            flush=True,
        )
    return rows


def threads_scaling(rounds, size=1 << 20, calls=200):
    key = os.urandom(32)
    g = aesx.AESGCM(key)
    data = os.urandom(size)
    nonce = os.urandom(12)

    def work(k):
        for _ in range(k):
            g.encrypt(nonce, data, None)

    res = {}
    for n in (1, 2):
        times = []
        for _ in range(rounds):
            ts = [threading.Thread(target=work, args=(calls,)) for _ in range(n)]
            t0 = time.perf_counter()
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            times.append(time.perf_counter() - t0)
        res[n] = n * calls * size / statistics.median(times)
        print(f"AESGCM.encrypt 1 MiB, {n} thread(s): {res[n] / 1e9:6.2f} GB/s", flush=True)
    print(f"2 threads / 1 thread: {res[2] / res[1]:.2f}x (CPU cores: {os.cpu_count()})", flush=True)
    return res


def dask_tree(files=8, size=32 << 20, workers=2):
    from dask.distributed import Client, LocalCluster

    import aesx.dask

    with tempfile.TemporaryDirectory() as t:
        src = os.path.join(t, "src")
        os.makedirs(src)
        block = os.urandom(1 << 20)
        for i in range(files):
            with open(os.path.join(src, f"f{i:03d}.bin"), "wb") as f:
                for _ in range(size >> 20):
                    f.write(block)
        total = files * size
        key = os.urandom(32)
        # One process, one file after another (encrypt_file uses all cores).
        t0 = time.perf_counter()
        os.makedirs(os.path.join(t, "one"))
        for i in range(files):
            aesx.encrypt_file(
                os.path.join(src, f"f{i:03d}.bin"), os.path.join(t, "one", f"f{i:03d}.bin"), key=key
            )
        one = total / (time.perf_counter() - t0)
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                          dashboard_address=None) as cl, Client(cl) as c:
            c.run(lambda: None)
            r = aesx.dask.encrypt_tree(c, src, os.path.join(t, "dask"), key=key)
            assert r.ok, r
            cluster = total / r.seconds
        print(
            f"tree of {files} x {size >> 20} MiB: one process (encrypt_file) {one / 1e9:.2f} GB/s,"
            f" Dask LocalCluster {workers} workers {cluster / 1e9:.2f} GB/s"
            f" (ratio {cluster / one:.2f}x; includes manifest hashing)",
            flush=True,
        )


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--dask", action="store_true")
    a = ap.parse_args()
    print(f"aesx backend {aesx.default_backend()}; python {sys.version.split()[0]}", flush=True)
    gcm_sizes(a.rounds)
    threads_scaling(a.rounds)
    if a.dask:
        dask_tree()


if __name__ == "__main__":
    main()
