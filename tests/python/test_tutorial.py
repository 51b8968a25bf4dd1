"""The four Numba tutorial kernels (examples/*.ufn), written as Python with
only the import changed (numba -> ufjit), checked against NumPy float64
references. target='cuda' runs on the CPU where there is no GPU."""

import math

import numpy as np
from ufjit import vectorize, cuda

SQRT_2PI = np.float32((2*math.pi)**0.5)  # Precompute this constant as a float32.


@vectorize(['int64(int64, int64)'], target='cuda')
def add_ufunc(x, y):
    return x + y


@vectorize(['float32(float32, float32, float32)'], target='cuda')
def gaussian_pdf(x, mean, sigma):
    '''Compute the value of a Gaussian probability density function at x with given mean and sigma.'''
    return math.exp(-0.5 * ((x - mean) / sigma)**2) / (sigma * SQRT_2PI)


@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y  # This is Python, so let's return a tuple


@vectorize(['float32(float32, float32, float32, float32)'], target='cuda')
def polar_distance(rho1, theta1, rho2, theta2):
    x1, y1 = polar_to_cartesian(rho1, theta1)
    x2, y2 = polar_to_cartesian(rho2, theta2)

    return ((x1 - x2)**2 + (y1 - y2)**2)**0.5


@vectorize(['float32(float32)'], target='cuda')
def sincos(x):
    return math.cos(x) ** 2 + math.sin(x) ** 2


def test_add_ufunc():
    a = np.array([1, 2, 3, 4])
    b = np.array([10, 20, 30, 40])
    c = np.arange(4 * 4).reshape((4, 4))
    np.testing.assert_array_equal(add_ufunc(a, b), [11, 22, 33, 44])
    np.testing.assert_array_equal(add_ufunc(b, c), b + c)  # broadcast
    assert add_ufunc(2, 3) == 5
    assert add_ufunc(a, b).dtype == np.int64


def test_gaussian_pdf():
    x = np.random.default_rng(0).uniform(-3, 3, size=1_000_001).astype(np.float32)
    y = gaussian_pdf(x, 0.0, 1.0)
    x64 = x.astype(np.float64)
    ref = np.exp(-0.5 * x64 ** 2) / math.sqrt(2 * math.pi)
    assert y.dtype == np.float32
    np.testing.assert_allclose(y, ref, rtol=2e-6, atol=1e-7)


def test_polar_distance():
    rng = np.random.default_rng(1)
    n = 1000
    rho1 = rng.uniform(0.5, 2.0, size=n).astype(np.float32)
    theta1 = rng.uniform(-np.pi, np.pi, size=n).astype(np.float32)
    rho2 = rng.uniform(0.5, 2.0, size=n).astype(np.float32)
    theta2 = rng.uniform(-np.pi, np.pi, size=n).astype(np.float32)
    d = polar_distance(rho1, theta1, rho2, theta2)
    r1, t1, r2, t2 = (a.astype(np.float64) for a in (rho1, theta1, rho2, theta2))
    ref = np.hypot(r1 * np.cos(t1) - r2 * np.cos(t2), r1 * np.sin(t1) - r2 * np.sin(t2))
    assert d.dtype == np.float32
    np.testing.assert_allclose(d, ref, rtol=1e-5, atol=1e-5)


def test_sincos():
    x = np.linspace(-100, 100, 4097, dtype=np.float32)
    np.testing.assert_allclose(sincos(x), np.ones_like(x), rtol=0, atol=1e-6)


def test_helpers_and_constants_reach_the_compiler():
    assert "def polar_to_cartesian" in polar_distance.source
    assert "SQRT_2PI = float32(" in gaussian_pdf.source
    assert polar_distance.__name__ == "polar_distance"
    assert gaussian_pdf.__doc__.startswith("Compute the value")
    assert polar_distance.nin == 4 and polar_distance.nout == 1
