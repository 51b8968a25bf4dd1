"""The parts of Numba's ufunc objects beyond the call: ``add(signature)``,
``build_ufunc()``, ``disable_compile()`` and ``_frozen`` (Numba's ``DUFunc``
and builders), ``signature``, ``is_dynamic``, ``py_func``, and NumPy's
``at`` and ``reduceat`` methods, written over the ufunc's call and
``reduce`` (so they work on either target and on every kind of operand the
call takes)."""

import numpy as np

from . import _ufjit
from ._layout import split_arguments
from .types import signature_text


class CompileResult:
    """What ``add(signature)`` returns, as Numba's compile result: the
    signature compiled and whether it runs in object mode (the Python
    function called per element)."""

    def __init__(self, signature, objectmode):
        self.signature = signature
        self.objectmode = objectmode

    def __repr__(self):
        return f"<CompileResult {self.signature}{' (object mode)' if self.objectmode else ''}>"


def has_return_type(text):
    """Whether a vectorize signature names its return type (``'f8(f8)'``,
    not ``'(f8)'`` or ``'void(f8)'``, which Numba infers)."""
    head = text.strip().split("(", 1)[0].strip()
    return head not in ("", "void", "none")


def argument_types(text):
    """The argument dtypes of ``'float64(int32, float32)'`` or ``'(i8, i8)'``."""
    return [np.dtype(a.split("[")[0]) for a in split_arguments(text)]


def compile_types(core, dtypes):
    """Has a dynamic core compile the loop of these input dtypes (a call with
    empty arrays of them) and returns that loop's signature text."""
    before = list(core.signatures)
    core(*[np.empty(0, dtype=d) for d in dtypes])
    added = [s for s in core.signatures if s not in before]
    if added:
        return added[-1]
    wanted = [d.name for d in dtypes]
    return next((s for s in core.signatures if [t.name for t in argument_types(s)] == wanted), before[-1])


class DynamicApi:
    """Numba's methods of a ufunc object. The class using it provides
    ``_core``, ``_spec`` (how it was decorated), ``_recompile(signatures)``,
    ``__call__`` and ``reduce``."""

    _frozen_flag = False
    _frozen_empty = False  # frozen with no loop at all: every call is refused

    @property
    def py_func(self):
        """The Python function compiled (a nested ufunc's body is a helper of its caller's)."""
        return self.__wrapped__

    @property
    def is_dynamic(self):
        """Whether calls with new operand types compile new loops."""
        return self._spec.dynamic and not self._frozen_flag

    @property
    def _frozen(self):
        return self._frozen_flag

    @_frozen.setter
    def _frozen(self, value):
        if self._frozen_flag and not value:
            raise ValueError("cannot unfreeze a Numba ufunc")
        if value and not self._frozen_flag:
            self.disable_compile()

    def disable_compile(self):
        """No more loops compiled at calls: operands of other types are then a
        TypeError (Numba's ``DUFunc.disable_compile``)."""
        if self._frozen_flag:
            return
        self._frozen_flag = True
        self._frozen_empty = not self._core.signatures
        if self._spec.dynamic and self._core.signatures:
            self._recompile(list(self._core.signatures), dynamic=False)

    def check_not_frozen_empty(self):
        if self._frozen_flag and not self._core.signatures:
            raise TypeError(f"{self.__name__!r} is frozen (disable_compile) and has no loop for these operands")

    def add(self, signature):
        """Compiles one more signature (Numba's ``add``): ``'float32(float32)'``,
        a type object, or argument types only (``'(int64, int64)'``; the return
        type is inferred). Returns a CompileResult."""
        text = signature_text(signature)
        self._frozen_empty = False
        if self._spec.object_mode:
            self._spec.signatures.append(text)
            return CompileResult(text, True)
        if self._spec.kind == "vectorize" and self._spec.dynamic and not self._frozen_flag:
            return CompileResult(compile_types(self._core, argument_types(text)), False)
        self._recompile(list(self._core.signatures) + [text], dynamic=self._spec.dynamic and not self._frozen_flag)
        return CompileResult(text, False)

    def build_ufunc(self):
        """The ufunc itself (Numba's builders return the ufunc they built)."""
        return self

    @property
    def signature(self):
        """NumPy's ``ufunc.signature``: the layout of a gufunc whose cores are
        not all scalar, else None."""
        return None

    # -------------------------------------------------------- NumPy methods

    def at(self, a, indices, b=None):
        """NumPy's ``ufunc.at``: ``a[indices] = f(a[indices], b)`` unbuffered,
        each index applied in turn (an index given twice is applied twice)."""
        if self.nin not in (1, 2):
            raise ValueError("at() only supports ufuncs with 1 or 2 inputs")
        if self.nin == 2 and b is None:
            raise ValueError("second operand needed for ufunc")
        if not isinstance(a, np.ndarray):
            raise TypeError("at() takes a NumPy array as its first argument")
        index_grid = np.zeros(a.shape, dtype=bool)[indices]  # the shape the indices select
        positions = np.indices(a.shape).reshape(a.ndim, -1).T.reshape(a.shape + (a.ndim,))[indices]
        positions = positions.reshape(-1, a.ndim)
        values = None if b is None else np.broadcast_to(np.asarray(b), index_grid.shape).reshape(-1)
        for k, pos in enumerate(positions):
            pos = tuple(pos)
            args = (a[pos],) if values is None else (a[pos], values[k])
            a[pos] = self(*args)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        """NumPy's ``ufunc.reduceat``: ``reduce(array[indices[i]:indices[i+1]])``
        along ``axis`` for each i, ``array[indices[i]]`` where the next index is
        not larger (the last runs to the end)."""
        answer = self._method("reduceat", (array, indices), {"axis": axis})
        if answer is not None:
            return answer
        array = np.asarray(array) if not hasattr(array, "__cuda_array_interface__") else array
        indices = np.asarray(indices, dtype=np.intp).reshape(-1)
        n = array.shape[axis]
        if np.any(indices < 0) or np.any(indices >= n):
            raise IndexError(f"index out of bounds for axis {axis} with size {n}")
        pieces = []
        for i, start in enumerate(indices):
            stop = indices[i + 1] if i + 1 < len(indices) else n
            taken = np.take(array, np.arange(start, stop) if stop > start else [start], axis=axis)
            pieces.append(self.reduce(taken, axis=axis, dtype=dtype, keepdims=True))
        result = np.concatenate([np.asarray(p) for p in pieces], axis=axis)
        if out is not None:
            np.copyto(out, result, casting="same_kind")
            return out
        return result


