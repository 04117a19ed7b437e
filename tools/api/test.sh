#!/usr/bin/env bash
# Proves that the API check (tools/api/check.sh) fails when it should: on
# copies of the sources, a public Rust function made private, a C prototype
# deleted, a C constant's value changed and an exported symbol dropped must
# each fail the comparison and be named; a public function or C prototype
# added must pass. Nothing in the tree is touched.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
target_dir=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "api test: $*" >&2; exit 1; }
toolchain=$(bash tools/api/toolchain.sh)

# expect_compare pass|fail SNAPSHOT CURRENT PATTERN...: the verdict, and
# each pattern (a fixed string) in the report.
expect_compare() {
  local want=$1 snap=$2 cur=$3; shift 3
  local got=pass
  python3 tools/api/compare.py "$snap" "$cur" "(test)" > "$work/report" 2>&1 || got=fail
  [ "$got" = "$want" ] || { cat "$work/report" >&2; fail "expected $want, got $got ($cur)"; }
  for p in "$@"; do
    grep -qF -- "$p" "$work/report" || { cat "$work/report" >&2; fail "report lacks: $p"; }
  done
  echo "ok, $want: $(grep -o '[0-9]* items;.*' "$work/report")"
}

echo "--- Rust: aesx copied, built as it is, with a function made private, with one added"
mkdir -p "$work/ws/crates"
cp Cargo.toml Cargo.lock "$work/ws/"
sed -i 's|^members = .*|members = ["crates/aesx"]|' "$work/ws/Cargo.toml"
cp -r crates/aesx "$work/ws/crates/aesx"
rust_api() { # label: the copy's public API into $work/label.txt
  (cd "$work/ws" && CARGO_TARGET_DIR=$target_dir cargo "+$toolchain" rustdoc -q -p aesx --lib --all-features \
    -- -Zunstable-options --output-format json -A rustdoc::private_intra_doc_links)
  python3 "$root/tools/api/rust_api.py" "$target_dir/doc/aesx.json" > "$work/$1.txt"
}
list=$work/ws/crates/aesx/src/backend/registry.rs
grep -q '    pub fn fastest() -> Backend' "$list" || fail "Backend::fastest not found to mutate"
rust_api base
sed -i 's|    pub fn fastest() -> Backend|    pub(crate) fn fastest() -> Backend|' "$list"
printf '\n/// Added by the API test.\npub fn api_test_added() {}\n' >> "$work/ws/crates/aesx/src/lib.rs"
rust_api removed
sed -i 's|    pub(crate) fn fastest() -> Backend|    pub fn fastest() -> Backend|' "$list"
rust_api added
expect_compare fail "$work/base.txt" "$work/removed.txt" \
  "removed: aesx::Backend [impl Backend] fn fastest" "added: aesx::api_test_added [fn]"
expect_compare pass "$work/base.txt" "$work/added.txt" "added: aesx::api_test_added [fn]"
grep -q '^ *removed:' "$work/report" && fail "an addition reported a removal"

echo "--- C: aesx.h copied with a prototype deleted, a constant changed, a prototype added; libaesx with a symbol dropped"
h=crates/aesx-capi/include/aesx.h
python3 tools/api/c_abi.py "$h" > "$work/c-base.txt"
python3 - "$h" "$work/removed.h" "$work/added.h" <<'PY'
import re, sys
src, removed, added = sys.argv[1:]
text = open(src).read()
new_fn = "int aesx_api_test_added(const uint8_t *in, size_t len);\n\n#ifdef __cplusplus\n}"
proto = re.compile(r"^int aesx_ofb_xor\([^;]*\);\n", re.M)
assert proto.search(text), "aesx_ofb_xor's prototype not found"
assert "#define AESX_KWP 2\n" in text, "AESX_KWP not found"
with_added = text.replace("\n#ifdef __cplusplus\n}", "\n" + new_fn, 1)
open(added, "w").write(with_added)
open(removed, "w").write(proto.sub("", with_added).replace("#define AESX_KWP 2\n", "#define AESX_KWP 3\n"))
PY
python3 tools/api/c_abi.py "$work/removed.h" > "$work/c-removed.txt"
python3 tools/api/c_abi.py "$work/added.h" > "$work/c-added.txt"
expect_compare fail "$work/c-base.txt" "$work/c-removed.txt" \
  "removed: fn aesx_ofb_xor" "changed: const AESX_KWP :: 2" "added: fn aesx_api_test_added"
expect_compare pass "$work/c-base.txt" "$work/c-added.txt" "added: fn aesx_api_test_added"

# A stand-in libaesx.so.0 exporting every function of the header at the
# library's symbol version, then the same without aesx_ofb_xor.
fake_lib() { # out.so, names...
  local out=$1; shift
  printf 'libaesx.so.0 { global: *; };\n' > "$work/ver"
  for n in "$@"; do printf 'void %s(void) {}\n' "$n"; done > "$work/fake.c"
  cc -shared -fPIC -Wl,--version-script="$work/ver" -o "$out" "$work/fake.c"
}
mapfile -t names < <(sed -n 's/^fn \(aesx_[a-z0-9_]*\) :: .*/\1/p' "$work/c-base.txt")
fake_lib "$work/full.so" "${names[@]}"
mapfile -t less < <(printf '%s\n' "${names[@]}" | grep -vx aesx_ofb_xor)
fake_lib "$work/less.so" "${less[@]}"
python3 tools/api/c_abi.py "$h" "$work/full.so" > "$work/c-sym-base.txt"
python3 tools/api/c_abi.py "$h" "$work/less.so" > "$work/c-sym-less.txt"
expect_compare fail "$work/c-sym-base.txt" "$work/c-sym-less.txt" "removed: symbol aesx_ofb_xor :: T @libaesx.so.0"
echo "api test: every mutation caught, every addition passed"
