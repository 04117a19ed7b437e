"""pyca parity beyond the documented snippets: the `*_into` length rules of
AESCCM and AESGCMSIV, `reset_nonce`, exceptions deriving from pyca's (and an
aesx without pyca), CMAC's exception classes, padding, AESX_BACKEND."""

import os
import subprocess
import sys
import textwrap

import pytest

import aesx
from aesx import AESCCM, AESGCMSIV, XAES256GCM, Cipher, algorithms, modes, padding
from aesx.cmac import CMAC

cryptography = pytest.importorskip("cryptography")
from cryptography import exceptions as pyca_exc  # noqa: E402
from cryptography.hazmat.primitives import keywrap as pyca_keywrap  # noqa: E402
from cryptography.hazmat.primitives import padding as pyca_padding  # noqa: E402
from cryptography.hazmat.primitives.ciphers import (  # noqa: E402
    Cipher as PycaCipher,
    CipherContext,
    algorithms as pyca_algorithms,
    modes as pyca_modes,
)
from cryptography.hazmat.primitives.ciphers import aead as pyca_aead  # noqa: E402


def outcome(f, *args):
    """What a call did: ("ok", result, buffers) or (exception class name,
    message). aesx's exceptions are named as pyca's."""
    try:
        r = f(*args)
    except Exception as e:  # the class and message are what is compared
        return (type(e).__name__, str(e))
    return ("ok", r, [bytes(a) for a in args if isinstance(a, bytearray)])


# ---------------------------------------------------------------- *_into


def _ccm_cases():
    key = b"k" * 16
    for tag in (4, 16):
        ct = pyca_aead.AESCCM(key, tag).encrypt(b"n" * 13, b"abc", b"ad")
        for nonce in (b"n" * 6, b"n" * 13, b"n" * 14):
            yield tag, "encrypt_into", (nonce, b"abc", b"ad", bytearray(3 + tag))
            yield tag, "decrypt_into", (nonce, ct, b"ad", bytearray(3))
        n13 = b"n" * 13
        for size in (0, 2 + tag, 4 + tag, 3 + tag):
            yield tag, "encrypt_into", (n13, b"abc", b"ad", bytearray(size))
        for size in (0, 2, 4, 3):
            yield tag, "decrypt_into", (n13, ct, b"ad", bytearray(size))
        yield tag, "decrypt_into", (n13, ct, b"wrong", bytearray(3))
        yield tag, "decrypt_into", (n13, ct[: tag - 1], b"ad", bytearray(0))
        yield tag, "encrypt_into", (n13, b"", None, bytearray(tag))
        # 15 - 13 = 2 length bytes: 65536 bytes at most (pyca's rule).
        yield tag, "encrypt_into", (n13, bytes(65537), None, bytearray(65537 + tag))
        yield tag, "decrypt_into", (n13, bytes(65537 + tag), None, bytearray(65537))
        yield tag, "decrypt_into", (n13, bytes(65536 + tag), None, bytearray(3))


@pytest.mark.parametrize("tag,method,args", list(_ccm_cases()))
def test_aesccm_into_matches_pyca(tag, method, args):
    ours = getattr(AESCCM(b"k" * 16, tag), method)
    ref = getattr(pyca_aead.AESCCM(b"k" * 16, tag), method)
    copy = tuple(bytearray(a) if isinstance(a, bytearray) else a for a in args)
    # Outcomes include the output buffers: on InvalidTag both leave zeros.
    assert outcome(ours, *args) == outcome(ref, *copy)


def _siv_cases():
    key = b"k" * 32
    ct = pyca_aead.AESGCMSIV(key).encrypt(b"n" * 12, b"abcdef", None)
    for nonce in (b"n" * 11, b"n" * 12, b"n" * 13):
        yield "encrypt_into", (nonce, b"abcdef", None, bytearray(22))
        yield "decrypt_into", (nonce, ct, None, bytearray(6))
    for size in (0, 21, 22, 23):
        yield "encrypt_into", (b"n" * 12, b"abcdef", None, bytearray(size))
    for size in (0, 5, 6, 7):
        yield "decrypt_into", (b"n" * 12, ct, None, bytearray(size))
    yield "decrypt_into", (b"n" * 12, ct[:15], None, bytearray(0))
    yield "encrypt_into", (b"n" * 12, b"", b"ad", bytearray(16))


