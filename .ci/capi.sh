#!/usr/bin/env bash
# libaesx, the C interface: build the library, run the C examples and ABI
# tests against it (shared and static, and from C++) and check its SONAME
# and symbol versions, again under AddressSanitizer and
# UndefinedBehaviorSanitizer, then install it into a scratch prefix (the
# libaesx.so -> libaesx.so.0 layout) and build a program through
# pkg-config, checking what it links. The header's
# staleness test runs with `cargo test --workspace`. Called by .ci/run;
# also runs on its own.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
export CARGO_INCREMENTAL=0

need=()
command -v make >/dev/null || need+=(make)
command -v cc >/dev/null || need+=(gcc)
command -v c++ >/dev/null || need+=(g++)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v readelf >/dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

printf '\n=== capi: cargo build --release -p aesx-capi (%ss)\n' "$SECONDS"
cargo build --release -p aesx-capi

printf '\n=== capi: make -C examples/c check (%ss)\n' "$SECONDS"
timeout 900 make -C examples/c check
timeout 600 make -C examples/c build/test_cuda && timeout 600 examples/c/build/test_cuda

printf '\n=== capi: C tests under -fsanitize=address,undefined (%ss)\n' "$SECONDS"
timeout 600 make -C examples/c sanitize

printf '\n=== capi: install and link through pkg-config (%ss)\n' "$SECONDS"
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$PWD/$target_dir ;; esac
prefix=$target_dir/capi-prefix
rm -rf "$prefix"
make -C crates/aesx-capi install PREFIX="$prefix"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
libdir=$(pkg-config --variable=libdir aesx)
out=$target_dir/capi-pkgconfig
mkdir -p "$out"
# shellcheck disable=SC2046 # pkg-config output is a list of words
cc -std=c99 -O2 examples/c/functional.c $(pkg-config --cflags --libs aesx) \
  -Wl,-rpath,"$libdir" -o "$out/functional_shared"
# shellcheck disable=SC2046
cc -std=c99 -O2 examples/c/functional.c $(pkg-config --cflags aesx) "$libdir/libaesx.a" \
  $(pkg-config --variable=static_libs aesx) -o "$out/functional_static"
for variant in shared static; do
  printf 'pkg-config, %s: ' "$variant"
  "$out/functional_$variant" vectors/aarch64cryptolib/SL_functional_tests.rsp | tail -n 1
done
# The installed layout: the library under its SONAME, libaesx.so a link to it.
[ -f "$libdir/libaesx.so.0" ] && [ ! -L "$libdir/libaesx.so.0" ] \
  || { echo "capi: $libdir/libaesx.so.0 is not the installed library" >&2; exit 1; }
[ "$(readlink "$libdir/libaesx.so")" = libaesx.so.0 ] \
  || { echo "capi: $libdir/libaesx.so does not link to libaesx.so.0" >&2; exit 1; }
examples/c/check_soname.sh "$libdir/libaesx.so.0" "$(pkg-config --variable=includedir aesx)/aesx.h" \
  "$out/functional_shared"
printf '\n=== capi: done (%ss)\n' "$SECONDS"
