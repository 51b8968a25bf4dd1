"""NumPy's conventions around a ufjit ufunc call, so that one behaves as a
``numpy.ufunc`` would: NEP 13 overrides (``__array_ufunc__``), the result
wrapped by its operands' ``__array_wrap__`` (ndarray subclasses,
``np.matrix``), masked arrays (a masked result; masked elements are never
given to the kernel), ``out=`` as one array or a tuple with NumPy's
``casting=`` rules (``'same_kind'`` by default: the result is cast into an
``out=`` of another dtype when the rule allows), and bad arguments refused
with NumPy's exception classes and words. The C++ core (``_ufjit.Ufunc``)
sees plain arrays only.
"""

import operator
import warnings

import numpy as np

from . import _ufjit

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    AxisError = np.AxisError

CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
# Operand types that need none of these conventions (the fast path of a
# call): exact ndarrays, Python numbers and NumPy's scalars.
PLAIN_TYPES = frozenset([np.ndarray, bool, int, float, complex] + [np.dtype(c).type for c in "?bBhHiIlLqQefdgFDG"])
_plain_device_types = {}  # type -> whether its arrays take the fast path (is_plain)


def is_plain(x):
    """Whether a call may pass ``x`` straight to the compiled ufunc, with no
    override, wrap or mask to handle: a plain NumPy array or scalar, or a
    device array (``__cuda_array_interface__``: ufjit's, CuPy's, Numba's),
    whose ``__array_ufunc__`` ufjit never dispatches to, without an
    ``__array_wrap__``. The verdict is kept per type."""
    cls = type(x)
    if cls in PLAIN_TYPES:
        return True
    verdict = _plain_device_types.get(cls)
    if verdict is None:
        verdict = (hasattr(cls, "__cuda_array_interface__") and not hasattr(cls, "__array_wrap__")
                   and not issubclass(cls, np.ndarray))
        _plain_device_types[cls] = verdict
    return verdict
_NDARRAY_UFUNC = np.ndarray.__array_ufunc__


class UFuncCastingError(_ufjit.DispatchError):
    """A cast that ``casting=`` forbids (a TypeError, as NumPy's
    ``UFuncTypeError``), worded as NumPy words it."""


def check_casting(casting):
    if isinstance(casting, str) and casting in CASTINGS:
        return casting
    # NumPy's own words for a bad casting= (they change between versions):
    # np.can_cast parses the keyword as its ufuncs do.
    try:
        np.can_cast(np.float64, np.float64, casting=casting)
    except (TypeError, ValueError) as e:
        raise type(e)(str(e)) from None
    raise ValueError(f"casting must be one of 'no', 'equiv', 'safe', 'same_kind', or 'unsafe' (got {casting!r})")


def _is_array_out(obj):
    return isinstance(obj, (np.ndarray, _ufjit.DeviceArray)) or hasattr(obj, "__cuda_array_interface__")


def normalize_out(out, nout):
    """NumPy's ``out=``: None, one array (one output) or a tuple of one entry
    (None: allocate) per output. Returns the tuple."""
    if out is None:
        return (None,) * nout
    if isinstance(out, tuple):
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly one entry per ufunc output")
        outs = out
    elif nout == 1:
        outs = (out,)
    else:
        raise TypeError("'out' must be a tuple of arrays")
    for o in outs:
        if o is not None and not _is_array_out(o):
            raise TypeError("return arrays must be of ArrayType")
    return outs


# ------------------------------------------------------------------ NEP 13

def _overriding(operands):
    """The operands whose type overrides ``__array_ufunc__`` (NEP 13), one per
    type, subclasses before their bases, else left to right. Device arrays
    (``__cuda_array_interface__``) are read in place, not dispatched: CuPy's
    override would run CuPy's ufunc of the same name instead of the kernel."""
    found = []
    for op in operands:
        cls = type(op)
        override = getattr(cls, "__array_ufunc__", _NDARRAY_UFUNC)
        if op is None or override is _NDARRAY_UFUNC:
            continue
        if override is None:
            raise TypeError(f"operand '{cls.__name__}' does not support ufuncs (__array_ufunc__=None)")
        if (override is _NDARRAY_UFUNC or isinstance(op, np.ma.MaskedArray)
                or hasattr(op, "__cuda_array_interface__") or any(type(f) is cls for f in found)):
            continue
        at = next((i for i, f in enumerate(found) if issubclass(cls, type(f))), len(found))
        found.insert(at, op)
    return found


def dispatch_override(ufunc, method, inputs, kwargs, overriding):
    """Calls each override in turn; the first answer other than NotImplemented
    is the result (NEP 13)."""
    for op in overriding:
        result = type(op).__array_ufunc__(op, ufunc, method, *inputs, **kwargs)
        if result is not NotImplemented:
            return result
    args = [repr(ufunc), repr(method)] + [repr(x) for x in inputs] + [f"{k}={v!r}" for k, v in kwargs.items()]
    operands = list(inputs) + [o for o in kwargs.get("out", ()) if o is not None]
    names = ", ".join(repr(type(x).__name__) for x in operands)
    raise TypeError(f"operand type(s) all returned NotImplemented from __array_ufunc__({', '.join(args)}): {names}")


