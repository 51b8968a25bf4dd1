"""``vectorize`` and ``guvectorize``: Numba's decorators over ufjit's C++ runtime."""

import functools
import inspect
import os

import numpy as np

from . import _masked, _ufjit
from . import _numpy_calls as calls
from ._source import kernel_source
from ._streams import as_stream
from .types import signature_text

_TARGETS = {None: None, "cpu": "cpu", "parallel": "cpu", "cuda": "cuda", "gpu": "cuda"}


def _signature_list(signatures):
    if isinstance(signatures, str):
        return [signatures]
    # Type objects, ufjit's or Numba's: float32(float32), (float64[:], float64[:]).
    return [signature_text(s) for s in signatures]


def _check_target(target):
    if target not in _TARGETS:
        raise ValueError(f"unknown target {target!r} (expected 'cpu', 'cuda' or None)")
    return _TARGETS[target]


def _looks_like_layout(text):
    return isinstance(text, str) and "->" in text


def _link_list(link):
    """``link=``'s files as absolute paths: relative ones are from the current
    folder when the decorator runs, as Numba's."""
    if link is None:
        return []
    if isinstance(link, (str, os.PathLike)):
        link = [link]
    return [os.path.abspath(os.fspath(f)) for f in link]


def _compile(fn, decorator_line, link):
    source, source_name, declared_links, name = kernel_source(fn, decorator_line)
    links = link + [f for f in declared_links if f not in link]
    ufuncs = _ufjit.load(source, source_name, link=links)
    if name not in ufuncs:
        raise _ufjit.InternalError(f"the compiled source has no ufunc {name!r}:\n{source}")
    return ufuncs[name], source


def _numpy_types(signature, nin):
    """``'ff->f'`` for ``float32(float32, float32)``; for a gufunc's
    ``void(float64[:], int64, float64[:])``, its first ``nin`` arguments are
    the inputs and the others the outputs: ``'dl->d'``."""
    ret, _, args = signature.partition("(")
    names = [a.strip().split("[")[0] for a in args.rstrip(")").split(",") if a.strip()]
    chars = [np.dtype(n).char for n in names]
    if ret.strip() != "void":
        return "".join(chars) + "->" + np.dtype(ret.strip()).char
    return "".join(chars[:nin]) + "->" + "".join(chars[nin:])


