#!/usr/bin/env bash
# The OpenSSL provider (crates/aesx-provider): release build, then on every
# aesx backend this CPU has the C harness (OpenSSL's evpciph_aes_common.txt,
# evpciph_aes_ccm_cavs.txt, evpciph_aes_wrap.txt and evpciph_aes_gcm_siv.txt,
# differential runs against the default provider, misuse), linked with the
# system's OpenSSL 3 and with the newer one the bench vendors, and the openssl
# CLI checks (list reads like the default's; enc round trips equal to the
# default provider's output, with the aesx trace as proof). Reuses the
# target directory; about 35 s once the library is built (the TLS loopback
# about 10 of them).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
start=$SECONDS
# The harness links libcrypto and includes OpenSSL's headers.
if [ ! -e /usr/include/openssl/core_dispatch.h ] || ! command -v openssl >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq libssl-dev openssl >/dev/null
fi
cargo build -q --release -p aesx-provider
target_dir=${CARGO_TARGET_DIR:-target}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$target_dir/release/libaesx_provider.so" "$dir/aesx.so"
${CC:-cc} -O2 -Wall -Wextra -Werror -pthread -o "$dir/harness" crates/aesx-provider/tests/harness.c -lcrypto
echo "provider.sh: $(openssl version), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"

# The backends this CPU has: the provider refuses to load with one it lacks.
backends=()
for b in soft aesni vaes256 vaes512 armv8; do
    if AESX_BACKEND=$b openssl list -cipher-algorithms -provider-path "$dir" -provider aesx >/dev/null 2>&1; then
        backends+=("$b")
    fi
done
echo "backends: ${backends[*]}"
[[ " ${backends[*]} " == *" soft "* ]] || { echo "the soft backend did not load"; exit 1; }

for b in "${backends[@]}"; do
    AESX_BACKEND=$b timeout 120 "$dir/harness" "$dir" vectors/openssl/evpciph_aes_common.txt \
        vectors/openssl/evpciph_aes_ccm_cavs.txt vectors/openssl/evpciph_aes_wrap.txt \
        vectors/openssl/evpciph_aes_gcm_siv.txt | grep -v '^differential'
done

# The same harness against the newer OpenSSL the bench vendors (3.6; a
# static libcrypto, which loads providers all the same): its default
# provider reports more parameters, and the provider mirrors the release
# that loads it. Runs where an earlier step built the vendored OpenSSL.
newer=$(ls -d "$target_dir"/*/build/openssl-sys-*/out/openssl-build/install 2>/dev/null | head -1)
if [[ -n $newer && -e $newer/lib/libcrypto.a ]]; then
    ${CC:-cc} -O2 -Wall -Wextra -Werror -pthread -I"$newer/include" -o "$dir/harness-newer" \
        crates/aesx-provider/tests/harness.c "$newer/lib/libcrypto.a" -ldl
    echo "newer OpenSSL: $(sed -n 's/.*OPENSSL_VERSION_TEXT "\(.*\)"/\1/p' "$newer/include/openssl/opensslv.h")"
    for b in "${backends[@]}"; do
        AESX_BACKEND=$b timeout 120 "$dir/harness-newer" "$dir" vectors/openssl/evpciph_aes_common.txt \
            vectors/openssl/evpciph_aes_ccm_cavs.txt vectors/openssl/evpciph_aes_wrap.txt \
        vectors/openssl/evpciph_aes_gcm_siv.txt | grep -v '^differential'
    done
else
    echo "newer OpenSSL: not built by an earlier step, skipped"
fi

# openssl list: 32 ciphers at aesx (ECB, CBC, CTR, GCM, GCM-SIV, CCM x 3 key
# sizes; XTS x 2; KW, KWP and their inverse-cipher forms x 3), each line the
# default's (GCM-SIV only where the default has it: OpenSSL 3.2 and later).
ours=$(openssl list -cipher-algorithms -provider-path "$dir" -provider aesx | grep '@ aesx' | sed 's/ @ aesx$//' | tr a-z A-Z | sort)
theirs=$(openssl list -cipher-algorithms | grep '@ default' | sed 's/ @ default$//' | tr a-z A-Z | sort)
[[ $(wc -l <<<"$ours") -eq 32 ]] || { echo "expected 32 ciphers at aesx:"; echo "$ours"; exit 1; }
grep -q GCM-SIV <<<"$theirs" || ours=$(grep -v GCM-SIV <<<"$ours")
missing=$(comm -23 <(echo "$ours") <(echo "$theirs"))
[[ -z $missing ]] || { echo "not as the default lists them: $missing"; exit 1; }

