#!/usr/bin/env bash
# Miri (docs/FUZZING.md): undefined behaviour in what the interpreter can run.
# The soft backend (forced; Miri reports no AES-NI or AVX2, so the baseline
# SSE2 build of the bitsliced rounds runs), the InOut pointer type, the mode
# glue on soft with short inputs (crates/aesx/src/miri_tests.rs), the padding
# check and key schedule, and the parsers: the aesx file header and payload
# layout, and the .rsp reader of `aesx cavp`. Prints each test runner's
# summary line; fails on any UB report or failed test.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
rustup +nightly component add miri rust-src >/dev/null
cargo +nightly miri setup >/dev/null

# Stacked Borrows is Miri's default; strict provenance also rejects
# integer-to-pointer casts. Isolation stays on (no files, no clock).
export MIRIFLAGS="${MIRIFLAGS:-} -Zmiri-strict-provenance"
export AESX_BACKEND=soft
# aesx's tests link OpenSSL as a reference; none of the tests Miri runs calls
# it, so link the system's libcrypto instead of building the vendored one
# again (build scripts run natively: that build alone took minutes).
export OPENSSL_NO_VENDOR=1

status=0
check() {
  local what=$1
  shift
  echo "=== miri: $what"
  local start=$SECONDS
  local log
  log=$(mktemp)
  if cargo +nightly miri test "$@" >"$log" 2>&1; then
    grep -E '^test result' "$log" || true
  else
    tail -n 60 "$log"
    echo "miri: $what FAILED"
    status=1
  fi
  rm -f "$log"
  echo "miri: $what took $((SECONDS - start))s"
}

check "aesx: InOut, soft backend, mode glue, padding, key schedule" \
  -p aesx --lib -- miri_tests padding:: key::tests soft::gcm soft::polyval::tests soft::sbox soft::bitslice \
  soft::tests::lanes_are_independent soft::tests::portable_words_agree
check "aesx-file: header and layout parsers" \
  -p aesx-file --lib -- header:: payload::layout::tests::layout_lengths \
  payload::chunk::tests::nonce_xors_big_endian_index payload::derive::tests::hkdf_expand
check "aesx-cli: the .rsp reader" \
  -p aesx-cli --no-default-features --lib -- cavp::rsp::tests::sections_headers_records \
  cavp::rsp::tests::malformed_lines_are_errors cavp::rsp::tests::hex_bits_trusts_the_header \
  cavp::tests

exit $status
