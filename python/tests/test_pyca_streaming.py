"""pyca's streaming GCM (``Cipher(AES, GCM).encryptor()/decryptor()``) and
its CFB, CFB8 and OFB modes, through aesx.

The first part is pyca's ``tests/hazmat/primitives/test_aes_gcm.py`` with
the import changed to aesx (the NIST vectors read from the repository's
``vectors/``, the same files as pyca's ``cryptography-vectors``); the second holds aesx and pyca to the
same outcome (result, or exception class and message) for the same call
sequences; the third runs pyca's ``test_aes.py`` CFB/CFB8/OFB vector files
and random data against pyca on every backend.
"""

import binascii
import os
import pathlib
import warnings

import pytest

import aesx
from aesx import Cipher, algorithms, modes
from aesx import base  # noqa: F401  (pyca's `ciphers.base`, as its tests import it)

cryptography = pytest.importorskip("cryptography")
from cryptography.exceptions import AlreadyFinalized, AlreadyUpdated, InvalidTag  # noqa: E402
from cryptography.exceptions import NotYetFinalized  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher as PycaCipher  # noqa: E402
from cryptography.hazmat.primitives.ciphers import algorithms as pyca_algorithms  # noqa: E402
from cryptography.hazmat.primitives.ciphers import modes as pyca_modes  # noqa: E402

try:
    from cryptography.hazmat.decrepit.ciphers import modes as pyca_decrepit
except ImportError:  # cryptography before 43
    pyca_decrepit = pyca_modes

REPO_VECTORS = pathlib.Path(__file__).resolve().parents[2] / "vectors"
NIST = REPO_VECTORS / "nist"


def load_nist(path):
    """pyca's load_nist_vectors: records of lower-cased fields, with the
    section and a `fail` flag."""
    out, cur, section = [], None, None
    for line in path.read_text().splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            if "=" not in line:
                section = line.strip("[]").lower()
            continue
        if line == "FAIL":
            cur["fail"] = True
            continue
        k, _, v = line.partition("=")
        k, v = k.strip().lower(), v.strip()
        if k == "count":
            cur = {"section": section}
            out.append(cur)
            continue
        cur[k] = v
    return out


# ------------------------------------------------- pyca's test_aes_gcm.py


def _gcm_params():
    for name in (
        "gcmDecrypt128.rsp",
        "gcmDecrypt192.rsp",
        "gcmDecrypt256.rsp",
        "gcmEncryptExtIV128.rsp",
        "gcmEncryptExtIV192.rsp",
        "gcmEncryptExtIV256.rsp",
    ):
        for p in load_nist(NIST / "GCM" / name):
            # pyca strips IVs under 64 bits too.
            if len(p["iv"]) >= 16:
                yield p


GCM_PARAMS = list(_gcm_params())


def test_gcm_nist_vectors():
    """pyca's aead_test over the six NIST files (every 7th record: the
    files hold about 47,000; CI keeps to a few seconds)."""
    for params in GCM_PARAMS[::7]:
        tag = binascii.unhexlify(params["tag"])
        iv = binascii.unhexlify(params["iv"])
        key = binascii.unhexlify(params["key"])
        ct = binascii.unhexlify(params["ct"])
        aad = binascii.unhexlify(params["aad"])
        mode = modes.GCM(iv, tag, len(tag))
        if params.get("fail") is True:
            dec = Cipher(algorithms.AES(key), mode).decryptor()
            dec.authenticate_additional_data(aad)
            dec.update(ct)
            with pytest.raises(InvalidTag):
                dec.finalize()
            continue
        pt = binascii.unhexlify(params["pt"])
        enc = Cipher(algorithms.AES(key), modes.GCM(iv, None)).encryptor()
        enc.authenticate_additional_data(aad)
        got = enc.update(pt) + enc.finalize()
        assert enc.tag[: len(tag)] == tag
        assert got == ct
        dec = Cipher(algorithms.AES(key), mode).decryptor()
        dec.authenticate_additional_data(aad)
        assert dec.update(ct) + dec.finalize() == pt


