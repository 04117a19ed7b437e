#!/usr/bin/env python3
"""Offline view of the aesx CUDA kernels: no GPU, no CUDA toolkit.

Installs NVIDIA's PyPI wheels into a private directory under target/
(ptxas from nvidia-cuda-nvcc-cu12, libnvrtc from nvidia-cuda-nvrtc-cu12,
cuobjdump and nvdisasm from nvidia-cuda-cuobjdump / nvidia-cuda-nvdisasm,
which PyPI only has as 13.x; both read sm_80/sm_90 cubins), has aesx itself
produce its PTX with NVRTC (the `ptx_cache` example: the exact source and
options that `Gpu::new` compiles), assembles it with ptxas for sm_90 and
sm_80, and prints per kernel:

- registers and spill bytes (ptxas -v),
- (into --sass-dir: the cubins and the SASS listings of cuobjdump and of
  nvdisasm, whose instruction count is checked against cuobjdump's),
- SASS size in instructions and bytes (cuobjdump -sass),
- the round loop (the backward branch whose body holds the most LOP3) by
  instruction class, and the instructions per 32 blocks (one thread's tile)
  for AES-128 and AES-256,
- the throughput those counts allow on an H100 SXM / H200, with the formula.

The bounds are predictions from static instruction counts, never
measurements: they ignore memory, latency, instruction-cache misses and
occupancy, so a kernel can only be slower than them.

Usage:
    python3 crates/aesx-cuda/tools/kernel_view.py [--arch sm_90,sm_80]
        [--markdown] [--sass-dir DIR]
"""

import argparse
import collections
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
TOOLS = os.path.join(ROOT, "target", "kernel-view")
PKGS = os.path.join(TOOLS, "pkgs")
# ptxas and libnvrtc of one CUDA release; the disassemblers come from 13.x
# (no 12.x wheel exists), which still disassemble sm_80 and sm_90.
WHEELS = [
    "nvidia-cuda-nvcc-cu12==12.9.*",
    "nvidia-cuda-nvrtc-cu12==12.9.*",
    "nvidia-cuda-cuobjdump==13.*",
    "nvidia-cuda-nvdisasm==13.*",
]

# The machine model. H100 SXM5 and H200 share the GH100 die configuration
# (132 SMs) and the boost clock; only memory differs, which these bounds
# ignore. The integer/logic pipe: 64 lanes per SM per cycle (CUDA C
# Programming Guide, "Arithmetic Instructions": 32-bit bitwise AND/OR/XOR,
# 32-bit integer add and shift at 64 results per clock per SM for compute
# capability 8.0 and 9.0; LOP3 is assumed to share that pipe). Issue: 4
# schedulers per SM, one warp instruction (32 lanes) per cycle each.
# sm_80: A100 SXM, 108 SMs at a 1.41 GHz boost clock (same pipe widths).
GPUS = {
    "sm_90": [("H100 SXM", 132, 1.98e9), ("H200", 132, 1.98e9)],
    "sm_80": [("A100 SXM", 108, 1.41e9)],
}
ALU_LANES = 64
ISSUE_LANES = 128
BLOCK_BYTES = 16
TILE_BLOCKS = 32


def tool(path):
    return os.path.join(PKGS, "nvidia", path)


PTXAS = tool("cuda_nvcc/bin/ptxas")
CUOBJDUMP = tool("cu13/bin/cuobjdump")
NVDISASM = tool("cu13/bin/nvdisasm")
NVRTC_LIB = tool("cuda_nvrtc/lib")


