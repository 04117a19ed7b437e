#!/usr/bin/env bash
# Installs as users install: the static (musl) `aesx` runs with no shared
# library and as fast as the glibc build; the Debian package installs with
# dpkg, a C program builds against it with pkg-config (shared and static)
# and with CMake's find_package, the installed `aesx` encrypts, its man
# pages and completions are in place, and `dpkg -r` leaves nothing behind.
# Reuses the release builds of .ci/capi.sh and .ci/file-scaling.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$SECONDS
need=()
command -v cmake >/dev/null || need+=(cmake)
command -v pkg-config >/dev/null || need+=(pkg-config)
command -v file >/dev/null || need+=(file)
if [ ${#need[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi
target_dir=${CARGO_TARGET_DIR:-target}
case $target_dir in /*) ;; *) target_dir=$PWD/$target_dir ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

echo "--- static aesx (musl)"
musl=$(uname -m)-unknown-linux-musl
rustup target add "$musl" >/dev/null 2>&1 || rustup target list --installed | grep -qx "$musl"
cargo build -q --release -p aesx-cli --no-default-features --target "$musl"
cargo build -q --release -p aesx-cli --no-default-features
static=$target_dir/$musl/release/aesx
glibc=$target_dir/release/aesx
file "$static"
file "$static" | grep -Eq 'static(-pie)? linked' || { echo "not a static executable" >&2; exit 1; }
if readelf -d "$static" | grep -q NEEDED; then
  echo "the static aesx needs shared libraries:" >&2
  readelf -d "$static" | grep NEEDED >&2
  exit 1
fi
env -i "$static" info | grep -E '^(default|gpu):'
head -c 3000000 /dev/urandom > "$work/pt"
env -i "$static" keygen -o "$work/k"
env -i "$static" encrypt -q -k "$work/k" -o "$work/ct" "$work/pt"
"$glibc" decrypt -q -k "$work/k" -o "$work/back" "$work/ct"
cmp "$work/pt" "$work/back"
# The same speed as the glibc build, same run (best of 5 each, interleaved,
# 256 MiB); quiet, the two measured 0.98-1.00x, so 0.75x is a real loss
# (musl's allocator or memcpy in the hot path), not noise.
python3 - "$static" "$glibc" "$work" <<'PY'
import os, subprocess, sys, time
static, glibc, work = sys.argv[1:]
src = os.path.join("/dev/shm" if os.access("/dev/shm", os.W_OK) else work, f"aesx-pkg-{os.getpid()}")
try:
    with open(src, "wb") as f:
        for _ in range(256):
            f.write(os.urandom(1 << 20))
    key = os.path.join(work, "k")
    enc = src + ".aesx"
    subprocess.run([glibc, "encrypt", "-q", "-k", key, src, "-o", enc], check=True)
    bins = {"static": static, "glibc": glibc}
    times = {(n, op): [] for n in bins for op in ("encrypt", "decrypt")}
    # Interleaved, so that both builds see the same load.
    for _ in range(5):
        for n, b in bins.items():
            for op, path in (("encrypt", src), ("decrypt", enc)):
                with open(os.devnull, "wb") as null:
                    s = time.perf_counter()
                    subprocess.run([b, op, "-q", "-k", key, path, "-o", "-"], stdout=null, check=True)
                    times[(n, op)].append(time.perf_counter() - s)
    gbs = lambda n, op: 256 * 2**20 / min(times[(n, op)]) / 1e9
    rows = {n: (gbs(n, "encrypt"), gbs(n, "decrypt")) for n in bins}
    for name, (e, d) in rows.items():
        print(f"{name:>7}: encrypt {e:.2f} GB/s, decrypt {d:.2f} GB/s")
    ratio = min(rows["static"][0] / rows["glibc"][0], rows["static"][1] / rows["glibc"][1])
    print(f"static / glibc: {ratio:.2f}")
    if ratio < 0.75:
        sys.exit("package.sh: the static aesx is slower than the glibc build by more than noise")
finally:
    for p in (src, src + ".aesx"):
        if os.path.exists(p):
            os.unlink(p)
PY

echo "--- Debian package"
deb=$(bash tools/package/deb.sh "$work/dist")
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
dpkg-deb --contents "$deb" | awk '{print $6}' > "$work/contents"
dpkg -i "$deb" >/dev/null
# Whatever fails below, the machine does not keep the package.
trap 'dpkg -r aesx >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
dpkg -L aesx > "$work/installed"
/usr/bin/aesx info | grep -E '^default:'
/usr/bin/aesx encrypt -q -k "$work/k" -o "$work/ct2" "$work/pt"
/usr/bin/aesx decrypt -q -k "$work/k" -o "$work/back2" "$work/ct2"
cmp "$work/pt" "$work/back2"
for f in /usr/share/man/man1/aesx.1.gz /usr/share/man/man1/aesx-encrypt.1.gz \
         /usr/share/bash-completion/completions/aesx /usr/share/zsh/site-functions/_aesx \
         /usr/share/fish/vendor_completions.d/aesx.fish; do
  test -s "$f" || { echo "missing: $f" >&2; exit 1; }
done
zcat /usr/share/man/man1/aesx-encrypt.1.gz | grep -q 'aesx\\-encrypt'
# The OpenSSL provider, found in OpenSSL's own modules directory by name.
openssl list -cipher-algorithms -provider aesx | grep -qi 'aes-256-gcm.* @ aesx'
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=0f0e0d0c0b0a09080706050403020100
AESX_PROVIDER_TRACE=1 openssl enc -provider aesx -aes-256-cbc -K $key -iv $iv -in "$work/pt" -out "$work/enc-aesx" 2> "$work/trace"
openssl enc -aes-256-cbc -K $key -iv $iv -in "$work/pt" -out "$work/enc-default"
cmp "$work/enc-aesx" "$work/enc-default"
cat "$work/trace"
if command -v man >/dev/null; then man -P cat aesx-encrypt 2>/dev/null | head -n 4; fi
# C against the installed library: pkg-config (shared and static), CMake.
cc examples/installed/aesx_demo.c $(pkg-config --cflags --libs aesx) -o "$work/demo_shared"
"$work/demo_shared"
libdir=$(pkg-config --variable=libdir aesx)
cc examples/installed/aesx_demo.c $(pkg-config --cflags aesx) "$libdir/libaesx.a" \
  $(pkg-config --variable=static_libs aesx) -o "$work/demo_static"
"$work/demo_static"
cmake -S examples/installed -B "$work/cmake" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/cmake" >/dev/null
"$work/cmake/aesx_demo"
"$work/cmake/aesx_demo_static"
dpkg -r aesx >/dev/null
left=0
while read -r p; do
  if [ -e "$p" ] && [ ! -d "$p" ]; then echo "left behind: $p" >&2; left=1; fi
done < "$work/installed"
for d in /usr/share/doc/aesx /usr/lib/*/cmake/aesx /usr/lib/cmake/aesx; do
  if [ -d "$d" ]; then echo "left behind: $d" >&2; left=1; fi
done
[ "$left" = 0 ]
echo "--- crates: cargo package (aesx, aesx-file), each built from its own tarball"
if ! cargo package -q -p aesx -p aesx-file > "$work/package.log" 2>&1; then
  cat "$work/package.log" >&2
  exit 1
fi
ls "$target_dir"/package/aesx-0*.crate "$target_dir"/package/aesx-file-0*.crate
# The command and the crates under it: manifests, versions on the path
# dependencies, the files each tarball holds (a few seconds). Building
# aesx-cli from its tarball rebuilds the vendored OpenSSL and AWS-LC of
# aesx-bench: minutes, so not here (run it with the same line without
# --no-verify). aesx and aesx-file are named too: the others resolve them
# from the tarballs made here, as they would from crates.io.
echo "--- crates: cargo package --no-verify (aesx-cuda, aesx-bench, aesx-cli)"
if ! cargo package -q --no-verify -p aesx -p aesx-file -p aesx-cuda -p aesx-bench -p aesx-cli > "$work/package.log" 2>&1; then
  cat "$work/package.log" >&2
  exit 1
fi
ls "$target_dir"/package/aesx-cuda-0*.crate "$target_dir"/package/aesx-bench-0*.crate \
  "$target_dir"/package/aesx-cli-0*.crate
echo "package.sh: $((SECONDS - start)) s"
