"""cmath.exp and cmath.rect at infinities and NaNs give what Numba (and
CPython's cmath) give, signs of zeros included."""

import cmath
import math

import numpy as np
import pytest

from ufjit import vectorize

INF, NAN = math.inf, math.nan


@vectorize(["complex128(complex128)"], target="cpu")
def cexp(z):
    return cmath.exp(z)


@vectorize(["complex128(float64, float64)"], target="cpu")
def crect(r, phi):
    return cmath.rect(r, phi)


def same(a, b):
    """Equal parts, NaN for NaN, and the same signs of zeros."""
    def part(x, y):
        return (math.isnan(x) and math.isnan(y)) or (x == y and math.copysign(1, x) == math.copysign(1, y))
    return part(a.real, b.real) and part(a.imag, b.imag)


@pytest.mark.parametrize("z", [complex(-INF, -INF), complex(-INF, INF), complex(-INF, NAN), complex(-INF, 0.0),
                               complex(-INF, -2.5), complex(INF, 0.0), complex(INF, NAN), complex(NAN, 0.0)])
def test_exp_at_infinities_is_cpythons_and_numbas(z):
    assert same(cexp(np.array([z]))[0], cmath.exp(z))


@pytest.mark.parametrize("case", [
    (0.0, -INF, 0j), (0.0, INF, 0j), (-0.0, NAN, 0j),            # a zero radius: +0 whatever the angle
    (INF, 0.0, complex(INF, 0.0)), (-INF, 0.0, complex(-INF, -0.0)),  # infinite radius: zero parts stay zero
    (INF, NAN, complex(INF, NAN)), (INF, -INF, complex(INF, -INF)),    # r + phi j for a non-finite angle
    (2.0, 0.0, complex(2.0, 0.0)),
])
def test_rect_at_infinities_is_numbas(case):
    r, phi, expected = case
    assert same(complex(crect(r, phi)), expected)
