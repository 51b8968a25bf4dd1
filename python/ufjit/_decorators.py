"""``vectorize`` and ``guvectorize``: Numba's decorators over ufjit's C++ runtime."""

import functools
import inspect
import os
import sys
import warnings

import numpy as np

from . import _dynamic, _masked, _ufjit
from . import _numpy_calls as calls
from ._layout import all_scalar, check_signature, parse_layout, split_arguments
from ._host_device import HostDeviceArray, HostStream
from ._objmode import ObjectModeCore
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


def _compile(fn, decorator_line, link, spec=None):
    """Compiles ``fn`` under ``decorator_line``. A spec remembers the text
    compiled, and compiles that text again with its new line when it has no
    Python source (a ufunc unpickled by value)."""
    if spec is not None and spec.compiled is not None and spec.rebuilt:
        text, source_name, name, old_line, links = spec.compiled
        source = text.replace(old_line, decorator_line, 1)
    else:
        rewrite = spec.rewrite if spec is not None else None
        source, source_name, declared_links, name = kernel_source(fn, decorator_line, rewrite)
        links = link + [f for f in declared_links if f not in link]
    ufuncs = _ufjit.load(source, source_name, link=links)
    if name not in ufuncs:
        raise _ufjit.InternalError(f"the compiled source has no ufunc {name!r}:\n{source}")
    if spec is not None:
        spec.compiled = (source, source_name, name, decorator_line, links)
    return ufuncs[name], source


def _device_stream(stream):
    """A ufjit.Stream for ``stream=``, or None: no stream, or the CPU target's
    HostStream (``cuda.stream()`` without a GPU), which has nothing to order."""
    if stream is None or isinstance(stream, HostStream):
        return None
    return as_stream(stream)


def _stream_outputs(ufunc, inputs):
    """A call with ``stream=`` and no ``out=`` on device arrays returns a new
    device array at once, as Numba's: the output of an elementwise ufunc,
    allocated here (the broadcast shape, the signature's result dtype).
    None for host operands or a gufunc."""
    if ufunc.nout != 1 or getattr(ufunc, "layout", None):
        return None
    if not any(isinstance(x, _ufjit.DeviceArray) or hasattr(x, "__cuda_array_interface__") for x in inputs):
        return None
    loop = calls._loop_inputs(ufunc, inputs)
    if loop is None:
        return None  # no signature: the call's DispatchError says so
    chars = [t for t in ufunc.types if [np.dtype(c) for c in t.split("->")[0]] == loop][0]
    shape = np.broadcast_shapes(*[tuple(getattr(x, "shape", ())) for x in inputs])
    return (_ufjit.device_empty(list(shape), np.dtype(chars.split("->")[1])),)


def _numpy_types(signature, nin):
    """``'ff->f'`` for ``float32(float32, float32)``; for a gufunc's
    ``void(float64[:], int64, float64[:])``, its first ``nin`` arguments are
    the inputs and the others the outputs: ``'dl->d'``."""
    ret = signature.partition("(")[0]
    names = [a.split("[")[0] for a in split_arguments(signature)]
    chars = [np.dtype(n).char for n in names]
    if ret.strip() != "void":
        return "".join(chars) + "->" + np.dtype(ret.strip()).char
    return "".join(chars[:nin]) + "->" + "".join(chars[nin:])


