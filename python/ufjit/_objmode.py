"""Numba's object mode (``forceobj=True`` / ``nopython=False``) in Python:
nothing is compiled; the ufunc calls the Python function once per element
(once per core for a gufunc) with the declared types, as
``numpy.frompyfunc`` does. It is slow (a Python call per element) and runs
on the CPU only; it exists so that code written for Numba's object mode
still runs. The C++ compiler and the ``ufjit`` command refuse these options
with a located error, as they have no interpreter to call.

``ObjectModeCore`` stands where the compiled core (``_ufjit.Ufunc``) stands
under a UFunc or GUFunc: ``signatures``, ``nout``, ``layout``, calls and
the ufunc methods."""

import numpy as np

from . import _dynamic, _ufjit
from ._layout import parse_layout, split_arguments


def _parse(text):
    """(return dtype or None, [(dtype, ndim)]) of ``'f8(f8, i4[:])'``."""
    head = text.strip().split("(", 1)[0].strip() if "(" in text else ""
    ret = None if head in ("", "void", "none") else np.dtype(head)
    args = [(np.dtype(a.split("[")[0]), a.count(":")) for a in split_arguments(text)]
    return ret, args


def _fits(x, dtype):
    if type(x) in (bool, int, float, complex):
        return np.can_cast(np.result_type(type(x)(0)), dtype, "same_kind")
    return np.can_cast(np.asarray(x).dtype, dtype, "safe")


class ObjectModeCore:
    """The per-element Python loop of an object-mode ufunc (``layout`` None)
    or gufunc."""

    def __init__(self, fn, signatures, layout=None):
        self._fn = fn
        self._layout = layout
        self.signatures = signatures  # the spec's list: add() appends to it
        self.name = fn.__name__
        if layout is None:
            self._cores = None
            self.nout = 1
        else:
            inputs, outputs = parse_layout(layout)
            self._cores = (inputs, outputs)
            self.nout = len(outputs)

    @property
    def layout(self):
        return self._layout or ""

    def _choose(self, inputs, nin):
        """The first declared signature every input casts to; a dynamic one
        (the inputs' own types) when none was declared."""
        for text in self.signatures:
            ret, args = _parse(text)
            if len(args) >= nin and all(_fits(x, d) for x, (d, _) in zip(inputs, args)):
                return ret, args
        if not self.signatures:
            return None, [(np.asarray(x).dtype, np.ndim(x)) for x in inputs]
        raise _dynamic.dispatch_error(self.name, [np.asarray(x).dtype for x in inputs], self.signatures)

    def __call__(self, *inputs, out=None, **_ignored):
        if self._cores is None:
            return self._call_elementwise(inputs, out)
        return self._call_gufunc(inputs, out)

    def _call_elementwise(self, inputs, out):
        ret, args = self._choose(inputs, len(inputs))
        arrays = [np.asarray(x, dtype=d) for x, (d, _) in zip(inputs, args)]
        shape = np.broadcast_shapes(*[a.shape for a in arrays])
        arrays = [np.broadcast_to(a, shape) for a in arrays]
        values = np.empty(shape, dtype=object)
        first_error = None
        for index in np.ndindex(shape):
            try:
                values[index] = self._fn(*[a[index] for a in arrays])
            except Exception as e:  # Numba's object mode computes the rest, then raises the first
                first_error = first_error or e
        dtype = ret if ret is not None else np.asarray(values.tolist()).dtype
        if out is not None:
            target = out[0] if isinstance(out, (tuple, list)) else out
            for index in np.ndindex(shape):
                if values[index] is not None:
                    target[index] = values[index]
            result = target
        else:
            result = np.zeros(shape, dtype=dtype)
            for index in np.ndindex(shape):
                if values[index] is not None:
                    result[index] = values[index]
        if first_error is not None:
            raise first_error
        return result[()] if out is None and result.ndim == 0 else result

    def _call_gufunc(self, inputs, out):
        core_in, core_out = self._cores
        _, args = self._choose(inputs, len(core_in))
        arrays = [np.asarray(x, dtype=d) for x, (d, _) in zip(inputs, args)]
        sizes = {}
        outer = []
        for a, dims in zip(arrays, core_in):
            split = a.ndim - len(dims)
            outer.append(a.shape[:split])
            for name, n in zip(dims, a.shape[split:]):
                if sizes.setdefault(name, n) != n:
                    raise _ufjit.ShapeError(f"{self.name}: core dimension {name!r} is {sizes[name]} and {n}")
        loop = np.broadcast_shapes(*outer)
        outs = list(out) if isinstance(out, (tuple, list)) else ([out] if out is not None else [None] * self.nout)
        for k, dims in enumerate(core_out):
            if outs[k] is None:
                dtype = args[len(core_in) + k][0] if len(args) > len(core_in) + k else arrays[0].dtype
                outs[k] = np.zeros(loop + tuple(sizes.get(d, 1) for d in dims), dtype=dtype)
        scalar = [args[i][1] == 0 for i in range(len(core_in))]
        for index in np.ndindex(loop):
            call_args = []
            for a, dims, is_scalar in zip(arrays, core_in, scalar):
                view = np.broadcast_to(a, loop + a.shape[a.ndim - len(dims):])[index]
                if view.ndim == 0:  # a scalar core: the value, or a 1-element array where one is declared
                    view = view[()] if is_scalar else view.reshape(1)
                call_args.append(view)
            call_args += [o[index] if len(dims) else o[index + (None,)] for o, dims in zip(outs, core_out)]
            self._fn(*call_args)
        return outs[0] if self.nout == 1 else tuple(outs)

    def reduce(self, array, axis=0, keepdims=False, initial=None, out=None, dtype=None, where=None):
        return _dynamic.scalar_gufunc_reduce(self._caller(), array, axis, dtype, out, keepdims, initial)

    def accumulate(self, array, axis=0, out=None, dtype=None):
        return _dynamic.scalar_gufunc_accumulate(self._caller(), array, axis, dtype, out)

    def outer(self, a, b, out=None):
        return _dynamic.scalar_gufunc_outer(self._caller(), a, b, out)

    def _caller(self):
        core = self

        class Caller:
            identity = None
            __name__ = core.name

            def __call__(self, *args):
                return core(*args)

        return Caller()

    def ptx(self, signature, arch="sm_90"):
        raise TypeError(f"{self.name!r} runs in object mode (Python calls): it has no PTX")