def install():
    have = all(os.path.exists(p) for p in (PTXAS, CUOBJDUMP, NVDISASM)) and os.path.exists(
        os.path.join(NVRTC_LIB, "libnvrtc.so.12")
    )
    if have:
        return
    os.makedirs(PKGS, exist_ok=True)
    args = [sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-warn-script-location", "--no-deps", "--target", PKGS] + WHEELS
    # --target never touches the system's packages; Debian's
    # EXTERNALLY-MANAGED guard may still refuse it without this flag.
    if subprocess.call(args, stderr=subprocess.DEVNULL) != 0:
        subprocess.check_call(args + ["--break-system-packages"])


def make_ptx(archs):
    """PTX from aesx's own NVRTC call, one file per virtual architecture."""
    cache = os.path.join(TOOLS, "ptx")
    env = dict(os.environ)
    env["AESX_CUDA_CACHE_DIR"] = cache
    env["LD_LIBRARY_PATH"] = NVRTC_LIB + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    virt = [a.replace("sm_", "compute_") for a in archs]
    out = subprocess.run(
        ["cargo", "run", "--quiet", "-p", "aesx-cuda", "--example", "ptx_cache", "--"] + virt,
        cwd=ROOT, env=env, check=True, capture_output=True, text=True,
    ).stdout
    paths = {}
    for line in out.splitlines():
        arch, _, path = line.partition(": ")
        paths[arch.replace("compute_", "sm_")] = path.strip()
    return paths


def ptxas(ptx, arch, cubin):
    r = subprocess.run([PTXAS, "-v", f"-arch={arch}", "-o", cubin, ptx],
                       check=True, capture_output=True, text=True)
    info = {}
    cur = None
    for line in r.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            cur = info.setdefault(m.group(1), {"regs": 0, "spill_st": 0, "spill_ld": 0})
        m = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur is not None:
            cur["spill_st"], cur["spill_ld"] = int(m.group(1)), int(m.group(2))
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
    return info


INSN = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?);")


