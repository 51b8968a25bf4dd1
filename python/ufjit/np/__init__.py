"""Numba's module paths for its NumPy-ufunc API (``numba.np.ufunc``), so that
``from numba.np.ufunc import Vectorize`` becomes
``from ufjit.np.ufunc import Vectorize`` with nothing else changed."""