class UFunc:
    """A ufunc made by ``@ufjit.vectorize``: call it like a NumPy ufunc.

    ``f(x, y)``, ``f(x, y, out=z)`` (or ``f(x, y, z)``), ``f(..., stream=s)``
    (device arrays and ``out=`` only; returns at once). Host operands give a
    NumPy result (a NumPy scalar when 0-d), device operands a DeviceArray.
    """

    def __init__(self, fn, core, source, target, identity):
        functools.update_wrapper(self, fn)
        self._core = core
        self.source = source  # the text given to the C++ compiler
        self.target = target
        self.identity = identity
        self.nin = len(inspect.signature(fn).parameters)
        self.nout = 1
        self.nargs = self.nin + self.nout
        self._writable = ()

    @property
    def signatures(self):
        return self._core.signatures

    @property
    def ntypes(self):
        return len(self._core.signatures)

    @property
    def types(self):
        """NumPy's ``ufunc.types``: one ``'ff->f'`` string per signature."""
        return [_numpy_types(s, self.nin) for s in self._core.signatures]

    def ptx(self, signature, arch="sm_90"):
        """The generated PTX of one signature."""
        return self._core.ptx(signature, arch)

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, ("out", "stream", "target", "casting", "subok"))

    def _call(self, args, kwargs, keywords):
        """A call as NumPy's ufuncs take it (_numpy_calls says which conventions)."""
        if not kwargs and len(args) == self.nin and all(calls.is_plain(a) for a in args):
            # plain arrays, device arrays and scalars: no override, wrap, mask or out= to handle
            return self._core(*args, _writable=self._writable) if self._writable else self._core(*args)
        name = self.__name__
        calls.check_keywords(name, kwargs, keywords)
        if not self.nin <= len(args) <= self.nargs:
            raise TypeError(f"{name}() takes from {self.nin} to {self.nargs} positional arguments but {len(args)} "
                            f"were given")
        inputs = args[: self.nin]
        if len(args) > self.nin:  # outputs given positionally (NumPy's and Numba's way)
            if "out" in kwargs:
                raise TypeError("cannot specify 'out' as both a positional and keyword argument")
            outs = calls.normalize_out(tuple(args[self.nin:]) + (None,) * (self.nargs - len(args)), self.nout)
        else:
            outs = calls.normalize_out(kwargs.get("out"), self.nout)
        casting = calls.check_casting(kwargs.get("casting", "same_kind"))
        calls.check_target(kwargs.get("target"))
        calls.check_core_axes(kwargs)
        overriding = calls._overriding(inputs + outs)
        if overriding:
            forwarded = {k: v for k, v in kwargs.items() if k != "out"}
            if any(o is not None for o in outs):
                forwarded["out"] = outs
            return calls.dispatch_override(self, "__call__", inputs, forwarded, overriding)
        core_kwargs = {k: kwargs[k] for k in ("target", "axes", "axis") if kwargs.get(k) is not None}
        if self._writable:
            core_kwargs["_writable"] = self._writable
        stream = kwargs.get("stream")
        if stream is not None:
            core_kwargs["stream"] = as_stream(stream)
            self._core(*inputs, out=outs if self.nout > 1 else outs[0], **core_kwargs)
            return outs[0] if self.nout == 1 else outs
        if _masked.any_masked(inputs + outs):
            return _masked.call(self, inputs, outs, casting, core_kwargs)
        results = calls.run(self, inputs, outs, casting, core_kwargs)
        if all(o is None for o in outs):
            results = calls.wrap_results(self, inputs, results, kwargs.get("subok", True))
        return results[0] if self.nout == 1 else tuple(results)

    def _method(self, method, inputs, kwargs):
        """NEP 13 for a method: an operand's override answers, else None."""
        outs = kwargs.get("out")
        operands = tuple(inputs) + (outs if isinstance(outs, tuple) else (outs,))
        overriding = calls._overriding(operands)
        if not overriding:
            return None
        return calls.dispatch_override(self, method, inputs, kwargs, overriding)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """NumPy's ``ufunc.reduce`` (binary ufuncs whose inputs and result share a type).
        ``axis``: an int, a tuple of ints, or None (every axis). ``dtype``: the loop's and the
        result's dtype (the input cast to it). ``out``: any dtype, the result cast into it.
        ``where``: a bool array broadcast to ``array``; without an identity it needs ``initial``."""
        given = {k: v for k, v in (("axis", axis), ("dtype", dtype), ("out", out), ("keepdims", keepdims),
                                   ("initial", initial), ("where", where)) if v is not None}
        answer = self._method("reduce", (array,), given)
        if answer is not None:
            return answer
        axis = calls.normalize_axis(axis, calls.ndim_of(array))
        keepdims = calls.check_flag(keepdims)
        initial = calls.check_initial(initial)
        dtype = None if dtype is None else np.dtype(dtype)
        out = calls.normalize_out(out, 1)[0]
        if _masked.any_masked((array, out)):
            return _masked.reduce(self, array, axis, keepdims, initial, out, dtype, where)
        operand = array
        if axis == ():  # NumPy reduces no axis: each element alone, as a new last axis of one
            operand, axis, keepdims = np.asarray(array)[..., None], -1, False
            where = where if where is True or where is None else np.asarray(where)[..., None]
        result = self._core.reduce(operand, axis=axis, keepdims=keepdims, initial=initial, out=out, dtype=dtype,
                                   where=where)
        return out if out is not None else calls.wrap_results(self, (array,), [result])[0]

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """NumPy's ``ufunc.accumulate`` along one axis (``dtype`` and ``out`` as for reduce)."""
        given = {k: v for k, v in (("axis", axis), ("dtype", dtype), ("out", out)) if v is not None}
        answer = self._method("accumulate", (array,), given)
        if answer is not None:
            return answer
        ndim = calls.ndim_of(array)
        if axis is None and ndim != 1:
            raise ValueError("accumulate does not allow multiple axes")
        axis = calls.normalize_axis(0 if axis is None else axis, ndim, several=False)
        axis = axis[0] if isinstance(axis, tuple) else axis
        dtype = None if dtype is None else np.dtype(dtype)
        out = calls.normalize_out(out, 1)[0]
        if _masked.any_masked((array, out)):
            return _masked.accumulate(self, array, axis, out, dtype)
        result = self._core.accumulate(array, axis=axis, out=out, dtype=dtype)
        return out if out is not None else calls.wrap_results(self, (array,), [result])[0]

    def outer(self, a, b, out=None):
        """NumPy's ``ufunc.outer``: shape a.shape + b.shape."""
        answer = self._method("outer", (a, b), {} if out is None else {"out": out})
        if answer is not None:
            return answer
        out = calls.normalize_out(out, 1)[0]
        if _masked.any_masked((a, b, out)):
            return _masked.outer(self, a, b, (out,), {})
        result = self._core.outer(a, b, out=out)
        return out if out is not None else calls.wrap_results(self, (a, b), [result])[0]

    def __repr__(self):
        return f"<ufjit.UFunc {self.__name__} {self._core.signatures}>"

    def __reduce__(self):
        """Pickled by reference, as a module-level function is: unpickling
        imports its module and takes the ufunc of that name (Dask ships
        ufuncs to its workers this way). A ufunc that is not reachable as
        ``module.qualname`` (a closure, a lambda) cannot be pickled."""
        return self.__qualname__


