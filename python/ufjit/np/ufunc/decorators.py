"""``numba.np.ufunc.decorators``: the decorators and Numba's builder classes.

``Vectorize(func, target='cpu', identity=None, **options)`` is a dynamic
ufunc to which ``add(signature)`` adds loops; ``build_ufunc()`` returns it.
``GUVectorize(func, layout, ...)`` collects signatures with ``add`` and
compiles them at ``build_ufunc()`` (or is a dynamic gufunc with
``is_dynamic=True``)."""

from ..._decorators import guvectorize, vectorize
from .dufunc import DUFunc
from .ufuncbuilder import GUFuncBuilder


class Vectorize:
    """Numba's ``Vectorize(func, **kws)``: returns the builder for the target,
    here always a dynamic ufunc (``DUFunc``)."""

    def __new__(cls, func, identity=None, cache=False, target="cpu", **targetoptions):
        return DUFunc(func, identity=identity, cache=cache, targetoptions=dict(targetoptions, target=target))


class GUVectorize:
    """Numba's ``GUVectorize(func, signature, **kws)``: a GUFuncBuilder, or a
    dynamic gufunc with ``is_dynamic=True``."""

    def __new__(cls, func, signature, identity=None, cache=False, is_dynamic=False, target="cpu",
                writable_args=(), **targetoptions):
        if is_dynamic:
            return guvectorize(signature, identity=identity, target=target, is_dynamic=True,
                               writable_args=writable_args, **targetoptions)(func)
        return GUFuncBuilder(func, signature, identity=identity, cache=cache,
                             targetoptions=dict(targetoptions, target=target), writable_args=writable_args)


__all__ = ["vectorize", "guvectorize", "Vectorize", "GUVectorize"]
