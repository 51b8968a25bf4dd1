"""Streams: ufjit's own, and CUstreams borrowed from CuPy, PyTorch or Numba."""

import contextlib

from . import _ufjit


@contextlib.contextmanager
def _auto_synchronize(self):
    """Numba's ``with stream.auto_synchronize():``: synchronizes the stream on leaving."""
    yield self
    self.synchronize()


_ufjit.Stream.auto_synchronize = _auto_synchronize


def as_stream(stream):
    """A ufjit.Stream for ``stream``: a ufjit.Stream, an int CUstream handle
    (0: the legacy default stream), a CuPy stream (``.ptr``), a PyTorch stream
    (``.cuda_stream``) or a Numba stream (``int(s)``). Borrowed handles stay
    the caller's: ufjit never destroys them."""
    if isinstance(stream, _ufjit.Stream):
        return stream
    if isinstance(stream, int):
        return _ufjit.Stream.borrow(stream)
    for attr in ("ptr", "cuda_stream"):
        handle = getattr(stream, attr, None)
        if isinstance(handle, int):
            return _ufjit.Stream.borrow(handle)
    try:
        return _ufjit.Stream.borrow(int(stream))
    except (TypeError, ValueError):
        raise TypeError(f"stream= takes a ufjit.Stream, an int CUstream handle, or a CuPy, PyTorch or Numba "
                        f"stream, not {type(stream).__name__}") from None


def stream():
    """A new stream of ufjit's device context (needs a GPU)."""
    return _ufjit.Stream()


def borrow_stream(handle):
    """Wraps a CUstream the caller owns (an int, or a CuPy/PyTorch/Numba stream)."""
    return as_stream(handle)
