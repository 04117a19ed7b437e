#!/usr/bin/env bash
# Compiles every aesx CUDA kernel to PTX with NVRTC, on a machine with no GPU
# and no CUDA toolkit: libnvrtc comes from NVIDIA's `nvidia-cuda-nvrtc-cu12`
# wheel on PyPI, installed into a private directory (never into the system's
# Python). cudarc loads libnvrtc with dlopen, so LD_LIBRARY_PATH points it at
# the wheel's lib/ directory (which also holds libnvrtc-builtins, loaded by
# libnvrtc itself). Fails on any compile error, or if libnvrtc cannot be
# loaded (AESX_REQUIRE_NVRTC=1 turns the test's skip into a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

dir="${AESX_NVRTC_DIR:-$PWD/target/nvrtc}"
lib="$dir/nvidia/cuda_nvrtc/lib"
wheel="nvidia-cuda-nvrtc-cu12==12.9.*"

if ! ls "$lib"/libnvrtc.so.* >/dev/null 2>&1; then
  if ! python3 -m pip --version >/dev/null 2>&1; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq python3-pip >/dev/null
  fi
  pip_args=(install --quiet --disable-pip-version-check --no-warn-script-location
            --target "$dir" "$wheel")
  # --target never touches the system's packages; Debian's
  # EXTERNALLY-MANAGED guard may still refuse it without this flag.
  python3 -m pip "${pip_args[@]}" 2>/dev/null ||
    python3 -m pip "${pip_args[@]}" --break-system-packages
fi
ls "$lib"/libnvrtc.so.* >/dev/null

export LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# --workspace: the features resolve as in the README's test run, whose build
# this reuses (with -p aesx-cuda every dependency, vendored OpenSSL
# included, was built once more: three minutes).
AESX_REQUIRE_NVRTC=1 cargo test --workspace --test nvrtc_compile
# The generated S-box networks (kernels/sbox_lop3.cuh) on all 256 inputs.
python3 crates/aesx-cuda/tools/sbox_lop3.py --check
