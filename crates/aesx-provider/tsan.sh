#!/usr/bin/env bash
# The provider's eight-thread run (tests/harness.c, part 8: contexts
# duplicated from shared keyed templates, one shared counter) under
# ThreadSanitizer: the provider and the Rust standard library built with
# -Zsanitizer=thread (nightly, -Zbuild-std, its own target directory), the
# harness linked with the TSan runtime that rustc ships, exported
# (-rdynamic) to the provider it loads (gcc's libtsan is older and lacks
# entry points LLVM's instrumentation calls). The harness
# and OpenSSL are not instrumented: races inside them go unseen; races in
# aesx and the provider, across the threads OpenSSL calls it from, are
# reported.
#   crates/aesx-provider/tsan.sh        (several minutes the first time)
set -euo pipefail
cd "$(dirname "$0")/../.."
target=${TSAN_TARGET_DIR:-target/tsan}
host=$(rustc -vV | sed -n 's/^host: //p')
RUSTFLAGS="-Zsanitizer=thread" CARGO_TARGET_DIR="$target" \
    cargo +nightly build -q -Zbuild-std --target "$host" --release -p aesx-provider
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$target/$host/release/libaesx_provider.so" "$dir/aesx.so"
rt="$(rustc +nightly --print sysroot)/lib/rustlib/$host/lib/librustc-nightly_rt.tsan.a"
cc -O1 -g -pthread -rdynamic -o "$dir/harness" crates/aesx-provider/tests/harness.c \
    -Wl,--whole-archive "$rt" -Wl,--no-whole-archive -lcrypto -lstdc++ -ldl -lm
# The fastest backend and the portable one; TSan stops at the first race
# with a non-zero status (halt_on_error).
for backend in "" soft; do
    AESX_BACKEND=$backend HARNESS_THREADS_ONLY=1 \
        TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
        "$dir/harness" "$dir" - 2>&1 | tee "$dir/out"
    grep -q ' 0 failures' "$dir/out"
done
echo "tsan.sh: no race reported"
