#!/usr/bin/env python3
"""TLS over loopback with the aesx provider doing the record encryption.

Two processes (a server and a client), each with Python's `ssl` on the
system OpenSSL, configured by an OPENSSL_CONF file that activates the aesx
provider beside the default one and prefers aesx's ciphers
(`default_properties = ?provider=aesx`). The client sends MB megabytes,
the server answers with the SHA-256 of what it got and then sends MB
megabytes of its own; each side compares the hash of what arrived with the
hash of what was sent (byte-exact both ways). Each process reports the
provider's `aesx-bytes` counter (AESX_PROVIDER_TRACE, printed when OpenSSL
unloads the provider): it must cover both directions' payload, i.e. aesx
encrypted and decrypted every record.

Usage: tls_loopback.py PROVIDER_DIR [MB] [CASE...]
  CASE: tls1.3-aes128, tls1.3-aes256, tls1.2-aes128, tls1.2-aes256 (GCM),
  tls1.2-cbc-etm, tls1.2-cbc-mte (CBC), tls1.3-ccm, tls1.2-ccm (CCM); all
  by default. Exits non-zero with one line per failure.
"""

import hashlib
import os
import random
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import time

CASES = {
    # name: (protocol, TLS 1.3 suite or TLS 1.2 cipher list)
    "tls1.3-aes128": ("1.3", "TLS_AES_128_GCM_SHA256"),
    "tls1.3-aes256": ("1.3", "TLS_AES_256_GCM_SHA384"),
    "tls1.2-aes128": ("1.2", "ECDHE-ECDSA-AES128-GCM-SHA256"),
    "tls1.2-aes256": ("1.2", "ECDHE-ECDSA-AES256-GCM-SHA384"),
    # CBC suites: encrypt-then-MAC (the default: the MAC is checked before
    # decryption), and MAC-then-encrypt with SHA-384 (no stitched
    # CBC-HMAC cipher exists for it, so the provider strips padding and
    # MAC in constant time)
    "tls1.2-cbc-etm": ("1.2", "ECDHE-ECDSA-AES128-SHA256"),
    "tls1.2-cbc-mte": ("1.2", "ECDHE-ECDSA-AES256-SHA384"),
    # CCM: TLS 1.3's plain AEAD calls, TLS 1.2's record path
    "tls1.3-ccm": ("1.3", "TLS_AES_128_CCM_SHA256"),
    "tls1.2-ccm": ("1.2", "ECDHE-ECDSA-AES128-CCM"),
}
# SSL_OP_NO_ENCRYPT_THEN_MAC (Python's ssl has no name for it)
NO_ETM = 1 << 19
CHUNK = 1 << 18

CONF = """openssl_conf = openssl_init

[openssl_init]
providers = provider_sect
alg_section = algorithm_sect
ssl_conf = ssl_sect

[provider_sect]
default = default_sect
aesx = aesx_sect

[default_sect]
activate = 1

[aesx_sect]
module = {module}
activate = 1

[algorithm_sect]
default_properties = ?provider=aesx

[ssl_sect]
system_default = system_default_sect

[system_default_sect]
Ciphersuites = {suites}
"""


def stream(seed, total):
    """`total` bytes from a seeded generator, in chunks (no repeats)."""
    rng = random.Random(seed)
    sent = 0
    while sent < total:
        n = min(CHUNK, total - sent)
        yield rng.randbytes(n)
        sent += n


def send_stream(conn, seed, total):
    h = hashlib.sha256()
    for chunk in stream(seed, total):
        conn.sendall(chunk)
        h.update(chunk)
    return h.hexdigest()


def recv_exact(conn, total):
    h = hashlib.sha256()
    got = 0
    while got < total:
        data = conn.recv(min(CHUNK, total - got))
        if not data:
            raise RuntimeError(f"connection closed after {got} of {total} bytes")
        h.update(data)
        got += len(data)
    return h.hexdigest()


def context(side, proto, cipher, certdir):
    if side == "server":
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(certdir, "cert.pem"), os.path.join(certdir, "key.pem"))
    else:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        ctx.load_verify_locations(os.path.join(certdir, "cert.pem"))
        ctx.check_hostname = False
    version = ssl.TLSVersion.TLSv1_3 if proto == "1.3" else ssl.TLSVersion.TLSv1_2
    ctx.minimum_version = ctx.maximum_version = version
    if proto == "1.2":
        ctx.set_ciphers(cipher)
        if cipher.endswith("SHA384") and "GCM" not in cipher:
            ctx.options |= NO_ETM
    return ctx


