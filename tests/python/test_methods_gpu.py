"""Ufunc methods on the GPU from Python, against NumPy (and CuPy's arrays when
present): reduce with dtype=/where=/out=, accumulate along a long line (the
block scan), and a raise reported as ufjit.KernelError. They skip without a
GPU, and fail instead under UFJIT_REQUIRE_GPU=1."""
import numpy as np
import pytest

import ufjit
from ufjit import vectorize

from conftest import need_module


@vectorize(["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)"], identity=0,
           target="cuda")
def add(a, b):
    return a + b


@vectorize(["int64(int64, int64)"], identity=0, target="cuda")
def checked_add(a, b):
    if a < 0 or b < 0:
        raise ValueError("negative operand")
    return a + b


def ints(n):
    return (np.arange(n, dtype=np.int64) * 7 % 13 - 6)


def test_accumulate_of_a_long_line_and_every_axis(gpu):
    for n in (1, 33, 257, 65537, (1 << 21) + 3):
        x = ints(n)
        np.testing.assert_array_equal(add.accumulate(x), np.add.accumulate(x))
        f = x.astype(np.float32)
        np.testing.assert_array_equal(add.accumulate(f), np.add.accumulate(f))
    cube = ints(2 * 3 * 100003).reshape(2, 3, 100003)
    for axis in range(3):
        np.testing.assert_array_equal(add.accumulate(cube, axis=axis), np.add.accumulate(cube, axis=axis))


def test_reduce_dtype_where_and_out_on_device_arrays(gpu):
    cube = ints(3 * 5 * 70001).reshape(3, 5, 70001)
    d = ufjit.to_device(cube)
    keep = (np.arange(70001) % 3 != 0)
    for axis in (0, 1, 2, None):
        got = add.reduce(d, axis=axis, where=keep, initial=7)
        host = np.asarray(got.copy_to_host() if hasattr(got, "copy_to_host") else got)
        np.testing.assert_array_equal(host, np.add.reduce(cube, axis=axis, where=keep, initial=7))
    r = add.reduce(cube, axis=None, dtype=np.float64)
    assert r == np.add.reduce(cube, axis=None, dtype=np.float64) and r.dtype == np.float64
    out = np.empty(5, np.float32)
    add.reduce(cube, axis=(0, 2), out=out)
    np.testing.assert_array_equal(out, np.add.reduce(cube, axis=(0, 2), out=np.empty(5, np.float32)))


def test_a_raise_in_a_method_is_a_kernel_error(gpu):
    x = np.ones((1 << 20) + 1, np.int64)
    x[-1] = -3
    for method in (checked_add.reduce, checked_add.accumulate):
        with pytest.raises(ufjit.KernelError, match="negative operand") as info:
            method(x)
        assert info.value.exception == "ValueError"
    x[-1] = 3
    assert checked_add.reduce(x) == (1 << 20) + 3


def test_cupy_arrays_through_the_methods(gpu):
    cupy = need_module("cupy")
    x = cupy.arange(1 << 20, dtype=cupy.float32) % 5
    np.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(add.accumulate(x))), np.cumsum(cupy.asnumpy(x)))
    assert float(cupy.asarray(add.reduce(x))) == float(cupy.asnumpy(x).sum())
