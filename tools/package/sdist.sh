#!/usr/bin/env bash
# The Python source distribution: tools/package/sdist.sh [--build] [OUTDIR]
# writes aesx-VERSION.tar.gz of python/ with maturin (the path crates it
# needs, aesx and aesx-file, go inside it), checks that it holds what a
# build needs, and with --build builds a wheel from it alone (unpacked in a
# scratch folder, away from this tree) with pip, installs that wheel into a
# fresh venv and imports it: what `pip install aesx-VERSION.tar.gz` does on
# a machine with a Rust toolchain. Prints the sdist's path and size.
# OUTDIR defaults to target/sdist.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
build=0
if [ "${1:-}" = --build ]; then
  build=1
  shift
fi
out=${1:-target/sdist}
mkdir -p "$out"
out=$(cd "$out" && pwd)
venv=target/wheel-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q 'maturin>=1.5,<2'
rm -f "$out"/aesx-*.tar.gz
"$venv/bin/maturin" sdist -m python/Cargo.toml -o "$out" >&2
sdist=$(ls "$out"/aesx-*.tar.gz)

# What a build from the sdist alone needs: the manifests and sources of
# the extension and of the two crates it depends on, the Python package
# with its type stubs, and the licence.
listing=$(tar -tzf "$sdist")
missing=()
for want in pyproject.toml Cargo.toml src/lib.rs aesx/__init__.py aesx/py.typed \
    crates/aesx/Cargo.toml crates/aesx/src/lib.rs crates/aesx-file/Cargo.toml \
    crates/aesx-file/src/lib.rs; do
  grep -q "^aesx-[^/]*/\(.*/\)\?$want\$" <<<"$listing" || missing+=("$want")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "sdist.sh: $sdist lacks: ${missing[*]}" >&2
  exit 1
fi
grep -q '\.pyi$' <<<"$listing" || { echo "sdist.sh: $sdist has no type stubs" >&2; exit 1; }

if [ "$build" = 1 ]; then
  scratch=$(mktemp -d)
  trap 'rm -rf "$scratch"' EXIT
  cp "$sdist" "$scratch/"
  python3 -m venv "$scratch/venv"
  # A private target dir, so nothing of this tree's builds is reused.
  (cd "$scratch" && CARGO_TARGET_DIR="$scratch/target" "$scratch/venv/bin/python" -m pip install -q --no-cache-dir \
    "$scratch/$(basename "$sdist")") >&2
  (cd "$scratch" && "$scratch/venv/bin/python" -c \
    'import aesx; k = bytes(16); n = bytes(12); c = aesx.AESGCM(k).encrypt(n, b"x", None); assert aesx.AESGCM(k).decrypt(n, c, None) == b"x"; print("built from the sdist:", aesx.__version__, aesx.backends())') >&2
fi
echo "$sdist ($(du -k "$sdist" | cut -f1) KiB)"
