"""Random differential test of `aesx cipher` and `aesx mac` against
pyca/cryptography: AES-GCM-SIV (AESGCMSIV), CCM (AESCCM with every tag
length), KW/KWP (aes_key_wrap[_with_padding]), CMAC, and XAES-256-GCM
(built here from pyca's AES-ECB, CMAC subkey and AESGCM, as c2sp.org
specifies it). Every case runs on every backend this CPU has; decryption of
pyca's output must give the plaintext back, and a flipped bit must be
refused (exit 1, nothing on stdout).

Usage: python pyca_diff.py PATH/TO/aesx [cases-per-mode]   (SEED=n to vary)
"""

import os
import random
import subprocess
import sys

from cryptography.hazmat.primitives import cmac, keywrap
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, AESGCMSIV

AESX = sys.argv[1]
N = int(sys.argv[2]) if len(sys.argv) > 2 else 25
rng = random.Random(int(os.environ.get("SEED", "19")))
failures = []
passed = 0


def rbytes(n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def size():
    r = rng.random()
    if r < 0.1:
        return 0
    if r < 0.7:
        return rng.randrange(1, 80)
    if r < 0.95:
        return rng.randrange(80, 5000)
    return rng.randrange(5000, 300000)


def aesx(args, data):
    return subprocess.run([AESX] + args, input=data, capture_output=True)


def check(what, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failures.append(f"{what}: {detail}")


def xaes_seal(key, nonce, pt, aad):
    ecb = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    l = int.from_bytes(ecb.update(bytes(16)), "big")
    k1 = ((l << 1) & ((1 << 128) - 1)) ^ (0x87 if l >> 127 else 0)
    k1 = k1.to_bytes(16, "big")
    m1 = bytes([0, 1, 0x58, 0]) + nonce[:12]
    m2 = bytes([0, 2, 0x58, 0]) + nonce[:12]
    kx = ecb.update(bytes(a ^ b for a, b in zip(m1, k1))) + ecb.update(
        bytes(a ^ b for a, b in zip(m2, k1))
    )
    return AESGCM(kx).encrypt(nonce[12:], pt, aad)


def cipher_case(be, mode, key, extra, pt, want):
    what = f"{mode} on {be}, {len(pt)} bytes"
    base = ["--mode", mode, "--key", key.hex(), "--backend", be] + extra
    enc = aesx(["cipher", "encrypt"] + base, pt)
    check(what + " encrypt", enc.returncode == 0 and enc.stdout == want, enc.stderr[:200])
    dec = aesx(["cipher", "decrypt"] + base, want)
    check(what + " decrypt", dec.returncode == 0 and dec.stdout == pt, dec.stderr[:200])
    bad = bytearray(want)
    bad[rng.randrange(len(bad))] ^= 1 << rng.randrange(8)
    t = aesx(["cipher", "decrypt"] + base, bytes(bad))
    check(what + " tampered", t.returncode == 1 and t.stdout == b"", t.stderr[:200])


def main():
    probe = ["mac", "--mode", "cmac", "--key", "00" * 16, "--backend"]
    backends = [
        b for b in ["soft", "aesni", "vaes256", "vaes512"] if aesx(probe + [b], b"").returncode == 0
    ]
    for be in backends:
        for _ in range(N):
            key = rbytes(rng.choice([16, 32]))
            nonce, aad, pt = rbytes(12), rbytes(rng.choice([0, 0, 5, 40])), rbytes(size())
            want = AESGCMSIV(key).encrypt(nonce, pt, aad or None)
            cipher_case(be, "gcm-siv", key, ["--iv", nonce.hex(), "--aad", aad.hex()], pt, want)

            key, nonce = rbytes(32), rbytes(24)
            aad, pt = rbytes(rng.choice([0, 3, 21])), rbytes(size())
            want = xaes_seal(key, nonce, pt, aad)
            cipher_case(be, "xaes", key, ["--iv", nonce.hex(), "--aad", aad.hex()], pt, want)

            key = rbytes(rng.choice([16, 24, 32]))
            nlen = rng.randrange(7, 14)
            tag = rng.choice([4, 6, 8, 10, 12, 14, 16])
            nonce, aad = rbytes(nlen), rbytes(rng.choice([0, 1, 30, 300]))
            pt = rbytes(min(size(), (1 << (8 * (15 - nlen))) - 1))
            want = AESCCM(key, tag).encrypt(nonce, pt, aad or None)
            extra = ["--iv", nonce.hex(), "--tag-len", str(tag)]
            if aad or rng.random() < 0.5:
                extra += ["--aad", aad.hex()]
            cipher_case(be, "ccm", key, extra, pt, want)

            kek = rbytes(rng.choice([16, 24, 32]))
            data = rbytes(8 * rng.randrange(2, 70))
            cipher_case(be, "kw", kek, [], data, keywrap.aes_key_wrap(kek, data))
            data = rbytes(rng.randrange(1, 300))
            cipher_case(be, "kwp", kek, [], data, keywrap.aes_key_wrap_with_padding(kek, data))

            key, msg = rbytes(rng.choice([16, 24, 32])), rbytes(size())
            c = cmac.CMAC(algorithms.AES(key))
            c.update(msg)
            tag = c.finalize()
            out = aesx(["mac", "--mode", "cmac", "--key", key.hex(), "--backend", be], msg)
            check(f"cmac on {be}, {len(msg)} bytes", out.stdout == (tag.hex() + "\n").encode(),
                  out.stderr[:200])
            v = aesx(["mac", "--mode", "cmac", "--key", key.hex(), "--backend", be,
                      "--verify", tag.hex()], msg)
            check(f"cmac --verify on {be}", v.returncode == 0, v.stderr[:200])
    for f in failures[:20]:
        print("FAIL", f)
    print(f"pyca differential ({', '.join(backends)}): {passed} passed, {len(failures)} failed")
    return 1 if failures or not backends else 0


sys.exit(main())
