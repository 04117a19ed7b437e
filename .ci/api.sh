#!/usr/bin/env bash
# The library's public face: no_std without an allocator (host build, its
# unit tests, and a real bare-metal target so that no `std` sneaks in), no
# environment reads in the library, and the docs with warnings denied
# (missing docs, broken intra-doc links). The RustCrypto trait proofs
# (tests/rustcrypto.rs) and the doc examples run in `cargo test --workspace`.
# The public API against its snapshot in api/ (tools/api/check.sh: Rust items
# of aesx and aesx-file, libaesx's C header and exported symbols), and the
# proof that the check fails on a removal (tools/api/test.sh).
# Called by .ci/run; also runs on its own. About 4 minutes on a cold 2-core
# machine; the two API steps about 35 s of that (2-core Zen 3, release
# libaesx already built by .ci/capi.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0

step() { printf '\n=== api: %s (%ss)\n' "$1" "$SECONDS"; }

step "no_std, no alloc: host build, without and with the RustCrypto traits"
cargo build -p aesx --no-default-features
cargo build -p aesx --no-default-features --features rustcrypto

step "no_std, no alloc: the library's unit tests"
cargo test -p aesx --no-default-features --lib
cargo test -p aesx --no-default-features --features rustcrypto --lib

step "no_std on a bare-metal target (thumbv7em-none-eabihf: no std exists there)"
target=thumbv7em-none-eabihf
rustup target add "$target" >/dev/null 2>&1 || rustup target list --installed | grep -qx "$target"
cargo build -p aesx --no-default-features --target "$target"
cargo build -p aesx --no-default-features --features rustcrypto --target "$target"
# aead's optional features that need no OS or allocator (getrandom needs an
# OS, bytes needs alloc).
cargo build -p aesx --no-default-features --features rand_core,arrayvec --target "$target"

step "the library reads no environment variable"
# Test-only files (cfg(test) modules) may; the library proper may not.
if grep -rnE 'env::var|var_os|option_env!|env!\(' crates/aesx/src --include='*.rs' \
  | grep -vE '^crates/aesx/src/(dispatch_tests\.rs|backend/aarch64/tests\.rs):'; then
  echo "api: the library reads the environment (above)" >&2
  exit 1
fi
echo "none found"

step "docs with warnings denied (the published crates, with the features docs.rs builds them with)"
RUSTDOCFLAGS="-D warnings" cargo doc -p aesx -p aesx-file -p aesx-cuda --no-deps
RUSTDOCFLAGS="-D warnings" cargo doc -p aesx-cli --no-default-features --no-deps

step "public API against api/: removed or changed items fail, additions pass"
bash tools/api/check.sh

step "the API check catches a removal (mutated copies of the sources)"
bash tools/api/test.sh

step "done"
