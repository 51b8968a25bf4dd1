"""ufjit: Numba-style ufuncs compiled by ufjit's C++ JIT (CPU and CUDA).

    from ufjit import vectorize          # in place of: from numba import vectorize

    @vectorize(["float32(float32, float32)"], target="cuda")
    def add(x, y):
        return x + y
"""

from ._ufjit import (CompileError, DeviceArray, DeviceError, DispatchError, Error, InputError, InternalError,
                     KernelError, NoDeviceError, ShapeError, Stream, from_dlpack, synchronize, version)
from ._decorators import GUFunc, UFunc, guvectorize, vectorize
from ._streams import borrow_stream, stream
from . import cuda
from .cuda import device_array, to_device

__all__ = ["vectorize", "guvectorize", "cuda", "UFunc", "GUFunc", "DeviceArray", "Stream", "stream",
           "borrow_stream", "to_device", "device_array", "from_dlpack", "synchronize", "version", "Error",
           "CompileError", "DispatchError", "ShapeError", "InputError", "DeviceError", "NoDeviceError", "InternalError",
           "KernelError"]
