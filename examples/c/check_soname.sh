#!/usr/bin/env bash
# The shared library's ABI identity, and a program's view of it:
#
#   check_soname.sh LIB HEADER PROGRAM
#
# LIB (libaesx.so) must have the SONAME libaesx.so.0 and export exactly
# the functions HEADER (aesx.h) declares, each at the symbol version
# libaesx.so.0, and nothing else (besides the version's own definition
# symbol, which the linker adds). PROGRAM, linked with -laesx, must need
# libaesx.so.0 (not libaesx.so) and bind every aesx_ function at that
# version. docs/C.md, "ABI policy", says why.
set -euo pipefail
lib=$1 header=$2 prog=$3
want=libaesx.so.0
fail() { printf 'check_soname: %s\n' "$*" >&2; exit 1; }
command -v readelf >/dev/null || fail "readelf not found (binutils)"

soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
[ "$soname" = "$want" ] || fail "$lib: SONAME '${soname:-none}', want $want"

# Defined dynamic symbols as NAME@@VERSION (the symbol table's 8th column).
defined=$(readelf -W --dyn-syms "$lib" | awk '$1 ~ /^[0-9]+:$/ && $7 != "UND" && NF >= 8 { print $8 }' | sort)
declared=$(grep -oE '\baesx_[a-z0-9_]+\(' "$header" | tr -d '(' | sort -u)
[ -n "$declared" ] || fail "$header declares no aesx_ function"
expected=$( { printf '%s\n' "$want"; for f in $declared; do printf '%s@@%s\n' "$f" "$want"; done; } | sort)
if [ "$defined" != "$expected" ]; then
  diff <(printf '%s\n' "$expected") <(printf '%s\n' "$defined") | sed 's/^/  /' >&2 || true
  fail "$lib: exported symbols differ from the header's functions at $want (< wanted, > exported)"
fi
n=$(printf '%s\n' $declared | wc -l)

needed=$(readelf -d "$prog" | sed -n 's/.*(NEEDED).*\[\(libaesx[^]]*\)\].*/\1/p')
[ "$needed" = "$want" ] || fail "$prog: needs '${needed:-nothing}' from libaesx, want $want"
unversioned=$(readelf -W --dyn-syms "$prog" \
  | awk -v v="@$want" '$1 ~ /^[0-9]+:$/ && $7 == "UND" && $8 ~ /^aesx_/ && index($8, v) == 0 { print $8 }')
[ -z "$unversioned" ] || fail "$prog: aesx_ symbols without version $want: $unversioned"
bound=$(readelf -W --dyn-syms "$prog" | awk -v v="@$want" '$7 == "UND" && $8 ~ /^aesx_/ && index($8, v) { n++ } END { print n + 0 }')
[ "$bound" -gt 0 ] || fail "$prog: binds no aesx_ symbol"
echo "check_soname: $lib is $want, exports the header's $n functions at $want and nothing else; $(basename "$prog") needs $want and binds $bound of them there"
