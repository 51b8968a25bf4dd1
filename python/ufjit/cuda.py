"""``ufjit.cuda``: the parts of ``numba.cuda`` that kernels and ufuncs use.

``@cuda.jit`` makes an explicit kernel (``kernel[griddim, blockdim](args)``,
_kernels.py); ``@cuda.jit(device=True)`` a device function: a helper that
kernels in the same module call; its source is compiled with theirs.
``to_device``, ``device_array``, ``device_array_like``, ``pinned_array``,
``mapped_array``, ``pinned``, ``is_cuda_array``, ``stream``,
``external_stream``, ``synchronize``, ``is_available`` and ``reduce``
mirror numba.cuda's; where kernels run on the CPU target, device arrays and
streams are host ones (_host_device.py).
"""

import contextlib
import functools
import numbers
import os
import sys

import numpy as np

from . import _ufjit
from ._kernels import In, InOut, KernelDispatcher, Out, decorator_line, is_function, signature_list
from ._reduce import Reduce
from ._host_device import HostDeviceArray, HostStream, check_copy, host_array, host_copy, on_host
from ._streams import as_stream

__all__ = ["jit", "DeviceFunction", "KernelDispatcher", "HostDeviceArray", "HostStream", "Reduce", "reduce", "declare_device", "DeclaredDevice", "to_device",
           "device_array", "device_array_like", "pinned_array", "mapped_array", "pinned_array_like",
           "mapped_array_like", "pinned", "is_cuda_array", "stream",
           "external_stream", "synchronize", "is_available", "In", "Out", "InOut"]


class DeviceFunction:
    """A device function: callable from ufjit kernels (and, as plain Python, from Python)."""

    def __init__(self, fn):
        functools.update_wrapper(self, fn)
        self.py_func = fn

    def __call__(self, *args):
        return self.py_func(*args)


def jit(func_or_sig=None, device=False, **options):
    """Numba's ``@cuda.jit``: a kernel, or with ``device=True`` a device function.

    ``@cuda.jit``, ``@cuda.jit()``, ``@cuda.jit("void(float32[:], int64)")``,
    ``@cuda.jit(["void(float32[:])", "void(float64[:])"])`` or with type
    objects (``void(float32[:])``). A kernel is launched with
    ``kernel[griddim, blockdim](args)`` (also ``[griddim, blockdim, stream]``
    and ``[griddim, blockdim, stream, dynamic_shared_bytes]``) or
    ``kernel.forall(n)(args)``; without signatures it is compiled for the
    argument types of each launch with types not seen before. Options:
    ``fastmath``, ``debug`` (the checking mode, also ``UFJIT_CHECK=1``:
    every index checked, an IndexError naming the line, the array, the index
    and the thread; on the CPU a data race on shared memory is a
    RuntimeError naming both threads and lines), ``boundscheck``; ``opt``, ``lineinfo``, ``cache``, ``max_registers``,
    ``inline`` are accepted and change nothing.
    """
    if device:
        if is_function(func_or_sig):
            return DeviceFunction(func_or_sig)
        return DeviceFunction  # @cuda.jit(device=True), @cuda.jit("f4(f4)", device=True)
    if is_function(func_or_sig):
        return KernelDispatcher(func_or_sig, [], options)
    signatures = [] if func_or_sig is None else signature_list(func_or_sig)
    decorator_line(signatures, options)  # an unknown option is an error here, at the decorator

    def decorate(fn):
        return KernelDispatcher(fn, signatures, options)

    return decorate


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


def to_device(obj, stream=0, copy=True, to=None):
    """Numba's ``cuda.to_device``: a new device array holding ``obj``'s
    elements (``copy=False``: allocated, not filled), or, given ``to`` (a
    device array of ``obj``'s shape), ``obj`` copied into it; a device array
    is returned as it is. Synchronous. Where kernels run on the CPU target,
    the device array is host memory (a HostDeviceArray)."""
    if to is not None:
        to.copy_to_device(obj)
        return to
    if is_cuda_array(obj):  # already on the device, as Numba's
        return obj
    if on_host():
        return host_copy(obj) if copy else device_array_like(np.asarray(obj))
    if not copy:
        return device_array_like(np.asarray(obj))
    return gpu_copy(obj)