class UFunc(_dynamic.DynamicApi):
    """A ufunc made by ``@ufjit.vectorize``: call it like a NumPy ufunc.

    ``f(x, y)``, ``f(x, y, out=z)`` (or ``f(x, y, z)``), ``f(..., stream=s)``
    (device arrays and ``out=`` only; returns at once). Host operands give a
    NumPy result (a NumPy scalar when 0-d), device operands a DeviceArray.
    Numba's dynamic API is there too: ``add(signature)``,
    ``disable_compile()``, ``build_ufunc()``, ``at``, ``reduceat``.
    """

    def __init__(self, fn, core, source, spec):
        functools.update_wrapper(self, fn)
        self._core = core
        self._spec = spec
        self.source = source  # the text given to the C++ compiler
        self.target = spec.target
        self.identity = None if spec.identity == "reorderable" else spec.identity
        self.nin = len(inspect.signature(fn).parameters)
        self.nout = 1
        self.nargs = self.nin + self.nout
        self._writable = ()

    def _recompile(self, signatures, dynamic):
        """The core compiled again for ``signatures`` (``add``, ``disable_compile``)."""
        self._spec.signatures = signatures
        self._spec.dynamic = dynamic
        self._core, self.source = _compile_spec(self.__wrapped__, self._spec)

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
        if self._frozen_empty:
            self.check_not_frozen_empty()
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
                raise _OutTwiceError("cannot specify 'out' as both a positional and keyword argument")
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
        stream = _device_stream(kwargs.get("stream"))
        if stream is not None and all(o is None for o in outs):
            outs = _stream_outputs(self, inputs)
            if outs is None:  # host operands: Numba copies the result back; here the stream is waited for
                stream.synchronize()
                stream, outs = None, (None,) * self.nout
        if stream is not None:
            core_kwargs["stream"] = stream
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

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True, stream=None):
        """NumPy's ``ufunc.reduce`` (binary ufuncs whose inputs and result share a type).
        ``axis``: an int, a tuple of ints, or None (every axis). ``dtype``: the loop's and the
        result's dtype (the input cast to it). ``out``: any dtype, the result cast into it.
        ``where``: a bool array broadcast to ``array``; without an identity it needs ``initial``.
        ``stream``: Numba's CUDA reduce; the stream is synchronized first and a
        full reduction of a device array returns a host scalar, as Numba's."""
        if stream is not None:
            stream = _device_stream(stream)
            if stream is not None:
                stream.synchronize()
            result = self.reduce(array, axis, dtype, out, keepdims, initial, where)
            return result.copy_to_host()[()] if hasattr(result, "copy_to_host") and result.ndim == 0 else result
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
        if out is None and isinstance(result, np.ndarray) and not result.flags.c_contiguous:
            result = np.ascontiguousarray(result)  # NumPy's result is C-ordered whatever the loop's order
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
        """Pickled by reference where it is reachable as ``module.qualname``
        (unpickling imports its module and takes the ufunc of that name: Dask
        ships ufuncs to its workers this way); otherwise (a ufunc made inside
        a function) by value, as Numba's: the compiled text, the signatures
        compiled and the decorator's options, compiled again when unpickled.
        Object-mode ufuncs go by reference only (they need the function)."""
        if _reachable(self) or self._spec.compiled is None:
            return self.__qualname__
        fn = self.__wrapped__
        names = ("__name__", "__qualname__", "__module__", "__doc__")
        state = {"spec": self._spec, "signatures": list(self._core.signatures), "frozen": self._frozen_flag,
                 "params": list(inspect.signature(fn).parameters), "names": {n: getattr(fn, n) for n in names},
                 "gufunc": isinstance(self, GUFunc)}
        return _unpickle, (state,)


def _reachable(ufunc):
    module = sys.modules.get(ufunc.__module__)
    value = module
    for part in ufunc.__qualname__.split("."):
        value = getattr(value, part, None)
    return value is ufunc


def _unpickle(state):
    """A ufunc pickled by value, compiled again (its Python function is a
    stand-in with the original's name, parameters and docstring)."""
    names = state["names"]
    namespace = {}
    exec(f"def stand_in({', '.join(state['params'])}):\n    pass", namespace)
    fn = namespace["stand_in"]
    for name, value in names.items():
        setattr(fn, name, value)
    spec = state["spec"]
    spec.rebuilt = True
    spec.signatures = state["signatures"]
    core, source = _compile_spec(fn, spec)
    ufunc = (GUFunc if state["gufunc"] else UFunc)(fn, core, source, spec)
    ufunc._frozen_flag = state["frozen"]
    ufunc._frozen_empty = state["frozen"] and not core.signatures
    return ufunc


