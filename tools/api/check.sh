#!/usr/bin/env bash
# The public API against its committed snapshot (api/): the Rust API of the
# published library crates (aesx with every feature, aesx-file), from
# nightly rustdoc's JSON, and libaesx's C ABI (aesx.h and the symbols the
# built libaesx.so exports). An item removed or changed fails; additions
# pass and are listed.
#
#   tools/api/check.sh            # compare (CI: .ci/api.sh)
#   tools/api/check.sh --update   # rewrite api/*.txt from the tree as it is
#
# The release libaesx.so is (re)built if stale: in CI .ci/capi.sh has built
# it already, so that costs nothing.
set -euo pipefail
cd "$(dirname "$0")/../.."
update=0
case ${1:-} in
  --update) update=1 ;;
  "") ;;
  *) echo "usage: tools/api/check.sh [--update]" >&2; exit 2 ;;
esac
toolchain=$(bash tools/api/toolchain.sh)
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
refresh="tools/api/check.sh --update, and commit api/"

rust_json() { # crate, cargo flags...
  local crate=$1; shift
  cargo "+$toolchain" rustdoc -q -p "$crate" --lib "$@" -- -Zunstable-options --output-format json
  python3 tools/api/rust_api.py "$target_dir/doc/${crate//-/_}.json" > "$work/$crate.txt"
}
rust_json aesx --all-features
rust_json aesx-file

lib=$target_dir/release/libaesx.so
cargo build -q --release -p aesx-capi
python3 tools/api/c_abi.py crates/aesx-capi/include/aesx.h "$lib" > "$work/aesx-c.txt"

if [ "$update" = 1 ]; then
  mkdir -p api
  for f in aesx aesx-file aesx-c; do
    cp "$work/$f.txt" "api/$f.txt"
    echo "api/$f.txt: $(wc -l < "api/$f.txt") items"
  done
  exit 0
fi
status=0
for f in aesx aesx-file aesx-c; do
  python3 tools/api/compare.py "api/$f.txt" "$work/$f.txt" "$refresh" || status=1
done
exit $status
