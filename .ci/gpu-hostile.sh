#!/usr/bin/env bash
# The GPU API under hostile arguments, on a machine without a GPU: every
# aesx_cuda_* C call with wrong counts, lengths, strides, sector sizes and
# pointers must answer its status code before it reads a byte it was not
# given (examples/c/test_cuda_hostile.c: key handles on a PROT_NONE page,
# host buffers that end at one), built against the static libaesx and run
# plain and under AddressSanitizer and UndefinedBehaviorSanitizer. The Rust
# checks (aesx-cuda's raw and plan tests, aesx-capi's cuda tests) run with
# `cargo test --workspace`, the Python suite (python/tests/
# test_cuda_hostile.py) with .ci/python.sh. Called by .ci/run; also runs on
# its own. A few seconds once libaesx is built.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

command -v cc >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq gcc >/dev/null
}

start=$SECONDS
cargo build -q --release -p aesx-capi
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$PWD/$target_dir ;; esac
lib=$target_dir/release/libaesx.a
out=$target_dir/gpu-hostile
mkdir -p "$out"

warn=(-std=c99 -Wall -Wextra -Werror -pedantic)
libs=("$lib" -lpthread -ldl -lm -lrt -lutil -lgcc_s)
src=examples/c/test_cuda_hostile.c
inc=-Icrates/aesx-capi/include

cc "${warn[@]}" -O2 -g "$inc" "$src" -o "$out/test_cuda_hostile" "${libs[@]}"
cc "${warn[@]}" -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
  -fno-sanitize-recover=all "$inc" "$src" -o "$out/test_cuda_hostile_asan" "${libs[@]}"

printf '=== gpu-hostile: plain\n'
timeout 120 "$out/test_cuda_hostile"
printf '=== gpu-hostile: ASan+UBSan\n'
ASAN_OPTIONS=detect_leaks=1 timeout 120 "$out/test_cuda_hostile_asan"
# A libcuda that is not a complete driver (cuInit and cuDeviceGetCount, no
# cuDeviceGet): every call must say AESX_ERR_NO_DEVICE, not panic (which the
# C boundary would turn into AESX_ERR_INTERNAL).
stub=$out/stub-libcuda
mkdir -p "$stub"
cat >"$stub/stub.c" <<'C'
int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
C
cc -shared -fPIC -o "$stub/libcuda.so" "$stub/stub.c"
printf '=== gpu-hostile: a libcuda without cuDeviceGet\n'
LD_LIBRARY_PATH=$stub timeout 120 "$out/test_cuda_hostile"
printf '=== gpu-hostile: done (%ss)\n' "$((SECONDS - start))"
