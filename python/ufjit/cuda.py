"""``ufjit.cuda``: the parts of ``numba.cuda`` that ufuncs use.

``@cuda.jit(device=True)`` marks a device function: a helper that kernels in
the same module call; its source is compiled with theirs. ``to_device``,
``device_array``, ``stream``, ``external_stream``, ``synchronize`` and
``is_available`` mirror numba.cuda's.
"""

import functools

import numpy as np

from . import _ufjit
from ._streams import as_stream, stream

__all__ = ["jit", "DeviceFunction", "to_device", "device_array", "stream", "external_stream", "synchronize",
           "is_available"]


class DeviceFunction:
    """A device function: callable from ufjit kernels (and, as plain Python, from Python)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.py_func = fn

    def __call__(self, *args):
        return self.py_func(*args)


def jit(fn=None, device=False, **options):
    """``@cuda.jit(device=True)``: a device function. Kernels (``device=False``)
    are not supported: write them with ``@ufjit.vectorize``."""
    if not device:
        raise NotImplementedError("ufjit.cuda.jit makes device functions only (device=True); write kernels "
                                  "with @ufjit.vectorize(..., target='cuda')")
    if fn is None:
        return DeviceFunction
    return DeviceFunction(fn)


def to_device(array, stream=None):
    """Copies a host array to a new ufjit DeviceArray (synchronously)."""
    return _ufjit.to_device(np.asarray(array))


def device_array(shape, dtype=np.float64):
    """An uninitialised C-contiguous ufjit DeviceArray."""
    if isinstance(shape, int):
        shape = (shape,)
    return _ufjit.device_empty(list(shape), np.dtype(dtype))


def external_stream(handle):
    """Wraps a CUstream handle (an int) the caller owns."""
    return as_stream(handle)


def synchronize():
    """Waits for all work ufjit enqueued."""
    _ufjit.synchronize()


@functools.lru_cache(maxsize=1)
def is_available():
    """True when a CUDA device is usable."""
    try:
        _ufjit.Stream()
    except _ufjit.DeviceError:
        return False
    return True
