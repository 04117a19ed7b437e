"""aesx.cuda on device arrays: GB/s of each call, and the host path for
comparison (the same bytes copied to the host, aesx.AESGCM there, back).

    python python/benchmarks/cuda_bench.py            # 256 MiB, CuPy or PyTorch
    python python/benchmarks/cuda_bench.py --mib 1024 --lib torch

Each figure is the best of --rounds timed calls after one warm-up call; the
stream is synchronised before the clock stops, so queued work is counted.

For Python users with data on the GPU (CuPy, PyTorch): what `aesx.cuda`
costs on their arrays. The kernels alone are aesx-cuda's `cuda_bench`
example; the other benchmark homes are listed at the top of
crates/aesx/benches/modes.rs.
"""

import argparse
import os
import tempfile
import time

import aesx
import aesx.cuda as cuda


def lib_arrays(name, nbytes):
    if name in ("auto", "cupy"):
        try:
            import cupy as cp

            a = cp.random.randint(0, 256, nbytes, dtype=cp.uint8)
            return "cupy", a, lambda: cp.cuda.get_current_stream().synchronize()
        except ImportError:
            if name == "cupy":
                raise
    import torch

    a = torch.randint(0, 256, (nbytes,), dtype=torch.uint8, device="cuda")
    return "torch", a, torch.cuda.synchronize


def best(fn, sync, rounds):
    fn()
    sync()
    times = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return min(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--mib", type=int, default=256)
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--lib", choices=["auto", "cupy", "torch"], default="auto")
    args = p.parse_args()
    if not cuda.available():
        raise SystemExit("no CUDA GPU: " + str(_why()))
    n = args.mib << 20
    name, x, sync = lib_arrays(args.lib, n)
    info = cuda.device_info()
    print(f"{info['name']} ({info['arch']}), {name}, {args.mib} MiB, best of {args.rounds}")
    key, nonce = bytes(32), bytes(12)
    g = cuda.AESGCM(key)
    tag = g.encrypt_into(nonce, x, None)
    g.decrypt_into(nonce, x, tag, None)
    stride = 16384
    nonces = [i.to_bytes(12, "big") for i in range(n // stride + 1)]
    cases = [
        ("gcm encrypt_into (in place)", lambda: g.encrypt_into(nonce, x, None)),
        ("gcm encrypt (new buffer)", lambda: g.encrypt(nonce, x, None)),
        ("gcm seal_many 16 KiB", lambda: g.seal_many(nonces, x, stride)),
        ("ctr in place", lambda: cuda.CTR(key).apply(bytes(16), x, out=x)),
        ("ecb in place", lambda: cuda.ECB(key).encrypt(x, out=x)),
        ("xts 4 KiB sectors", lambda: cuda.XTS(bytes(range(64))).encrypt_sectors(x, 4096, 0, out=x)),
    ]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "x.aesx")
        cases.append(
            ("encrypt_to_file", lambda: cuda.encrypt_to_file(x, path, key=key, force=True))
        )
        host = bytes(n)
        cpu = aesx.AESGCM(key)
        cases.append(("host aesx.AESGCM (CPU, no copies)", lambda: cpu.encrypt(nonce, host, None)))
        for label, fn in cases:
            t = best(fn, sync, args.rounds)
            print(f"  {label:38s} {n / t / 1e9:8.2f} GB/s")


def _why():
    try:
        cuda.device_info()
    except cuda.NoDeviceError as e:
        return e
    return "unknown"


if __name__ == "__main__":
    main()
