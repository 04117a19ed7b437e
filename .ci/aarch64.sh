#!/usr/bin/env bash
# The library's whole test suite on AArch64: cross-compiled for
# aarch64-unknown-linux-gnu and run under qemu-user with `-cpu max` (which
# has FEAT_AES, FEAT_PMULL and FEAT_SHA3), once forcing the armv8 backend
# and once forcing the soft one. Called by .ci/run; also runs on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0

target=aarch64-unknown-linux-gnu
printf '\n=== aarch64: cross toolchain and qemu (%ss)\n' "$SECONDS"
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
[ -e /usr/aarch64-linux-gnu/include/stdio.h ] || need+=(libc6-dev-arm64-cross)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
rustup target add "$target" >/dev/null 2>&1 || rustup target list --installed | grep -qx "$target"

# The linker, the C compiler and archiver for the vendored OpenSSL
# (openssl-src cross-builds with them), and the runner.
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CC_aarch64_unknown_linux_gnu=aarch64-linux-gnu-gcc
export AR_aarch64_unknown_linux_gnu=aarch64-linux-gnu-ar
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -cpu max -L /usr/aarch64-linux-gnu"
# qemu -cpu max has these; the detection test checks that they were found,
# so that the EOR3 kernels really run here.
export AESX_EXPECT_ARM_FEATURES=aes,pmull,sha3

printf '\n=== aarch64: build tests (%ss)\n' "$SECONDS"
cargo test -p aesx --target "$target" --no-run

printf '\n=== aarch64: AESE/AESMC pairs adjacent in the kernels (%ss)\n' "$SECONDS"
# Cores fuse an AESE/AESMC (AESD/AESIMC) pair only when the two are back to
# back on one register; a compiler change that splits them would cost speed
# silently, so check the code generated for the library's unit-test binary.
libtest=$(cargo test -p aesx --target "$target" --lib --no-run --message-format=json \
  | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["lib"]:
        print(m["executable"])')
python3 docs/arm64_icount.py pairs "$libtest"

printf '\n=== aarch64: clippy (%ss)\n' "$SECONDS"
# The library and its tests: the arch-specific code is all in the library;
# benchmarks are linted by the x86 clippy step and need not cross-build.
cargo clippy -p aesx --target "$target" --lib --tests -- -D warnings

for backend in armv8 soft; do
  printf '\n=== aarch64: tests under qemu, AESX_BACKEND=%s (%ss)\n' "$backend" "$SECONDS"
  AESX_BACKEND=$backend cargo test -p aesx --target "$target"
done

# A baseline Armv8.0 core with the Crypto Extensions but no FEAT_SHA3 (the
# class of Cortex-A53/A72 boards): the armv8 backend must take its two-EOR
# kernels there.
printf '\n=== aarch64: tests under qemu -cpu cortex-a53 (no SHA3), AESX_BACKEND=armv8 (%ss)\n' "$SECONDS"
CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -cpu cortex-a53 -L /usr/aarch64-linux-gnu" \
  AESX_EXPECT_ARM_FEATURES=aes,pmull AESX_BACKEND=armv8 cargo test -p aesx --target "$target"
