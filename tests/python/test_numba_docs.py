"""The examples of Numba's documentation for @vectorize and @guvectorize
("Creating NumPy universal functions"), as the docs write them but for the
import line (numba -> ufjit), with the results the docs print (NumPy
computes the same here, independently of ufjit)."""

import numpy as np
import pytest

from ufjit import guvectorize, vectorize, int32, int64, float32, float64


@vectorize([int32(int32, int32),
            int64(int64, int64),
            float32(float32, float32),
            float64(float64, float64)])
def f(x, y):
    return x + y


def test_vectorize_with_type_objects():
    a = np.arange(6)
    np.testing.assert_array_equal(f(a, a), [0, 2, 4, 6, 8, 10])
    assert f(a, a).dtype == np.int64
    a = np.linspace(0, 1, 6)
    np.testing.assert_allclose(f(a, a), [0., 0.4, 0.8, 1.2, 1.6, 2.])
    assert f.types == ["ii->i", "ll->l", "ff->f", "dd->d"]


def test_vectorize_methods():
    a = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(f.reduce(a, axis=0), [12, 15, 18, 21])
    np.testing.assert_array_equal(f.reduce(a, axis=1), [6, 22, 38])
    np.testing.assert_array_equal(f.accumulate(a), [[0, 1, 2, 3], [4, 6, 8, 10], [12, 15, 18, 21]])
    np.testing.assert_array_equal(f.accumulate(a, axis=1), [[0, 1, 3, 6], [4, 9, 15, 22], [8, 17, 27, 38]])


def test_vectorize_dynamic():
    @vectorize
    def g(x, y):
        return x * y

    assert g(3, 4) == 12
    assert g.types == ["ll->l"]
    assert g(1., 2.) == 2.0
    assert g.types == ["ll->l", "dd->d"]
    assert g(1, 2.) == 2.0  # Numba reuses 'dd->d'; ufjit adds 'ld->d' (same value)
    np.testing.assert_array_equal(g(np.array([1, 2, 3]), np.array([1, 2, 3])), [1, 4, 9])


@guvectorize([(int64[:], int64, int64[:])], '(n),()->(n)')
def h(x, y, res):
    for i in range(x.shape[0]):
        res[i] = x[i] + y


def test_guvectorize_with_type_objects():
    a = np.arange(5)
    np.testing.assert_array_equal(h(a, 2), [2, 3, 4, 5, 6])
    a = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(h(a, 10), [[10, 11, 12], [13, 14, 15]])
    np.testing.assert_array_equal(h(a, np.array([10, 20])), [[10, 11, 12], [23, 24, 25]])
    assert h.types == ["ll->l"]


def test_guvectorize_dynamic_with_the_output_passed():
    @guvectorize('(n),()->(n)')
    def g(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y

    x = np.arange(5, dtype=np.int64)
    y = 10
    res = np.zeros_like(x)
    g(x, y, res)
    np.testing.assert_array_equal(res, [10, 11, 12, 13, 14])
    assert g.types == ["ll->l"]
    x = np.arange(5, dtype=np.double)
    y = 2.2
    res = np.zeros_like(x)
    g(x, y, res)
    np.testing.assert_allclose(res, [2.2, 3.2, 4.2, 5.2, 6.2])
    assert g.types == ["ll->l", "dd->d"]


def test_guvectorize_overwriting_inputs_with_writable_args():
    @guvectorize("void(float64[:], float64[:])", "()->()", writable_args=("invals",))
    def init_values(invals, outvals):
        invals[0] = 6.5
        outvals[0] = 4.2

    invals = np.zeros(shape=(3, 3), dtype=np.float64)
    outvals = init_values(invals)
    np.testing.assert_array_equal(invals, np.full((3, 3), 6.5))
    np.testing.assert_array_equal(outvals, np.full((3, 3), 4.2))


def test_guvectorize_string_and_tuple_signatures_agree():
    @guvectorize(["void(float64[:], float64[:])"], "(n)->()")
    def total(x, res):
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
        res[0] = acc

    @guvectorize([(float64[:], float64[:])], "(n)->()")
    def total2(x, res):
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
        res[0] = acc

    a = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(total(a), a.sum(axis=1))
    np.testing.assert_array_equal(total2(a), a.sum(axis=1))
    assert total.signatures == total2.signatures


def test_type_objects_print_as_signatures():
    assert str(float32(float32, int64)) == "float32(float32, int64)"
    assert str(float64[:, ::1]) == "float64[:, ::1]"
    with pytest.raises(TypeError, match=r"written float64\[:\]"):
        float64[3]