@pytest.mark.parametrize("method,args", list(_siv_cases()))
def test_aesgcmsiv_into_matches_pyca(method, args):
    ours = getattr(AESGCMSIV(b"k" * 32), method)
    ref = getattr(pyca_aead.AESGCMSIV(b"k" * 32), method)
    copy = tuple(bytearray(a) if isinstance(a, bytearray) else a for a in args)
    assert outcome(ours, *args) == outcome(ref, *copy)


@pytest.mark.parametrize(
    "make,nonce,tag",
    [
        (lambda: AESCCM(b"k" * 24, 10), b"n" * 9, 10),
        (lambda: AESGCMSIV(b"k" * 16), b"n" * 12, 16),
        (lambda: XAES256GCM(b"k" * 32), b"n" * 24, 16),
    ],
)
def test_into_in_place_and_failure_zeroes(make, nonce, tag):
    aead = make()
    data = os.urandom(1000)
    want = aead.encrypt(nonce, data, b"ad")
    # In place: the plaintext at the start of a buffer with room for the tag.
    buf = bytearray(data) + bytearray(tag)
    mv = memoryview(buf)
    assert aead.encrypt_into(nonce, mv[: len(data)], b"ad", mv) == len(data) + tag
    assert bytes(buf) == want
    assert aead.decrypt_into(nonce, mv, b"ad", mv[: len(data)]) == len(data)
    assert bytes(buf[: len(data)]) == data
    # A partial overlap works as well (the input is copied first).
    buf = bytearray(8) + bytearray(want)
    mv = memoryview(buf)
    assert aead.decrypt_into(nonce, mv[8:], b"ad", mv[: len(data)]) == len(data)
    assert bytes(buf[: len(data)]) == data
    # A failed open releases nothing: the output is zeroed.
    out = bytearray(b"\xff" * len(data))
    with pytest.raises(pyca_exc.InvalidTag):
        aead.decrypt_into(nonce, want, b"other", out)
    assert out == bytearray(len(data))
    # Read-only output: pyca's TypeError.
    with pytest.raises(TypeError, match="not writable"):
        aead.encrypt_into(nonce, data, None, bytes(len(data) + tag))


# ---------------------------------------------------------------- reset_nonce


@pytest.mark.parametrize("decrypt", [False, True])
def test_reset_nonce_ctr_matches_pyca(decrypt):
    key, n1, n2 = os.urandom(16), os.urandom(16), b"\xff" * 16
    ours = Cipher(algorithms.AES(key), modes.CTR(n1))
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.CTR(n1))
    a = ours.decryptor() if decrypt else ours.encryptor()
    b = ref.decryptor() if decrypt else ref.encryptor()
    data = os.urandom(100)
    assert a.update(data[:7]) == b.update(data[:7])
    a.reset_nonce(n2)
    b.reset_nonce(n2)
    # The counter wraps at 2^128 from an all-ones block, as in pyca.
    assert a.update(data) == b.update(data)
    a.reset_nonce(bytearray(n1))
    b.reset_nonce(bytearray(n1))
    assert a.update(data) == b.update(data)
    for bad in (b"\x00" * 15, b"\x00" * 17, "x" * 16):
        assert outcome(a.reset_nonce, bad)[0] == outcome(b.reset_nonce, bad)[0]
    assert outcome(a.reset_nonce, b"\x00" * 15) == outcome(b.reset_nonce, b"\x00" * 15)
    assert a.finalize() == b.finalize()
    with pytest.raises(pyca_exc.AlreadyFinalized):
        a.reset_nonce(n1)


