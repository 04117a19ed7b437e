"""Files in the format of `aesx encrypt`: interoperable both ways with the
CLI binary, random access, atomic outputs."""

import io
import os
import subprocess

import pytest

import aesx

SIZES = [0, 1, 16383, 16384, 16385, 3 * 16384, 100000, 2 * 1024 * 1024 + 5]
CHEAP = (64, 1, 1)  # Argon2id cost for tests (the CLI's --insecure-kdf-cost)


def run(cli, *args):
    subprocess.run([cli, *map(str, args)], check=True, capture_output=True)


@pytest.fixture
def keyfile(tmp_path, cli):
    p = tmp_path / "k.key"
    run(cli, "keygen", "-o", p)
    return p, bytes.fromhex(p.read_text())


@pytest.mark.parametrize("size", SIZES)
def test_cli_interop_key(tmp_path, cli, keyfile, size):
    kp, key = keyfile
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(size))
    # Python -> CLI
    aesx.encrypt_file(plain, tmp_path / "py.aesx", key=key)
    run(cli, "decrypt", "-q", "-k", kp, "-o", tmp_path / "cli.out", tmp_path / "py.aesx")
    assert (tmp_path / "cli.out").read_bytes() == plain.read_bytes()
    # CLI -> Python, key as bytes and as the key file's hex text
    run(cli, "encrypt", "-q", "-k", kp, "-o", tmp_path / "cli.aesx", plain)
    aesx.decrypt_file(tmp_path / "cli.aesx", tmp_path / "py.out", key=key)
    assert (tmp_path / "py.out").read_bytes() == plain.read_bytes()
    aesx.decrypt_file(str(tmp_path / "cli.aesx"), str(tmp_path / "py2.out"), key=kp.read_text())
    assert (tmp_path / "py2.out").read_bytes() == plain.read_bytes()
    # Same length as the format says.
    n = size
    assert (tmp_path / "py.aesx").stat().st_size == 6 + 56 + n + 16 * (n // 16384 + 1)


def test_cli_interop_passphrase(tmp_path, cli):
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(50000))
    pf = tmp_path / "pass"
    pf.write_text("correct horse\n")
    run(cli, "encrypt", "-q", "--passphrase-file", pf, "--insecure-kdf-cost", "64,1,1", "-o", tmp_path / "c.aesx", plain)
    aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "p.out", passphrase="correct horse")
    assert (tmp_path / "p.out").read_bytes() == plain.read_bytes()
    with pytest.raises(aesx.DecryptionError, match="wrong key or passphrase"):
        aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "bad.out", passphrase=b"correct horsE")
    assert not (tmp_path / "bad.out").exists()
    with pytest.raises(ValueError, match="passphrase"):
        aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "bad.out", key=bytes(32))
    aesx.encrypt_file(plain, tmp_path / "p.aesx", passphrase="correct horse", _kdf_cost=CHEAP)
    run(cli, "decrypt", "-q", "--passphrase-file", pf, "-o", tmp_path / "c.out", tmp_path / "p.aesx")
    assert (tmp_path / "c.out").read_bytes() == plain.read_bytes()
    f = aesx.open_encrypted(tmp_path / "p.aesx", passphrase="correct horse")
    assert f.read() == plain.read_bytes()


def test_default_passphrase_cost_is_the_clis(tmp_path):
    plain = tmp_path / "plain"
    plain.write_bytes(b"hello")
    aesx.encrypt_file(plain, tmp_path / "p.aesx", passphrase="pw")
    h = (tmp_path / "p.aesx").read_bytes()[:34]
    assert h[:6] == b"aesx\x01\x02"
    m, t, p = (int.from_bytes(h[i:i + 4], "big") for i in (6, 10, 14))
    assert (m, t, p) == (256 * 1024, 3, 4)
    # (Decrypting at this cost is left to the cheap-cost tests above: a
    # debug build of the CLI takes a minute over 256 MiB of Argon2id.)


def test_open_encrypted_random_access(tmp_path, cli, keyfile):
    kp, key = keyfile
    data = os.urandom(5 * 16384 + 1234)
    (tmp_path / "plain").write_bytes(data)
    run(cli, "encrypt", "-q", "-k", kp, "-o", tmp_path / "c.aesx", tmp_path / "plain")
    with aesx.open_encrypted(tmp_path / "c.aesx", key=key) as f:
        assert f.readable() and f.seekable() and not f.writable()
        assert f.size == len(data) and f.seek(0, io.SEEK_END) == len(data)
        rng = __import__("random").Random(1)
        for _ in range(200):
            pos = rng.randrange(len(data) + 10)
            n = rng.randrange(40000)
            f.seek(pos)
            assert f.read(n) == data[pos:pos + n]
            assert f.tell() == min(pos + n, len(data)) if pos <= len(data) else pos
        f.seek(-10, io.SEEK_END)
        assert f.read() == data[-10:]
        f.seek(0)
        assert io.BufferedReader(f).read() == data
    with pytest.raises(ValueError):
        f.read(1)