class GUFunc(UFunc):
    """A generalized ufunc made by ``@ufjit.guvectorize``: call it like NumPy's.

    ``f(a, b)`` returns the output (a tuple of them when the layout has
    several); the outer dimensions broadcast as NumPy's; ``out=`` takes one
    array or a tuple of every output, and the outputs may also be passed
    positionally after the inputs (Numba's way), which returns them. A layout
    without ``->`` (``'(n),(n),()'``) has no outputs: every argument is an
    input, the body writes its results into them in place, and a call returns
    None (Numba's update in place).
    """

    def __init__(self, fn, core, source, spec):
        super().__init__(fn, core, source, spec)
        self.layout = spec.layout
        self._in_place = spec.in_place
        self.nout = 0 if self._in_place else core.nout  # the C++ runtime's parsed layout
        self.nin = len(inspect.signature(fn).parameters) - self.nout
        self.nargs = self.nin + self.nout
        self._writable = _writable_inputs(fn, spec.compiled_writable_args(), self.nin)
        self._scalar_cores = all_scalar(spec.layout)

    @property
    def signature(self):
        """NumPy's ``ufunc.signature``: the layout, or None when every core is a scalar."""
        return None if self._scalar_cores else self.layout

    @property
    def gufunc_builder(self):
        """Numba's builder attribute: ``_sigs`` lists the compiled signatures."""
        return _Builder(self._core.signatures)

    def __call__(self, *args, **kwargs):
        if self._in_place:
            return self._call_in_place(args, kwargs)
        return self._call(args, kwargs, ("out", "stream", "target", "casting", "subok", "axes", "axis"))

    def _call_in_place(self, args, kwargs):
        """A layout without outputs: every argument is an input; the body
        writes its arrays in place. As Numba's: an array of the signature's
        dtype is written in place, one of another dtype is converted first,
        and copied back only when ``writable_args`` names it."""
        if len(args) != self.nin:
            raise TypeError(f"{self.__name__}() takes {self.nin} arguments but {len(args)} were given")
        calls.check_keywords(self.__name__, kwargs, ("stream", "target"))
        converted = _in_place_arguments(self, args)
        core_kwargs = {"_writable": self._writable} if self._writable else {}
        stream = _device_stream(kwargs.get("stream"))
        if stream is not None:
            core_kwargs["stream"] = stream
        self._core(*converted, **core_kwargs)
        named = _writable_inputs(self.__wrapped__, self._spec.writable_args, self.nin)
        for index, _ in named:
            if converted[index] is not args[index] and isinstance(args[index], np.ndarray):
                np.copyto(args[index], converted[index], casting="unsafe")

    def _call(self, args, kwargs, keywords):
        """Numba's two conveniences over NumPy's rules, tried when the call is
        refused: for a CUDA gufunc (Numba's CPU gufuncs are NumPy's, which
        refuse), host operands of another dtype than every signature's are
        cast (``same_kind``) to the first signature they fit, and a 1-element
        array given for a scalar core (an "old style" ``int32[:]`` for ``()``)
        counts as that scalar."""
        try:
            return super()._call(args, kwargs, keywords)
        except _ufjit.DispatchError:
            retry = _gufunc_cast(self, args) if _check_target(self._spec.target) == "cuda" else None
            if retry is None:
                raise
        except _ufjit.ShapeError:
            retry = _squeeze_scalar_cores(self, args)
            if retry is None:
                raise
        return super()._call(retry, kwargs, keywords)

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False, initial=None, where=True):
        if not self._scalar_cores:
            _dynamic.refuse_core_method("reduce")
        return _dynamic.scalar_gufunc_reduce(self, array, axis, dtype, out, keepdims, initial)

    def accumulate(self, array, axis=0, dtype=None, out=None):
        if not self._scalar_cores:
            _dynamic.refuse_core_method("accumulate")
        return _dynamic.scalar_gufunc_accumulate(self, array, axis, dtype, out)

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        if not self._scalar_cores:
            _dynamic.refuse_core_method("reduceat")
        return super().reduceat(array, indices, axis, dtype, out)

    def outer(self, a, b, out=None):
        if not self._scalar_cores:
            _dynamic.refuse_core_method("outer")
        return _dynamic.scalar_gufunc_outer(self, a, b, out)


