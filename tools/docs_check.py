#!/usr/bin/env python3
"""Checks that what the docs name in backquotes exists.

Reads docs/*.md, README.md and every README.md under crates/ and python/.
Each backquoted span outside fenced code blocks is classified:

- a path (has a '/' or ends in a known file extension): it must name a
  tracked file or folder, relative to the repository root, to the doc's
  own folder, or as the tail of a tracked path (`modes/gcm.rs`);
- a code name (`Gcm`, `Gcm::seal`, `seal_in_place()`, `aesx_gcm_seal`,
  `with_engine!`): every identifier of it must be defined somewhere in
  the tracked sources (Rust, C, CUDA, Python), as a function, type,
  trait, module, constant, enum variant, field, macro or C name;
- anything else (commands, flags, values, prose) is not checked.

A table whose header starts `| backend |` (the README's) must list the
backends of `crates/aesx/src/backend/list.rs` in its order, each with its
family and needs, and no other row.

A line that names something on purpose absent from this tree (an example,
a user's file, another project's source) ends in `<!-- example -->` or
`<!-- external -->`, and is not checked.
Exits 1 listing every miss as `doc:line: name`.
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXTENSIONS = (
    ".rs", ".py", ".md", ".sh", ".c", ".h", ".toml", ".txt", ".cu", ".cuh",
    ".cpp", ".json", ".rsp", ".in", ".cmake", ".pc", ".lock", ".yml", ".pyi",
)
SOURCE_EXT = (".rs", ".py", ".pyi", ".c", ".h", ".cu", ".cuh", ".cpp", ".in")
# Names that come from outside the tree (the standard library, OpenSSL, the
# CUDA driver, Python's and pyca's APIs) are accepted when a tracked source
# uses them: an identifier is known if it is defined here or appears in
# code at all. What this catches is a name that appears nowhere.
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
TOP = set()
# OpenSSL's C API, named where the docs compare with it
OPENSSL_API = ("EVP_", "OSSL_", "ossl_", "RAND_", "AES_", "OPENSSL_")


def tracked():
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    return [p for p in out.splitlines() if os.path.exists(os.path.join(ROOT, p))]


def doc_files(files):
    docs = [f for f in files if f.endswith(".md")]
    keep = []
    for f in docs:
        if f.startswith("docs/") or f == "README.md":
            keep.append(f)
        elif f.endswith("README.md") and f.startswith(("crates/", "python/")):
            keep.append(f)
    return sorted(keep)


def known_paths(files):
    paths = set(files)
    for f in files:
        parts = f.split("/")
        for i in range(1, len(parts)):
            paths.add("/".join(parts[:i]))
    return paths


def tails(paths):
    """Every suffix of every tracked path, at a '/' boundary."""
    out = set()
    for p in paths:
        parts = p.split("/")
        for i in range(len(parts)):
            out.add("/".join(parts[i:]))
    return out


def source_words(files):
    # a file's stem names it as a module or a test binary
    words = {os.path.basename(f).split(".")[0] for f in files}
    for f in files:
        if f == "tools/docs_check.py":  # its self-test names what is absent
            continue
        if not f.endswith(SOURCE_EXT) and os.path.basename(f) not in ("Makefile", "Cargo.toml"):
            if not f.endswith(".toml"):
                continue
        try:
            with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
                words.update(IDENT.findall(fh.read()))
        except OSError:
            pass
    return words


DEF = re.compile(
    r"\b(?:enum|struct|trait|union)\s+([A-Za-z_]\w*)"
    r"|\bimpl\b(?:\s*<[^{};]*?>)?\s+(?:[\w:<>, &'+]+?\s+for\s+)?(?:[\w]+::)*([A-Za-z_]\w*)"
    r"|\bmod\s+([a-z_]\w*)\s*\{"
)


def block_after(text, start):
    """The text of the brace-balanced block opening at or after `start`
    (before any ';', which ends a unit or tuple struct), or ''."""
    i = start
    while i < len(text) and text[i] not in "{;":
        i += 1
    if i >= len(text) or text[i] == ";":
        return ""
    depth = 0
    for j in range(i, len(text)):
        c = text[j]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return text[i:j]
    return text[i:]


def rust_scopes(files):
    """name -> the identifiers inside its definitions: the variants and
    fields of a type, the items of its impl and trait blocks, the items of
    a module (its file, or its inline block). Names of crates map to
    their root file."""
    scopes = {}
    globbed = set()
    for f in files:
        if not f.endswith(".rs"):
            continue
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        words = set(IDENT.findall(text))
        base = os.path.basename(f)[:-3]
        parts = f.split("/")
        if base in ("mod", "lib", "main"):
            if base == "mod":
                module = parts[-2]
            elif len(parts) >= 3 and parts[-2] == "src":
                module = parts[-3].replace("-", "_")
            else:
                module = parts[0]
        else:
            module = base
        scopes.setdefault(module, set()).update(words)
        if re.search(r"\buse\s[\w:]*::\*", text):
            globbed.add(module)
        if base == "mod" or base == "lib":
            # a folder module's children are its own names too
            folder = os.path.dirname(f)
            for g in files:
                if os.path.dirname(g) == folder and g.endswith(".rs"):
                    scopes[module].add(os.path.basename(g)[:-3])
        for m in DEF.finditer(text):
            name = m.group(1) or m.group(2) or m.group(3)
            body = block_after(text, m.end() - 1 if m.group(3) else m.end())
            scopes.setdefault(name, set()).update(IDENT.findall(body))
    # a module with a glob import has names this index cannot see
    for name in globbed:
        scopes.pop(name, None)
    return scopes


def spans(text):
    """(line number, span, whole line) outside fenced blocks."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced or line.rstrip().endswith(("<!-- example -->", "<!-- external -->")):
            continue
        for m in re.finditer(r"(?<!`)`([^`\n]+)`(?!`)", line):
            yield n, m.group(1).strip(), line