def test_open_encrypted_reads_only_verified_chunks(tmp_path, keyfile):
    _, key = keyfile
    data = os.urandom(4 * 16384 + 100)
    (tmp_path / "plain").write_bytes(data)
    aesx.encrypt_file(tmp_path / "plain", tmp_path / "c.aesx", key=key)
    b = bytearray((tmp_path / "c.aesx").read_bytes())
    b[62 + 2 * 16400 + 7] ^= 1  # inside chunk 2
    (tmp_path / "c.aesx").write_bytes(b)
    f = aesx.open_encrypted(tmp_path / "c.aesx", key=key)
    assert f.read(2 * 16384) == data[:2 * 16384]
    with pytest.raises(aesx.DecryptionError, match="chunk 2"):
        f.read(10)
    f.seek(3 * 16384)
    assert f.read() == data[3 * 16384:]


def test_atomic_output(tmp_path, keyfile):
    _, key = keyfile
    (tmp_path / "plain").write_bytes(os.urandom(300000))
    aesx.encrypt_file(tmp_path / "plain", tmp_path / "c.aesx", key=key)
    (tmp_path / "out").write_bytes(b"previous contents")
    b = bytearray((tmp_path / "c.aesx").read_bytes())
    b[-1] ^= 1
    (tmp_path / "bad.aesx").write_bytes(b)
    with pytest.raises(aesx.DecryptionError):
        aesx.decrypt_file(tmp_path / "bad.aesx", tmp_path / "out", key=key, force=True)
    # The old file stands; no temporary file is left behind.
    assert (tmp_path / "out").read_bytes() == b"previous contents"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.aesx", "c.aesx", "k.key", "out", "plain"]
    with pytest.raises(FileExistsError):
        aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "out", key=key)
    aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "out", key=key, force=True)
    assert (tmp_path / "out").read_bytes() == (tmp_path / "plain").read_bytes()
    with pytest.raises(ValueError, match="same file"):
        aesx.decrypt_file(tmp_path / "c.aesx", tmp_path / "c.aesx", key=key)
    with pytest.raises(FileNotFoundError):
        aesx.encrypt_file(tmp_path / "missing", tmp_path / "x", key=key)
    with pytest.raises(FileNotFoundError):
        aesx.encrypt_file(tmp_path / "plain", tmp_path / "no" / "dir" / "x", key=key)


BATCH = 64 * 16384  # the file pipeline's batch (aesx-file's BATCH_CHUNKS chunks)


@pytest.mark.parametrize("size", [2 * BATCH, 2 * BATCH + 1, 3 * BATCH + 3 * 16384 + 77])
def test_many_batches_at_every_thread_count(tmp_path, cli, keyfile, size):
    kp, key = keyfile
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(size))
    for threads in (1, 2, 3, 8):
        enc = tmp_path / f"py{threads}.aesx"
        aesx.encrypt_file(plain, enc, key=key, threads=threads)
        run(cli, "decrypt", "-q", "-k", kp, "-o", tmp_path / f"cli{threads}.out", enc)
        assert (tmp_path / f"cli{threads}.out").read_bytes() == plain.read_bytes()
        out = tmp_path / f"py{threads}.out"
        aesx.decrypt_file(enc, out, key=key, threads=4 - threads % 4)
        assert out.read_bytes() == plain.read_bytes()


def test_damage_in_a_later_batch_fails_without_output(tmp_path, keyfile):
    _, key = keyfile
    plain = tmp_path / "plain"
    plain.write_bytes(os.urandom(4 * BATCH + 10))
    enc = tmp_path / "f.aesx"
    aesx.encrypt_file(plain, enc, key=key)
    data = bytearray(enc.read_bytes())
    data[62 + 150 * 16400 + 9] ^= 1  # chunk 150, in the third batch
    enc.write_bytes(bytes(data))
    for threads in (1, 2, 5):
        with pytest.raises(aesx.DecryptionError, match="chunk 150 failed"):
            aesx.decrypt_file(enc, tmp_path / "out", key=key, threads=threads)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["f.aesx", "k.key", "plain"]