def test_gcm_tag_with_only_aad():
    key = binascii.unhexlify(b"5211242698bed4774a090620a6ca56f3")
    iv = binascii.unhexlify(b"b1e1349120b6e832ef976f5d")
    aad = binascii.unhexlify(b"b6d729aab8e6416d7002b9faa794c410d8d2f193")
    tag = binascii.unhexlify(b"0f247e7f9c2505de374006738018493b")
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    encryptor.authenticate_additional_data(aad)
    encryptor.finalize()
    assert encryptor.tag == tag


def test_gcm_ciphertext_with_no_aad():
    key = binascii.unhexlify(b"e98b72a9881a84ca6b76e0f43e68647a")
    iv = binascii.unhexlify(b"8b23299fde174053f3d652ba")
    ct = binascii.unhexlify(b"5a3c1cf1985dbb8bed818036fdd5ab42")
    tag = binascii.unhexlify(b"23c7ab0f952b7091cd324835043b5eb5")
    pt = binascii.unhexlify(b"28286a321293253c3e0aa2704a278032")
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    assert encryptor.update(pt) + encryptor.finalize() == ct
    assert encryptor.tag == tag


def test_gcm_ciphertext_limit():
    encryptor = Cipher(algorithms.AES(b"\x00" * 16), modes.GCM(b"\x01" * 16)).encryptor()
    encryptor._bytes_processed = modes.GCM._MAX_ENCRYPTED_BYTES - 16
    encryptor.update(b"0" * 16)
    assert encryptor._bytes_processed == modes.GCM._MAX_ENCRYPTED_BYTES
    with pytest.raises(ValueError):
        encryptor.update(b"0")


def test_gcm_aad_limit():
    encryptor = Cipher(algorithms.AES(b"\x00" * 16), modes.GCM(b"\x01" * 16)).encryptor()
    encryptor._aad_bytes_processed = modes.GCM._MAX_AAD_BYTES - 16
    encryptor.authenticate_additional_data(b"0" * 16)
    assert encryptor._aad_bytes_processed == modes.GCM._MAX_AAD_BYTES
    with pytest.raises(ValueError):
        encryptor.authenticate_additional_data(b"0")


def test_gcm_increments():
    encryptor = Cipher(algorithms.AES(b"\x00" * 16), modes.GCM(b"\x01" * 16)).encryptor()
    encryptor.authenticate_additional_data(b"0" * 8)
    encryptor.authenticate_additional_data(b"0" * 18)
    assert encryptor._aad_bytes_processed == 26
    encryptor.update(b"0" * 8)
    encryptor.update(b"0" * 7)
    encryptor.update(b"0" * 18)
    assert encryptor._bytes_processed == 33


def _tag_of(aad):
    key = binascii.unhexlify(b"5211242698bed4774a090620a6ca56f3")
    iv = binascii.unhexlify(b"b1e1349120b6e832ef976f5d")
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    encryptor.authenticate_additional_data(aad)
    encryptor.finalize()
    return key, iv, encryptor.tag


def test_gcm_tag_decrypt_none_mode_and_finalize():
    aad = binascii.unhexlify(b"b6d729aab8e6416d7002b9faa794c410d8d2f193")
    key, iv, tag = _tag_of(aad)
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).decryptor()
    decryptor.authenticate_additional_data(aad)
    with pytest.raises(ValueError):
        decryptor.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv, tag)).decryptor()
    decryptor.authenticate_additional_data(aad)
    decryptor.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).decryptor()
    decryptor.authenticate_additional_data(aad)
    decryptor.finalize_with_tag(tag)


