#!/usr/bin/env bash
# The Python wheel as users install it: tools/package/wheel.sh [--target
# TRIPLE] [OUTDIR] builds the abi3 (CPython >= 3.9) manylinux2014 wheel of
# python/ for this machine, or cross-built for TRIPLE
# (aarch64-unknown-linux-gnu: manylinux2014_aarch64), with
# maturin, linking through zig so that it runs on glibc 2.17 and later
# whatever this machine's glibc is, checks its platform tag with auditwheel
# and prints the wheel's path and size. The tools come from PyPI into a
# private build venv (target/wheel-venv); OUTDIR defaults to target/wheels.
#
#   pip install target/wheels/aesx-*-manylinux*.whl    # no Rust toolchain needed
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
triple=
if [ "${1:-}" = --target ]; then
  triple=${2:?wheel.sh: --target needs a target triple}
  shift 2
fi
arch=${triple%%-*}
arch=${arch:-$(uname -m)}
out=${1:-target/wheels}
mkdir -p "$out"
out=$(cd "$out" && pwd)
venv=target/wheel-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --upgrade pip
"$venv/bin/python" -m pip install -q 'maturin>=1.5,<2' ziglang auditwheel
rm -f "$out"/aesx-*"$arch".whl
target_flag=()
if [ -n "$triple" ]; then
  rustup target add "$triple" >/dev/null 2>&1 || rustup target list --installed | grep -qx "$triple"
  target_flag=(--target "$triple")
fi
# maturin finds zig through the venv's python (python -m ziglang).
PATH="$root/$venv/bin:$PATH" "$venv/bin/maturin" build -q --release --zig "${target_flag[@]}" \
  --compatibility manylinux2014 -m python/Cargo.toml -o "$out" >&2
wheel=$(ls "$out"/aesx-*"$arch".whl)
report=$("$venv/bin/auditwheel" show "$wheel" 2>&1)
echo "$report" >&2
echo "$report" | tr -s ' \n' ' ' | grep -q "consistent with the following platform tag: \"manylinux_2_17_$arch\"" \
  || { echo "wheel.sh: $wheel is not manylinux_2_17_$arch (manylinux2014)" >&2; exit 1; }
echo "wheel.sh: $(basename "$wheel"), $(( $(stat -c %s "$wheel") / 1024 )) KiB" >&2
echo "$wheel"