def looks_like_path(s):
    if " " in s or s.startswith(("-", "$", "http", "<")) or "=" in s:
        return False
    if "::" in s or "(" in s:
        return False
    if s.startswith(("/", "~", "../shared", "target/")):
        # the user's or the machine's files, and build outputs
        return False
    if "*" in s or "{" in s or "<" in s:  # globs and templates
        return False
    if s.endswith(EXTENSIONS) or s.endswith("/"):
        return True
    # `GB/s`, `encrypt/decrypt`: prose with a slash, unless it starts in a
    # folder of this tree
    return "/" in s and s.split("/")[0] in TOP


CODE = re.compile(
    r"^(?:[A-Za-z_][A-Za-z0-9_]*(?:::|\.))*[A-Za-z_][A-Za-z0-9_]*!?(?:\([^()]*\))?(?:<[^<>]*>)?$"
)


def looks_like_code(s):
    if not CODE.match(s):
        return False
    head = s.split("(")[0].split("<")[0]
    if re.match(r"^[A-Z0-9_]+$", head) and not head.startswith("AESX_"):
        return False  # another program's macro or environment variable
    if head.startswith(OPENSSL_API):
        return False
    if "::" in head or head.endswith("!") or "(" in s:
        return True
    word = head.split(".")[-1]
    if "." in head and not re.match(r"^[a-z_]+\.[a-z_]+", head):
        return False
    # CamelCase types and snake_case names with an underscore; a lone
    # lowercase word (`seek`, `std`) is too often prose or a feature name.
    return bool(re.match(r"^[A-Z][a-z0-9]+[A-Z]", word) or re.match(r"^[A-Z][a-z]+$", word)
                or "_" in word.strip("_"))


class Index:
    """What exists in the tree: paths, their tails, source words, scopes."""

    def __init__(self):
        files = tracked()
        TOP.update(f.split("/")[0] for f in files if "/" in f)
        TOP.update(("target", "src", "include", "tests", "benches"))
        self.files = files
        self.paths = known_paths(files)
        self.tails = tails(self.paths)
        self.words = source_words(files)
        self.scopes = rust_scopes(files)

    def misses(self, doc, text):
        """(names checked, the misses of `text`, as the doc `doc`)."""
        out = []
        checked = 0
        here = os.path.dirname(doc)
        for n, s, _line in spans(text):
            if looks_like_path(s):
                checked += 1
                p = s.rstrip("/").removeprefix("./")
                rel = os.path.normpath(os.path.join(here, p)) if here else p
                if p in self.paths or rel in self.paths or p in self.tails:
                    continue
                # a built artefact (libaesx.so, aesx.pc) named by its file
                # name is checked by the build, not here
                if "/" not in p and not p.endswith((".rs", ".py", ".md", ".sh", ".c", ".h")):
                    continue
                out.append(f"{doc}:{n}: {s} (no such file or folder)")
            elif looks_like_code(s):
                checked += 1
                head = s.split("(")[0].split("<")[0].rstrip("!")
                names = [w for w in re.split(r"::|\.", head) if w]
                absent = [w for w in names if w not in self.words]
                if not absent and "::" in head:
                    # `A::B`: B must be inside A where A is defined here
                    seps = head.split("::")
                    for outer, inner in zip(seps, seps[1:]):
                        if outer in self.scopes and inner not in self.scopes[outer]:
                            absent.append(f"{inner} in {outer}")
                if absent:
                    out.append(f"{doc}:{n}: {s} ({', '.join(absent)} not in the sources)")
        return checked, out


