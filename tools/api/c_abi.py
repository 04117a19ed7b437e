#!/usr/bin/env python3
"""The C ABI of libaesx, one item per line, from aesx.h and the built library.

    c_abi.py crates/aesx-capi/include/aesx.h [libaesx.so] > api/aesx-c.txt

From the header: every `#define` constant with its value, every opaque
handle, every struct with its fields in order (its layout), every function
prototype (types only: parameter names are not ABI). From the library (when
given): every exported `aesx_*` symbol with its version (nm -D), so a
function the header still declares but the library lost is caught too.
Lines are `KEY :: VALUE`, as tools/api/compare.py reads them.
"""

import re
import subprocess
import sys


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def norm(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r"\s*\*\s*", " *", s)  # `uint8_t *out`, `T **p`
    s = re.sub(r"\* +\*", "**", s)
    s = re.sub(r"\s*([(),\[\]])\s*", r"\1", s)
    return s.replace(",", ", ")


def drop_name(param):
    """`const uint8_t *key` -> `const uint8_t *`; `uint8_t iv[16]` -> `uint8_t[16]`."""
    param = norm(param)
    if param in ("void", "..."):
        return param
    m = re.match(r"^(.*?)([A-Za-z_]\w*)((?:\[\w*\])*)$", param)
    if not m or not m.group(1).strip():
        return param  # a type alone
    return norm(m.group(1).strip() + m.group(3))


def header_items(text):
    out = []
    for name, value in re.findall(r"^\s*#\s*define\s+(AESX_\w+)\s+(.+?)\s*$", text, flags=re.M):
        if name == "AESX_H":
            continue
        out.append((f"const {name}", norm(strip_comments(value))))
    body = strip_comments(text)
    body = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("#"))
    body = re.sub(r'extern\s+"C"\s*\{', " ", body)
    # Top-level declarations end with `;` outside braces.
    decls, depth, cur = [], 0, []
    for ch in body:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:  # the closing brace of extern "C"
                depth = 0
                continue
        if ch == ";" and depth == 0:
            decls.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    for d in decls:
        d = norm(d)
        if not d:
            continue
        m = re.match(r"^typedef struct (\w+) (\w+)$", d)
        if m:
            out.append((f"opaque struct {m.group(1)}", f"typedef {m.group(2)}"))
            continue
        m = re.match(r"^typedef (struct|union|enum) (\w+) ?\{(.*)\} ?(\w+)$", d) or \
            re.match(r"^(struct|union|enum) (\w+) ?\{(.*)\}()$", d)
        if m:
            kind, tag, fields, alias = m.groups()
            if kind == "enum":
                members = [norm(x) for x in fields.split(",") if x.strip()]
                out.append((f"enum {tag}", "{" + ", ".join(members) + "}"))
            else:
                members = [norm(x) for x in fields.split(";") if x.strip()]
                out.append((f"{kind} {tag}", "{" + "; ".join(members) + "}" + (f" typedef {alias}" if alias else "")))
            continue
        m = re.match(r"^(.*?)\b(aesx_\w+)\((.*)\)$", d)
        if m:
            ret, name, params = m.groups()
            ps = [drop_name(p) for p in params.split(",")] if params.strip() else []
            out.append((f"fn {name}", f"{norm(ret)}({', '.join(ps)})"))
            continue
        out.append((f"other {d}", ""))
    return out


def library_symbols(lib):
    res = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"c_abi.py: nm -D {lib}: {res.stderr.strip()}")
    out = []
    for line in res.stdout.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[-1].startswith("aesx_"):
            name, _, version = parts[-1].partition("@")
            out.append((f"symbol {name}", f"{parts[-2]} @{version.lstrip('@')}" if version else parts[-2]))
    if not out:
        sys.exit(f"c_abi.py: {lib} exports no aesx_* symbol")
    return out


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: c_abi.py aesx.h [libaesx.so]")
    with open(sys.argv[1]) as f:
        items = header_items(f.read())
    if len(sys.argv) == 3:
        items += library_symbols(sys.argv[2])
    lines = sorted({f"{k} :: {v}" if v else k for k, v in items})
    sys.stdout.write("".join(line + "\n" for line in lines))


if __name__ == "__main__":
    main()
