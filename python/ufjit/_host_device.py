"""Numba's device arrays and streams where kernels run on the CPU target.

Without a GPU (or with ``UFJIT_TARGET=cpu``) a kernel launched with
``ufjit.cuda`` runs on the CPU, in host memory. So that a program written
for Numba's CUDA target (``cuda.to_device``, ``device_array``,
``copy_to_host``, ``cuda.stream()``) runs there unchanged, as it runs on
Numba's CUDA simulator, its "device" arrays are then NumPy arrays with the
methods of Numba's device arrays, and its streams have nothing to wait for:
a launch has finished when it returns.
"""

import contextlib
import functools

import numpy as np

from . import _ufjit


@functools.lru_cache(maxsize=1)
def on_host():
    """Whether kernels run on the CPU target here (no GPU, or UFJIT_TARGET=cpu):
    ``ufjit.cuda``'s device arrays are then host memory."""
    return _ufjit.default_target() == "cpu"


class HostDeviceArray(np.ndarray):
    """A device array of ``ufjit.cuda`` where kernels run on the CPU: host
    memory (a NumPy array, which kernels take by reference) with Numba's
    ``DeviceNDArray`` methods."""

    def copy_to_host(self, ary=None, stream=0):
        """A new NumPy array holding the elements, or ``ary`` filled with them."""
        if ary is None:
            return np.array(self, subok=False)
        np.copyto(ary, self)
        return ary

    def copy_to_device(self, ary, stream=0):
        """``ary`` (an array of this array's shape and dtype) copied into this array."""
        source = np.asarray(ary)
        check_copy(source, self)
        np.copyto(self, source)

    def is_c_contiguous(self):
        return self.flags.c_contiguous

    def is_f_contiguous(self):
        return self.flags.f_contiguous

    def bind(self, stream=0):
        return self


def check_copy(source, target):
    """copy_to_device's check: ValueError unless ``source`` has ``target``'s shape and dtype."""
    if tuple(source.shape) != tuple(target.shape) or np.dtype(source.dtype) != np.dtype(target.dtype):
        raise ValueError(f"copy_to_device: {source.dtype}{list(source.shape)} into {target.dtype}"
                         f"{list(target.shape)}: give an array of the same shape and dtype")


def host_array(shape, dtype, order="C"):
    """An uninitialised HostDeviceArray."""
    return np.empty(shape, dtype, order=order).view(HostDeviceArray)


def host_copy(obj):
    """A HostDeviceArray holding a copy of ``obj``'s elements (its layout kept)."""
    return np.array(obj, order="K", copy=True).view(HostDeviceArray)


class HostStream:
    """``cuda.stream()`` where kernels run on the CPU: every launch and copy
    has finished when it returns, so there is nothing to wait for."""

    handle = 0
    borrowed = False

    def synchronize(self):
        pass

    @contextlib.contextmanager
    def auto_synchronize(self):
        yield self

    def __repr__(self):
        return "<ufjit.cuda stream of the CPU target>"
