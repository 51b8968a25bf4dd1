"""Numba's ``cuda.reduce`` (``cuda.Reduce``): a full reduction of a 1-d
array by a binary function, here the ``reduce`` method of a ufunc made from
it (``vectorize``, typed for the array's dtype at its first use)."""

import functools
import threading

import numpy as np


class Reduce:
    """``sum_reduce = cuda.reduce(lambda a, b: a + b)``, then
    ``sum_reduce(arr, size=None, res=None, init=0, stream=0)``: ``init``
    folded with every element of ``arr[:size]`` (a host or device array),
    returned as a NumPy scalar of ``arr``'s dtype, or written into ``res[0]``
    (then None is returned). The order of the operations is not Numba's:
    the function should be associative and commutative, as there."""

    def __init__(self, functor):
        functools.update_wrapper(self, functor)
        self._functor = functor
        self._ufunc = None
        self._lock = threading.Lock()

    def _binary(self):
        with self._lock:
            if self._ufunc is None:
                from ._decorators import vectorize

                self._ufunc = vectorize(target="cuda")(self._functor)
            return self._ufunc

    def __call__(self, arr, size=None, res=None, init=0, stream=0):
        if len(arr.shape) != 1:
            raise TypeError("only support 1D array")
        if size is not None:
            arr = arr[:size]
        init = np.dtype(arr.dtype).type(init)
        value = init
        if arr.shape[0] > 0:
            value = self._binary().reduce(arr, initial=init)
            if hasattr(value, "copy_to_host"):  # the reduction of a device array, on the device
                value = value.copy_to_host()[()]
            value = np.dtype(arr.dtype).type(value)
        if res is None:
            return value
        if isinstance(res, np.ndarray):
            res[0] = value
        elif hasattr(res, "copy_to_device") and tuple(res.shape) == (1,):
            res.copy_to_device(np.array([value], dtype=res.dtype))
        else:
            res[:1] = value  # CuPy's and PyTorch's arrays
        return None
