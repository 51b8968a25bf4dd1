"""Ufunc methods from Python: reduce, accumulate and outer against NumPy's
own ufuncs on the same data (the expected values are NumPy's)."""
import numpy as np
import pytest

import ufjit
from ufjit import vectorize


@vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)
def add(a, b):
    return a + b


@vectorize(["int64(int64, int64)", "float32(float32, float32)"])
def maximum(a, b):
    return a if a > b else b


A = np.arange(24, dtype=np.int64).reshape(2, 3, 4) * 3 % 11 - 4


@pytest.mark.parametrize("axis", [0, 1, 2, -1, (0, 2), (2, 0, 1), None])
def test_reduce_matches_numpy(axis):
    np.testing.assert_array_equal(add.reduce(A, axis=axis), np.add.reduce(A, axis=axis))
    np.testing.assert_array_equal(add.reduce(A, axis=axis, keepdims=True), np.add.reduce(A, axis=axis, keepdims=True))
    np.testing.assert_array_equal(add.reduce(A, axis=axis, initial=100), np.add.reduce(A, axis=axis, initial=100))


def test_reduce_sizes_and_empty():
    for n in (0, 1, 255, 256, 257, 1023, 1024, 1025, (1 << 20) + 3):
        x = (np.arange(n) * 7 % 13 - 6).astype(np.float64)
        assert add.reduce(x) == np.add.reduce(x)
    with pytest.raises(ufjit.ShapeError, match="which has no identity"):
        maximum.reduce(np.zeros(0, np.int64))
    assert maximum.reduce(np.zeros(0, np.int64), initial=-3) == -3
    with pytest.raises(ufjit.DispatchError, match="not reorderable"):
        maximum.reduce(A, axis=None)


def test_accumulate_and_outer_match_numpy():
    m = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.float32)
    np.testing.assert_array_equal(maximum.accumulate(m), np.maximum.accumulate(m))
    for axis in range(3):
        np.testing.assert_array_equal(add.accumulate(A, axis=axis), np.add.accumulate(A, axis=axis))
    b = np.array([[1, 2], [3, 4]], np.int64)
    c = np.array([1, 10, 100], np.int64)
    np.testing.assert_array_equal(add.outer(b, c), np.add.outer(b, c))
    out = np.empty((2, 2, 3), np.int64)
    assert add.outer(b, c, out=out) is out
    np.testing.assert_array_equal(out, np.add.outer(b, c))
