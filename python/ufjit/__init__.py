"""ufjit: Numba-style ufuncs compiled by ufjit's C++ JIT (CPU and CUDA).

    from ufjit import vectorize          # in place of: from numba import vectorize

    @vectorize(["float32(float32, float32)"], target="cuda")
    def add(x, y):
        return x + y
"""

import atexit

from ._ufjit import _finish_background_work
from ._ufjit import (CompileError, DeviceArray, DeviceError, DispatchError, Error, InputError, InternalError,
                     KernelError, NoDeviceError, ShapeError, Stream, from_dlpack, set_devices, synchronize,
                     version)
from ._decorators import GUFunc, UFunc, guvectorize, vectorize
from ._streams import borrow_stream, stream
from . import cuda, types
from .cuda import gpu_copy as to_device, gpu_empty as device_array
from .types import (b1, bool_, boolean, c8, c16, complex64, complex128, double, f2, f4, f8, float16, float32,
                    float64, float_, i1, i2, i4, i8, int8, int16, int32, int64, int_, intp, none, u1, u2, u4, u8,
                    uint8, uint16, uint32, uint64, uintp, void)

__version__ = version().split()[0]  # "0.2.0": the package's version, as every package has

# The optimised GPU kernels still compiling in the background finish before
# the interpreter tears the process down (module.cpp says why).
atexit.register(_finish_background_work)

__all__ = ["vectorize", "guvectorize", "cuda", "UFunc", "GUFunc", "DeviceArray", "Stream", "stream",
           "borrow_stream", "to_device", "device_array", "from_dlpack", "set_devices", "synchronize", "version", "Error",
           "CompileError", "DispatchError", "ShapeError", "InputError", "DeviceError", "NoDeviceError", "InternalError",
           "KernelError", "types"] + [name for name in types.__all__ if name != "signature_text"]