class _Builder:
    def __init__(self, signatures):
        self._sigs = list(signatures)


def _in_place_arguments(gufunc, args):
    """The arguments of an in-place gufunc converted to the first signature
    they all fit (``same_kind``): arrays of its dtypes as they are."""
    for loop in gufunc.types:
        dtypes = [np.dtype(c) for c in loop.split("->")[0]]
        if len(dtypes) == len(args) and all(np.can_cast(np.asarray(x).dtype, d, "same_kind") or calls._weak(x)
                                            for x, d in zip(args, dtypes)):
            return [x if isinstance(x, np.ndarray) and x.dtype == d or hasattr(x, "__cuda_array_interface__")
                    else np.asarray(x).astype(d) for x, d in zip(args, dtypes)]
    return list(args)


def _gufunc_cast(gufunc, args):
    """The inputs cast to the first signature they all fit with ``same_kind``
    (host operands only: a device array is never converted), or None."""
    inputs = list(args[: gufunc.nin])
    device = [x for x in inputs if hasattr(x, "__cuda_array_interface__") or isinstance(x, HostDeviceArray)]
    if device:
        names = [type(x).__name__ for x in device]
        raise TypeError(f"no signature of {gufunc.__name__!r} takes these device arrays' dtypes, and a "
                        f"{names[0]} does not support .astype() here: convert it first")
    for loop in gufunc.types:
        chars = loop.split("->")[0]
        dtypes = [np.dtype(c) for c in chars]
        if len(dtypes) == len(inputs) and all(np.can_cast(np.asarray(x).dtype, d, "same_kind")
                                              for x, d in zip(inputs, dtypes)):
            cast = [np.asarray(x).astype(d, copy=False) for x, d in zip(inputs, dtypes)]
            return tuple(cast) + tuple(args[gufunc.nin:])
    return None


def _squeeze_scalar_cores(gufunc, args):
    """``args`` with each 1-element 1-d array given for a scalar core as a
    0-d array, or None when there is none."""
    inputs, _ = parse_layout(gufunc.layout)
    changed = list(args)
    squeezed = False
    for i, core in enumerate(inputs[: len(args)]):
        x = args[i]
        if not core and isinstance(x, np.ndarray) and x.shape == (1,):
            changed[i] = x.reshape(())
            squeezed = True
    return tuple(changed) if squeezed else None


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
# and the refusal of object mode (a located CompileError; Python makes an
# object-mode ufunc of its own first, _objmode.py).
_FORWARDED_OPTIONS = ("boundscheck", "nopython", "forceobj")
# Numba's other target options: accepted and ignored. Any other name is
# refused as Numba refuses it (KeyError on the CPU, TypeError for CUDA).
_IGNORED_OPTIONS = ("nogil", "cache", "target_backend", "looplift", "error_model", "inline", "no_rewrites",
                    "no_cpython_wrapper", "parallel", "debug", "opt", "lineinfo")
_IDENTITIES = (0, 1, None, "reorderable")


class _OutTwiceError(TypeError, ValueError):
    """An output given positionally and as out=: NumPy's TypeError, Numba's ValueError."""


class _WritableArgsError(_ufjit.CompileError, ValueError):
    """writable_args with an index that is not an input's (Numba's ValueError)."""


class _WritableArgsNameError(_ufjit.CompileError, RuntimeError):
    """writable_args naming no parameter (Numba's RuntimeError)."""


