def check_byteslike(name, value):
    try:
        memoryview(value)
    except TypeError:
        raise TypeError(f"{name} must be bytes-like") from None


def nbytes(value) -> int:
    return memoryview(value).nbytes
