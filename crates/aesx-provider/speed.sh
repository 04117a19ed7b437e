#!/usr/bin/env bash
# openssl speed with the aesx provider against the default provider, in one
# run, interleaved (default, aesx, default, aesx, ...), and the ratio per
# size from the best of the repetitions of each.
#   crates/aesx-provider/speed.sh [SECONDS] [REPS] [CIPHER SPEC...]
# Needs the release build (cargo build --release -p aesx-provider).
# The provider options go before -evp: openssl speed fetches the cipher
# when it reads -evp.
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-1}
reps=${2:-2}
shift $(($# < 2 ? $# : 2))
specs=("$@")
[[ ${#specs[@]} -gt 0 ]] || specs=("aes-128-ctr" "aes-128-cbc -decrypt" "aes-128-gcm" "aes-256-gcm" "aes-256-xts")
target_dir=${CARGO_TARGET_DIR:-target}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$target_dir/release/libaesx_provider.so" "$dir/aesx.so"
aesx=(-provider-path "$dir" -provider aesx -provider default -propquery '?provider=aesx')
echo "$(openssl version); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores;" \
    "AESX_BACKEND=${AESX_BACKEND:-(fastest)}; -seconds $secs, best of $reps"
printf '%-24s %-8s %12s %12s %12s %12s %12s %12s\n' cipher provider 16B 64B 256B 1KiB 8KiB 16KiB
for spec in "${specs[@]}"; do
    declare -A best=()
    for ((r = 0; r < reps; r++)); do
        for p in default aesx; do
            args=()
            [[ $p == aesx ]] && args=("${aesx[@]}")
            # shellcheck disable=SC2086
            line=$(openssl speed "${args[@]}" -evp $spec -seconds "$secs" 2>/dev/null | tail -1)
            read -r -a f <<<"${line#* }"
            for i in 0 1 2 3 4 5; do
                v=${f[$i]%k}
                cur=${best[$p,$i]:-0}
                best[$p,$i]=$(awk -v a="$v" -v b="$cur" 'BEGIN { print (a > b) ? a : b }')
            done
        done
    done
    for p in default aesx; do
        printf '%-24s %-8s' "$spec" "$p"
        for i in 0 1 2 3 4 5; do printf ' %9.0f MB/s' "$(awk -v a="${best[$p,$i]}" 'BEGIN { print a / 1000 }')" | sed 's/ MB\/s//'; done
        echo
    done
    printf '%-24s %-8s' "$spec" "ratio"
    for i in 0 1 2 3 4 5; do printf ' %11.2fx' "$(awk -v a="${best[aesx,$i]}" -v b="${best[default,$i]}" 'BEGIN { print a / b }')"; done
    echo
    unset best
done