# ----------------------------------------------------------------- wrapping

def _wrapper(inputs):
    """The ``__array_wrap__`` NumPy would call: that of the operand (not an
    exact ndarray or scalar) with the highest ``__array_priority__``."""
    best, priority = None, None
    for x in inputs:
        if type(x) is np.ndarray or isinstance(x, (np.generic, bool, int, float, complex)) or x is None:
            continue
        wrap = getattr(x, "__array_wrap__", None)
        if wrap is None:
            continue
        p = getattr(x, "__array_priority__", 0.0)
        if best is None or p > priority:
            best, priority = wrap, p
    return best


def wrap_results(ufunc, inputs, results, subok=True):
    """Each result as NumPy returns it: through the operands' __array_wrap__
    (a subclass, np.matrix), else unchanged (a NumPy scalar when 0-d)."""
    wrap = _wrapper(inputs) if subok else None
    if wrap is None:
        return results
    wrapped = []
    for i, r in enumerate(results):
        if not isinstance(r, (np.ndarray, np.generic)):
            wrapped.append(r)  # a DeviceArray
            continue
        arr = np.asarray(r)
        try:
            wrapped.append(wrap(arr, (ufunc, tuple(inputs), i)))
        except TypeError:
            wrapped.append(wrap(arr))
    return wrapped


# ------------------------------------------------------------ casting, out

def _weak(x):
    return type(x) in (bool, int, float, complex)


def _dtype_of(x):
    return x.dtype if hasattr(x, "dtype") else None


# The parameter kinds a weak Python scalar goes to (NEP 50, as dispatch).
_WEAK_KINDS = {bool: "biufc", int: "iufc", float: "fc", complex: "c"}


def _fits(x, param, rule):
    if _weak(x):
        return param.kind in _WEAK_KINDS[type(x)]
    dtype = _dtype_of(x)
    return dtype is None or np.can_cast(dtype, param, rule)


def _loop_inputs(ufunc, inputs):
    """The input dtypes of the signature dispatch picks (the first exact,
    else the first every operand casts to safely), or None."""
    loops = []
    for t in ufunc.types:
        chars = t.split("->")[0]
        if len(chars) == len(inputs):
            loops.append([np.dtype(c) for c in chars])
    for rule in ("no", "safe"):
        for loop in loops:
            if all(_fits(x, p, rule) for x, p in zip(inputs, loop)):
                return loop
    return None


def check_input_casting(ufunc, inputs, casting):
    """casting='no'/'equiv': an array operand that the chosen signature
    converts is refused, in NumPy's words ('safe' and wider hold: dispatch
    only converts safely)."""
    if casting not in ("no", "equiv"):
        return
    loop = _loop_inputs(ufunc, inputs)
    if loop is None:
        return  # no signature: the call's DispatchError says so
    for i, (x, p) in enumerate(zip(inputs, loop)):
        d = _dtype_of(x)
        if d is not None and not _weak(x) and not np.can_cast(d, p, casting):
            raise UFuncCastingError(f"Cannot cast ufunc {ufunc.__name__!r} input {i} from {d!r} to {p!r} "
                                    f"with casting rule {casting!r}")


def check_store(ufunc, result, out, casting):
    """Refuses, as NumPy would, a result that ``casting`` does not allow
    into ``out``'s dtype or whose shape does not broadcast to out's."""
    on_device = _is_device(out) and _is_device(result)
    if not isinstance(out, np.ndarray) and not on_device:
        raise TypeError("an out= of another dtype than the result must be a NumPy array, or a device array for a "
                        "result on the device (the result is cast into it)")
    dtype = result.dtype if on_device else np.asarray(result).dtype
    if not np.can_cast(dtype, out.dtype, casting):
        raise UFuncCastingError(f"Cannot cast ufunc {ufunc.__name__!r} output from {dtype!r} to "
                                f"{out.dtype!r} with casting rule {casting!r}")
    shape = np.broadcast_shapes(np.shape(result), out.shape)
    if shape != out.shape:
        raise ValueError(f"non-broadcastable output operand with shape {out.shape} doesn't match the broadcast "
                         f"shape {shape}")


def _is_device(x):
    return not isinstance(x, np.ndarray) and (isinstance(x, _ufjit.DeviceArray) or
                                               hasattr(x, "__cuda_array_interface__"))


_device_casts = {}  # (from dtype, to dtype) -> the GPU ufunc converting one to the other


def _device_cast(source, target):
    """An elementwise GPU ufunc ``target(source)``: a device result cast into a
    device ``out=`` of another dtype without a trip through the host."""
    key = (np.dtype(source).name, np.dtype(target).name)
    if key not in _device_casts:
        from ._decorators import vectorize

        _device_casts[key] = vectorize([f"{key[1]}({key[0]})"], target="cuda")(lambda x: x)
    return _device_casts[key]