# openssl enc round trips against the default provider, on every backend.
head -c 1000003 /dev/urandom >"$dir/pt"
key=000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f
iv=f0e0d0c0b0a090807060504030201000
for b in "${backends[@]}"; do
    # (openssl enc takes no AEAD and no XTS cipher)
    for c in aes-256-cbc aes-128-cbc aes-192-ctr aes-128-ecb aes256; do
        klen=$((${c:4:3} / 4)); [[ $c == aes256 ]] && klen=64
        k=${key:0:$klen}
        ivarg=(-iv "$iv"); [[ $c == *ecb ]] && ivarg=()
        AESX_BACKEND=$b AESX_PROVIDER_TRACE=1 openssl enc -e -$c -K "$k" "${ivarg[@]}" -in "$dir/pt" -out "$dir/ca" \
            -provider-path "$dir" -provider aesx 2>"$dir/trace"
        grep -q "bytes through aesx (backend $b)" "$dir/trace" || { echo "no aesx trace for $c on $b"; cat "$dir/trace"; exit 1; }
        openssl enc -e -$c -K "$k" "${ivarg[@]}" -in "$dir/pt" -out "$dir/cd"
        cmp "$dir/ca" "$dir/cd"
        AESX_BACKEND=$b openssl enc -d -$c -K "$k" "${ivarg[@]}" -in "$dir/ca" -out "$dir/back" -provider-path "$dir" -provider aesx
        cmp "$dir/pt" "$dir/back"
    done
done
echo "openssl enc: round trips equal to the default provider's on ${backends[*]}"

# openssl mac: CMAC at aesx, tags equal to the default provider's.
openssl list -mac-algorithms -provider-path "$dir" -provider aesx | grep -q 'CMAC @ aesx' \
    || { echo "no CMAC at aesx"; exit 1; }
for b in "${backends[@]}"; do
    for c in AES-128-CBC AES-256-CBC; do
        k=${key:0:$((${c:4:3} / 4))}
        ours=$(AESX_BACKEND=$b AESX_PROVIDER_TRACE=1 openssl mac -provider-path "$dir" -provider aesx \
            -propquery provider=aesx -cipher $c -macopt hexkey:$k -in "$dir/pt" CMAC 2>"$dir/trace")
        grep -q "bytes through aesx (backend $b)" "$dir/trace" || { echo "no aesx trace for CMAC on $b"; exit 1; }
        [[ $ours == "$(openssl mac -cipher $c -macopt hexkey:$k -in "$dir/pt" CMAC)" ]] \
            || { echo "CMAC $c on $b differs from the default's"; exit 1; }
    done
done
echo "openssl mac: CMAC equal to the default provider's on ${backends[*]}"

# TLS 1.3 and 1.2 with AES-128/256-GCM and AES-128-CCM, TLS 1.2 with
# AES-CBC (EtM and MtE) over loopback (Python's ssl on this OpenSSL, aesx activated by an
# OPENSSL_CONF file and preferred), both ways,
# byte-exact, aesx-bytes covering every record; AESX_TLS_MB per direction
# (CI: 16; the full proof runs 300). About 8 s at 16 MB.
tls_start=$SECONDS
if ! python3 crates/aesx-provider/tests/tls_loopback.py "$dir" "${AESX_TLS_MB:-16}" >"$dir/tls" 2>&1; then
    cat "$dir/tls"; exit 1
fi
grep 'client:\|aesx-bytes' "$dir/tls"
echo "TLS loopback: $((SECONDS - tls_start)) s"
echo "provider.sh: $((SECONDS - start)) s"