@pytest.mark.parametrize("tag", [b"tagtooshort", b"toolong" * 12])
def test_gcm_tag_decrypt_finalize_tag_length(tag):
    decryptor = Cipher(algorithms.AES(b"0" * 16), modes.GCM(b"0" * 12)).decryptor()
    with pytest.raises(ValueError):
        decryptor.finalize_with_tag(tag)


def test_buffer_protocol():
    data = bytearray(b"helloworld")
    enc = Cipher(
        algorithms.AES(bytearray(b"\x00" * 16)), modes.GCM(bytearray(b"\x00" * 12))
    ).encryptor()
    enc.authenticate_additional_data(bytearray(b"foo"))
    ct = enc.update(data) + enc.finalize()
    dec = Cipher(
        algorithms.AES(bytearray(b"\x00" * 16)), modes.GCM(bytearray(b"\x00" * 12), enc.tag)
    ).decryptor()
    dec.authenticate_additional_data(bytearray(b"foo"))
    assert dec.update(ct) + dec.finalize() == data


@pytest.mark.parametrize("size", [8, 128])
def test_gcm_min_max_iv(size):
    key = os.urandom(16)
    iv = b"\x00" * size
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    ct = encryptor.update(b"data")
    encryptor.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).decryptor()
    pt = decryptor.update(ct)
    decryptor.finalize_with_tag(encryptor.tag)
    assert pt == b"data"