@pytest.mark.parametrize(
    "mode,pyca_mode,keylen",
    [
        (modes.ECB(), pyca_modes.ECB(), 16),
        (modes.CBC(b"\0" * 16), pyca_modes.CBC(b"\0" * 16), 16),
        (modes.XTS(b"\0" * 16), pyca_modes.XTS(b"\0" * 16), 32),
    ],
)
def test_reset_nonce_other_modes_unsupported(mode, pyca_mode, keylen):
    key = bytes(range(keylen))
    for ctx, ref in (
        (Cipher(algorithms.AES(key), mode).encryptor(),
         PycaCipher(pyca_algorithms.AES(key), pyca_mode).encryptor()),
        (Cipher(algorithms.AES(key), mode).decryptor(),
         PycaCipher(pyca_algorithms.AES(key), pyca_mode).decryptor()),
    ):
        with pytest.raises(pyca_exc.UnsupportedAlgorithm) as e:
            ctx.reset_nonce(b"\0" * 16)
        assert outcome(ctx.reset_nonce, b"\0") == outcome(ref.reset_nonce, b"\0")
        assert e.value._reason == pyca_exc._Reasons.UNSUPPORTED_CIPHER
        assert isinstance(e.value, aesx.UnsupportedAlgorithm)


# ---------------------------------------------------------------- exceptions


def test_exceptions_derive_from_pyca():
    pairs = [
        (aesx.InvalidTag, pyca_exc.InvalidTag),
        (aesx.InvalidSignature, pyca_exc.InvalidSignature),
        (aesx.AlreadyFinalized, pyca_exc.AlreadyFinalized),
        (aesx.UnsupportedAlgorithm, pyca_exc.UnsupportedAlgorithm),
        (aesx.InvalidUnwrap, pyca_keywrap.InvalidUnwrap),
        (aesx.keywrap.InvalidUnwrap, pyca_keywrap.InvalidUnwrap),
    ]
    for ours, theirs in pairs:
        assert issubclass(ours, theirs), ours
        assert ours is not theirs
    # The compiled core raises the same classes.
    assert aesx._aesx.InvalidTag is aesx.InvalidTag
    assert aesx._aesx.InvalidUnwrap is aesx.keywrap.InvalidUnwrap
    # DecryptionError (file errors) is unchanged: a ValueError of aesx's own.
    assert issubclass(aesx.DecryptionError, ValueError)
    assert aesx._aesx.DecryptionError is aesx.DecryptionError


def test_contexts_register_with_pyca_abcs():
    key = b"k" * 16
    for m in (modes.ECB(), modes.CBC(b"\0" * 16), modes.CTR(b"\0" * 16)):
        c = Cipher(algorithms.AES(key), m)
        assert isinstance(c.encryptor(), CipherContext)
        assert isinstance(c.decryptor(), CipherContext)
    for scheme in (padding.PKCS7(128), padding.ANSIX923(64)):
        assert isinstance(scheme.padder(), pyca_padding.PaddingContext)
        assert isinstance(scheme.unpadder(), pyca_padding.PaddingContext)


def test_pickled_exceptions_come_back():
    import pickle

    for exc in (aesx.InvalidTag(), aesx.UnsupportedAlgorithm("no"), aesx.InvalidUnwrap()):
        back = pickle.loads(pickle.dumps(exc))
        assert type(back) is type(exc) and back.args == exc.args


def _run(code: str, env=None):
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=full, timeout=120,
    )


BLOCK_PYCA = """
    import sys
    sys.modules["cryptography"] = None      # as if it were not installed
"""


