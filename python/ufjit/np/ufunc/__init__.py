"""``numba.np.ufunc``'s public names over ufjit: the decorators, the builder
classes (``Vectorize``, ``GUVectorize``) and NumPy's identity constants."""

from .decorators import GUVectorize, Vectorize, guvectorize, vectorize
from .dufunc import DUFunc
from .ufuncbuilder import GUFuncBuilder, UFuncBuilder

# NumPy's identity constants, as Numba exports them (numba.np.ufunc._internal).
PyUFunc_Zero = 0
PyUFunc_One = 1
PyUFunc_None = -1
PyUFunc_ReorderableNone = -2

__all__ = ["vectorize", "guvectorize", "Vectorize", "GUVectorize", "DUFunc", "UFuncBuilder", "GUFuncBuilder",
           "PyUFunc_Zero", "PyUFunc_One", "PyUFunc_None", "PyUFunc_ReorderableNone"]
