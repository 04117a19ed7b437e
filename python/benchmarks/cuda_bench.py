"""aesx.cuda on device arrays: GB/s of each call, and the host path for
comparison (the same bytes copied to the host, aesx.AESGCM there, back).

    python python/benchmarks/cuda_bench.py            # 256 MiB, CuPy or PyTorch
    python python/benchmarks/cuda_bench.py --mib 1024 --lib torch
    python python/benchmarks/cuda_bench.py --state-dict-mib 1024   # PyTorch

--state-dict-mib N times a PyTorch state_dict of N MiB of CUDA tensors
saved encrypted (``torch.save`` to memory, the bytes to the GPU,
``aesx.cuda.encrypt_to_file``) and loaded back (``decrypt_from_file``,
``torch.load``, compared tensor by tensor) beside ``torch.save`` and
``torch.load`` of the same dict alone, in the same directory (``--dir``,
default a temporary directory: put it on the disk you care about).

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
    p.add_argument("--state-dict-mib", type=int, default=0)
    p.add_argument("--dir", default=None)
    args = p.parse_args()
    if not cuda.available():
        raise SystemExit("no CUDA GPU: " + str(_why()))
    if args.state_dict_mib:
        return state_dict(args.state_dict_mib, args.dir)
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


def state_dict(mib, where):
    """Saves and loads a state_dict of `mib` MiB of CUDA tensors, encrypted
    through the GPU and plain, and checks the round trip tensor by tensor."""
    import io

    import torch

    key = os.urandom(32)
    # 64 MiB tensors of float32, as a large model's layers come.
    per = 16 << 20
    sd = {
        f"layer{i}.weight": torch.randn(per, device="cuda")
        for i in range(max(1, (mib << 20) // (4 * per)))
    }
    total = sum(t.numel() * t.element_size() for t in sd.values())
    torch.cuda.synchronize()
    with tempfile.TemporaryDirectory(dir=where) as d:
        plain, enc = os.path.join(d, "sd.pt"), os.path.join(d, "sd.pt.aesx")

        def timed(fn):
            t0 = time.perf_counter()
            r = fn()
            torch.cuda.synchronize()
            return r, time.perf_counter() - t0

        def save_encrypted():
            b = io.BytesIO()
            torch.save(sd, b)
            blob = torch.frombuffer(b.getbuffer(), dtype=torch.uint8).cuda()
            cuda.encrypt_to_file(blob, enc, key=key, force=True)
            return len(b.getbuffer())

        def load_encrypted():
            buf = cuda.decrypt_from_file(enc, key=key)
            return torch.load(io.BytesIO(buf.to_bytes()), map_location="cuda")

        _, t_save = timed(lambda: torch.save(sd, plain))
        _, t_load = timed(lambda: torch.load(plain, map_location="cuda"))
        nbytes, t_save_enc = timed(save_encrypted)
        back, t_load_enc = timed(load_encrypted)
        exact = back.keys() == sd.keys() and all(torch.equal(back[k], v) for k, v in sd.items())
        print(f"state_dict of {len(sd)} CUDA tensors, {total / 2**30:.2f} GiB ({nbytes} bytes serialised), in {d}")
        print(f"  torch.save alone           {t_save:7.3f} s  {total / t_save / 1e9:6.2f} GB/s")
        print(f"  saved encrypted (aesx.cuda) {t_save_enc:7.3f} s  {total / t_save_enc / 1e9:6.2f} GB/s")
        print(f"  torch.load alone           {t_load:7.3f} s  {total / t_load / 1e9:6.2f} GB/s")
        print(f"  loaded encrypted           {t_load_enc:7.3f} s  {total / t_load_enc / 1e9:6.2f} GB/s")
        print(f"  round trip byte-exact: {exact}")
        if not exact:
            raise SystemExit("state_dict: the encrypted round trip changed the tensors")


def _why():
    try:
        cuda.device_info()
    except cuda.NoDeviceError as e:
        return e
    return "unknown"


if __name__ == "__main__":
    main()
