#!/usr/bin/env bash
# Builds everything the GPU check needs into target/gpu-kit, on a machine
# with no GPU: test binaries, the aesx CLI, the benchmark examples, the C
# library and its CUDA test, the Python wheel, and the kernels' PTX from
# NVRTC (the PyPI wheel; 12.8 by default, whose PTX a CUDA 12.8+ driver
# loads). The GPU machine then needs no compiler, no NVRTC and no network:
#
#   tools/gpu/build-kit.sh            # here
#   bash tools/gpu/check.sh           # there, from the repository root,
#                                     # with target/gpu-kit copied along
#
# Binaries are stripped to keep the kit small (about 30 MB: the device tool
# carries at most 64 MiB with the repository).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
kit=$root/target/gpu-kit
nvrtc_wheel=${AESX_NVRTC_WHEEL:-nvidia-cuda-nvrtc-cu12==12.8.*}
rm -rf "$kit/bin" "$kit/ptx" "$kit/wheels"
mkdir -p "$kit/bin" "$kit/ptx" "$kit/wheels"

step() { printf '\n=== gpu-kit: %s (%ss)\n' "$1" "$SECONDS"; }

# Test binaries: the executables cargo reports for each test target.
tests() {
  cargo test --release --no-run --message-format=json "$@" 2>/dev/null |
    python3 -c '
import json, sys
for line in sys.stdin:
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["target"]["name"], m["executable"])'
}

step "aesx-cuda tests"
tests -p aesx-cuda --lib --test gpu_modes --test raw_device | while read -r name exe; do
  strip -s -o "$kit/bin/$name" "$exe"
done
step "aesx-cli: binary and the cuda_cli test"
cargo build --release -p aesx-cli
strip -s -o "$kit/bin/aesx" target/release/aesx
tests -p aesx-cli --test cuda_cli | while read -r name exe; do
  strip -s -o "$kit/bin/$name" "$exe"
done
step "aesx-cuda examples"
cargo build --release -p aesx-cuda --example cuda_bench --example pcie_probe --example ptx_cache
for e in cuda_bench pcie_probe; do
  strip -s -o "$kit/bin/$e" "target/release/examples/$e"
done

step "C library and its CUDA test"
cargo build --release -p aesx-capi
make -s -C examples/c build/test_cuda
strip --strip-unneeded -o "$kit/bin/libaesx.so.0" target/release/libaesx.so
cp examples/c/build/test_cuda "$kit/bin/test_cuda"

step "PTX from NVRTC ($nvrtc_wheel)"
nvrtc=$root/target/gpu-kit-nvrtc
if ! ls "$nvrtc"/nvidia/cuda_nvrtc/lib/libnvrtc.so.* >/dev/null 2>&1; then
  python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
    --target "$nvrtc" "$nvrtc_wheel" 2>/dev/null ||
    python3 -m pip install --quiet --disable-pip-version-check --no-warn-script-location \
      --target "$nvrtc" "$nvrtc_wheel" --break-system-packages
fi
export LD_LIBRARY_PATH=$nvrtc/nvidia/cuda_nvrtc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# compute_90 for H100/H200; AESX_KIT_ARCHS adds others (e.g. compute_80).
AESX_CUDA_CACHE_DIR=$kit/ptx target/release/examples/ptx_cache compute_90 ${AESX_KIT_ARCHS:-}
# The XTS tweak-walk variants that check.sh times beside the default.
for v in unrolled rewalk; do
  AESX_CUDA_XTS=$v AESX_CUDA_CACHE_DIR=$kit/ptx target/release/examples/ptx_cache compute_90
done

step "Python wheel"
venv=$root/target/gpu-kit-venv
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin>=1.5,<2"
(cd python && "$venv/bin/maturin" build --release --quiet -o "$kit/wheels")
# pytest for the Python tests there (the GPU machine has no network).
"$venv/bin/python" -m pip download --quiet --disable-pip-version-check -d "$kit/wheels" pytest

# Where the test binaries will look for the repository (CARGO_MANIFEST_DIR).
echo "$root" > "$kit/build-root"

step "done"
du -sh "$kit"
ls -la "$kit/bin" "$kit/wheels"