class GUFunc(UFunc):
    """A generalized ufunc made by ``@ufjit.guvectorize``: call it like NumPy's.

    ``f(a, b)`` returns the output (a tuple of them when the layout has
    several); the outer dimensions broadcast as NumPy's; ``out=`` takes one
    array or a tuple of every output, and the outputs may also be passed
    positionally after the inputs (Numba's way), which returns them.
    """

    def __init__(self, fn, core, source, target, identity, layout, writable_args=()):
        super().__init__(fn, core, source, target, identity)
        self.layout = layout
        self.nout = core.nout  # the C++ runtime's parsed layout
        self.nin = len(inspect.signature(fn).parameters) - self.nout
        self.nargs = self.nin + self.nout
        self._writable = _writable_inputs(fn, writable_args, self.nin)

    def __call__(self, *args, **kwargs):
        return self._call(args, kwargs, ("out", "stream", "target", "casting", "subok", "axes", "axis"))


def _writable_inputs(fn, writable_args, nin):
    """writable_args (indices or parameter names) as ((index, name), ...)
    over the inputs; the compiler has already refused bad entries."""
    names = list(inspect.signature(fn).parameters)[:nin]
    resolved = []
    for item in writable_args or ():
        index = names.index(item) if isinstance(item, str) and item in names else item
        if isinstance(index, int) and -nin <= index < nin:
            resolved.append((index % nin, names[index % nin]))
    return tuple(resolved)


# Numba options the C++ compiler reads from the decorator line: bounds checks,
# and the refusal of object mode (a located CompileError). Others (nogil,
# cache) are accepted and ignored.
_FORWARDED_OPTIONS = ("boundscheck", "nopython", "forceobj")