def sass(cubin):
    """{kernel: [(address, opcode, text)]} from cuobjdump -sass."""
    out = subprocess.run([CUOBJDUMP, "-sass", cubin], check=True, capture_output=True,
                         text=True).stdout
    funcs = {}
    cur = None
    for line in out.splitlines():
        m = re.search(r"Function : (\w+)", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.search(line)
        if m and cur is not None:
            text = m.group(2).strip()
            body = re.sub(r"^@!?U?P\w+\s+", "", text)
            op = body.split()[0] if body else "?"
            cur.append((int(m.group(1), 16), op, text))
    return out, funcs


def klass(op):
    base = op.split(".")[0]
    if base in ("LOP3", "ULOP3", "LOP", "PLOP3", "UPLOP3"):
        return "LOP3"
    if base in ("SHF", "SHL", "SHR", "USHF"):
        return "shift"
    if base in ("IADD3", "IADD", "VIADD", "UIADD3", "LEA", "ULEA", "IABS", "IMNMX"):
        return "IADD"
    if base in ("IMAD", "IMUL", "UIMAD", "MOV", "UMOV", "CS2R", "S2R", "S2UR", "R2UR"):
        return "IMAD/MOV"
    if base in ("PRMT", "UPRMT", "SEL", "USEL", "ISETP", "UISETP", "ICMP", "BMSK", "BREV",
                "FLO", "POPC", "P2R", "R2P", "NOP"):
        return "other ALU"
    if base.startswith(("LDG", "LDC", "ULDC", "LD", "LDS", "LDL")):
        return "loads"
    if base.startswith(("STG", "ST", "STS", "STL")):
        return "stores"
    if base in ("BRA", "BRX", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "JMP", "BREAK"):
        return "branch"
    return "other"


# Instructions that go down the 64-lane integer/logic pipe (the ALU bound):
# LOP3, shifts, integer adds, PRMT, SEL, compares. IMAD (also the compiler's
# register move) and MOV issue to the FMA pipe or are moves; uniform-datapath
# instructions (U*) run on the uniform unit: all of these count in the issue
# bound only.
def on_alu_pipe(op):
    base = op.split(".")[0]
    if base.startswith("U") or base == "NOP":
        return False
    return klass(op) in ("LOP3", "shift", "IADD", "other ALU")


def loops(insns):
    """Backward branches as (start, end) address ranges of their bodies."""
    out = []
    for addr, op, text in insns:
        if op.split(".")[0] != "BRA":
            continue
        m = re.search(r"0x([0-9a-f]+)", text.split("BRA", 1)[1])
        if m and int(m.group(1), 16) <= addr:
            out.append((int(m.group(1), 16), addr))
    return out


# A loop with fewer LOP3 than this is not an AES round (one S-box layer of
# 16 bytes alone is over a thousand gates): the GHASH kernels' loops.
MIN_ROUND_LOP3 = 1000


def round_loop(insns):
    best, best_lop = None, MIN_ROUND_LOP3 - 1
    for lo, hi in loops(insns):
        n = sum(1 for a, op, _ in insns if lo <= a <= hi and klass(op) == "LOP3")
        if n > best_lop:
            best, best_lop = (lo, hi), n
    return best


def loop_trips():
    """Round-loop iterations per tile, as (Nr - 1 or Nr) for (encrypt, decrypt),
    read from the tile functions' loop headers in aes_bitsliced.cu: the
    last round inside the loop (`r <= nr`, `r >= 0`) or after it."""
    src = open(os.path.join(ROOT, "crates/aesx-cuda/kernels/aes_bitsliced.cu")).read()
    enc = re.search(r"for \(int r = 1; r (<=|<) nr; r\+\+\)", src)
    dec = re.search(r"for \(int r = nr - 1; r (>=|>) 0; r--\)", src)
    if not enc or not dec:
        sys.exit("kernel_view: cannot find the round loops in aes_bitsliced.cu")
    return (0 if enc.group(1) == "<=" else -1, 0 if dec.group(1) == ">=" else -1)


def classes(insns):
    c = collections.Counter(klass(op) for _, op, _ in insns)
    c["alu pipe"] = sum(1 for _, op, _ in insns if on_alu_pipe(op))
    c["total"] = len(insns)
    return c


def gbps(ninsn, lanes, sms, clock):
    # Instructions per 32-block tile -> bytes per second on every SM.
    return sms * clock * lanes / ninsn * TILE_BLOCKS * BLOCK_BYTES / 1e9 if ninsn else 0.0


COLS = ["LOP3", "shift", "IADD", "IMAD/MOV", "other ALU", "loads", "stores", "branch", "other"]


def table(md, hdr, rows, width=12):
    if md:
        print("| " + " | ".join(hdr) + " |")
        print("|" + " --- |" * len(hdr))
        for r in rows:
            print("| " + " | ".join(str(v) for v in r) + " |")
    else:
        print("  ".join(f"{h:>{width}}" for h in hdr))
        for r in rows:
            print("  ".join(f"{str(v):>{width}}" for v in r))


def hot_loop(name, insns):
    """The round loop of an AES kernel; the element loop (the largest) of
    a GHASH kernel, which folds one 16-byte element per iteration."""
    if "ghash" in name:
        best = max(loops(insns), key=lambda l: l[1] - l[0], default=None)
        return best
    return round_loop(insns)


def report(arch, info, funcs, md):
    gpus = GPUS.get(arch, [])
    rows = []
    for name in sorted(funcs):
        insns = funcs[name]
        if not insns:
            continue
        # cuobjdump pads every function with NOPs and a branch to itself.
        real = [i for i in insns if i[1] != "NOP"]
        while real and real[-1][1].startswith("BRA") and f"{real[-1][0]:x}" in real[-1][2]:
            real.pop()
        loop = hot_loop(name, real)
        inside = (lambda a: loop[0] <= a <= loop[1]) if loop else (lambda a: False)
        body = [i for i in real if inside(i[0])]
        rest = [i for i in real if not inside(i[0])]
        rows.append((name, info.get(name, {}), real, body, rest))
    print(f"\n### {arch}\n" if md else f"\n== {arch} ==")
    table(md, ["kernel", "regs", "spill st/ld B", "SASS insns", "SASS bytes", "hot loop insns"],
          [[n, i.get("regs", "?"), f"{i.get('spill_st', '?')}/{i.get('spill_ld', '?')}", len(r),
            (r[-1][0] + 16) if r else 0, len(b)] for n, i, r, b, _ in rows], 16)
    print("\nHot loop body by class (AES: one iteration = one round on a thread's 32 blocks;"
          "\nGHASH: one iteration = one element; 'rest' = the kernel outside the loop):\n")
    table(md, ["kernel"] + COLS + ["alu pipe", "total", "rest"],
          [[n] + [classes(b)[k] for k in COLS] + [classes(b)["alu pipe"], len(b), len(rest)]
           for n, _, _, b, rest in rows if b])
    if not gpus:
        print(f"\n(no GPU model for {arch}: counts only)")
        return
    trips = loop_trips()
    def it(t):
        return "Nr" if t == 0 else "Nr - 1"
    print("\nPredicted bounds, GB/s (from instruction counts, NOT measurements):\n")
    print(f"  per 32 blocks (one thread's tile): N = iterations * loop + rest; the round")
    print(f"  loop runs {it(trips[0])} times to encrypt, {it(trips[1])} to decrypt (Nr = 10 or 14).")
    print(f"  'rest' counts the kernel's code outside the loop once, every path of it, so")
    print(f"  the 'tile' bound is a floor and the 'loop' bound (rest left out) a ceiling.")
    print(f"  ALU bound   = SMs * clock * {ALU_LANES} lanes / N_alu * {TILE_BLOCKS} * {BLOCK_BYTES} B")
    print(f"  issue bound = SMs * clock * {ISSUE_LANES} lanes / N_all * {TILE_BLOCKS} * {BLOCK_BYTES} B")
    print(f"  N_alu: LOP3, shift, IADD and other ALU (PRMT, SEL, compares): the 64-lane")
    print(f"  integer/logic pipe; IMAD/MOV (FMA pipe, moves), uniform-datapath, loads,")
    print(f"  stores and branches count in N_all only.")
    print("  " + "; ".join(f"{g}: {n} SMs at {c / 1e9:.2f} GHz" for g, n, c in gpus) + "\n")
    hdr = ["kernel", "key", "N_alu loop", "N_alu tile", "N_all tile"]
    for g, _, _ in gpus:
        hdr += [f"{g} ALU loop", f"{g} ALU tile", f"{g} issue tile"]
    out = []
    tiles = {}
    for name, _, _, body, rest in rows:
        if not body:
            continue
        cb, cr = classes(body), classes(rest)
        ghash = "ghash" in name
        for key, nr in (("AES-128", 10), ("AES-256", 14)):
            if ghash:
                n = TILE_BLOCKS  # one element per iteration
                keyname = "-"
            else:
                n = nr + trips[1 if "decrypt" in name else 0]
                keyname = key
            n_loop = cb["alu pipe"] * n
            n_alu = n_loop + cr["alu pipe"]
            n_all = cb["total"] * n + cr["total"]
            tiles[(name, key)] = (n_loop, n_alu, n_all)
            if ghash and key == "AES-256":
                continue
            r = [name, keyname, n_loop, n_alu, n_all]
            for _, sms, clk in gpus:
                r += [f"{gbps(n_loop, ALU_LANES, sms, clk):.0f}",
                      f"{gbps(n_alu, ALU_LANES, sms, clk):.0f}",
                      f"{gbps(n_all, ISSUE_LANES, sms, clk):.0f}"]
            out.append(r)
    # GCM seal/open of one message: the CTR kernel and the first GHASH level
    # (which folds every ciphertext block once; the levels above it see 1/32
    # as many elements and are left out): aesx_ghash_runs_pows where the
    # kernels have it (the default), and aesx_ghash_runs (Horner's rule,
    # AESX_CUDA_GHASH=horner).
    # Kernels that predate the split into families ran CTR in aesx_encrypt.
    ctr = next((k for k in ("aesx_ctr", "aesx_encrypt") if (k, "AES-128") in tiles), None)
    for gk in ("aesx_ghash_runs_pows", "aesx_ghash_runs"):
        if not ctr or (gk, "AES-128") not in tiles:
            continue
        g = tiles[(gk, "AES-128")]
        for key in ("AES-128", "AES-256"):
            c = tiles[(ctr, key)]
            n = [c[i] + g[i] for i in range(3)]
            r = [f"GCM = {ctr[5:]} + {gk[5:]}", key] + n
            for _, sms, clk in gpus:
                r += [f"{gbps(n[0], ALU_LANES, sms, clk):.0f}",
                      f"{gbps(n[1], ALU_LANES, sms, clk):.0f}",
                      f"{gbps(n[2], ISSUE_LANES, sms, clk):.0f}"]
            out.append(r)
    table(md, hdr, out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arch", default="sm_90,sm_80")
    ap.add_argument("--markdown", action="store_true", help="tables as Markdown")
    ap.add_argument("--sass-dir", default=os.path.join(TOOLS, "sass"),
                    help="where the cubins and SASS listings are kept")
    ap.add_argument("--min-ctas", type=int, choices=[1, 2, 3, 4],
                    help="compile as with AESX_CUDA_MIN_CTAS=N (CTAs per SM that the AES "
                         "kernels' __launch_bounds__ asks for)")
    ap.add_argument("--kernels-rev", metavar="REV",
                    help="view the kernel sources of git revision REV (e.g. the table's "
                         "'before'): they replace crates/aesx-cuda/kernels/ for the run and "
                         "the work tree's files are put back afterwards")
    a = ap.parse_args()
    archs = a.arch.split(",")
    if a.min_ctas:
        os.environ["AESX_CUDA_MIN_CTAS"] = str(a.min_ctas)
    else:
        os.environ.pop("AESX_CUDA_MIN_CTAS", None)
    install()
    kdir = "crates/aesx-cuda/kernels"
    saved = {}
    if a.kernels_rev:
        names = subprocess.run(["git", "ls-tree", "--name-only", f"{a.kernels_rev}:{kdir}"],
                               cwd=ROOT, check=True, capture_output=True, text=True).stdout.split()
        for n in sorted(set(names) | set(os.listdir(os.path.join(ROOT, kdir)))):
            path = os.path.join(ROOT, kdir, n)
            saved[path] = open(path, "rb").read() if os.path.exists(path) else None
        for n in names:
            text = subprocess.run(["git", "show", f"{a.kernels_rev}:{kdir}/{n}"], cwd=ROOT,
                                  check=True, capture_output=True).stdout
            open(os.path.join(ROOT, kdir, n), "wb").write(text)
    try:
        ptx = make_ptx(archs)
        view(a, archs, ptx)
    finally:
        for path, data in saved.items():
            if data is None:
                os.remove(path)
            else:
                open(path, "wb").write(data)


def view(a, archs, ptx):
    os.makedirs(a.sass_dir, exist_ok=True)
    rev = a.kernels_rev or "HEAD"
    head = subprocess.run(["git", "log", "-1", "--format=%h %s", rev], cwd=ROOT,
                          capture_output=True, text=True).stdout.strip()
    if not a.kernels_rev and subprocess.run(
            ["git", "status", "--porcelain", "crates/aesx-cuda/kernels"], cwd=ROOT,
            capture_output=True, text=True).stdout.strip():
        head += " + uncommitted kernel changes"
    ver = subprocess.run([PTXAS, "--version"], capture_output=True, text=True).stdout
    ver = ver.strip().splitlines()[-1] if ver.strip() else "?"
    ctas = os.environ.get("AESX_CUDA_MIN_CTAS")
    print(f"aesx kernels at {head}; ptxas: {ver}"
          + (f"; AESX_CUDA_MIN_CTAS={ctas}" if ctas else ""))
    for arch in archs:
        cubin = os.path.join(a.sass_dir, f"{arch}.cubin")
        info = ptxas(ptx[arch], arch, cubin)
        listing, funcs = sass(cubin)
        with open(os.path.join(a.sass_dir, f"{arch}.sass"), "w") as f:
            f.write(listing)
        # A second disassembler as a cross-check of the instruction count
        # (nvdisasm 13 warns that it reads a 12.x cubin in the old format).
        nd = subprocess.run([NVDISASM, "-c", cubin], capture_output=True, text=True).stdout
        with open(os.path.join(a.sass_dir, f"{arch}.nvdisasm"), "w") as f:
            f.write(nd)
        n_nd = len(INSN.findall(nd))
        n_co = sum(len(v) for v in funcs.values())
        if n_nd != n_co:
            print(f"warning: nvdisasm sees {n_nd} instructions, cuobjdump {n_co}")
        report(arch, info, funcs, a.markdown)


if __name__ == "__main__":
    main()
