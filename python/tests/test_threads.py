"""Threads: 8 threads on one key agree with one thread, and big calls run
without the GIL."""

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import aesx
from aesx import Cipher, algorithms, modes


def test_eight_threads_one_key():
    key = os.urandom(32)
    g = aesx.AESGCM(key)
    msgs = [(os.urandom(12), os.urandom(n), os.urandom(7)) for n in (0, 1, 100, 1500, 5000, 70000, 1 << 20) * 4]
    expect = [g.encrypt(*m) for m in msgs]

    def job(i):
        for _ in range(5):
            for m, e in zip(msgs, expect):
                assert g.encrypt(*m) == e
                assert g.decrypt(m[0], e, m[2]) == m[1]
                out = bytearray(len(m[1]) + 16)
                g.encrypt_into(m[0], m[1], m[2], out)
                assert out == e
        return i

    with ThreadPoolExecutor(8) as ex:
        assert sorted(ex.map(job, range(8))) == list(range(8))


def test_eight_threads_xts_and_ctr():
    key = os.urandom(64)
    x = aesx.XTS(key)
    data = os.urandom(1 << 20)
    expect = x.encrypt_sectors(data, 4096, 0)
    ctr_key, nonce = os.urandom(16), os.urandom(16)
    e = Cipher(algorithms.AES(ctr_key), modes.CTR(nonce)).encryptor()
    ctr_expect = e.update(data)

    def job(_):
        assert x.encrypt_sectors(data, 4096, 0) == expect
        c = Cipher(algorithms.AES(ctr_key), modes.CTR(nonce)).encryptor()
        assert c.update(data) == ctr_expect

    with ThreadPoolExecutor(8) as ex:
        list(ex.map(job, range(32)))


def test_gil_released_during_big_calls():
    # The portable backend is slow enough that one 16 MiB call takes a while;
    # with the GIL released, this thread keeps running meanwhile.
    g = aesx.AESGCM(os.urandom(32), backend="soft")
    data = bytes(16 << 20)
    done = threading.Event()
    ticks = 0

    def worker():
        g.encrypt(os.urandom(12), data, None)
        done.set()

    t = threading.Thread(target=worker)
    t.start()
    while not done.is_set():
        ticks += 1
    t.join()
    assert ticks > 1000, ticks