def refuse_core_method(name):
    """A gufunc with non-scalar cores has no reduce, accumulate, reduceat or
    outer: NumPy's exception classes and words."""
    if name == "outer":
        raise TypeError("method outer is not allowed in ufunc with non-trivial signature")
    raise RuntimeError("Reduction not defined on ufunc with signature")


def scalar_gufunc_reduce(gufunc, array, axis, dtype, out, keepdims, initial):
    """``reduce`` of a gufunc whose cores are all scalar (Numba's ``'(),()->()'``
    gufunc is a NumPy ufunc): a fold along ``axis``, one call per element."""
    array = np.asarray(array)
    axis = 0 if axis is None else axis
    moved = np.moveaxis(array, axis, 0)
    if dtype is not None:
        moved = moved.astype(dtype)
    if moved.shape[0] == 0:
        if initial is None and gufunc.identity is None:
            raise ValueError(f"zero-size array to reduction operation {gufunc.__name__} which has no identity")
        acc = np.full(moved.shape[1:], gufunc.identity if initial is None else initial, dtype=moved.dtype)
    else:
        acc = moved[0] if initial is None else gufunc(np.asarray(initial, dtype=moved.dtype), moved[0])
        for k in range(1, moved.shape[0]):
            acc = gufunc(acc, moved[k])
    acc = np.asarray(acc)
    if keepdims:
        acc = np.expand_dims(acc, axis)
    if out is not None:
        np.copyto(out, acc, casting="same_kind")
        return out
    return acc[()] if acc.ndim == 0 else acc


def scalar_gufunc_accumulate(gufunc, array, axis, dtype, out):
    array = np.asarray(array)
    moved = np.moveaxis(array, axis, 0)
    if dtype is not None:
        moved = moved.astype(dtype)
    results = [np.asarray(moved[0])] if moved.shape[0] else []
    for k in range(1, moved.shape[0]):
        results.append(np.asarray(gufunc(results[-1], moved[k])))
    result = np.moveaxis(np.stack(results) if results else moved.copy(), 0, axis)
    if out is not None:
        np.copyto(out, result, casting="same_kind")
        return out
    return result


def scalar_gufunc_outer(gufunc, a, b, out):
    a, b = np.asarray(a), np.asarray(b)
    result = gufunc(a.reshape(a.shape + (1,) * b.ndim), b)
    if out is not None:
        np.copyto(out, result, casting="same_kind")
        return out
    return result


def dispatch_error(name, dtypes, signatures):
    """A DispatchError (a TypeError) for operands no loop takes, in the words of ufjit's own."""
    types = ", ".join(str(d) for d in dtypes)
    return _ufjit.DispatchError(f"no signature of {name!r} matches inputs ({types}); tried: "
                                f"{', '.join(signatures)}")
