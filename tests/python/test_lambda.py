"""Lambdas as kernels, as Numba takes them: ``vectorize(sigs)(lambda a, b: a + b)``,
with or without signatures, each lambda of a line compiled from its own text."""

import numpy as np
import pytest

from ufjit import vectorize

SCALE = 3.0


def test_a_lambda_with_signatures_is_a_ufunc():
    add = vectorize(["float64(float64, float64)", "int64(int64, int64)"])(lambda a, b: a + b)
    x = np.arange(5.0)
    np.testing.assert_array_equal(add(x, 2.0), x + 2.0)
    np.testing.assert_array_equal(add(np.arange(4), np.arange(4)), np.arange(4) * 2)
    assert add.__name__ == "<lambda>"


def test_two_lambdas_on_one_line_each_compile_their_own_body():
    twice, square = vectorize(["float64(float64)"])(lambda x: x * 2), vectorize(["float64(float64)"])(lambda x: x * x)
    x = np.array([1.0, 3.0])
    np.testing.assert_array_equal(twice(x), [2.0, 6.0])
    np.testing.assert_array_equal(square(x), [1.0, 9.0])


def test_a_lambda_without_signatures_compiles_for_the_operands():
    scaled = vectorize(lambda x, y: SCALE * x - (
        y))
    np.testing.assert_allclose(scaled(np.array([1.0, 2.0]), 1.0), [2.0, 5.0])
    assert scaled(np.array([2], dtype=np.int64), 1).dtype == np.float64


def test_a_lambda_with_defaults_is_refused_naming_the_fix():
    with pytest.raises(TypeError, match="plain positional parameters"):
        vectorize(["float64(float64, float64)"])(lambda a, b=1.0: a + b)