def write(out, result):
    """Copies a checked result into ``out`` (check_store first); on the device
    when both are device arrays."""
    if _is_device(out) and _is_device(result):
        _device_cast(result.dtype, out.dtype)(result, out=out)
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # complex -> real drops the imaginary part, as casting='unsafe' says
        np.copyto(out, result, casting="unsafe")
    return out


def _out_dtype_refused(error):
    return isinstance(error, _ufjit.DispatchError) and str(error).startswith("out(...)")


def check_out_writable(outs):
    for k, o in enumerate(outs):
        if isinstance(o, np.ndarray) and not o.flags.writeable:
            name = "out=" if len(outs) == 1 else f"out[{k}]"
            raise ValueError(f"{name} is a read-only array: pass a writable one")


def run(ufunc, inputs, outs, casting, core_kwargs):
    """The core call with NumPy's out= rules: the kernel writes ``out`` when
    its dtype is the signature's; otherwise (or with some outputs None) the
    results are computed, then cast into ``out`` as ``casting`` allows.
    Returns the list of results (the out arrays where given)."""
    nout = len(outs)
    check_input_casting(ufunc, inputs, casting)
    given = [o for o in outs if o is not None]
    if given:
        check_out_writable(outs)
    if given and len(given) == nout:
        try:
            ufunc._core(*inputs, out=outs if nout > 1 else outs[0], **core_kwargs)
            return list(outs)
        except _ufjit.DispatchError as e:
            if not _out_dtype_refused(e) or not all(isinstance(o, np.ndarray) or _is_device(o) for o in outs):
                raise
    results = ufunc._core(*inputs, **core_kwargs)
    results = list(results) if nout > 1 else [results]
    for o, r in zip(outs, results):  # every check first: nothing is written when one fails
        if o is not None:
            check_store(ufunc, r, o, casting)
    return [r if o is None else write(o, r) for o, r in zip(outs, results)]


# ---------------------------------------------------------- bad arguments

def check_keywords(name, kwargs, allowed):
    for k in kwargs:
        if k not in allowed:
            raise TypeError(f"{name}() got an unexpected keyword argument {k!r}")


def normalize_axis(axis, ndim, several=True):
    """NumPy's axis= of reduce: an int or (several) a tuple of ints, each in
    [-ndim, ndim), none twice. AxisError / TypeError / ValueError as NumPy."""
    if axis is None:
        return None
    items = axis if isinstance(axis, tuple) else (axis,)
    if len(items) > 1 and not several:
        raise ValueError("accumulate does not allow multiple axes")
    normalized = []
    for a in items:
        a = operator.index(a)  # "'str' object cannot be interpreted as an integer"
        if not -ndim <= a < ndim:
            raise AxisError(a, ndim)
        a %= max(ndim, 1)
        if a in normalized:
            raise ValueError("duplicate value in 'axis'")
        normalized.append(a)
    return tuple(normalized) if isinstance(axis, tuple) else normalized[0]


def check_core_axes(kwargs):
    """A gufunc's axis= (an int) and axes= (a list of ints or tuples of
    ints), typed as NumPy checks them; ranges are the C++ runtime's."""
    if kwargs.get("axis") is not None:
        kwargs["axis"] = operator.index(kwargs["axis"])
    axes = kwargs.get("axes")
    if axes is not None:
        if not isinstance(axes, list):
            raise TypeError("axes should be a list.")
        kwargs["axes"] = [tuple(operator.index(a) for a in entry) if isinstance(entry, tuple)
                          else operator.index(entry) for entry in axes]


def check_target(target):
    if target is not None and not isinstance(target, str):
        raise TypeError(f"target= must be 'cpu', 'cuda' or None, not {type(target).__name__}")


def check_flag(value):
    """keepdims=: a bool or an int, as NumPy reads it."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    return bool(operator.index(value))


def check_initial(initial):
    """initial=: a number (Python, NumPy scalar or 0-d array), as NumPy
    converts it; None: none."""
    if initial is None or isinstance(initial, (bool, int, float, complex, np.number, np.bool_)):
        return initial
    if isinstance(initial, (str, bytes)):
        raise ValueError(f"could not convert string to float: {initial!r}")
    if isinstance(initial, np.ndarray) or hasattr(initial, "__array__") or isinstance(initial, (list, tuple)):
        a = np.asarray(initial)
        if a.ndim != 0:
            raise ValueError("setting an array element with a sequence.")
        if a.dtype.kind not in "biufc":
            raise TypeError(f"initial= must be a number, not an array of {a.dtype}")
        return a[()]
    raise TypeError(f"float() argument must be a string or a real number, not '{type(initial).__name__}'")


def ndim_of(x):
    return x.ndim if hasattr(x, "ndim") else np.ndim(x)
