"""aesx.dask tree throughput on 1, 2, 4 ... worker processes of a
LocalCluster, local and on S3 (moto's server on loopback, through s3fs),
with where the time went and each worker's peak memory.

    python python/benchmarks/tree_bench.py --gib 2 --workers 1,2,4
    python python/benchmarks/tree_bench.py --gib 2 --s3 --workers 1,2,4
    python python/benchmarks/tree_bench.py --sparse-gib 10 --workers 1

The tree: half the bytes in many 1 MiB files (one task each), half in
four large files (split into ranges). `--sparse-gib N` instead encrypts one sparse N GiB
file: peak worker memory must stay a few ranges, whatever N.

Prints a table (GB/s of plaintext encrypted, and the report's timings: the
driver's list/plan/manifest, and the workers' read/crypt/write/join summed
over tasks, so over the wall time they can add up to more than 1 per
worker) and, with --json, one JSON object per run.
"""

import argparse
import json
import os
import resource
import shutil
import sys
import tempfile
import time


def peak_rss_mib():
    """This process's peak resident memory, MiB. VmHWM, not getrusage's
    ru_maxrss: a worker is forked (then exec'd) from a driver that may hold
    gigabytes (the S3 server here), and Linux carries ru_maxrss across fork
    and exec, while VmHWM belongs to the process's own address space."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def make_tree(root, total, block):
    """Half of `total` in 1 MiB files, half in four large files. Content is
    a random block repeated (the cipher's speed does not depend on it)."""
    os.makedirs(root, exist_ok=True)
    small = 1 << 20
    n_small = (total // 2) // small
    for i in range(n_small):
        d = os.path.join(root, f"many/{i % 16:02d}")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, f"f{i:05d}"), "wb") as f:
            f.write(block[:small])
    large = (total - n_small * small) // 4
    os.makedirs(os.path.join(root, "large"), exist_ok=True)
    for i in range(4):
        with open(os.path.join(root, f"large/L{i}"), "wb") as f:
            left = large
            while left:
                n = min(left, len(block))
                f.write(block[:n])
                left -= n
    return n_small + 4


def upload_tree(fs, local_root, bucket_root):
    fs.put(local_root + "/", bucket_root, recursive=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=2.0, help="tree size")
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--range-mib", type=int, default=64)
    ap.add_argument("--s3", action="store_true", help="src and dst on a loopback S3 server")
    ap.add_argument("--sparse-gib", type=float, default=0, help="one sparse file of this size instead")
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()

    import distributed

    import aesx
    import aesx.dask

    key = os.urandom(32)
    scratch = tempfile.mkdtemp(prefix="aesx-tree-bench-", dir=a.scratch)
    server = None
    so = None
    try:
        src = os.path.join(scratch, "src")
        if a.sparse_gib:
            os.makedirs(src)
            total = int(a.sparse_gib * 2**30)
            with open(os.path.join(src, "sparse"), "wb") as f:
                f.truncate(total)
            n_files = 1
        else:
            total = int(a.gib * 2**30)
            n_files = make_tree(src, total, os.urandom(16 << 20))
        src_url = src
        dst_base = scratch
        if a.s3:
            import s3fs
            from moto.server import ThreadedMotoServer

            server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
            server.start()
            _, port = server.get_host_and_port()
            so = {"key": "bench", "secret": "bench", "use_listings_cache": False,
                  "client_kwargs": {"endpoint_url": f"http://127.0.0.1:{port}", "region_name": "us-east-1"}}
            fs = s3fs.S3FileSystem(**so)
            fs.call_s3("create_bucket", Bucket="aesx-bench")
            t0 = time.perf_counter()
            upload_tree(fs, src, "aesx-bench/src")
            print(f"# uploaded the tree to S3 in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
            shutil.rmtree(src)
            src_url = "s3://aesx-bench/src"
            dst_base = "s3://aesx-bench"

        print(f"# aesx {aesx.__version__}, backends {aesx.backends()}, {os.cpu_count()} CPUs;"
              f" tree {total / 2**30:.2f} GiB in {n_files} files; range {a.range_mib} MiB;"
              f" {'S3 (moto, loopback)' if a.s3 else 'local'}")
        head = f"{'workers':>7} {'wall s':>7} {'GB/s':>6} {'peak MiB/worker':>15}  timings (s)"
        print(head)
        for w in [int(x) for x in a.workers.split(",")]:
            dst = f"{dst_base}/enc-{w}"
            with distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True,
                                          dashboard_address=None, memory_limit=0) as cluster:
                with distributed.Client(cluster) as client:
                    t0 = time.perf_counter()
                    r = aesx.dask.encrypt_tree(client, src_url, dst, key=key,
                                               range_size=a.range_mib << 20, storage_options=so)
                    wall = time.perf_counter() - t0
                    peaks = client.run(peak_rss_mib)
            r.raise_for_failures()
            gbs = r.bytes_in / wall / 1e9
            tm = " ".join(f"{k}={v:.1f}" for k, v in sorted(r.timings.items()))
            print(f"{w:>7} {wall:>7.2f} {gbs:>6.2f} {max(peaks.values()):>15.0f}  {tm}")
            if a.json:
                print(json.dumps({"workers": w, "s3": a.s3, "bytes": r.bytes_in, "wall_s": wall, "gb_s": gbs,
                                  "peak_rss_mib": sorted(peaks.values()), "timings": r.timings,
                                  "range_mib": a.range_mib}))
            # Free the space (and moto's memory) before the next run.
            if a.s3:
                fs.rm(dst.replace("s3://", ""), recursive=True)
            else:
                shutil.rmtree(dst)
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
