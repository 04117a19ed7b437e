#!/usr/bin/env python3
"""Instructions executed per 16-byte block by each armv8 kernel, from a qemu log.

Usage (see docs/ARM64.md):
  qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu -d in_asm,exec,nochain \\
      -D qemu.log TESTBIN --ignored --exact \\
      backend::aarch64::tests::instruction_count_workload
  python3 docs/arm64_icount.py TESTBIN qemu.log BLOCKS

`in_asm` logs each translated block's instructions once; `exec` with
`nochain` logs every execution of a translated block, so the product is the
dynamic instruction count. Counts are attributed to functions through the
binary's symbol table (qemu-user maps a PIE at 0x5500000000).
"""
import bisect
import collections
import re
import subprocess
import sys

BASE = 0x5500000000


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


def main():
    binary, log, blocks = sys.argv[1], sys.argv[2], int(sys.argv[3])
    syms = symbols(binary)
    starts = [s[0] for s in syms]
    tbs = {}  # pc -> list of mnemonics
    execs = collections.Counter()
    cur = None
    insn = re.compile(r"^0x([0-9a-f]+):\s+[0-9a-f]{8}\s+(\S+)")
    with open(log, errors="replace") as f:
        for line in f:
            if line.startswith("IN:"):
                cur = []
                continue
            m = insn.match(line)
            if m and cur is not None:
                if not cur:
                    tbs[int(m.group(1), 16)] = cur
                cur.append(m.group(2))
                continue
            if line.startswith("Trace"):
                cur = None
                pc = int(line.split("/")[1], 16)
                execs[pc] += 1
            elif not line.strip():
                cur = None
    per_fn = collections.defaultdict(collections.Counter)
    for pc, n in execs.items():
        i = bisect.bisect_right(starts, pc) - 1
        if i < 0 or pc >= syms[i][0] + syms[i][1] or pc not in tbs:
            continue
        name = "%s@%x" % (syms[i][2], syms[i][0] - BASE)
        for mnem in tbs[pc]:
            per_fn[name][mnem] += n
    for name, c in sorted(per_fn.items()):
        if "aarch64::" not in name:
            continue
        total = sum(c.values())
        if total < blocks:
            continue
        top = ", ".join("%s %.2f" % (k, v / blocks) for k, v in c.most_common(8))
        print("%-55s %6.2f insns/16B  (%s)" % (name, total / blocks, top))


main()