def device_array(shape, dtype=np.float64, strides=None, order="C", stream=0):
    """Numba's ``cuda.device_array``: an uninitialised device array (a
    HostDeviceArray where kernels run on the CPU target). On the GPU it is
    C-contiguous (``strides`` and ``order`` other than C order are refused)."""
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    if on_host():
        return host_array(shape, dtype, order)
    if strides is not None or order != "C":
        raise NotImplementedError("ufjit device arrays are C-contiguous: give order='C' and no strides")
    return gpu_empty(shape, dtype)


def device_array_like(ary, stream=0):
    """An uninitialised device array of ``ary``'s shape and dtype."""
    order = "F" if ary.ndim > 1 and getattr(ary, "flags", None) is not None and ary.flags.f_contiguous \
        and not ary.flags.c_contiguous else "C"
    return device_array(ary.shape, ary.dtype, order=order if on_host() else "C")


def gpu_copy(array, stream=None):
    """``ufjit.to_device``: copies a host array to a new ufjit DeviceArray
    (C-contiguous, synchronously; needs a GPU)."""
    return _ufjit.to_device(np.asarray(array))


def gpu_empty(shape, dtype=np.float64):
    """``ufjit.device_array``: an uninitialised C-contiguous ufjit DeviceArray (needs a GPU)."""
    if isinstance(shape, numbers.Integral):
        shape = (shape,)
    return _ufjit.device_empty([int(n) for n in shape], np.dtype(dtype))


def stream():
    """Numba's ``cuda.stream()``: a new stream of ufjit's device context;
    where kernels run on the CPU target, a HostStream (nothing to wait for)."""
    return HostStream() if on_host() else _ufjit.Stream()


def _identity(x):
    return x


@functools.lru_cache(maxsize=1)
def _copier():
    """A GPU ufunc that copies its operand into ``out=`` (host to device)."""
    from ._decorators import vectorize

    return vectorize(target="cuda")(_identity)


def _copy_to_device(self, ary, stream=0):
    """Numba's ``DeviceArray.copy_to_device(ary)``: ``ary`` (a host or
    device array of this array's shape and dtype) copied into this array."""
    source = ary if hasattr(ary, "__cuda_array_interface__") else np.asarray(ary)
    check_copy(source, self)
    _copier()(source, out=self, target="cuda")


_ufjit.DeviceArray.copy_to_device = _copy_to_device


def external_stream(handle):
    """Wraps a CUstream handle (an int) the caller owns."""
    return as_stream(handle)


def synchronize():
    """Waits for all work ufjit enqueued."""
    _ufjit.synchronize()


def pinned_array(shape, dtype=np.float64, strides=None, order="C"):
    """Numba's page-locked host array, here a plain NumPy array: launches and
    copies take it as any host array (synchronously)."""
    return np.empty(shape, dtype, order=order)


def mapped_array(shape, dtype=np.float64, strides=None, order="C", stream=0, portable=False, wc=False):
    """Numba's host array mapped into the device, here a plain NumPy array: a
    launch copies it to the device and back, so kernels see it as Numba's."""
    return np.empty(shape, dtype, order=order)


def pinned_array_like(ary):
    """Numba's: a pinned_array of ``ary``'s shape and dtype."""
    return np.empty_like(ary)


def mapped_array_like(ary, stream=0, portable=False, wc=False):
    """Numba's: a mapped_array of ``ary``'s shape and dtype."""
    return np.empty_like(ary)


@contextlib.contextmanager
def pinned(*arrays):
    """Numba's ``with cuda.pinned(a, b):``: nothing to do here."""
    yield


reduce = Reduce  # Numba's decorator spelling: @cuda.reduce


def is_cuda_array(obj):
    """Whether ``obj`` is a device array (has ``__cuda_array_interface__``,
    or is a HostDeviceArray of the CPU target)."""
    return hasattr(obj, "__cuda_array_interface__") or isinstance(obj, HostDeviceArray)


@functools.lru_cache(maxsize=1)
def is_available():
    """True when a CUDA device is usable."""
    try:
        _ufjit.Stream()
    except _ufjit.DeviceError:
        return False
    return True


# cuda.random, also importable as the module ufjit.cuda.random (Numba's numba.cuda.random).
from . import _cuda_random as random  # noqa: E402  (it uses jit, defined above)

sys.modules[__name__ + ".random"] = random
