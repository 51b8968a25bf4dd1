"""``vectorize`` and ``guvectorize``: Numba's decorators over ufjit's C++ runtime."""

import functools
import inspect
import os

import numpy as np

from . import _ufjit
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
    source, source_name, declared_links = kernel_source(fn, decorator_line)
    links = link + [f for f in declared_links if f not in link]
    ufuncs = _ufjit.load(source, source_name, link=links)
    if fn.__name__ not in ufuncs:
        raise _ufjit.InternalError(f"the compiled source has no ufunc {fn.__name__!r}:\n{source}")
    return ufuncs[fn.__name__], source


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

    def __call__(self, *args, out=None, stream=None):
        if len(args) == self.nargs and out is None:
            *args, out = args
        if stream is not None:
            stream = as_stream(stream)
        return self._core(*args, out=out, stream=stream)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
        """NumPy's ``ufunc.reduce`` (binary ufuncs whose inputs and result share a type).
        ``axis``: an int, a tuple of ints, or None (every axis). ``dtype``: the loop's and the
        result's dtype (the input cast to it). ``out``: any dtype, the result cast into it.
        ``where``: a bool array broadcast to ``array``; without an identity it needs ``initial``."""
        return self._core.reduce(array, axis=axis, keepdims=keepdims, initial=initial, out=out, dtype=dtype,
                                 where=where)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        """NumPy's ``ufunc.accumulate`` along one axis (``dtype`` and ``out`` as for reduce)."""
        return self._core.accumulate(array, axis=axis, out=out, dtype=dtype)

    def outer(self, a, b, out=None):
        """NumPy's ``ufunc.outer``: shape a.shape + b.shape."""
        return self._core.outer(a, b, out=out)

    def __repr__(self):
        return f"<ufjit.UFunc {self.__name__} {self._core.signatures}>"


class GUFunc(UFunc):
    """A generalized ufunc made by ``@ufjit.guvectorize``: call it like NumPy's.

    ``f(a, b)`` returns the output (a tuple of them when the layout has
    several); the outer dimensions broadcast as NumPy's; ``out=`` takes one
    array or a tuple of every output, and the outputs may also be passed
    positionally after the inputs (Numba's way), which returns them.
    """

    def __init__(self, fn, core, source, target, identity, layout):
        super().__init__(fn, core, source, target, identity)
        self.layout = layout
        self.nout = core.nout  # the C++ runtime's parsed layout
        self.nin = len(inspect.signature(fn).parameters) - self.nout
        self.nargs = self.nin + self.nout

    def __call__(self, *args, out=None, stream=None, axes=None, axis=None):
        if len(args) == self.nargs and out is None:
            out = tuple(args[self.nin:])
            args = args[: self.nin]
        if isinstance(out, tuple) and len(out) == 1:
            out = out[0]
        if stream is not None:
            stream = as_stream(stream)
        return self._core(*args, out=out, stream=stream, axes=axes, axis=axis)


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
            return GUFunc(fn, core, source, target, identity, layout)
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
