"""``ufjit.cuda``: the parts of ``numba.cuda`` that ufuncs use.

``@cuda.jit(device=True)`` marks a device function: a helper that kernels in
the same module call; its source is compiled with theirs. ``to_device``,
``device_array``, ``stream``, ``external_stream``, ``synchronize`` and
``is_available`` mirror numba.cuda's.
"""

import functools
import os
import sys

import numpy as np

from . import _ufjit
from ._streams import as_stream, stream

__all__ = ["jit", "DeviceFunction", "declare_device", "DeclaredDevice", "to_device", "device_array", "stream",
           "external_stream", "synchronize", "is_available"]


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


class DeclaredDevice:
    """A CUDA C++ device function declared with ``declare_device``: kernels call
    it; its definition comes from a file linked with ``link=[...]``."""

    def __init__(self, name, sig, abi, link, file="", line=0):
        self.name = name
        self.sig = sig
        self.abi = abi
        self.link = link
        self.file = file  # where declare_device was called: errors about it point there
        self.line = line

    def __call__(self, *args):
        raise TypeError(f"{self.name!r} is a CUDA C++ device function (declare_device): call it from a ufjit "
                        f"kernel, not from Python")

    def __repr__(self):
        return f"<ufjit.cuda.DeclaredDevice {self.name} {self.sig} abi={self.abi}>"


def declare_device(name, sig, link=None, abi="numba", **options):
    """Numba's ``cuda.declare_device(name, sig, link=None)``: a CUDA C++ function
    that ufuncs call, defined in a ``.cu``, ``.ptx``, ``.cubin``, ``.ltoir`` or
    ``.fatbin`` file named by ``link`` here or by the ufunc's ``link=[...]``
    (relative paths from the current folder, as Numba's). ``sig``:
    ``"float32(float32, float32)"``. ``abi``: "numba" (``extern "C" __device__
    int name(float *ret, float x, float y)``) or "c" (``float name(float x,
    float y)``). GPU target only."""
    if not isinstance(name, str) or not isinstance(sig, str):
        raise TypeError("declare_device(name, sig) takes two strings, e.g. "
                        "declare_device('cube_plus', 'float32(float32, float32)')")
    if abi not in ("numba", "c"):
        raise ValueError(f"declare_device: abi must be 'numba' or 'c', not {abi!r}")
    links = [link] if isinstance(link, (str, os.PathLike)) else list(link or [])
    caller = sys._getframe(1)
    return DeclaredDevice(name, sig, abi, [os.path.abspath(os.fspath(f)) for f in links], caller.f_code.co_filename,
                          caller.f_lineno)


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
