#!/usr/bin/env python3
"""Writes crates/aesx-cuda/kernels/sbox_lop3.cuh: the AES S-box and its
inverse as networks of three-input Boolean functions, one LOP3 each.

Why: the GPU kernels are bitsliced, and their round loop is almost all
logic ops; the S-boxes are 80 % of them. The GPU's LOP3 computes any
function of three inputs in one instruction, so the measure of a circuit
there is its number of 3-input nodes, not its number of 2-input gates.
Written as 2-input gates (Boyar and Peralta's 113-gate S-box), ptxas fused
the forward S-box to 90 LOP3 and the inverse (121 gates) to 85, compiled
alone for sm_90; mapped here onto 3-input nodes they take 71 and 75. In the
round loop of the CTR kernel that is 1,504 LOP3 per round instead of 1,792.

How: the straight-line programs below (the S-box of Boyar, Peralta and
Calik, SLP_AES_113, and the inverse of Boyar and Peralta, 121 gates, from
the Circuit Minimization Team's collection) go to ABC, the Berkeley logic
synthesis system (Debian package berkeley-abc), as BLIF. ABC restructures
them (dch) and maps them onto 3-input LUTs for area (if -K 3 -a); `cec`
proves the result equal to the input circuit.
ABC's mapper leaves some nodes that their consumers can absorb within three
inputs; the script folds those. It then checks the whole network against
the S-box computed from its definition (inversion in GF(2^8), then the
affine map) on all 256 inputs, and writes each node as
aesx_lop3<F>(a, b, c), F being the function's truth table in LOP3's
encoding (F = f(0xf0, 0xcc, 0xaa)).

Usage:
    python3 crates/aesx-cuda/tools/sbox_lop3.py            # writes the file
    python3 crates/aesx-cuda/tools/sbox_lop3.py --check    # checks it (no ABC)
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
OUT = os.path.join(ROOT, "crates", "aesx-cuda", "kernels", "sbox_lop3.cuh")

# Bits are numbered as the programs number them: U0 is the most significant
# input bit (bit 7), S0 the most significant output bit.
SBOX_113 = """
y14 = U3 ^ U5; y13 = U0 ^ U6; y9 = U0 ^ U3; y8 = U0 ^ U5; t0 = U1 ^ U2; y1 = t0 ^ U7;
y4 = y1 ^ U3; y12 = y13 ^ y14; y2 = y1 ^ U0; y5 = y1 ^ U6; y3 = y5 ^ y8; t1 = U4 ^ y12;
y15 = t1 ^ U5; y20 = t1 ^ U1; y6 = y15 ^ U7; y10 = y15 ^ t0; y11 = y20 ^ y9; y7 = U7 ^ y11;
y17 = y10 ^ y11; y19 = y10 ^ y8; y16 = t0 ^ y11; y21 = y13 ^ y16; y18 = U0 ^ y16;
t2 = y12 & y15; t3 = y3 & y6; t4 = t3 ^ t2; t5 = y4 & U7; t6 = t5 ^ t2; t7 = y13 & y16;
t8 = y5 & y1; t9 = t8 ^ t7; t10 = y2 & y7; t11 = t10 ^ t7; t12 = y9 & y11; t13 = y14 & y17;
t14 = t13 ^ t12; t15 = y8 & y10; t16 = t15 ^ t12; t17 = t4 ^ y20; t18 = t6 ^ t16;
t19 = t9 ^ t14; t20 = t11 ^ t16; t21 = t17 ^ t14; t22 = t18 ^ y19; t23 = t19 ^ y21;
t24 = t20 ^ y18; t25 = t21 ^ t22; t26 = t21 & t23; t27 = t24 ^ t26; t28 = t25 & t27;
t29 = t28 ^ t22; t30 = t23 ^ t24; t31 = t22 ^ t26; t32 = t31 & t30; t33 = t32 ^ t24;
t34 = t23 ^ t33; t35 = t27 ^ t33; t36 = t24 & t35; t37 = t36 ^ t34; t38 = t27 ^ t36;
t39 = t29 & t38; t40 = t25 ^ t39; t41 = t40 ^ t37; t42 = t29 ^ t33; t43 = t29 ^ t40;
t44 = t33 ^ t37; t45 = t42 ^ t41; z0 = t44 & y15; z1 = t37 & y6; z2 = t33 & U7;
z3 = t43 & y16; z4 = t40 & y1; z5 = t29 & y7; z6 = t42 & y11; z7 = t45 & y17;
z8 = t41 & y10; z9 = t44 & y12; z10 = t37 & y3; z11 = t33 & y4; z12 = t43 & y13;
z13 = t40 & y5; z14 = t29 & y2; z15 = t42 & y9; z16 = t45 & y14; z17 = t41 & y8;
tc1 = z15 ^ z16; tc2 = z10 ^ tc1; tc3 = z9 ^ tc2; tc4 = z0 ^ z2; tc5 = z1 ^ z0;
tc6 = z3 ^ z4; tc7 = z12 ^ tc4; tc8 = z7 ^ tc6; tc9 = z8 ^ tc7; tc10 = tc8 ^ tc9;
tc11 = tc6 ^ tc5; tc12 = z3 ^ z5; tc13 = z13 ^ tc1; tc14 = tc4 ^ tc12; S3 = tc3 ^ tc11;
tc16 = z6 ^ tc8; tc17 = z14 ^ tc10; tc18 = ~tc13 ^ tc14; S7 = z12 ^ tc18;
tc20 = z15 ^ tc16; tc21 = tc2 ^ z11; S0 = tc3 ^ tc16; S6 = tc10 ^ tc18; S4 = tc14 ^ S3;
S1 = ~(S3 ^ tc16); tc26 = tc17 ^ tc20; S2 = ~(tc26 ^ z17); S5 = tc21 ^ tc17;
"""

INV_SBOX_121 = """
Y0 = U0 ^ U3; Y2 = ~(U1 ^ U3); Y4 = U0 ^ Y2; RTL0 = U6 ^ U7; Y1 = Y2 ^ RTL0;
Y7 = ~(U2 ^ Y1); RTL1 = U3 ^ U4; Y6 = ~(U7 ^ RTL1); Y3 = Y1 ^ RTL1; RTL2 = ~(U0 ^ U2);
Y5 = U5 ^ RTL2; sa1 = Y0 ^ Y2; sa0 = Y1 ^ Y3; sb1 = Y4 ^ Y6; sb0 = Y5 ^ Y7; ah = Y0 ^ Y1;
al = Y2 ^ Y3; aa = sa0 ^ sa1; bh = Y4 ^ Y5; bl = Y6 ^ Y7; bb = sb0 ^ sb1; ab20 = sa0 ^ sb0;
ab22 = al ^ bl; ab23 = Y3 ^ Y7; ab21 = sa1 ^ sb1; abcd1 = ah & bh; rr1 = Y0 & Y4;
ph11 = ab20 ^ abcd1; t01 = Y1 & Y5; ph01 = t01 ^ abcd1; abcd2 = al & bl; r1 = Y2 & Y6;
pl11 = ab22 ^ abcd2; r2 = Y3 & Y7; pl01 = r2 ^ abcd2; r3 = sa0 & sb0; vr1 = aa & bb;
pr1 = vr1 ^ r3; wr1 = sa1 & sb1; qr1 = wr1 ^ r3; ab0 = ph11 ^ rr1; ab1 = ph01 ^ ab21;
ab2 = pl11 ^ r1; ab3 = pl01 ^ qr1; cp1 = ab0 ^ pr1; cp2 = ab1 ^ qr1; cp3 = ab2 ^ pr1;
cp4 = ab3 ^ ab23; tinv1 = cp3 ^ cp4; tinv2 = cp3 & cp1; tinv3 = cp2 ^ tinv2;
tinv4 = cp1 ^ cp2; tinv5 = cp4 ^ tinv2; tinv6 = tinv5 & tinv4; tinv7 = tinv3 & tinv1;
d2 = cp4 ^ tinv7; d0 = cp2 ^ tinv6; tinv8 = cp1 & cp4; tinv9 = tinv4 & tinv8;
tinv10 = tinv4 ^ tinv2; d1 = tinv9 ^ tinv10; tinv11 = cp2 & cp3; tinv12 = tinv1 & tinv11;
tinv13 = tinv1 ^ tinv2; d3 = tinv12 ^ tinv13; sd1 = d1 ^ d3; sd0 = d0 ^ d2; dl = d0 ^ d1;
dh = d2 ^ d3; dd = sd0 ^ sd1; abcd3 = dh & bh; rr2 = d3 & Y4; t02 = d2 & Y5;
abcd4 = dl & bl; r4 = d1 & Y6; r5 = d0 & Y7; r6 = sd0 & sb0; vr2 = dd & bb; wr2 = sd1 & sb1;
abcd5 = dh & ah; r7 = d3 & Y0; r8 = d2 & Y1; abcd6 = dl & al; r9 = d1 & Y2; r10 = d0 & Y3;
r11 = sd0 & sa0; vr3 = dd & aa; wr3 = sd1 & sa1; ph12 = rr2 ^ abcd3; ph02 = t02 ^ abcd3;
pl12 = r4 ^ abcd4; pl02 = r5 ^ abcd4; pr2 = vr2 ^ r6; qr2 = wr2 ^ r6; p0 = ph12 ^ pr2;
p1 = ph02 ^ qr2; p2 = pl12 ^ pr2; p3 = pl02 ^ qr2; ph13 = r7 ^ abcd5; ph03 = r8 ^ abcd5;
pl13 = r9 ^ abcd6; pl03 = r10 ^ abcd6; pr3 = vr3 ^ r11; qr3 = wr3 ^ r11; p4 = ph13 ^ pr3;
S7 = ph03 ^ qr3; p6 = pl13 ^ pr3; p7 = pl03 ^ qr3; S3 = p1 ^ p6; S6 = p2 ^ p6; S0 = p3 ^ p6;
X11 = p0 ^ p2; S5 = S0 ^ X11; X13 = p4 ^ p7; X14 = X11 ^ X13; S1 = S3 ^ X14; X16 = p1 ^ S7;
S2 = X14 ^ X16; X18 = p0 ^ p4; X19 = S5 ^ X16; S4 = X18 ^ X19;
"""

# Restructuring before the mapping, then the mapping and its repacking; the
# script keeps the smallest network any of them gives.
RECIPES = [
    "dch; if -K 3 -a -C 32 -F 4 -A 4",
    "dch -f; if -K 3 -a -C 64 -F 8 -A 8 -e",
    "dch -f; if -K 3 -a",
]


def gf_mul(a, b):
    r = 0
    while b:
        if b & 1:
            r ^= a
        a = (a << 1) ^ (0x11B if a & 0x80 else 0)
        b >>= 1
    return r


def sbox_table():
    """FIPS 197, 5.1.1: the inverse in GF(2^8) (0 to 0), then the affine map."""
    inv = [0] * 256
    for x in range(1, 256):
        inv[x] = next(y for y in range(1, 256) if gf_mul(x, y) == 1)
    table = []
    for x in range(256):
        b = inv[x]
        s = 0x63
        for i in range(8):
            bit = (b >> i ^ b >> (i + 4) % 8 ^ b >> (i + 5) % 8 ^ b >> (i + 6) % 8 ^ b >> (i + 7) % 8) & 1
            s ^= bit << i
        table.append(s)
    return table


def parse_program(text):
    """(name, op, a, b, negate) per gate; op is '^' or '&'."""
    gates = []
    for stmt in filter(None, (s.strip() for s in text.replace("\n", " ").split(";"))):
        name, expr = (p.strip() for p in stmt.split("="))
        neg = False
        m = re.fullmatch(r"~\((.*)\)", expr)
        if m:
            neg, expr = True, m.group(1)
        a, op, b = re.fullmatch(r"(~?\w+) ([\^&]) (~?\w+)", expr).groups()
        if a.startswith("~"):  # ~a ^ b: the same as ~(a ^ b)
            assert op == "^"
            neg, a = not neg, a[1:]
        gates.append((name, op, a, b, neg))
    return gates


def to_blif(gates):
    lines = [".model sbox", ".inputs " + " ".join(f"s{b}" for b in range(8)),
             ".outputs " + " ".join(f"o{b}" for b in range(8))]
    for b in range(8):
        lines += [f".names s{b} U{7 - b}", "1 1"]
    for name, op, a, b, neg in gates:
        lines.append(f".names {a} {b} {name}")
        for x in (0, 1):
            for y in (0, 1):
                v = (x & y if op == "&" else x ^ y) ^ neg
                if v:
                    lines.append(f"{x}{y} 1")
    for b in range(8):
        lines += [f".names S{7 - b} o{b}", "1 1"]
    return "\n".join(lines + [".end"]) + "\n"


def parse_blif(text):
    """{node: (fanins, truth table over fanin values)}, the mapped network."""
    text = text.replace("\\\n", " ")
    nodes, cur = {}, None
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(".names"):
            *fanins, out = line.split()[1:]
            cur = (out, fanins, set(), [])
            nodes[out] = cur
        elif line.startswith("."):
            cur = None
        elif cur is not None:
            parts = line.split()
            cube, val = (parts[0], parts[1]) if len(parts) == 2 else ("", parts[0])
            cur[3].append(val)
            fanins = cur[1]
            for v in range(1 << len(fanins)):
                bits = [(v >> (len(fanins) - 1 - i)) & 1 for i in range(len(fanins))]
                if all(c == "-" or int(c) == bit for c, bit in zip(cube, bits)):
                    cur[2].add(v)
    net = {}
    for out, fanins, cover, vals in nodes.values():
        # A cover lists the on-set ("1") or the off-set ("0"), never both.
        assert len(set(vals)) <= 1
        off = vals and vals[0] == "0"
        net[out] = (fanins, set(range(1 << len(fanins))) - cover if off else cover)
    return net


def evaluate(net, x):
    """Output byte of the mapped network for input byte x."""
    vals = {f"s{b}": (x >> b) & 1 for b in range(8)}

    def val(n):
        if n not in vals:
            fanins, on = net[n]
            v = 0
            for f in fanins:
                v = v << 1 | val(f)
            vals[n] = int(v in on)
        return vals[n]

    return sum(val(f"o{b}") << b for b in range(8))


def abc_map(blif, recipe):
    abc = shutil.which("berkeley-abc") or shutil.which("abc") or shutil.which("yosys-abc")
    if abc is None:
        sys.exit("sbox_lop3: ABC not found (apt-get install berkeley-abc)")
    with tempfile.TemporaryDirectory() as d:
        src, dst = os.path.join(d, "in.blif"), os.path.join(d, "out.blif")
        open(src, "w").write(blif)
        out = subprocess.run(
            [abc, "-q", f"read_blif {src}; strash; {recipe}; cec {src}; write_blif {dst}"],
            capture_output=True, text=True, check=True).stdout
        if "Networks are equivalent" not in out:
            sys.exit(f"sbox_lop3: ABC's mapping is not equivalent ({recipe}):\n{out}")
        return parse_blif(open(dst).read())


def absorb(net):
    """Folds a node into its consumers wherever each of them stays within 3
    inputs, then drops it: one LOP3 less each time. ABC's mapper leaves
    such nodes (2-input XORs feeding a 2-input node, say)."""
    outputs = {f"o{b}" for b in range(8)}
    changed = True
    while changed:
        changed = False
        for v in list(net):
            if v in outputs or v not in net:
                continue
            users = [u for u, (f, _) in net.items() if v in f]
            merged = {}
            for u in users:
                ins = list(dict.fromkeys(x for f in net[u][0] for x in (net[v][0] if f == v else [f])))
                if len(ins) > 3:
                    break
                merged[u] = ins
            else:
                for u, ins in merged.items():
                    merged[u] = (ins, {w for w in range(1 << len(ins)) if node_value(net, u, v, ins, w)})
                net.update(merged)
                del net[v]
                changed = True
    return net


def node_value(net, u, v, ins, w):
    """u's output when its inputs, with v expanded, are ins = bits of w."""
    bit = {x: (w >> (len(ins) - 1 - i)) & 1 for i, x in enumerate(ins)}

    def value(n):
        if n in bit:
            return bit[n]
        fanins, on = net[n]
        idx = 0
        for f in fanins:
            idx = idx << 1 | value(f)
        return int(idx in on)

    return value(u)