def _check_writable_args(spec, name):
    """Numba's checks of writable_args against the inputs, with its classes."""
    if spec.kind != "guvectorize" or not spec.writable_args:
        return
    inputs, outputs = parse_layout(spec.layout)
    nin = len(spec.params) - len(outputs)
    if len(spec.writable_args) > nin:
        raise _WritableArgsError(f"writable_args of {name!r} lists {len(spec.writable_args)} arguments; it has "
                                 f"{nin} inputs")
    for item in spec.writable_args:
        if isinstance(item, str) and item not in spec.params[:nin]:
            raise _WritableArgsNameError(f"writable_args names {item!r}, which is not an input of {name!r}")
        if isinstance(item, int) and not 0 <= item < nin:
            raise _WritableArgsError(f"writable_args index {item} is not an input of {name!r} (0 to {nin - 1})")


class _IdentityError(_ufjit.CompileError, ValueError):
    """An identity Numba refuses (a ValueError there; a CompileError here too)."""


class _Spec:
    """How a ufunc was decorated: what compiling it again needs (``add``,
    ``disable_compile``) and what its attributes report."""

    def __init__(self, kind, signatures, layout, target, identity, fastmath, links, options, is_dynamic=False,
                 writable_args=()):
        self.kind = kind
        self.signatures = signatures
        self.layout = layout
        self.target = target
        self.identity = identity
        self.fastmath = fastmath
        self.links = links
        self.options = options
        self.writable_args = tuple(writable_args or ())
        self.params = []  # the function's parameter names (decorate sets them)
        self.dynamic = not signatures or is_dynamic
        self.compiled = None  # (source, source_name, name, decorator line, links) of the last compile
        self.rebuilt = False  # unpickled: compiled again from `compiled`, not from the Python source
        self.object_mode = options.get("forceobj") is True or options.get("nopython") is False

    @property
    def in_place(self):
        """A gufunc layout without ``->``: no outputs, every argument an input."""
        return self.layout is not None and "->" not in self.layout

    def compiled_layout(self):
        """The layout the C++ compiler gets. One without ``->`` gets a stand-in
        output ``()`` (a parameter the rewritten def adds, never written; the C++
        runtime wants an output) after its inputs."""
        return self.layout + "->()" if self.in_place else self.layout

    def compiled_signatures(self):
        if not self.in_place:
            return self.signatures
        return [f"void({', '.join(split_arguments(s) + ['uint8[:]'])})" for s in self.signatures]

    def compiled_writable_args(self):
        """``writable_args`` as indices; a layout without ``->`` has every input
        with a non-scalar core writable too (Numba's update in place)."""
        indices = [self.params.index(a) if isinstance(a, str) and a in self.params else a
                   for a in self.writable_args]
        if self.in_place:
            cores = parse_layout(self.layout)[0]
            indices += [i for i, core in enumerate(cores) if core and i not in indices]
        return tuple(indices)

    def rewrite(self, text, file, def_line):
        """Adds the stand-in output parameter to the def of an in-place gufunc."""
        if not self.in_place:
            return text
        start = text.index("(", text.index("def "))
        depth = 0
        for pos in range(start, len(text)):
            depth += {"(": 1, ")": -1}.get(text[pos], 0)
            if depth == 0:
                return text[:pos] + ", _ufjit_unused_output" + text[pos:]
        return text

    def line(self):
        args = []
        if self.signatures and not (self.kind == "vectorize" and self.dynamic):
            args.append(repr(list(self.compiled_signatures())))
        if self.layout is not None:
            args.append(repr(self.compiled_layout()))
        if _check_target(self.target) is not None:
            args.append(f"target={_check_target(self.target)!r}")
        if self.fastmath:
            args.append("fastmath=True")
        if self.identity is not None and self.kind == "vectorize":
            args.append(f"identity={self.identity!r}")
        if self.kind == "guvectorize" and self.dynamic and self.signatures:
            args.append("is_dynamic=True")
        if self.compiled_writable_args():
            args.append(f"writable_args={self.compiled_writable_args()!r}")
        for name in _FORWARDED_OPTIONS:
            if name in self.options:
                args.append(f"{name}={self.options[name]!r}")
        return f"@{self.kind}({', '.join(args)})"


def _compile_spec(fn, spec):
    if spec.object_mode:
        return ObjectModeCore(fn, spec.signatures, spec.layout), None
    return _compile(fn, spec.line(), spec.links, spec)


