#!/usr/bin/env bash
# The Python package as users get it: the abi3 manylinux2014 wheel
# (tools/package/wheel.sh: maturin with zig, its platform tag checked by
# auditwheel) installed into a fresh venv, then its tests run with no Rust
# toolchain on PATH, so they exercise the installed wheel, not a build
# (pyca parity, every mode against `cryptography`, Wycheproof, files against
# the CLI, Dask trees on a 2-process LocalCluster, local and on a loopback
# S3 server, workers killed mid-file). The extension crate is outside the
# root workspace, so it is formatted and linted here.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS

venv=target/python-ci-venv
if ! python3 -m venv --clear "$venv" >/dev/null 2>&1; then
  # Debian/Ubuntu ship venv (ensurepip) separately.
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
  python3 -m venv --clear "$venv"
fi
py="$venv/bin/python"
"$py" -m pip install -q --upgrade pip
# moto[server] and s3fs: aesx.dask's S3 suite, on a moto server the tests
# start on 127.0.0.1 (tests/conftest.py); AESX_REQUIRE_S3=1 below makes
# their absence a failure, not a skip.
wheel=$(timeout 1200 bash tools/package/wheel.sh target/wheels)
# The sdist, checked for what a build from it alone needs (building a wheel
# from it is `tools/package/sdist.sh --build`: minutes, not run here).
echo "sdist: $(bash tools/package/sdist.sh target/sdist)"
timeout 1200 "$py" -m pip install -q "$wheel" pytest cryptography dask distributed numpy 'moto[server]' s3fs
echo "installed: $("$py" -c 'import aesx, sys; print("aesx", aesx.__version__, "backends", aesx.backends(), "python", sys.version.split()[0])')"

rustup component add rustfmt clippy >/dev/null 2>&1 || true
(cd python && cargo fmt --check && cargo clippy -q --all-targets -- -D warnings)

# The file-interop tests drive the `aesx` binary (already built by the
# workspace tests in CI; built here otherwise).
cargo build -q -p aesx-cli
export AESX_CLI="$PWD/target/debug/aesx"

# PATH without cargo, rustc or rustup: nothing can be built behind the tests.
clean_path=$(printf '%s' "$PATH" | tr ':' '\n' | grep -v -e '/\.cargo/' -e '/\.rustup/' | paste -sd: -)
if PATH=$clean_path command -v cargo >/dev/null || PATH=$clean_path command -v rustc >/dev/null; then
  echo "python.sh: a Rust toolchain is still on the test PATH" >&2
  exit 1
fi
set +e
AESX_REQUIRE_S3=1 PATH="$PWD/$venv/bin:$clean_path" timeout 900 "$py" -m pytest -q -p no:cacheprovider python/tests
rc=$?
set -e
if [ "$rc" -eq 5 ]; then
  echo "python.sh: pytest collected no tests" >&2
  exit 1
fi
echo "python.sh: pytest exit $rc after $((SECONDS - start)) s"
exit "$rc"