LIST_RS = "crates/aesx/src/backend/list.rs"


def backend_rows(text):
    """(name, family, needs) of each row of the list, in its order."""
    families = dict(re.findall(r'FamilyId::(\w+)\s*=>\s*"([^"]+)"', text))
    rows = []
    for body in re.findall(r"Row\s*\{(.*?)\}", text, flags=re.S):
        name = re.search(r'\bname:\s*"([^"]+)"', body)
        needs = re.search(r'\bneeds:\s*"([^"]+)"', body)
        family = re.search(r"\bfamily:\s*FamilyId::(\w+)", body)
        if name and needs and family:
            rows.append((name.group(1), families.get(family.group(1), "?"), needs.group(1)))
    return rows


def table_misses(doc, text, rows):
    """Misses of the backend tables in `text` against the list's `rows`."""
    out = []
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.lstrip().startswith("|") or cells[0].lower() != "backend":
            continue
        got = []
        for row in lines[n + 1:]:  # past the |---| line
            if not row.lstrip().startswith("|"):
                break
            got.append(tuple(c.strip().strip("`") for c in row.strip().strip("|").split("|")))
        want = [r[:len(cells)] for r in rows]
        for g in got:
            if g not in want:
                out.append(f"{doc}:{n}: backend table row {' | '.join(g)} (not a row of {LIST_RS})")
        for w in want:
            if w not in got:
                out.append(f"{doc}:{n}: backend table lacks {' | '.join(w)} ({LIST_RS})")
        if not out and got != want:
            out.append(f"{doc}:{n}: backend table not in the order of {LIST_RS}")
    return out


def check():
    index = Index()
    misses = []
    checked = 0
    for doc in doc_files(index.files):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            n, m = index.misses(doc, fh.read())
        checked += n
        misses += m
    with open(os.path.join(ROOT, LIST_RS), encoding="utf-8") as fh:
        rows = backend_rows(fh.read())
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as fh:
        readme = fh.read()
    if not rows:
        misses.append(f"{LIST_RS}: no backend rows found")
    if not re.search(r"^\|\s*backend\s*\|", readme, flags=re.M):
        misses.append("README.md: no backend table (| backend | family | needs |)")
    for doc in doc_files(index.files):
        with open(os.path.join(ROOT, doc), encoding="utf-8") as fh:
            misses += table_misses(doc, fh.read(), rows)
    for m in misses:
        print(m)
    print(f"docs_check: {checked} names checked, {len(misses)} missing", file=sys.stderr)
    return 1 if misses else 0


def self_test():
    """The check finds what drifted and passes what exists."""
    doc = "docs/SELFTEST.md"
    text = "\n".join([
        "`crates/aesx/src/modes/gcm.rs` `modes/gcm.rs` `Gcm::seal` `Backend::Armv8`",
        "`crates/aesx/src/modes/nope.rs` `cli/src/bench/` `Engine::Armv8`",
        "`XtsEngine::Armv8` `aesx::backend::arm_timer::ticks()` `no_such_function()`",
        "`EVP_aes_128_gcm` `GB/s` `cargo test --workspace`",
        "`other/project.c` <!-- external -->",
        "```", "`inside/a/fence.rs`", "```",
    ])
    _, got = Index().misses(doc, text)
    want = ["nope.rs", "cli/src/bench/", "Engine::Armv8", "XtsEngine::Armv8",
            "arm_timer", "no_such_function"]
    rows = [("soft", "soft", "nothing"), ("aesni", "x86", "AES-NI")]
    table = "\n".join([
        "| backend | family | needs |", "|---|---|---|",
        "| `soft` | soft | nothing |", "| `gone` | x86 | AES-NI |",
    ])
    got += table_misses(doc, table, rows)
    want += ["gone | x86", "lacks aesni"]
    parsed = backend_rows('FamilyId::X86 => "x86",\nRow { name: "aesni", needs: "AES-NI",'
                          " family: FamilyId::X86, tier: 0 }")
    if parsed != [("aesni", "x86", "AES-NI")]:
        got.append(f"backend_rows parsed {parsed}")
    found = [w for w in want if any(w in g for g in got)]
    if found != want or len(got) != len(want):
        print("docs_check self-test failed; misses found:", *got, sep="\n  ")
        return 1
    print(f"docs_check self-test: the {len(want)} planted misses found, nothing else")
    return 0


if __name__ == "__main__":
    sys.exit(self_test() if sys.argv[1:] == ["--self-test"] else check())
