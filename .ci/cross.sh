#!/usr/bin/env bash
# The platforms CI cannot run, type-checked: every crate for macOS
# (aarch64, x86-64) and Windows (MSVC), and the library for
# wasm32-unknown-unknown. Nothing is linked or run here (no macOS SDK, no
# MSVC linker): these platforms are built, not tested.
#
# What is and is not checked for macOS and Windows:
# - aesx and aesx-capi: the libraries (their tests need vendored OpenSSL and
#   ring, whose build scripts compile C for the target);
# - aesx-file: everything, tests included;
# - aesx-cli (with aesx-cuda): the lean build (--no-default-features) and
#   the default one less `peers`, i.e. `plot` and `cuda`, binaries and tests.
#   `peers` (`aesx bench`: the aesx-bench crate) is not checked: it pulls
#   vendored OpenSSL, aws-lc-sys and ring, whose build scripts need the
#   target's C toolchain.
# Warnings are denied, except for wasm32 (see there).
# Called by .ci/run; also runs on its own. About 3 minutes on a cold 2-core
# machine whose host build is warm.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0

step() { printf '\n=== cross: %s (%ss)\n' "$1" "$SECONDS"; }

targets=(aarch64-apple-darwin x86_64-apple-darwin x86_64-pc-windows-msvc)

step "rustup targets"
for t in "${targets[@]}" wasm32-unknown-unknown; do
  rustup target add "$t" >/dev/null 2>&1 || rustup target list --installed | grep -qx "$t"
done

for t in "${targets[@]}"; do
  step "$t: aesx and aesx-capi (libraries), aesx-file (all targets)"
  cargo clippy -q --target "$t" -p aesx -p aesx-capi --lib -- -D warnings
  cargo clippy -q --target "$t" -p aesx-file --all-targets -- -D warnings

  step "$t: aesx-cli lean (no default features)"
  cargo clippy -q --target "$t" -p aesx-cli --no-default-features --all-targets -- -D warnings

  step "$t: aesx-cli default less peers (plot, cuda)"
  cargo clippy -q --target "$t" -p aesx-cli --no-default-features --features plot,cuda \
    --all-targets -- -D warnings
done

# wasm32 has neither x86 nor aarch64 kernels, so a few helpers only those
# use are dead code there: checked for errors, warnings allowed. The default
# `getrandom` feature needs an OS: on wasm32-unknown-unknown getrandom wants
# its `wasm_js` backend, which only the final binary may choose (a library
# must not pull wasm-bindgen into everyone's build), so the library is
# checked with every feature but that one, std and no_std.
step "wasm32-unknown-unknown: aesx (library), std and no_std"
cargo check -q --target wasm32-unknown-unknown -p aesx --lib \
  --no-default-features --features std,rustcrypto,rand_core,arrayvec,bytes
cargo check -q --target wasm32-unknown-unknown -p aesx --lib --no-default-features

step "done"
