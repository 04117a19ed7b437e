#!/usr/bin/env bash
# `aesx cipher --mode gcm-siv|xaes|ccm|kw|kwp` and `aesx mac --mode cmac`
# against pyca/cryptography on random inputs, on every backend of this CPU
# (crates/aesx-cli/tests/pyca_diff.py). About 1-2 minutes on a cold machine
# (pip install of a cryptography wheel, one debug build of aesx-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/pyca-venv
if ! "$venv/bin/python" -c "import cryptography" 2>/dev/null; then
  python3 -m venv "$venv" 2>/dev/null || {
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq python3-venv >/dev/null
    python3 -m venv "$venv"
  }
  "$venv/bin/pip" install -q "cryptography>=42"
fi
cargo build -q -p aesx-cli --bin aesx
timeout 900 "$venv/bin/python" crates/aesx-cli/tests/pyca_diff.py target/debug/aesx "${PYCA_CASES:-25}"
