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


def test_dtype_out_and_where_match_numpy():
    x = np.array([1.5, 2.5])
    assert add.reduce(x, dtype=np.int64) == np.add.reduce(x, dtype=np.int64)
    assert add.reduce(x, dtype="int64").dtype == np.int64
    np.testing.assert_array_equal(add.accumulate(x, dtype=np.int64), np.add.accumulate(x, dtype=np.int64))
    out = np.empty((), np.int64)
    add.reduce(x, out=out)
    assert out == np.add.reduce(x, out=np.empty((), np.int64))  # 4: the float64 loop, then cast
    acc = np.empty(2, np.int64)
    add.accumulate(x, out=acc)
    np.testing.assert_array_equal(acc, np.add.accumulate(x, out=np.empty(2, np.int64)))
    w = np.array([True, False, True, False])
    for axis in (2, -1):
        np.testing.assert_array_equal(add.reduce(A, axis=axis, where=w), np.add.reduce(A, axis=axis, where=w))
        np.testing.assert_array_equal(maximum.reduce(A, axis=axis, where=w, initial=-100),
                                      np.maximum.reduce(A, axis=axis, where=w, initial=-100))
    rows = np.array([[[True]], [[False]]])
    np.testing.assert_array_equal(add.reduce(A, axis=None, where=rows), np.add.reduce(A, axis=None, where=rows))
    assert add.reduce(A, axis=None, where=True) == np.add.reduce(A, axis=None)
    assert add.reduce(np.array([4, 5]), where=False) == 0
    with pytest.raises(ValueError, match="to use a where mask one has to specify 'initial'"):
        maximum.reduce(A, axis=2, where=w)
    with pytest.raises(ufjit.DispatchError, match="No loop matching"):
        add.reduce(A, dtype=np.int8)


def test_a_raise_in_a_method_is_reported():
    @vectorize(["int64(int64, int64)"], identity=0)
    def checked(a, b):
        if a < 0 or b < 0:
            raise ValueError("negative operand")
        return a + b

    x = np.ones(100000, np.int64)
    x[77777] = -1
    for method in (checked.reduce, checked.accumulate):
        with pytest.raises(ufjit.KernelError, match="negative operand"):
            method(x)