def emit(net, fn, what):
    """C for the network: one LOP3 per node."""
    order, seen = [], set()

    def visit(n):
        if n in seen or n.startswith("s") and n[1:].isdigit() and n not in net:
            return
        seen.add(n)
        for f in net[n][0]:
            visit(f)
        order.append(n)

    for b in range(8):
        visit(f"o{b}")
    names = {f"s{b}": f"s{b}" for b in range(8)}
    body = []
    for n in order:
        fanins, on = net[n]
        args = [names[f] for f in fanins]
        if n.startswith("o") and len(fanins) == 1 and on == {1}:
            names[n] = args[0]  # an output that is another node
            continue
        var = f"n{len(body)}"
        names[n] = var
        # Every node, even of two inputs, as LOP3 in PTX: NVVM would turn
        # ~(a ^ b) into an XOR and a NOT that ptxas then keeps apart.
        # Missing inputs are 0 and the truth table does not depend on them.
        assert 1 <= len(fanins) <= 3
        k = len(fanins)
        imm = sum(1 << v for v in range(8) if v >> (3 - k) in on)
        expr = f"aesx_lop3<0x{imm:02x}>({', '.join(args + ['0u'] * (3 - k))})"
        body.append(f"    const u32 {var} = {expr};")
    head = [f"// {what}: {len(body)} LOP3 (three-input logic ops) for one byte of 32 blocks.",
            f"AESX_DEV void {fn}(u32 *s) {{",
            "    const u32 " + ", ".join(f"s{b} = s[{b}]" for b in range(8)) + ";"]
    tail = [f"    s[{b}] = {names[f'o{b}']};" for b in range(8)] + ["}"]
    return "\n".join(head + body + tail)


