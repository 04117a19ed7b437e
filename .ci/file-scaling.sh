#!/usr/bin/env bash
# The file pipeline's guard: `aesx encrypt`/`decrypt` at -j 1..cores, 4x the
# cores and the default, 512 MiB from tmpfs to /dev/null, judged by ratios
# within this one run (tools/file_scaling.py --check: no collapse above the
# core count, the default near the best -j, encryption near decryption).
# The lean release binary reuses the release build of the library that
# .ci/capi.sh made.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$SECONDS
cargo build -q --release -p aesx-cli --no-default-features
target_dir=${CARGO_TARGET_DIR:-target}
python3 tools/file_scaling.py --aesx "$target_dir/release/aesx" --size-mib 512 --reps 3 --no-age --check
echo "file-scaling.sh: $((SECONDS - start)) s"
