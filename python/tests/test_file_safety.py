"""encrypt_file / decrypt_file / open_encrypted: outputs private before any
plaintext is written, no temporary file left on any failure, existing
outputs replaced only when asked, reads past the end."""

import os
import signal
import stat
import subprocess
import sys
import threading
import time

import pytest

import aesx

KEY = bytes(range(32))


def temps(d):
    return [n for n in os.listdir(d) if ".aesx-tmp-" in n]


@pytest.fixture
def enc(tmp_path):
    (tmp_path / "plain").write_bytes(os.urandom(300000))
    aesx.encrypt_file(tmp_path / "plain", tmp_path / "c.aesx", key=KEY)
    return tmp_path / "c.aesx"


def test_new_plaintext_private_whatever_the_umask(tmp_path, enc):
    old = os.umask(0)
    try:
        aesx.decrypt_file(enc, tmp_path / "out", key=KEY)
        aesx.encrypt_file(tmp_path / "plain", tmp_path / "c2", key=KEY)
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "out").st_mode) == 0o600
    # Ciphertext is not secret: the usual mode less the umask, as the CLI.
    assert stat.S_IMODE(os.stat(tmp_path / "c2").st_mode) == 0o666


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o604])
def test_replaced_file_keeps_its_mode(tmp_path, enc, mode):
    out = tmp_path / "secret"
    out.write_bytes(b"old")
    os.chmod(out, mode)
    aesx.decrypt_file(enc, out, key=KEY, force=True)
    assert stat.S_IMODE(os.stat(out).st_mode) == mode
    assert out.read_bytes() == (tmp_path / "plain").read_bytes()


def test_existing_output_refused_without_force(tmp_path, enc):
    (tmp_path / "out").write_bytes(b"keep me")
    with pytest.raises(FileExistsError, match="force=True"):
        aesx.decrypt_file(enc, tmp_path / "out", key=KEY)
    with pytest.raises(FileExistsError):
        aesx.encrypt_file(tmp_path / "plain", tmp_path / "out", key=KEY)
    assert (tmp_path / "out").read_bytes() == b"keep me"
    assert temps(tmp_path) == []


def test_output_is_a_directory(tmp_path, enc):
    (tmp_path / "d").mkdir()
    for force in (False, True):
        with pytest.raises(IsADirectoryError):
            aesx.decrypt_file(enc, tmp_path / "d", key=KEY, force=force)
    assert temps(tmp_path) == [] and os.listdir(tmp_path / "d") == []


def test_output_named_as_a_directory_refused(tmp_path, enc):
    for name in (str(tmp_path / "new") + "/", str(tmp_path) + "/.."):
        with pytest.raises(ValueError, match="not a file name"):
            aesx.decrypt_file(enc, name, key=KEY, force=True)
    with pytest.raises(IsADirectoryError):  # "d/." is d itself
        aesx.decrypt_file(enc, str(tmp_path) + "/.", key=KEY, force=True)
    assert not (tmp_path / "new").exists() and temps(tmp_path) == []


def test_output_is_a_device_or_fifo_refused(tmp_path, enc):
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ValueError, match="not a regular file"):
        aesx.decrypt_file(enc, tmp_path / "fifo", key=KEY, force=True)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode) and temps(tmp_path) == []


def test_write_failure_leaves_no_temporary_file(tmp_path, enc):
    # A file size limit makes the write fail part-way (EFBIG), as a full
    # disk would.
    code = (
        "import resource, signal, sys, aesx\n"
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (100000, 100000))\n"
        "try:\n"
        "    aesx.decrypt_file(sys.argv[1], sys.argv[2], key=bytes(range(32)))\n"
        "except OSError as e:\n"
        "    print('OSError', e.errno)\n"
    )
    r = subprocess.run([sys.executable, "-c", code, str(enc), str(tmp_path / "out")],
                       capture_output=True, text=True, check=True)
    assert r.stdout.startswith("OSError 27"), r
    assert not (tmp_path / "out").exists() and temps(tmp_path) == []


def _big(tmp_path, mib=48):
    (tmp_path / "bigplain").write_bytes(os.urandom(mib << 20))
    aesx.encrypt_file(tmp_path / "bigplain", tmp_path / "big.aesx", key=KEY)
    return tmp_path / "big.aesx"


def _when_temp_appears(d, act, stop):
    while not stop.is_set():
        if temps(d):
            act()
            return
        time.sleep(0.0002)


def _during_decrypt(tmp_path, act, caught, late=0.0):
    """Decrypts a large file while another thread runs `act(out)` the moment
    the output's temporary file appears, until the call raises `caught`;
    checks that no temporary file is left after every try. Returns the
    output path of the try that raised."""
    src = _big(tmp_path)
    for i in range(6):
        out = tmp_path / f"out{i}"
        stop = threading.Event()
        t = threading.Thread(target=_when_temp_appears, args=(tmp_path, lambda: act(out), stop))
        t.start()
        try:
            aesx.decrypt_file(src, out, key=KEY, threads=1)
            time.sleep(late)  # a late act lands here, not in the next try
            hit = False
        except caught:
            hit = True
        finally:
            stop.set()
            t.join()
        assert temps(tmp_path) == []
        if hit:
            return out
    pytest.skip("the decryption always finished before the other thread acted")


def test_rename_failure_leaves_no_temporary_file(tmp_path):
    # A directory takes the output's name while it is written: the final
    # rename fails, and the temporary file (the whole plaintext) goes.
    _during_decrypt(tmp_path, lambda out: out.mkdir(), OSError)


def test_interrupt_leaves_no_temporary_file(tmp_path):
    main = threading.main_thread().ident
    out = _during_decrypt(tmp_path, lambda out: signal.pthread_kill(main, signal.SIGINT),
                          KeyboardInterrupt, late=0.05)
    assert not out.exists()


def test_seek_far_past_the_end_reads_nothing(tmp_path, enc):
    f = aesx.open_encrypted(enc, key=KEY)
    for pos in (f.size, f.size + 1, 2**63, 2**64, 2**200):
        assert f.seek(pos) == pos
        assert f.read(10) == b"" and f.read() == b""
        assert f.readinto(bytearray(5)) == 0