def best_network(program, table):
    gates = parse_program(program)
    blif = to_blif(gates)
    # The programs themselves must compute the table before they are mapped.
    ref = parse_blif(blif)
    assert [evaluate(ref, x) for x in range(256)] == table, "the source program is wrong"
    best = None
    for recipe in RECIPES:
        net = abc_map(blif, recipe)
        if any(len(f) > 3 for f, _ in net.values()):
            continue  # (lutpack, for one, packs into 4-input nodes)
        net = absorb(net)
        assert [evaluate(net, x) for x in range(256)] == table
        size = sum(1 for n, (f, on) in net.items() if not (len(f) == 1 and on == {1}))
        if best is None or size < best[0]:
            best = (size, recipe, net)
    return best


HEADER = """\
// The AES S-box and its inverse on bitsliced words, one LOP3 per node.
//
// GENERATED by crates/aesx-cuda/tools/sbox_lop3.py: do not edit by hand.
// s[b] holds bit b (0 = least significant) of one state byte of 32 blocks.
// The networks are Boyar and Peralta's S-box circuits (forward: 113 gates,
// SLP_AES_113 of Boyar, Peralta and Calik; inverse: 121 gates), restructured
// and mapped onto three-input functions by ABC, proven equal to those
// circuits by ABC and checked on all 256 inputs against the S-box's
// definition by the script. ABC commands:
//   forward: {fwd_recipe}
//   inverse: {inv_recipe}
// Every node is a fixed Boolean function of earlier nodes: no table, no
// branch, no memory access, so the cost is the same for every input.

"""


