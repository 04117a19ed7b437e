"""AES-CMAC as ``cryptography.hazmat.primitives.cmac``::

    from aesx import algorithms
    from aesx.cmac import CMAC

    c = CMAC(algorithms.AES(key))
    c.update(b"message")
    tag = c.finalize()              # 16 bytes; c.verify(tag) raises aesx.InvalidSignature

``copy()`` forks the computation; ``update``/``finalize``/``verify``/``copy``
after ``finalize`` or ``verify`` raise :class:`aesx.AlreadyFinalized`.
"""

from ._aesx import CMAC

__all__ = ["CMAC"]
