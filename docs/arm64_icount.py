#!/usr/bin/env python3
"""Static and dynamic instruction evidence for the armv8 kernels.

  python3 docs/arm64_icount.py pairs TESTBIN
      Checks, in the disassembly, that every AESMC/AESIMC in the armv8
      kernels directly follows the AESE/AESD writing the same register (the
      pairs cores fuse). Exit status 1 if one does not.

  python3 docs/arm64_icount.py count TESTBIN QEMU_LOG BLOCKS
      Instructions executed per 16-byte block by each kernel, from a log of
        qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu \\
            -d in_asm,exec,nochain -D QEMU_LOG TESTBIN --ignored --exact \\
            backend::aarch64::tests::instruction_count_workload
      (`in_asm` logs each translated block's instructions once; `exec` with
      `nochain` logs every execution of a block, so the product is the
      dynamic count). Functions are found through the symbol table; qemu-user
      maps a PIE at 0x5500000000.
"""
import bisect
import collections
import re
import subprocess
import sys

BASE = 0x5500000000


def disassembly(binary):
    return subprocess.run(
        ["aarch64-linux-gnu-objdump", "-d", "--no-show-raw-insn", "-C", binary],
        check=True, capture_output=True, text=True).stdout


def pairs(binary):
    bad = 0
    checked = 0
    cur = None
    prev = None
    for line in disassembly(binary).splitlines():
        m = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if m:
            cur, prev = m.group(1), None
            continue
        m = re.match(r"^\s*([0-9a-f]+):\s+(\S+)\s*(.*)$", line)
        if not m or not cur or "backend::aarch64::" not in cur:
            continue
        addr, op, args = m.groups()
        regs = [a.strip() for a in args.split(",")]
        # The key schedule's lone InvMixColumns has no partner by design.
        if op in ("aesmc", "aesimc") and "ArmAes::expand" not in cur:
            checked += 1
            ok = (prev is not None and prev[0] in ("aese", "aesd")
                  and prev[1][0] == regs[0] == regs[1])
            if not ok:
                bad += 1
                print("unpaired %s at %s in %s" % (op, addr, cur))
        prev = (op, regs)
    print("%d AESMC/AESIMC checked, %d not directly after their AESE/AESD"
          % (checked, bad))
    return 1 if bad or not checked else 0


def symbols(binary):
    out = subprocess.run(
        ["aarch64-linux-gnu-nm", "-C", "-S", "--defined-only", binary],
        check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[2] in "tT":
            syms.append((int(parts[0], 16) + BASE, int(parts[1], 16), parts[3]))
    syms.sort()
    return syms


def count(binary, log, blocks):
    syms = symbols(binary)
    starts = [s[0] for s in syms]
    tbs = {}  # translated block start -> its mnemonics
    execs = collections.Counter()
    cur = None
    insn = re.compile(r"^0x([0-9a-f]+):\s+[0-9a-f]{8}\s+(\S+)\s*(.*)$")
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                cur = []
                continue
            m = insn.match(line)
            if m and cur is not None:
                if not cur:
                    tbs[int(m.group(1), 16)] = cur
                cur.append((m.group(2), m.group(3)))
                continue
            if line.startswith("Trace"):
                cur = None
                execs[int(line.split("/")[1], 16)] += 1
            elif not line.strip():
                cur = None
    per_fn = collections.defaultdict(collections.Counter)
    kinds = collections.defaultdict(collections.Counter)
    vreg = re.compile(r"\bv\d+\.|\b[qd]\d+\b")
    for pc, n in execs.items():
        i = bisect.bisect_right(starts, pc) - 1
        if i < 0 or pc >= syms[i][0] + syms[i][1] or pc not in tbs:
            continue
        for mnem, ops in tbs[pc]:
            # qemu 7.2 prints EOR3 as a raw .byte word.
            mnem = mnem.replace(".byte", "eor3")
            per_fn[syms[i][2]][mnem] += n
            if mnem.startswith("ld"):
                kind = "load"
            elif mnem.startswith("st"):
                kind = "store"
            elif mnem == "eor3" or vreg.search(ops):
                kind = "vector"
            else:
                kind = "scalar"
            kinds[syms[i][2]][kind] += n
    for name, c in sorted(per_fn.items()):
        if "backend::aarch64::" not in name or "tests::" in name:
            continue
        total = sum(c.values())
        if total < blocks:
            continue
        top = ", ".join("%s %.2f" % (k, v / blocks) for k, v in c.most_common(9))
        k = kinds[name]
        print("%-32s %6.2f insns/16B: vector %.2f, load %.2f, store %.2f, scalar %.2f"
              % (name.replace("aesx::backend::aarch64::", ""), total / blocks,
                 k["vector"] / blocks, k["load"] / blocks, k["store"] / blocks,
                 k["scalar"] / blocks))
        print("%-32s (%s)" % ("", top))
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "pairs":
        sys.exit(pairs(sys.argv[2]))
    if len(sys.argv) == 5 and sys.argv[1] == "count":
        sys.exit(count(sys.argv[2], sys.argv[3], int(sys.argv[4])))
    sys.exit(__doc__)