def _check_options(kind, options, target):
    """Numba's refusals of options it does not know, and of object mode for CUDA."""
    unknown = sorted(k for k in options if k not in _FORWARDED_OPTIONS + _IGNORED_OPTIONS)
    cuda = _check_target(target) == "cuda"
    if unknown and cuda and kind == "guvectorize":
        raise TypeError("The following target options are not supported: " + ", ".join(map(repr, unknown)))
    if unknown:
        raise KeyError("Unrecognized options: " + ", ".join(unknown))
    if cuda and options.get("nopython") is False or cuda and options.get("forceobj") is True:
        raise TypeError("nopython flag must be True")
    if cuda and "nopython" in options:
        warnings.warn("nopython kwarg for cuda target is redundant", RuntimeWarning, stacklevel=4)


def _check_identity(identity):
    if not (identity is None or isinstance(identity, (int, str))) or identity not in _IDENTITIES:
        raise _IdentityError(f"invalid identity value {identity!r}: expected 0, 1, None or 'reorderable'")
    if isinstance(identity, bool):
        raise _IdentityError(f"invalid identity value {identity!r}: expected 0, 1, None or 'reorderable'")


def _infer_return_types(fn, spec):
    """Signatures without a return type (``'(f8, f8)'``): Numba infers it.
    A dynamic compile of the function, called once per such signature with
    empty arrays of its argument types, says what it is."""
    missing = [s for s in spec.signatures if not _dynamic.has_return_type(s)]
    if not missing or spec.kind != "vectorize" or spec.object_mode:
        return
    probe = _Spec(spec.kind, [], None, "cpu", None, spec.fastmath, spec.links, dict(spec.options))
    core, _ = _compile(fn, probe.line(), spec.links)
    spec.signatures = [s if _dynamic.has_return_type(s)
                       else _dynamic.compile_types(core, _dynamic.argument_types(s)) for s in spec.signatures]


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
    inputs' common type, NumPy's ``result_type``). ``forceobj=True`` or
    ``nopython=False`` make an object-mode ufunc (_objmode.py).
    """
    bare = callable(signatures) and not isinstance(signatures, (str, list, tuple))
    if kind == "guvectorize":
        if layout is None and _looks_like_layout(signatures):
            signatures, layout = None, signatures  # @guvectorize('(n)->()'): Numba's dynamic gufunc
        if bare or layout is None:
            raise TypeError("ufjit.guvectorize needs a layout, with or without signatures, e.g. "
                            "@guvectorize('(n),(n)->()') or @guvectorize(['void(float64[:], float64[:])'], '(n)->(n)')")
        parse_layout(layout)
    _check_options(kind, options, target)
    _check_identity(identity)
    texts = [] if bare or not signatures else _signature_list(signatures)
    if kind == "guvectorize":
        for text in texts:
            check_signature(layout, text)

    def decorate(fn):
        if not inspect.isfunction(fn) and inspect.isfunction(getattr(fn, "py_func", None)):
            fn = fn.py_func  # a Numba @jit dispatcher: its Python function is compiled
        spec = _Spec(kind, list(texts), layout, target, identity, fastmath, _link_list(link), options,
                     gufunc_options.get("is_dynamic", False), gufunc_options.get("writable_args"))
        spec.params = list(inspect.signature(fn).parameters)
        _check_writable_args(spec, fn.__name__)
        _infer_return_types(fn, spec)
        core, source = _compile_spec(fn, spec)
        ufunc = GUFunc(fn, core, source, spec) if kind == "guvectorize" else UFunc(fn, core, source, spec)
        if texts and not spec.dynamic:
            ufunc._frozen_flag = True  # Numba's decorator freezes a ufunc given its signatures
        return ufunc

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
    array indices (an IndexError); ``forceobj=True`` / ``nopython=False`` make
    an object-mode ufunc (the Python function called per element: slow, CPU
    only); Numba's other options (``nogil``) are accepted and ignored, and
    unknown ones refused (KeyError, as Numba).
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