@pytest.mark.parametrize("alg", [algorithms.AES128, algorithms.AES256])
def test_alternate_aes_classes(alg):
    data = bytearray(b"sixteen_byte_msg")
    cipher = Cipher(alg(b"0" * (alg.key_size // 8)), modes.GCM(b"\x00" * 12))
    enc = cipher.encryptor()
    ct = enc.update(data) + enc.finalize()
    dec = cipher.decryptor()
    assert dec.update(ct) + dec.finalize_with_tag(enc.tag) == data


# ------------------------------------------- the same outcomes as pyca


def outcome(f):
    try:
        r = f()
    except Exception as e:  # the class and message are what is compared
        return (type(e).__name__, str(e))
    return ("ok", r)


KEY, IV = b"k" * 16, b"i" * 12


def _both(mode_args, encrypt, steps, key=KEY):
    """Runs `steps` (callables on a context) on an aesx and a pyca context
    made from the same arguments; returns both lists of outcomes."""
    res = []
    for C, A, M in (
        (Cipher, algorithms, modes),
        (PycaCipher, pyca_algorithms, pyca_modes),
    ):
        made = outcome(lambda: C(A.AES(key), M.GCM(*mode_args)))
        if made[0] != "ok":
            res.append([made])
            continue
        c = made[1]
        ctx = outcome(c.encryptor if encrypt else c.decryptor)
        if ctx[0] != "ok":
            res.append([ctx])
            continue
        res.append([outcome(lambda s=s: s(ctx[1])) for s in steps])
    return res


def _tag(aad=b"a", data=b"xyz"):
    e = PycaCipher(pyca_algorithms.AES(KEY), pyca_modes.GCM(IV)).encryptor()
    e.authenticate_additional_data(aad)
    e.update(data)
    e.finalize()
    return e.tag


ENC_STEPS = {
    "normal": [
        lambda c: c.authenticate_additional_data(b"a"),
        lambda c: c.update(b"xyz"),
        lambda c: c.finalize(),
        lambda c: c.tag,
    ],
    "tag before finalize": [lambda c: c.tag, lambda c: c.finalize(), lambda c: c.tag],
    "aad after data": [
        lambda c: c.update(b"x"),
        lambda c: c.authenticate_additional_data(b"a"),
        lambda c: c.finalize(),
    ],
    "after finalize": [
        lambda c: c.finalize(),
        lambda c: c.update(b"x"),
        lambda c: c.finalize(),
        lambda c: c.authenticate_additional_data(b"a"),
        lambda c: c.update_into(b"x", bytearray(4)),
    ],
    "update_into sizes": [
        lambda c: c.update_into(b"abc", bytearray(2)),
        lambda c: c.update_into(b"abc", bytearray(3)),
        lambda c: c.update(b""),
        lambda c: c.finalize(),
    ],
    "reset_nonce": [lambda c: c.reset_nonce(IV)],
    "no finalize_with_tag": [lambda c: hasattr(c, "finalize_with_tag")],
}


@pytest.mark.parametrize("name", list(ENC_STEPS))
def test_encryptor_outcomes_match_pyca(name):
    ours, ref = _both((IV,), True, ENC_STEPS[name])
    assert ours == ref


DEC_CASES = {
    "good tag in mode": ((IV, _tag()), [
        lambda c: c.authenticate_additional_data(b"a"),
        lambda c: c.update(b"\x00\x01\x02"),
    ]),
    "finalize without tag": ((IV,), [lambda c: c.finalize()]),
    "tag twice": ((IV, b"t" * 16), [lambda c: c.finalize_with_tag(b"t" * 16)]),
    "short tag": ((IV,), [lambda c: c.finalize_with_tag(b"t" * 3)]),
    "long tag": ((IV,), [lambda c: c.finalize_with_tag(b"t" * 17)]),
    "str tag": ((IV,), [lambda c: c.finalize_with_tag("t" * 16)]),
    "wrong tag": ((IV,), [lambda c: c.update(b"abc"), lambda c: c.finalize_with_tag(b"t" * 16)]),
    "min_tag_length 8": ((IV, None, 8), [lambda c: c.finalize_with_tag(b"t" * 7)]),
    "no tag attribute": ((IV,), [lambda c: hasattr(c, "tag")]),
    "aad after data": ((IV,), [
        lambda c: c.update(b"x"),
        lambda c: c.authenticate_additional_data(b"a"),
    ]),
    "str data": ((IV,), [
        lambda c: c.update("abc"),
        lambda c: c.authenticate_additional_data("abc"),
        lambda c: c.update_into("abc", bytearray(3)),
    ]),
}


def test_finalize_with_tag_already_finalized():
    """pyca's test_ciphers.py TestCipherUpdateInto case: AlreadyFinalized
    comes before the tag-given-twice check."""
    key = binascii.unhexlify(b"e98b72a9881a84ca6b76e0f43e68647a")
    iv = binascii.unhexlify(b"8b23299fde174053f3d652ba")
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    ciphertext = encryptor.update(b"abc") + encryptor.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv, tag=encryptor.tag)).decryptor()
    decryptor.update(ciphertext)
    decryptor.finalize()
    with pytest.raises(AlreadyFinalized):
        decryptor.finalize_with_tag(encryptor.tag)
    with pytest.raises(AlreadyFinalized):
        decryptor.finalize()


def test_update_into_gcm():
    """pyca's test_ciphers.py test_update_into_gcm, and a buffer too small."""
    key = binascii.unhexlify(b"e98b72a9881a84ca6b76e0f43e68647a")
    iv = binascii.unhexlify(b"8b23299fde174053f3d652ba")
    ct = binascii.unhexlify(b"5a3c1cf1985dbb8bed818036fdd5ab42")
    pt = binascii.unhexlify(b"28286a321293253c3e0aa2704a278032")
    encryptor = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
    buf = bytearray(len(pt) + 15)
    assert encryptor.update_into(pt, buf) == len(pt)
    assert bytes(buf)[: len(pt)] == ct
    encryptor.finalize()
    decryptor = Cipher(algorithms.AES(key), modes.GCM(iv, encryptor.tag)).decryptor()
    assert decryptor.update_into(ct, buf) == len(pt)
    decryptor.finalize()
    assert bytes(buf)[: len(pt)] == pt
    with pytest.raises(ValueError):
        Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor().update_into(b"testing", bytearray(5))


@pytest.mark.parametrize("name", list(DEC_CASES))
def test_decryptor_outcomes_match_pyca(name):
    args, steps = DEC_CASES[name]
    ours, ref = _both(args, False, steps)
    assert ours == ref


@pytest.mark.parametrize(
    "args",
    [
        (b"i" * 7,),
        (b"i" * 129,),
        ("str",),
        (IV, "str"),
        (IV, b"x" * 3, 4),
        (IV, b"x" * 4, 4),
        (IV, None, 3),
        (IV, b"x" * 15),
    ],
)
def test_gcm_mode_checks_match_pyca(args):
    ours = outcome(lambda: modes.GCM(*args) and None)
    ref = outcome(lambda: pyca_modes.GCM(*args) and None)
    assert ours == ref


@pytest.mark.parametrize(
    "key,args,encrypt",
    [
        (b"k" * 64, (IV,), True),
        (b"k" * 16, (IV, b"t" * 17), False),
        (b"k" * 16, (IV, b"t" * 16), True),
    ],
)
def test_gcm_cipher_checks_match_pyca(key, args, encrypt):
    ours, ref = _both(args, encrypt, [], key=key)
    assert ours == ref


def test_streaming_gcm_matches_pyca_in_pieces():
    for n in (0, 1, 15, 16, 17, 100, 4097):
        for b in aesx.backends():
            key, iv, aad, data = os.urandom(32), os.urandom(12), os.urandom(20), os.urandom(n)
            e = Cipher(algorithms.AES(key), modes.GCM(iv), backend=b).encryptor()
            e.authenticate_additional_data(aad[:3])
            e.authenticate_additional_data(aad[3:])
            ct = b"".join(e.update(data[i : i + 7]) for i in range(0, n, 7)) + e.finalize()
            r = PycaCipher(pyca_algorithms.AES(key), pyca_modes.GCM(iv)).encryptor()
            r.authenticate_additional_data(aad)
            assert ct == r.update(data) + r.finalize()
            assert e.tag == r.tag
            d = Cipher(algorithms.AES(key), modes.GCM(iv, e.tag), backend=b).decryptor()
            d.authenticate_additional_data(aad)
            buf = bytearray(ct)
            assert d.update_into(buf, buf) == n
            d.finalize()
            assert bytes(buf) == data
            # A forged tag: the plaintext came out, the finalize refuses.
            d = Cipher(algorithms.AES(key), modes.GCM(iv), backend=b).decryptor()
            d.authenticate_additional_data(aad)
            assert d.update(ct) == data
            with pytest.raises(aesx.InvalidTag):
                d.finalize_with_tag(bytes(a ^ 1 for a in e.tag))
            with pytest.raises(AlreadyFinalized):
                d.update(b"")


def test_exception_classes_are_pycas():
    e = Cipher(algorithms.AES(KEY), modes.GCM(IV)).encryptor()
    with pytest.raises(NotYetFinalized):
        e.tag
    e.update(b"x")
    with pytest.raises(AlreadyUpdated):
        e.authenticate_additional_data(b"a")


# ------------------------------------------------- CFB, CFB8 and OFB


FEEDBACK = {
    "CFB": ("CFB", "CFB128"),
    "CFB8": ("CFB", "CFB8"),
    "OFB": ("OFB", "OFB"),
}


def _feedback_files():
    for mode, (folder, prefix) in FEEDBACK.items():
        for test in ("GFSbox", "KeySbox", "VarKey", "VarTxt", "MMT"):
            for bits in (128, 192, 256):
                yield mode, NIST / folder / f"{prefix}{test}{bits}.rsp"


@pytest.mark.parametrize(
    "mode,path", list(_feedback_files()), ids=lambda v: getattr(v, "name", v)
)
def test_feedback_nist_vectors(mode, path):
    """pyca's test_aes.py TestAESModeCFB/CFB8/OFB: the same files."""
    records = load_nist(path)
    assert records
    for b in aesx.backends():
        for p in records:
            key, iv = binascii.unhexlify(p["key"]), binascii.unhexlify(p["iv"])
            pt, ct = binascii.unhexlify(p["plaintext"]), binascii.unhexlify(p["ciphertext"])
            c = Cipher(algorithms.AES(key), getattr(modes, mode)(iv), backend=b)
            if p["section"] == "encrypt":
                e = c.encryptor()
                assert e.update(pt) + e.finalize() == ct, (path.name, b)
            else:
                d = c.decryptor()
                assert d.update(ct) + d.finalize() == pt, (path.name, b)


@pytest.mark.parametrize("mode", list(FEEDBACK))
def test_feedback_random_against_pyca(mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_mode = getattr(pyca_decrepit, mode)
    lengths = list(range(0, 50)) + [255, 256, 257, 1023, 1024, 1025, 4095, 4096, 4097]
    for b in aesx.backends():
        for i, n in enumerate(lengths):
            key, iv, data = os.urandom((16, 24, 32)[i % 3]), os.urandom(16), os.urandom(n)
            want = PycaCipher(pyca_algorithms.AES(key), ref_mode(iv)).encryptor().update(data)
            c = Cipher(algorithms.AES(key), getattr(modes, mode)(iv), backend=b)
            e = c.encryptor()
            cut = n // 3
            assert e.update(data[:cut]) + e.update(data[cut:]) + e.finalize() == want
            # Decrypt in place, and out of place into a larger buffer.
            d = c.decryptor()
            buf = bytearray(want)
            assert d.update_into(buf, buf) == n and bytes(buf) == data
            d = c.decryptor()
            out = bytearray(n + 5)
            assert d.update_into(want, out) == n and bytes(out[:n]) == data


@pytest.mark.parametrize("mode", list(FEEDBACK))
@pytest.mark.parametrize("iv_len", [0, 8, 15, 17])
def test_feedback_checks_match_pyca(mode, iv_len):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref_mode = getattr(pyca_decrepit, mode)
    iv = b"i" * iv_len
    ours = outcome(lambda: Cipher(algorithms.AES(KEY), getattr(modes, mode)(iv)) and None)
    ref = outcome(lambda: PycaCipher(pyca_algorithms.AES(KEY), ref_mode(iv)) and None)
    assert ours == ref
    ours = outcome(lambda: Cipher(algorithms.AES(b"k" * 64), getattr(modes, mode)(b"i" * 16)) and None)
    ref = outcome(lambda: PycaCipher(pyca_algorithms.AES(b"k" * 64), ref_mode(b"i" * 16)) and None)
    assert ours == ref
    ours = outcome(lambda: getattr(modes, mode)("str"))
    ref = outcome(lambda: ref_mode("str"))
    assert ours == ref


# ------------------------------------------------- AES-GCM-SIV vectors


def _siv_records():
    # pyca's ciphers/AES/GCM-SIV/openssl.txt and aes-192-gcm-siv.txt.
    for name in ("aes-gcm-siv-openssl.txt", "aes-192-gcm-siv.txt"):
        for p in load_nist(REPO_VECTORS / "pyca" / name):
            yield name, p


@pytest.mark.parametrize("backend", aesx.backends())
def test_gcm_siv_vectors(backend):
    """pyca's test_aead.py TestAESGCMSIV.test_vectors: the same two files,
    AES-192 included."""
    seen = 0
    for name, p in _siv_records():
        key = binascii.unhexlify(p["key"])
        nonce = binascii.unhexlify(p["iv"])
        aad = binascii.unhexlify(p.get("aad", ""))
        pt = binascii.unhexlify(p["plaintext"])
        ct = binascii.unhexlify(p["ciphertext"]) + binascii.unhexlify(p["tag"])
        siv = aesx.AESGCMSIV(key, backend=backend)
        assert siv.encrypt(nonce, pt, aad or None) == ct, (name, p)
        assert siv.decrypt(nonce, ct, aad or None) == pt, (name, p)
        seen += len(key) == 24
    assert seen == 46