def generate():
    table = sbox_table()
    inv_table = [table.index(x) for x in range(256)]
    fwd_size, fwd_recipe, fwd = best_network(SBOX_113, table)
    inv_size, inv_recipe, inv = best_network(INV_SBOX_121, inv_table)
    fwd_c = emit(fwd, "aesx_sbox", "SubBytes' S-box")
    inv_c = emit(inv, "aesx_inv_sbox", "InvSubBytes' inverse S-box")
    text = HEADER.format(fwd_recipe=fwd_recipe, inv_recipe=inv_recipe) + fwd_c + "\n\n" + inv_c + "\n"
    check_text(text)
    open(OUT, "w").write(text)
    print(f"sbox_lop3: wrote {os.path.relpath(OUT, ROOT)}: S-box {fwd_size} nodes, "
          f"inverse {inv_size}")


def check_text(text):
    """Evaluates the C functions of the file on all 256 inputs (no ABC)."""
    table = sbox_table()
    inv_table = [table.index(x) for x in range(256)]
    for fn, want in (("aesx_sbox", table), ("aesx_inv_sbox", inv_table)):
        body = text.split(f"AESX_DEV void {fn}(u32 *s) {{")[1].split("\n}")[0]
        got = []
        for x in range(256):
            env = {f"s{b}": 0xFFFFFFFF if x >> b & 1 else 0 for b in range(8)}
            out = [None] * 8
            for line in body.splitlines():
                line = line.strip().rstrip(";")
                if line.startswith("const u32 s0 = "):
                    continue
                m = re.fullmatch(r"const u32 (\w+) = (.*)", line)
                if m:
                    env[m.group(1)] = c_eval(m.group(2), env)
                    continue
                m = re.fullmatch(r"s\[(\d)\] = (\w+)", line)
                if m:
                    out[int(m.group(1))] = env[m.group(2)]
            got.append(sum((out[b] & 1) << b for b in range(8)))
        if got != want:
            sys.exit(f"sbox_lop3: {fn} in the file is not the AES S-box it should be")


def c_eval(expr, env):
    """One generated node, aesx_lop3<F>(a, b, c), on the words of env."""
    m = re.fullmatch(r"aesx_lop3<0x([0-9a-f]+)>\((\w+), (\w+), (\w+)\)", expr)
    if not m:
        sys.exit(f"sbox_lop3: not a generated node: {expr}")
    imm = int(m.group(1), 16)
    a, b, c = (0 if m.group(i) == "0u" else env[m.group(i)] for i in (2, 3, 4))
    r = 0
    for v in range(8):
        if imm >> v & 1:
            r |= (a if v & 4 else ~a) & (b if v & 2 else ~b) & (c if v & 1 else ~c)
    return r & 0xFFFFFFFF


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--check", action="store_true",
                    help="check the committed file on all 256 inputs (no ABC needed)")
    args = ap.parse_args()
    if args.check:
        check_text(open(OUT).read())
        print(f"sbox_lop3: {os.path.relpath(OUT, ROOT)} computes the S-box and its inverse")
    else:
        generate()


if __name__ == "__main__":
    main()
