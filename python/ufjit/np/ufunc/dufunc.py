"""``numba.np.ufunc.dufunc``: ``DUFunc``, Numba's dynamic ufunc."""

from ..._decorators import UFunc, vectorize


class DUFunc(UFunc):
    """``DUFunc(py_func, identity=None, cache=False, targetoptions={})``: a
    ufjit ufunc compiled for the operand types of each call with types not
    seen before, as ``@vectorize`` without signatures makes.
    ``targetoptions`` are vectorize's options (``target``, ``nopython``,
    ``forceobj``...)."""

    def __new__(cls, py_func, identity=None, cache=False, targetoptions=None):
        options = dict(targetoptions or {})
        target = options.pop("target", None)
        return vectorize(target=target, identity=identity, **options)(py_func)


__all__ = ["DUFunc"]