def test_without_pyca_nothing_changes():
    r = _run(BLOCK_PYCA + """
    import aesx
    from aesx import padding, keywrap, Cipher, algorithms, modes
    from aesx.cmac import CMAC
    assert "cryptography" not in [m.split(".")[0] for m in sys.modules if sys.modules[m]]
    for cls in (aesx.InvalidTag, aesx.InvalidSignature, aesx.AlreadyFinalized,
                aesx.UnsupportedAlgorithm, keywrap.InvalidUnwrap):
        assert cls.__bases__ == (Exception,), cls
    g = aesx.AESGCM(b"k" * 16)
    try:
        g.decrypt(b"n" * 12, b"x" * 20, None)
    except aesx.InvalidTag:
        pass
    else:
        raise SystemExit("no InvalidTag")
    try:
        Cipher(algorithms.AES(b"k" * 16), modes.ECB()).encryptor().reset_nonce(b"\\0" * 16)
    except aesx.UnsupportedAlgorithm as e:
        assert e._reason is None and str(e)
    try:
        keywrap.aes_key_unwrap(b"k" * 16, b"x" * 24)
    except keywrap.InvalidUnwrap:
        pass
    p = padding.PKCS7(128).padder()
    assert p.update(b"abc") + p.finalize() == b"abc" + bytes([13]) * 13
    try:
        p.finalize()
    except aesx.AlreadyFinalized:
        pass
    c = CMAC(algorithms.AES(b"k" * 16)); c.update(b"m")
    try:
        c.verify(b"x" * 16)
    except aesx.InvalidSignature:
        pass
    print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


def test_broken_pyca_leaves_aesx_importable():
    # A cryptography whose import fails with something other than ImportError
    # (broken OpenSSL bindings, say) must not take aesx down with it.
    r = _run("""
    import sys, types, importlib.abc, importlib.machinery

    class Broken(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        def find_spec(self, name, path, target=None):
            if name == "cryptography" or name.startswith("cryptography."):
                return importlib.machinery.ModuleSpec(name, self)
        def create_module(self, spec):
            return None
        def exec_module(self, module):
            raise RuntimeError("broken bindings")

    sys.meta_path.insert(0, Broken())
    import aesx
    assert aesx.InvalidTag.__bases__ == (Exception,)
    print("ok")
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "ok"


# ---------------------------------------------------------------- CMAC


def test_cmac_exception_classes_match_pyca():
    from cryptography.hazmat.primitives import cmac as pyca_cmac

    chacha = pyca_algorithms.ChaCha20(b"k" * 32, b"n" * 16)
    sm4 = pyca_algorithms.SM4(b"k" * 16)
    aes512 = pyca_algorithms.AES(b"k" * 64)
    for alg in (chacha, object(), b"k" * 16):
        with pytest.raises(TypeError) as ours:
            CMAC(alg)
        with pytest.raises(TypeError) as theirs:
            pyca_cmac.CMAC(alg)
        assert str(ours.value) == str(theirs.value)
    # AES with a 512-bit key: neither has CMAC for it.
    with pytest.raises(pyca_exc.UnsupportedAlgorithm) as ours:
        CMAC(aes512)
    with pytest.raises(pyca_exc.UnsupportedAlgorithm) as theirs:
        pyca_cmac.CMAC(aes512)
    assert str(ours.value) == str(theirs.value)
    with pytest.raises(pyca_exc.UnsupportedAlgorithm):
        CMAC(algorithms.AES(b"k" * 64))
    # A block cipher pyca has and aesx does not (CMAC is AES-only here).
    with pytest.raises(pyca_exc.UnsupportedAlgorithm):
        CMAC(sm4)

    class StreamCipher:  # duck-typed, no block size: not a block cipher
        name = "AES"
        key = b"k" * 16

    with pytest.raises(TypeError, match="BlockCipherAlgorithm"):
        CMAC(StreamCipher())


# ---------------------------------------------------------------- padding


@pytest.mark.parametrize("scheme", ["PKCS7", "ANSIX923"])
@pytest.mark.parametrize("block_size", [8, 64, 128, 2040])
def test_padding_matches_pyca(scheme, block_size):
    ours, theirs = getattr(padding, scheme)(block_size), getattr(pyca_padding, scheme)(block_size)
    for n in (0, 1, 15, 16, 17, 100, 300):
        data = os.urandom(n)
        cuts = sorted({0, n // 3, n // 2, n})
        pieces = [data[a:b] for a, b in zip(cuts, cuts[1:])]
        p, q = ours.padder(), theirs.padder()
        assert [p.update(x) for x in pieces] + [p.finalize()] == [
            q.update(x) for x in pieces
        ] + [q.finalize()]
        padder = ours.padder()
        padded = padder.update(data) + padder.finalize()
        cuts = sorted({0, len(padded) // 3, len(padded) - 1, len(padded)})
        pieces = [padded[a:b] for a, b in zip(cuts, cuts[1:])]
        u, v = ours.unpadder(), theirs.unpadder()
        assert [u.update(bytearray(x)) for x in pieces] + [u.finalize()] == [
            v.update(x) for x in pieces
        ] + [v.finalize()]


@pytest.mark.parametrize("scheme", ["PKCS7", "ANSIX923"])
def test_padding_errors_match_pyca(scheme):
    ours, theirs = getattr(padding, scheme), getattr(pyca_padding, scheme)
    for bs in (-8, 7, 2041, 2048, 4096, "8"):
        assert outcome(ours, bs)[:2] == outcome(theirs, bs)[:2]
    bad_blocks = [
        b"",
        b"a" * 15,
        b"a" * 17,
        b"a" * 15 + b"\x00",
        b"a" * 15 + b"\x11",
        b"a" * 14 + b"\x01\x02",
        b"a" * 13 + b"\x01\x00\x03",
        b"a" * 14 + b"\x02\x02",
        b"a" * 14 + b"\x00\x02",
        b"\x10" * 16,
        bytes(15) + b"\x10",
        b"a" * 15 + b"\x01",
    ]
    for block in bad_blocks:
        u, v = ours(128).unpadder(), theirs(128).unpadder()
        got = outcome(lambda: u.update(block) + u.finalize())
        want = outcome(lambda: v.update(block) + v.finalize())
        assert got == want, block
    for make in ("padder", "unpadder"):
        c, d = getattr(ours(128), make)(), getattr(theirs(128), make)()
        assert outcome(c.update, "text")[0] == outcome(d.update, "text")[0] == "TypeError"
        if make == "unpadder":
            block = theirs(128).padder().finalize()  # a valid padding block
            c.update(block), d.update(block)
        c.finalize(), d.finalize()
        for call in ("finalize", "update"):
            args = () if call == "finalize" else (b"x",)
            assert outcome(getattr(c, call), *args) == outcome(getattr(d, call), *args)
    # pyca accepts a block size of 0 but fails inside its finalize; aesx
    # refuses the contexts with a ValueError.
    ours(0)
    with pytest.raises(ValueError):
        ours(0).padder()
    with pytest.raises(ValueError):
        ours(0).unpadder()


def test_cbc_pkcs7_flag_still_pads():
    key, iv = b"k" * 16, b"i" * 16
    enc = Cipher(algorithms.AES(key), modes.CBC(iv, pkcs7=True)).encryptor()
    ct = enc.update(b"abc") + enc.finalize()
    p = padding.PKCS7(128).padder()
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.CBC(iv)).encryptor()
    assert ct == ref.update(p.update(b"abc") + p.finalize()) + ref.finalize()


# ---------------------------------------------------------------- AESX_BACKEND

# Every name aesx knows, from the package's own list (the library's).
KNOWN = aesx.all_backends()


def test_backends_are_the_known_ones_this_machine_runs():
    assert "soft" in KNOWN and len(set(KNOWN)) == len(KNOWN)
    runs = aesx.backends()
    assert runs == [b for b in KNOWN if b in runs]
    for b in KNOWN:
        if b in runs:
            assert aesx.AESGCM(b"k" * 16, backend=b).backend == b
        else:
            with pytest.raises(ValueError):
                aesx.AESGCM(b"k" * 16, backend=b)


def test_aesx_backend_selects_and_explicit_wins():
    r = _run("""
    import aesx
    assert aesx.default_backend() == "soft", aesx.default_backend()
    assert aesx.AESGCM(b"k" * 16).backend == "soft"
    assert aesx.AESCCM(b"k" * 16).backend == "soft"
    assert aesx.XTS(b"k" * 32 + b"j" * 32).backend == "soft"
    best = aesx.backends()[-1]
    assert aesx.AESGCM(b"k" * 16, backend=best).backend == best
    aesx.use_backend(best)
    assert aesx.default_backend() == best
    aesx.use_backend(None)
    assert aesx.default_backend() == "soft"
    print("ok")
    """, {"AESX_BACKEND": "soft"})
    assert r.returncode == 0, r.stderr
    # Case and blanks are forgiven; an empty value means unset.
    r = _run("import aesx; print(aesx.default_backend())", {"AESX_BACKEND": " SOFT "})
    assert r.stdout.strip() == "soft", r.stderr
    r = _run("import aesx; print(aesx.default_backend() == aesx.backends()[-1])",
             {"AESX_BACKEND": ""})
    assert r.stdout.strip() == "True", r.stderr


@pytest.mark.parametrize("value", ["nonsense", "cuda", "unavailable"])
def test_aesx_backend_bad_value_is_an_error_at_first_use(value):
    if value == "unavailable":
        missing = [b for b in KNOWN if b not in aesx.backends()]
        if not missing:
            pytest.skip("this machine runs every backend")
        value = missing[0]
    r = _run("""
    import aesx                                 # importing still works
    for make in (lambda: aesx.AESGCM(b"k" * 16), aesx.default_backend,
                 lambda: aesx.Cipher(aesx.algorithms.AES(b"k" * 16),
                                     aesx.modes.ECB()).encryptor()):
        try:
            make()
        except ValueError as e:
            print(e)
        else:
            raise SystemExit("no error")
    # An explicit backend= still works.
    assert aesx.AESGCM(b"k" * 16, backend="soft").backend == "soft"
    """, {"AESX_BACKEND": value})
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 3
    for line in lines:
        assert line.startswith("AESX_BACKEND:") and value in line
        assert ("unknown backend" in line) == (value not in KNOWN)


# ---------------------------------------------------------------- Cipher


def test_cipher_modes_and_algorithms_aesx_lacks():
    key = b"k" * 16
    class OFB:  # the shape of pyca's (now decrepit) OFB mode object
        name = "OFB"
        initialization_vector = b"\0" * 16

        def validate_for_algorithm(self, algorithm):
            pass

    class CFB1(OFB):  # a mode aesx lacks (pyca had CFB1 in its C backend)
        name = "CFB1"

    # pyca's own GCM and OFB-shaped mode objects run on aesx.
    enc = Cipher(algorithms.AES(key), pyca_modes.GCM(b"n" * 12)).encryptor()
    ref = PycaCipher(pyca_algorithms.AES(key), pyca_modes.GCM(b"n" * 12)).encryptor()
    assert enc.update(b"abc") + enc.finalize() == ref.update(b"abc") + ref.finalize()
    assert enc.tag == ref.tag
    assert Cipher(algorithms.AES(key), OFB()).encryptor().update(b"abc") == (
        Cipher(algorithms.AES(key), modes.OFB(b"\0" * 16)).encryptor().update(b"abc")
    )
    with pytest.raises(pyca_exc.UnsupportedAlgorithm, match="CFB1"):
        Cipher(algorithms.AES(key), CFB1())
    with pytest.raises(pyca_exc.UnsupportedAlgorithm, match="SM4"):
        Cipher(pyca_algorithms.SM4(key), pyca_modes.CBC(b"\0" * 16))
    # Not an algorithm at all: pyca's TypeError and message.
    with pytest.raises(TypeError, match="Expected interface of CipherAlgorithm."):
        Cipher(object(), modes.ECB())
    with pytest.raises(TypeError, match="Expected interface of CipherAlgorithm."):
        PycaCipher(object(), pyca_modes.ECB())
