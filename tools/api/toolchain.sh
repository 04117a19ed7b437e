#!/usr/bin/env bash
# Prints the toolchain whose rustdoc JSON tools/api/rust_api.py renders,
# installing it if missing. The JSON format changes between nightlies, so
# the API snapshots are taken with one build: the plain `nightly` when it
# is that build, else the dated toolchain that holds it. Moving the pin
# means checking rust_api.py against the new format and refreshing api/.
set -euo pipefail
pinned=nightly-2026-05-20 # rustc 1.97.0-nightly (e50aa6fba 2026-05-19)
commit=e50aa6fba
if rustup run nightly rustc -vV 2>/dev/null | grep -q "^commit-hash: $commit"; then
  echo nightly
  exit 0
fi
if ! rustup run "$pinned" rustc -V >/dev/null 2>&1; then
  rustup toolchain install "$pinned" --profile minimal >&2
fi
echo "$pinned"
