#!/usr/bin/env python3
"""Regenerates the committed seed corpora in fuzz/seeds/ (run from the repo
root, after `cargo build -p aesx-cli`: the file seeds are real files made by
`aesx encrypt -k fuzz/seeds/file.key`). Seeds are small and each one is
there for a reason: a boundary, a wrap, a format."""

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEEDS = os.path.join(ROOT, "fuzz", "seeds")
AESX = os.environ.get("AESX", os.path.join(ROOT, "target", "debug", "aesx"))
KEY = bytes([0x42]) * 32  # FILE_KEY in fuzz/src/lib.rs


def put(target, name, data):
    d = os.path.join(SEEDS, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def plaintext(n, seed):
    return bytes(((i * 31 + seed) ^ (i >> 8)) & 0xFF for i in range(n))


def u16(x):
    return struct.pack("<H", x)


def u64(x):
    return struct.pack("<Q", x)


def u128(x):
    return x.to_bytes(16, "little")


def short(b):
    return bytes([len(b)]) + b


def rsp_excerpt(path, records):
    """The comment header, the first section and `records` records."""
    out, n = [], 0
    for line in open(path, encoding="utf-8"):
        if re.match(r"\s*COUNT\s*=", line, re.I):
            n += 1
            if n > records:
                break
        out.append(line)
    return "".join(out).encode()


def wycheproof_excerpt(path, tests_per_group=3, groups=2):
    doc = json.load(open(path, encoding="utf-8"))
    doc["testGroups"] = doc["testGroups"][:groups]
    for g in doc["testGroups"]:
        g["tests"] = g["tests"][:tests_per_group]
    doc.pop("notes", None)
    return json.dumps(doc, separators=(",", ":")).encode()


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    os.makedirs(SEEDS)
    with open(os.path.join(SEEDS, "file.key"), "w") as f:
        f.write(KEY.hex() + "\n")

    # file_header
    put("file_header", "key", b"aesx\x01\x01")
    put("file_header", "argon2id", b"aesx\x01\x02" + struct.pack(">III", 65536, 3, 4) + bytes(16))
    put("file_header", "version2", b"aesx\x02\x01")
    put("file_header", "prefix", b"aes")

    # file_decrypt: real files, at the chunk boundaries.
    with tempfile.TemporaryDirectory() as tmp:
        for n in [0, 5, 16384, 16390]:
            src = os.path.join(tmp, f"p{n}")
            dst = os.path.join(tmp, f"c{n}")
            open(src, "wb").write(plaintext(n, 7))
            subprocess.run(
                [AESX, "encrypt", "-q", "-k", os.path.join(SEEDS, "file.key"), "-o", dst, src],
                check=True,
            )
            put("file_decrypt", f"pt{n}", open(dst, "rb").read())

    # file_mutate / file_random_access: length, seed, then edits
    # (op, position u16, argument).
    def edit(op, pos, arg):
        return bytes([op]) + u16(pos) + bytes([arg])

    for n, edits, name in [
        (0, b"", "empty"),
        (100, b"", "short"),
        (16384, b"", "one_full_chunk"),
        (16390, edit(0, 70, 3), "flip_in_chunk0"),
        (16390, edit(1, 16456, 0), "cut_at_boundary"),
        (40000, edit(6, 0, 1), "swap_chunks"),
        (40000, edit(7, 1, 0), "drop_chunk"),
        (40000, edit(5, 0, 0), "duplicate_chunk"),
        (100, edit(2, 0, 7), "appended"),
    ]:
        put("file_mutate", name, u16(n) + bytes([len(name)]) + edits)
    for n, off, ln, edits, name in [
        (40000, 20000, 100, b"", "middle"),
        (40000, 0, 40001, b"", "all"),
        (16384, 16383, 1, b"", "last_byte_full_chunk"),
        (40000, 0, 10, edit(0, 20000, 1), "edit_outside_range"),
        (40000, 30000, 10, edit(0, 20000, 1), "edit_inside_range"),
        (40000, 0, 1, edit(7, 2, 0), "final_dropped"),
    ]:
        put("file_random_access", name, u16(n) + b"\x09" + u64(off) + u64(ln) + edits)

    # key_file
    put("key_file", "hex", KEY.hex().encode() + b"\n")
    put("key_file", "hex_crlf_spaces", b"  " + KEY.hex().upper().encode() + b"\r\n")
    put("key_file", "raw", bytes(range(32)))
    put("key_file", "passphrase", b"correct horse battery staple\r\nsecond line\n")
    put("key_file", "cost", b"8,1,1")
    put("key_file", "short_hex", KEY.hex()[:63].encode())

    # cavp_rsp: selector byte (see the target) + an excerpt.
    nist = os.path.join(ROOT, "vectors", "nist")
    for sel, path, n in [
        (0, "ECB/ECBGFSbox128.rsp", 2),
        (1, "CBC/CBCMMT128.rsp", 2),
        (2, "CBC/CBCMCT128.rsp", 1),
        (3, "CTR/aes-128-ctr.txt", 2),
        (5, "GCM/gcmEncryptExtIV128.rsp", 2),
        (6, "GCM/gcmDecrypt128.rsp", 3),
    ]:
        name = os.path.basename(path)
        put("cavp_rsp", name, bytes([sel]) + rsp_excerpt(os.path.join(nist, path), n))
    xts = sorted(os.listdir(os.path.join(nist, "XTS")))
    for d in xts:
        p = os.path.join(nist, "XTS", d)
        if os.path.isdir(p):
            f = sorted(os.listdir(p))[0]
            put("cavp_rsp", f"xts_{d}", bytes([4]) + rsp_excerpt(os.path.join(p, f), 2))
    sl = os.path.join(ROOT, "vectors", "aarch64cryptolib", "SL_functional_tests.rsp")
    put("cavp_rsp", "SL_functional_tests", bytes([7]) + rsp_excerpt(sl, 2))

    # cavp_wycheproof
    wp = os.path.join(ROOT, "vectors", "wycheproof")
    for sel, f in [(0, "aes_gcm_test.json"), (1, "aes_gmac_test.json"), (2, "aes_xts_test.json")]:
        put("cavp_wycheproof", f, bytes([sel]) + wycheproof_excerpt(os.path.join(wp, f)))

    # diff_gcm: sel, key, tag selector, iv, aad, forge u16, cut u16, pt.
    z16 = bytes(16)
    put("diff_gcm", "tc2", b"\x00" + z16 + b"\x00" + short(bytes(12)) + short(b"") + u16(0) + u16(0) + z16)
    put("diff_gcm", "iv1_aad", b"\x01" + bytes(range(24)) + b"\x00" + short(b"\x01") + short(b"hdr") + u16(77) + u16(5) + plaintext(37, 1))
    put("diff_gcm", "iv60_tag12", b"\x02" + bytes(range(32)) + b"\x04" + short(bytes(range(60))) + short(bytes(20)) + u16(300) + u16(17) + plaintext(100, 2))
    put("diff_gcm", "tag4", b"\x00" + z16 + b"\x06" + short(bytes(12)) + short(b"") + u16(3) + u16(1) + plaintext(64, 3))
    put("diff_gcm", "tag_len_17", b"\x00" + z16 + b"\x91" + short(bytes(12)) + short(b"") + u16(0) + u16(0))
    put("diff_gcm", "empty_iv", b"\x00" + z16 + b"\x00" + short(b"") + short(b"") + u16(0) + u16(0))

    # diff_ctr: sel (key size, wrap kind), key, counter, back, cuts, seek, pt.
    for sel, name in [(0, "raw128"), (3, "wrap64_128"), (5, "wrap64_256"), (6, "wrap128_128"), (7, "wrap128_192")]:
        kl = [16, 24, 32][sel % 3]
        put("diff_ctr", name, bytes([sel]) + bytes(range(kl)) + u128(0x0123456789ABCDEF << 64) + b"\x03" + u16(5) + u16(40) + u16(33) + plaintext(100, sel))

    # diff_xts: sel (key size, near 2^128), key, sector, back, unit, data.
    k32 = bytes([0x11] * 16 + [0x22] * 16)
    k64 = bytes(range(64))
    put("diff_xts", "ieee_vec2", b"\x00" + k32 + u128(0x3333333333) + b"\x00" + b"\x01" + bytes([0x44] * 32))
    put("diff_xts", "stealing17", b"\x00" + k32 + u128(1) + b"\x00" + b"\x00" + plaintext(17, 4))
    put("diff_xts", "xts256_stealing", b"\x01" + k64 + u128(0xFF) + b"\x00" + b"\x1f" + plaintext(512 + 3, 5))
    put("diff_xts", "last_sectors", b"\x02" + k32 + u128(0) + b"\x01" + b"\x00" + plaintext(32, 6))
    put("diff_xts", "past_the_end", b"\x02" + k32 + u128(0) + b"\x00" + b"\x00" + plaintext(48, 6))
    put("diff_xts", "equal_halves", b"\x00" + bytes(32) + u128(0) + b"\x00" + b"\x00" + plaintext(16, 7))
    put("diff_xts", "short", b"\x01" + k64 + u128(0) + b"\x00" + b"\x00" + plaintext(15, 8))

    # diff_ecb_cbc: sel (key size; 0x80 = CBC), key, iv, message.
    put("diff_ecb_cbc", "ecb_block", b"\x00" + bytes(16) + bytes(16) + bytes(16))
    put("diff_ecb_cbc", "cbc_odd", b"\x81" + bytes(range(24)) + bytes(range(16)) + plaintext(37, 9))
    put("diff_ecb_cbc", "cbc_two_blocks", b"\x82" + bytes(range(32)) + bytes(16) + plaintext(32, 10))
    put("diff_ecb_cbc", "empty", b"\x80" + bytes(16) + bytes(16))

    provider_ops_seeds()


def provider_ops_seeds():
    """provider_ops: an algorithm index (the provider's table order: ECB,
    CBC, CTR, GCM x 256/192/128, XTS 256/128, CCM, KW, KWP, KW-INV, KWP-INV
    x 256/192/128), then operations (see fuzz_targets/provider_ops.rs)."""

    def init(enc, key, iv):
        return bytes([0, 1 | 2 | (4 if enc else 0), len(key)]) + key + bytes([len(iv)]) + iv

    def update(kind, data, extra=16, null_input=False):
        sel = kind | 8 | (32 if null_input else 0)
        return bytes([2, sel]) + u16(len(data)) + data + bytes([extra])

    def final():
        return bytes([4, 16])

    def set_param(kind, v=0, data=b""):
        return bytes([5, kind, v, len(data)]) + data

    def get_param(kind, size):
        return bytes([6, kind, size])

    dup = bytes([7])
    k16, iv16, iv12 = bytes(range(16)), bytes(range(16, 32)), bytes(range(12))
    for idx, name in ((2, "ecb128"), (5, "cbc128"), (8, "ctr128")):
        put("provider_ops", name, bytes([idx]) + init(True, k16, iv16) + update(2, plaintext(37, 1))
            + update(1, plaintext(20, 2)) + final() + get_param(1, 16) + dup + final())
    put("provider_ops", "gcm128", bytes([11]) + set_param(2, 12) + init(True, k16, iv12)
        + update(0, b"head!") + update(2, plaintext(30, 3)) + final() + get_param(2, 16) + dup)
    # TLS 1.2 GCM record: fixed IV, AAD declaring 8 + 20 bytes, the record in place.
    aad = bytes(8) + b"\x17\x03\x03" + u16(28)[::-1]
    put("provider_ops", "gcm_tls", bytes([11]) + init(True, k16, b"") + set_param(6, 0, bytes(4))
        + set_param(5, 0, aad) + update(1, bytes(44)))
    # TLS 1.2 CBC record (decrypting, HMAC-SHA1 size): version, MAC size, record.
    put("provider_ops", "cbc_tls", bytes([5]) + set_param(7, 3) + set_param(8, 20)
        + init(False, k16, iv16) + update(1, plaintext(64, 4)) + get_param(4, 0))
    # CCM: nonce 13, tag 16 (no bytes), key and nonce, declared length, AAD, data, tag.
    put("provider_ops", "ccm128", bytes([16]) + set_param(2, 13) + bytes([5, 4, 0, 16]) + bytes(16)
        + init(True, k16, bytes(13)) + update(0, bytes(21), null_input=True) + update(0, b"aad")
        + update(2, plaintext(21, 5)) + final() + get_param(2, 16))
    put("provider_ops", "xts128", bytes([13]) + init(True, bytes(range(32)), iv16)
        + update(2, plaintext(16, 6)) + update(2, plaintext(40, 7)))
    put("provider_ops", "kw128", bytes([19]) + init(True, k16, b"") + update(2, plaintext(24, 8)))
    put("provider_ops", "kwp128", bytes([22]) + init(True, k16, b"") + update(2, plaintext(5, 9)))
    put("provider_ops", "kw_inv_unwrap", bytes([25]) + init(False, k16, b"") + update(2, plaintext(24, 10)))


if __name__ == "__main__":
    main()
