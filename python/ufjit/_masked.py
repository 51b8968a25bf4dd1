"""Masked arrays (``numpy.ma``) through ufjit's ufuncs: the result is masked
where any operand is, as NumPy's ufuncs return it, and the kernel never
sees a masked element (its hidden data may be garbage: a ``raise`` or a
domain error there must not show). Masked positions of the result hold
the first operand's data there, as ``numpy.ma``'s own operations leave
them. Reductions skip masked elements (``numpy.ma``'s ``add.reduce``):
the result is masked where every element reduced was.
"""

import numpy as np

from . import _numpy_calls as calls

_MA = np.ma.MaskedArray


def any_masked(values):
    return any(isinstance(x, _MA) for x in values)


def _as_masked(data, mask, like):
    """``data`` as the masked type of ``like`` with ``mask``;
    ``np.ma.masked`` for a masked 0-d result (NumPy's)."""
    if np.ndim(data) == 0 and bool(mask):
        return np.ma.masked
    result = np.asarray(data).view(type(like))
    result.mask = mask
    return result


def _first_masked(values):
    return next(x for x in values if isinstance(x, _MA))


def _fill_hidden(full, first, mask):
    """Masked positions of a result take the first operand's data."""
    if not mask.any():
        return
    source = np.broadcast_to(np.asarray(np.ma.getdata(first)), full.shape)
    with np.errstate(all="ignore"):
        full[mask] = source[mask].astype(full.dtype, casting="unsafe")


def call(ufunc, inputs, outs, casting, core_kwargs):
    """A call of an elementwise ufunc with masked operands (or outputs)."""
    if ufunc.nout != 1 or getattr(ufunc, "layout", None):
        raise TypeError(f"ufjit's gufunc {ufunc.__name__!r} does not take masked arrays: pass a.filled(value) "
                        "or np.ma.getdata(a)")
    data = [np.ma.getdata(x) if isinstance(x, _MA) else x for x in inputs]
    shape = np.broadcast_shapes(*(np.shape(d) for d in data))
    mask = np.zeros(shape, bool)
    for x in inputs:
        if isinstance(x, _MA):
            mask |= np.ma.getmaskarray(x)
    keep = ~mask
    calls.check_input_casting(ufunc, data, casting)
    picked = [d if calls._weak(d) else np.broadcast_to(d, shape)[keep] for d in data]
    part = np.asarray(ufunc._core(*picked, **core_kwargs))
    full = np.empty(shape, part.dtype)
    full[keep] = part
    _fill_hidden(full, inputs[0], mask)
    out = outs[0]
    if out is None:
        return _as_masked(full, mask, _first_masked(inputs))
    target = np.ma.getdata(out) if isinstance(out, _MA) else out
    calls.check_out_writable((target,))
    calls.check_store(ufunc, full, target, casting)
    calls.write(target, full)
    if isinstance(out, _MA):
        out.mask = np.broadcast_to(mask, out.shape)
    return out


def _method_out(out):
    return np.ma.getdata(out) if isinstance(out, _MA) else out


def _method_result(result, mask, out, like):
    """A method's answer: ``out`` (given its mask when masked), else the
    result masked as ``like``."""
    if out is None:
        return _as_masked(result, mask, like)
    if isinstance(out, _MA):
        out.mask = mask
    return out


def reduce(ufunc, array, axis, keepdims, initial, out, dtype, where):
    """ufunc.reduce over the unmasked elements (``where=`` the mask's
    complement): needs the ufunc's identity or ``initial``."""
    data, mask = np.ma.getdata(array), np.ma.getmaskarray(array)
    if mask.any() and ufunc.identity in (None, "reorderable") and initial is None:
        raise ValueError(f"reduce of a masked array skips its masked elements, which needs an identity: "
                         f"{ufunc.__name__!r} has none, give initial=")
    keep = ~mask if where is True or where is None else ~mask & np.asarray(where, bool)
    all_axes = axis is None
    result = ufunc._core.reduce(data, axis=axis, keepdims=keepdims, initial=initial, out=_method_out(out),
                                dtype=dtype, where=keep)
    reduced_mask = np.logical_and.reduce(mask, axis=None if all_axes else axis, keepdims=keepdims)
    return _method_result(result, reduced_mask, out, array)


def accumulate(ufunc, array, axis, out, dtype):
    """ufunc.accumulate with masked elements replaced by the identity (as
    ``numpy.ma``'s accumulate); the result keeps the operand's mask."""
    data, mask = np.ma.getdata(array), np.ma.getmaskarray(array)
    if mask.any():
        if ufunc.identity not in (0, 1):
            raise ValueError(f"accumulate of a masked array replaces its masked elements by the ufunc's identity: "
                             f"{ufunc.__name__!r} has none (identity=0 or 1 on the decorator)")
        data = np.where(mask, np.asarray(ufunc.identity).astype(data.dtype), data)
    result = ufunc._core.accumulate(data, axis=axis, out=_method_out(out), dtype=dtype)
    return _method_result(result, mask, out, array)


def outer(ufunc, a, b, outs, core_kwargs):
    """ufunc.outer as a call on broadcast views (masks broadcast with them)."""
    a_view = a.reshape(np.shape(a) + (1,) * np.ndim(b)) if isinstance(a, _MA) else \
        np.reshape(a, np.shape(a) + (1,) * np.ndim(b))
    return call(ufunc, (a_view, b), outs, "same_kind", core_kwargs)
