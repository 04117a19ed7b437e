#!/usr/bin/env bash
# The Debian package: tools/package/deb.sh [OUTDIR] writes
# OUTDIR/aesx_VERSION_ARCH.deb (OUTDIR defaults to target/dist) holding the
# lean `aesx` command, its man pages and bash/zsh/fish completions, and
# libaesx (libaesx.so.0, libaesx.a, aesx.h, aesx.pc and the CMake package
# configuration) and the OpenSSL 3 provider module (ossl-modules/aesx.so),
# all staged by the top-level Makefile's `make install`.
#
#   sudo dpkg -i target/dist/aesx_*.deb     # sudo dpkg -r aesx removes it all
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
out=${1:-target/dist}
mkdir -p "$out"
out=$(cd "$out" && pwd)

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
arch=$(dpkg --print-architecture)
multiarch=$(gcc -print-multiarch 2>/dev/null || true)
libdir=/usr/lib${multiarch:+/$multiarch}

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
make -s install DESTDIR="$stage" PREFIX=/usr LIBDIR="$libdir" >/dev/null
gzip -9n "$stage"/usr/share/man/man1/*.1
# Debug information stays out of the package (the command is stripped by
# `make install`).
strip --strip-unneeded "$stage$libdir"/libaesx.so.0
strip --strip-debug "$stage$libdir"/libaesx.a

doc="$stage/usr/share/doc/aesx"
install -d "$doc"
{
  echo "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
  echo "Upstream-Name: aesx"
  echo
  echo "Files: *"
  echo "License: MIT or Apache-2.0"
  echo
  cat LICENSE-MIT
  echo
  cat LICENSE-APACHE
} > "$doc/copyright"
gzip -9n -c CHANGELOG.md > "$doc/changelog.gz"

install -d "$stage/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<CONTROL
Package: aesx
Version: $version
Architecture: $arch
Maintainer: The aesx developers <aesx@example.invalid>
Installed-Size: $size
Depends: libc6
Recommends: openssl
Section: utils
Priority: optional
Homepage: https://example.invalid/aesx
Description: AES engine: file encryption tool and C library
 aesx is AES-128/192/256 in ECB, CBC, CTR, XTS, GCM, GCM-SIV, CCM and more,
 on a constant-time portable backend and AES-NI/VAES/ARMv8 backends chosen
 at run time. This package holds the aesx command (encrypt, decrypt,
 cipher, mac, cavp, info; no benchmark peers), its man pages and shell
 completions, libaesx for C and C++ (shared and static, with aesx.h,
 pkg-config and CMake files), and the OpenSSL 3 provider "aesx" (openssl
 ... -provider aesx, or an OPENSSL_CONF section) that runs OpenSSL's AES
 ciphers on aesx.
CONTROL
# libaesx.so.0 is a shared library: refresh the linker cache on install
# and removal.
echo "activate-noawait ldconfig" > "$stage/DEBIAN/triggers"
deb="$out/aesx_${version}_${arch}.deb"
dpkg-deb --root-owner-group --build "$stage" "$deb" >/dev/null
echo "$deb"
