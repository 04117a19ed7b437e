#!/usr/bin/env bash
# The aarch64 wheel as an aarch64 user gets it, on an x86-64 machine:
#
#   tools/package/wheel_qemu.sh target/wheels/aesx-*-manylinux*_aarch64.whl
#
# Debian's aarch64 CPython (python3.11-venv and what it needs, fetched by
# apt with a private configuration, so this machine's own package state is
# not touched) is unpacked into a sysroot under the cargo target directory
# and run by qemu-user (`-cpu max`: AES, PMULL). Under qemu, a fresh venv,
# pip (Debian's bundled pip wheel, run as aarch64 code) installs the wheel
# with its platform checks, and a smoke test imports aesx and checks known
# answers on every backend the wheel reports.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -eq 1 ] || { echo "usage: tools/package/wheel_qemu.sh WHEEL" >&2; exit 2; }
wheel=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
[ -f "$wheel" ] || { echo "wheel_qemu.sh: no such wheel: $1" >&2; exit 1; }
case $wheel in *aarch64.whl) ;; *) echo "wheel_qemu.sh: not an aarch64 wheel: $wheel" >&2; exit 1 ;; esac
command -v qemu-aarch64 >/dev/null || {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq qemu-user >/dev/null
}
target_dir=$(cd "$root" && cargo metadata --format-version 1 --no-deps \
  | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
base=$target_dir/aarch64-python
sysroot=$base/root

if [ ! -x "$sysroot/usr/bin/python3.11" ]; then
  rm -rf "$base"
  mkdir -p "$base/lists/partial" "$base/cache/archives/partial" "$base/debs" "$sysroot"
  touch "$base/status"
  cat > "$base/sources.list" <<'EOF'
deb http://deb.debian.org/debian bookworm main
deb http://deb.debian.org/debian bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
  cat > "$base/apt.conf" <<EOF
APT::Architecture "arm64";
APT::Architectures { "arm64"; };
Dir::State::Lists "$base/lists";
Dir::State::status "$base/status";
Dir::Etc::SourceList "$base/sources.list";
Dir::Etc::SourceParts "/dev/null";
Dir::Cache "$base/cache";
EOF
  export APT_CONFIG=$base/apt.conf
  apt-get update -qq
  # Everything python3.11-venv needs on an empty arm64 system, libc included.
  mapfile -t pkgs < <(apt-get install --print-uris -qq -y --no-install-recommends python3.11-venv \
    | awk '{print $2}' | sed 's/_.*//')
  [ ${#pkgs[@]} -gt 0 ] || { echo "wheel_qemu.sh: apt resolved no packages" >&2; exit 1; }
  (cd "$base/debs" && apt-get download -qq "${pkgs[@]}" 2>&1 | grep -v unsandboxed || true)
  for d in "$base"/debs/*.deb; do dpkg-deb -x "$d" "$sysroot"; done
  unset APT_CONFIG
fi

qemu=(qemu-aarch64 -cpu max -L "$sysroot")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "python: $("${qemu[@]}" "$sysroot/usr/bin/python3.11" -c 'import platform; print(platform.python_version(), platform.machine())')"
# No binfmt_misc here, so nothing under qemu may exec another aarch64
# program: the venv is made without pip, and pip runs from its wheel.
"${qemu[@]}" "$sysroot/usr/bin/python3.11" -m venv --without-pip "$work/venv"
pip_whl=$(ls "$sysroot"/usr/share/python-wheels/pip-*.whl)
start=$SECONDS
"${qemu[@]}" "$work/venv/bin/python" "$pip_whl/pip" install -q --no-index --disable-pip-version-check "$wheel"
echo "pip install under qemu: $((SECONDS - start)) s"
"${qemu[@]}" "$work/venv/bin/python" - <<'PY'
import os, platform, tempfile
import aesx
from aesx import AESGCM, AESGCMSIV, Cipher, algorithms, modes

assert platform.machine() == "aarch64", platform.machine()
where = os.path.dirname(aesx.__file__)
assert "site-packages" in where, f"aesx imported from {where}, not the venv"
backends = aesx.backends()
print(f"aesx {aesx.__version__} from {where}; backends {backends}, default {aesx.default_backend()}")
assert "armv8" in backends, backends
# NIST GCM test case 4 (AES-128, 60-byte plaintext, 20-byte AAD).
key = bytes.fromhex("feffe9928665731c6d6a8f9467308308")
iv = bytes.fromhex("cafebabefacedbaddecaf888")
pt = bytes.fromhex("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
                   "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
aad = bytes.fromhex("feedfacedeadbeeffeedfacedeadbeefabaddad2")
want = bytes.fromhex("42831ec2217774244b7221b784d0d49ce3aa212f2c02a4e035c17e2329aca12e"
                     "21d514b25466931c7d8f6a5aac84aa051ba30b396a0aac973d58e091"
                     "5bc94fbc3221a5db94fae95ae7121a47")
for b in backends:
    assert AESGCM(key, backend=b).encrypt(iv, pt, aad) == want, b
    assert AESGCM(key, backend=b).decrypt(iv, want, aad) == pt, b
# FIPS 197 C.1 through the Cipher interface.
enc = Cipher(algorithms.AES(bytes(range(16))), modes.ECB()).encryptor()
assert enc.update(bytes.fromhex("00112233445566778899aabbccddeeff")) + enc.finalize() \
    == bytes.fromhex("69c4e0d86a7b0430d8cdb78070b4c55a")
siv = AESGCMSIV(bytes(32))
assert siv.decrypt(bytes(12), siv.encrypt(bytes(12), b"x" * 1000, b"ad"), b"ad") == b"x" * 1000
with tempfile.TemporaryDirectory() as d:
    src, enc_path, back = (os.path.join(d, n) for n in ("pt", "ct", "back"))
    data = os.urandom(300_000)
    open(src, "wb").write(data)
    k = os.urandom(32)
    aesx.encrypt_file(src, enc_path, key=k)
    aesx.decrypt_file(enc_path, back, key=k)
    assert open(back, "rb").read() == data
print("aarch64 wheel: installed by pip under qemu, imported, known answers on every backend")
PY
