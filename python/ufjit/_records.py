"""Records (NumPy structured dtypes) as kernel arguments.

A kernel receives an array of records as the bytes of its elements: a uint8
view with one more dimension, the record's bytes, and a signature type that
spells the record's fields (``record(a: float64 @0, ..., itemsize=16)[:]``)
so that the compiler reads ``r.a`` at the right offset. One record (a
``numpy.void`` or ``numpy.record``, which views its array's memory) is a
record array of no dimensions: writes to it reach the array it came from, as
in Numba.
"""

import numpy as np


def is_record_argument(arg):
    """Whether ``arg`` is a record or an array of records."""
    dtype = getattr(arg, "dtype", None)
    return isinstance(dtype, np.dtype) and dtype.names is not None


def record_type(dtype):
    """The signature spelling of structured ``dtype``; TypeError for fields
    the compiler cannot hold (nested records, strings, dates)."""
    fields = []
    for name in dtype.names:
        field, offset = dtype.fields[name][:2]
        base, shape = (field.base, field.shape) if field.subdtype is not None else (field, ())
        if base.names is not None or base.kind not in "biufc":
            raise TypeError(f"field '{name}' of record dtype {dtype} has dtype {base}: a record's fields in a kernel "
                            "are numbers or arrays of numbers (no nested records, strings or dates)")
        if not name.isidentifier():
            raise TypeError(f"field '{name}' of record dtype {dtype} is not an identifier, which a kernel cannot name")
        extent = f"({', '.join(str(n) for n in shape)})" if shape else ""
        fields.append(f"{name}: {base.name}{extent} @{offset}")
    return f"record({', '.join(fields)}, itemsize={dtype.itemsize})"


def numba_record_type(record):
    """The signature spelling of Numba's Record type (``from_dtype(dtype)``)."""
    fields = []
    for name, info in record.fields.items():
        field = info.type
        if hasattr(field, "shape") and hasattr(field, "dtype"):  # a NestedArray
            text = f"{field.dtype}({', '.join(str(n) for n in field.shape)})"
        else:
            text = str(field)
        fields.append(f"{name}: {text} @{info.offset}")
    return f"record({', '.join(fields)}, itemsize={record.size})"


def argument_type(arg):
    """The signature type of a record argument: the record type, with one
    ``:`` per dimension of an array of them."""
    ndim = 0 if isinstance(arg, np.void) else len(arg.shape)
    dims = f"[{', '.join([':'] * ndim)}]" if ndim else ""
    return record_type(arg.dtype) + dims


def as_bytes(arg):
    """The uint8 view a kernel receives for a record argument (the same
    memory: the kernel's writes reach the caller's array)."""
    if isinstance(arg, np.void):
        arg = np.asarray(arg)  # a 0-d view of the record's array
    elif not isinstance(arg, np.ndarray):
        raise TypeError(f"an array of records of type {type(arg).__name__} cannot be passed to a kernel; "
                        "pass a NumPy array")
    return arg.view(np.ndarray)[..., np.newaxis].view(np.uint8)
