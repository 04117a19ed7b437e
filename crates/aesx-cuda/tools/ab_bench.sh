#!/usr/bin/env bash
# On a GPU machine: the on-device figures of the kernel variants in one run,
# so that they share a device, a driver and a clock: the default kernels,
# GHASH by Horner's rule (AESX_CUDA_GHASH=horner, the GCM rows), and the two
# larger XTS tweak walks (AESX_CUDA_XTS=unrolled, rewalk: the XTS rows).
# Each variant compiles its own PTX (the cache keys on the options), so
# libnvrtc must be loadable, or each variant's PTX already cached
# (AESX_CUDA_XTS=... cargo run -p aesx-cuda --example ptx_cache).
# Usage: crates/aesx-cuda/tools/ab_bench.sh [MiB] [repeats]
set -euo pipefail
cd "$(dirname "$0")/../../.."
mib="${1:-1024}"
reps="${2:-5}"
cargo build --release -p aesx-cuda --example cuda_bench
bin=target/release/examples/cuda_bench
for v in "" "AESX_CUDA_GHASH=horner" "AESX_CUDA_XTS=unrolled" "AESX_CUDA_XTS=rewalk"; do
  echo "=== ${v:-default kernels}"
  env $v "$bin" "$mib" "$reps"
done
