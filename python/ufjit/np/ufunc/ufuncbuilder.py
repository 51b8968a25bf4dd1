"""``numba.np.ufunc.ufuncbuilder``: builders that collect signatures with
``add`` and compile them all at ``build_ufunc()``."""

from ... import _dynamic
from ..._decorators import guvectorize, vectorize
from ..._layout import check_signature, parse_layout
from ...types import signature_text


class _Builder:
    def __init__(self, py_func, identity=None, cache=False, targetoptions=None):
        self.py_func = py_func
        self.identity = identity
        self.cache = cache
        self.targetoptions = dict(targetoptions or {})
        self._sigs = []

    @property
    def _object_mode(self):
        return self.targetoptions.get("forceobj") is True or self.targetoptions.get("nopython") is False

    def add(self, sig):
        """Records a signature (compiled by build_ufunc); returns its CompileResult."""
        text = signature_text(sig)
        self._check(text)
        self._sigs.append(text)
        return _dynamic.CompileResult(text, self._object_mode)

    def _check(self, text):
        pass


class UFuncBuilder(_Builder):
    """``UFuncBuilder(py_func, identity=None, cache=False, targetoptions={})``."""

    def build_ufunc(self):
        options = dict(self.targetoptions)
        target = options.pop("target", None)
        return vectorize(list(self._sigs), target=target, identity=self.identity, **options)(self.py_func)


class GUFuncBuilder(_Builder):
    """``GUFuncBuilder(py_func, signature, identity=None, cache=False,
    targetoptions={}, writable_args=())``: ``signature`` is the layout."""

    def __init__(self, py_func, signature, identity=None, cache=False, targetoptions=None, writable_args=()):
        super().__init__(py_func, identity, cache, targetoptions)
        parse_layout(signature)
        self.signature = signature
        self.writable_args = writable_args

    def _check(self, text):
        check_signature(self.signature, text)

    def build_ufunc(self):
        options = dict(self.targetoptions)
        target = options.pop("target", None)
        return guvectorize(list(self._sigs), self.signature, target=target, identity=self.identity,
                           writable_args=self.writable_args, **options)(self.py_func)


__all__ = ["UFuncBuilder", "GUFuncBuilder"]
