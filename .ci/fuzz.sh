#!/usr/bin/env bash
# Fuzzing (docs/FUZZING.md): builds every cargo-fuzz target in fuzz/ and runs
# each for AESX_FUZZ_SECONDS (default 15; 12 targets, about 3.75 minutes in all)
# from the committed seeds. Fails on any crash, leak, timeout or out-of-memory,
# printing the reproducer's path and the command that replays it.
set -euo pipefail
cd "$(dirname "$0")/.."

per=${AESX_FUZZ_SECONDS:-15}

if ! rustup toolchain list | grep -q '^nightly'; then
  rustup toolchain install nightly --profile minimal
fi
if ! command -v cargo-fuzz >/dev/null; then
  cargo install cargo-fuzz --locked
fi
# libFuzzer is C++; the differential targets link the system's libcrypto.
if [ ! -e /usr/include/openssl/evp.h ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq libssl-dev pkg-config >/dev/null
fi
for tool in c++ pkg-config; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool is missing" >&2; exit 1; }
done

cd fuzz
start=$SECONDS
cargo +nightly fuzz build
echo "fuzz: built in $((SECONDS - start))s"

dict_for() {
  case "$1" in
    cavp_rsp) echo "-dict=dict/rsp.dict" ;;
    cavp_wycheproof) echo "-dict=dict/wycheproof.dict" ;;
    file_header | file_decrypt) echo "-dict=dict/file.dict" ;;
  esac
}

failed=()
for t in $(cargo +nightly fuzz list); do
  mkdir -p "corpus/$t" "artifacts/$t"
  log="artifacts/$t.log"
  # New inputs go to corpus/ (ignored by git); seeds/ is read only.
  # shellcheck disable=SC2046
  if cargo +nightly fuzz run "$t" "corpus/$t" "seeds/$t" -- \
      -max_total_time="$per" -timeout=20 -rss_limit_mb=3072 -print_final_stats=1 \
      $(dict_for "$t") >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 || true)
    echo "fuzz: $t ok, $runs runs, $cov"
  else
    echo "fuzz: $t FAILED; the end of its log:"
    tail -n 40 "$log"
    for a in "artifacts/$t"/*; do
      [ -f "$a" ] || continue
      echo "fuzz: reproducer fuzz/$a"
      echo "fuzz:   replay with: cd fuzz && cargo +nightly fuzz run $t $a"
    done
    failed+=("$t")
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}"
  exit 1
fi
echo "fuzz: all targets passed ($((SECONDS - start))s with the build)"