def serve(port_file, proto, cipher, certdir, total):
    ctx = context("server", proto, cipher, certdir)
    with socket.create_server(("127.0.0.1", 0)) as lsock:
        with open(port_file, "w") as f:
            f.write(str(lsock.getsockname()[1]))
        raw, _ = lsock.accept()
        with ctx.wrap_socket(raw, server_side=True) as conn:
            got = recv_exact(conn, total)
            conn.sendall(got.encode())
            mine = send_stream(conn, 2, total)
            print(f"server: {conn.version()} {conn.cipher()[0]}: received {got[:16]}, sent {mine[:16]}")


def client(port, proto, cipher, certdir, total):
    ctx = context("client", proto, cipher, certdir)
    with socket.create_connection(("127.0.0.1", port)) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as conn:
            t0 = time.monotonic()
            mine = send_stream(conn, 1, total)
            echoed = b""
            while len(echoed) < 64:
                data = conn.recv(64 - len(echoed))
                if not data:
                    raise RuntimeError("no hash from the server")
                echoed += data
            got = recv_exact(conn, total)
            secs = time.monotonic() - t0
            want_back = hashlib.sha256()
            for chunk in stream(2, total):
                want_back.update(chunk)
            ok = echoed.decode() == mine and got == want_back.hexdigest()
            print(
                f"client: {conn.version()} {conn.cipher()[0]}: sent {mine[:16]}, "
                f"received {got[:16]}, {2 * total / secs / 1e6:.0f} MB/s both ways, "
                f"{'byte-exact' if ok else 'MISMATCH'}"
            )
            if not ok:
                sys.exit(1)


def aesx_bytes(stderr):
    m = re.search(r"aesx-provider: (\d+) bytes through aesx \(backend (\w+)\)", stderr)
    return (int(m.group(1)), m.group(2)) if m else (None, None)


def run_case(module_dir, name, total, certdir, workdir):
    proto, cipher = CASES[name]
    suite = cipher if proto == "1.3" else "TLS_AES_128_GCM_SHA256"
    conf = os.path.join(workdir, f"{name}.cnf")
    with open(conf, "w") as f:
        f.write(CONF.format(module=os.path.join(module_dir, "aesx.so"), suites=suite))
    env = dict(os.environ, OPENSSL_CONF=conf, AESX_PROVIDER_TRACE="1")
    port_file = os.path.join(workdir, f"{name}.port")
    me = os.path.abspath(__file__)
    common = [proto, cipher, certdir, str(total)]
    server = subprocess.Popen(
        [sys.executable, me, "--serve", port_file, *common],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 10
    while not (os.path.exists(port_file) and os.path.getsize(port_file)):
        if time.monotonic() > deadline or server.poll() is not None:
            server.kill()
            return [f"{name}: the server did not start: {server.communicate()[1].strip()}"]
        time.sleep(0.02)
    with open(port_file) as f:
        port = f.read()
    cli = subprocess.run(
        [sys.executable, me, "--client", port, *common],
        env=env, capture_output=True, text=True, timeout=600,
    )
    s_out, s_err = server.communicate(timeout=60)
    failures = []
    for who, rc, out, err in (("server", server.returncode, s_out, s_err),
                              ("client", cli.returncode, cli.stdout, cli.stderr)):
        sys.stdout.write(f"{name} {out}")
        n, backend = aesx_bytes(err)
        if rc != 0:
            failures.append(f"{name}: {who} exited {rc}: {err.strip()[-400:]}")
        elif n is None:
            failures.append(f"{name}: {who}: no aesx trace (provider not loaded?): {err.strip()[-400:]}")
        elif n < 2 * total:
            failures.append(f"{name}: {who}: aesx did {n} bytes, under the {2 * total} of payload")
        else:
            print(f"{name} {who}: aesx-bytes {n} ({n / (2 * total):.3f} x the payload both ways), backend {backend}")
    return failures


def main():
    if len(sys.argv) > 1 and sys.argv[1] in ("--serve", "--client"):
        role, arg, proto, cipher, certdir, total = sys.argv[1:7]
        fn = serve if role == "--serve" else client
        fn(arg if role == "--serve" else int(arg), proto, cipher, certdir, int(total))
        return
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    module_dir = sys.argv[1]
    total = int(float(sys.argv[2]) * 1e6) if len(sys.argv) > 2 else 300_000_000
    names = sys.argv[3:] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"unknown case {unknown[0]}; known: {', '.join(CASES)}")
    with tempfile.TemporaryDirectory() as work:
        gen = subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-days", "1", "-subj", "/CN=localhost",
             "-keyout", os.path.join(work, "key.pem"), "-out", os.path.join(work, "cert.pem")],
            capture_output=True, text=True,
        )
        if gen.returncode != 0:
            sys.exit(f"openssl req failed: {gen.stderr.strip()}")
        failures = []
        for name in names:
            failures += run_case(module_dir, name, total, work, work)
    for f in failures:
        print("FAIL", f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