def _make_decorator(kind, signatures, layout, target, identity, fastmath, link, options, **gufunc_options):
    """The decorator that compiles a function as ``@vectorize`` / ``@guvectorize``.

    The C++ compiler is given a decorator line of its own: the signatures,
    the layout, ``target`` (a default: ``UFJIT_TARGET`` overrides it, and
    'cuda' falls back to the CPU where there is no GPU), ``fastmath`` and
    ``identity``. ``@vectorize`` without signatures (bare, ``@vectorize()``
    or ``@vectorize(target=...)``) is Numba's dynamic ufunc: compiled for
    the operand types at each call with types not seen before;
    ``@guvectorize`` with a layout only (or ``is_dynamic=True``) is Numba's
    dynamic gufunc, the same per operand dtypes (outputs not given take the
    inputs' common type, NumPy's ``result_type``).
    """
    bare = callable(signatures) and not isinstance(signatures, (str, list, tuple))
    if kind == "guvectorize":
        if layout is None and _looks_like_layout(signatures):
            signatures, layout = None, signatures  # @guvectorize('(n)->()'): Numba's dynamic gufunc
        if bare or layout is None:
            raise TypeError("ufjit.guvectorize needs a layout, with or without signatures, e.g. "
                            "@guvectorize('(n),(n)->()') or @guvectorize(['void(float64[:], float64[:])'], '(n)->(n)')")
    args = []
    if not bare and signatures:
        args.append(repr(_signature_list(signatures)))
    if layout is not None:
        args.append(repr(layout))
    if _check_target(target) is not None:
        args.append(f"target={_check_target(target)!r}")
    if fastmath:
        args.append("fastmath=True")
    if identity is not None and kind == "vectorize":
        args.append(f"identity={identity!r}")
    if gufunc_options.get("is_dynamic"):
        args.append("is_dynamic=True")
    if gufunc_options.get("writable_args"):
        args.append(f"writable_args={tuple(gufunc_options['writable_args'])!r}")
    for name in _FORWARDED_OPTIONS:
        if name in options:
            args.append(f"{name}={options[name]!r}")
    line = f"@{kind}({', '.join(args)})"
    links = _link_list(link)

    def decorate(fn):
        core, source = _compile(fn, line, links)
        if kind == "guvectorize":
            return GUFunc(fn, core, source, target, identity, layout, gufunc_options.get("writable_args"))
        return UFunc(fn, core, source, target, identity)

    return decorate(signatures) if bare else decorate


def vectorize(signatures=None, target=None, identity=None, fastmath=False, cache=True, link=None, **options):
    """Numba's ``@vectorize``: ``@vectorize(['float32(float32, float32)'], target='cuda')``.

    ``target``: 'cpu', 'cuda' or None, the default target of calls (None: the
    GPU when there is one; 'cuda' falls back to the CPU without one;
    ``UFJIT_TARGET=cpu|cuda`` overrides every default). ``cache``: kernels are
    always cached (in memory, and on disk for the GPU; ``UFJIT_CACHE=off``
    disables the disk cache). ``identity``: 0, 1, None or 'reorderable', as
    Numba (others are a CompileError). Without signatures (``@vectorize``,
    ``@vectorize()``), the ufunc is compiled for the operand types at the
    first call with those types (Numba's dynamic ufunc); ``signatures`` lists
    those compiled so far. ``link``: CUDA C++ files (.cu, .ptx, .cubin, .ltoir,
    .fatbin; relative to the current folder) defining the ``cuda.declare_device``
    functions the kernel calls (GPU target only). ``boundscheck=True`` checks
    array indices (an IndexError), ``forceobj=True`` / ``nopython=False`` are
    a CompileError (no object mode), as on a decorator line; other Numba
    options (``nogil``) are accepted and ignored.
    """
    return _make_decorator("vectorize", signatures, None, target, identity, fastmath, link, options)


def guvectorize(signatures=None, layout=None, target=None, identity=None, fastmath=False, cache=True,
                is_dynamic=False, writable_args=(), link=None, **options):
    """Numba's ``@guvectorize(signatures, layout)``; see GUFunc for what calling it does.

    With a layout only, ``@guvectorize('(m,n),(n,p)->(m,p)')`` (or with
    ``is_dynamic=True``), the gufunc is compiled for the operand dtypes at the
    first call with them (Numba's dynamic gufunc; ``signatures`` lists those
    compiled so far). An output not given takes the inputs' common type
    (``numpy.result_type`` of the inputs); one given with ``out=`` its own.
    ``writable_args``: indices or names of inputs the body may write (written
    in the caller's array, also on the GPU). ``link``, ``boundscheck`` and the
    other options: as vectorize's.
    """
    return _make_decorator("guvectorize", signatures, layout, target, identity, fastmath, link, options,
                           is_dynamic=is_dynamic, writable_args=writable_args)
