"""Numba's type objects for signatures, so that ``from numba import
vectorize, int32, float64[:]``-style code runs with the import changed:

    @vectorize([int32(int32, int32), float64(float64, float64)])
    @guvectorize([(int64[:], int64, int64[:])], '(n),()->(n)')

A scalar type called with argument types is a signature (``int32(int32,
int32)``); indexed with slices it is an array type (``float64[:, ::1]``); a
tuple of argument types is a ``void`` signature. They print as the
signature strings the compiler reads. ``signature_text`` also reads Numba's
own type objects (``numba.float64[:]`` prints as ``array(float64, 1d, A)``).
"""

from . import _records

__all__ = ["boolean", "bool_", "b1", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
           "intp", "uintp", "int_", "float16", "float32", "float64", "float_", "double", "complex64", "complex128",
           "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "void", "none",
           "signature_text"]


class Signature:
    """``ret(args...)``: what a scalar type called with types gives."""

    def __init__(self, return_type, args):
        self.return_type = return_type
        self.args = tuple(args)

    def __str__(self):
        return f"{_type_text(self.return_type)}({', '.join(_type_text(a) for a in self.args)})"

    __repr__ = __str__


class ArrayType:
    """``dtype[:]``, ``dtype[:, ::1]``: an array argument of a gufunc."""

    def __init__(self, dtype, key):
        keys = key if isinstance(key, tuple) else (key,)
        if not keys or not all(isinstance(k, slice) for k in keys):
            raise TypeError(f"array types are written {dtype}[:] or {dtype}[:, ::1], not {dtype}[{key!r}]")
        self.dtype = dtype
        self.dims = [("::1" if k.step == 1 else ":") for k in keys]

    @property
    def ndim(self):
        return len(self.dims)

    def __str__(self):
        return f"{self.dtype}[{', '.join(self.dims)}]"

    __repr__ = __str__


class ScalarType:
    """A scalar type of the kernel language (``float32``)."""

    def __init__(self, name):
        self.name = name

    def __call__(self, *args):
        return Signature(self, args)

    def __getitem__(self, key):
        return ArrayType(self, key)

    def __str__(self):
        return self.name

    __repr__ = __str__


boolean = bool_ = b1 = ScalarType("bool")
int8 = i1 = ScalarType("int8")
int16 = i2 = ScalarType("int16")
int32 = i4 = ScalarType("int32")
int64 = i8 = intp = int_ = ScalarType("int64")
uint8 = u1 = ScalarType("uint8")
uint16 = u2 = ScalarType("uint16")
uint32 = u4 = ScalarType("uint32")
uint64 = u8 = uintp = ScalarType("uint64")
float16 = f2 = ScalarType("float16")
float32 = f4 = ScalarType("float32")
float64 = f8 = float_ = double = ScalarType("float64")
complex64 = c8 = ScalarType("complex64")
complex128 = c16 = ScalarType("complex128")
void = none = ScalarType("void")


def _type_text(t):
    """One type as the compiler reads it: ours print so; Numba's arrays
    (``.dtype``, ``.ndim``) become ``dtype[:, ...]``, its ``none`` ``void``."""
    if isinstance(t, (ScalarType, ArrayType, str)):
        return str(t)
    if hasattr(t, "dtype") and isinstance(getattr(t, "ndim", None), int):
        layout = getattr(t, "layout", "A")
        dims = [":"] * t.ndim
        if layout == "C" and dims:
            dims[-1] = "::1"
        elif layout == "F" and dims:
            dims[0] = "::1"
        return f"{_type_text(t.dtype)}[{', '.join(dims)}]"
    if all(hasattr(t, attr) for attr in ("fields", "size", "aligned")):  # Numba's Record
        return _records.numba_record_type(t)
    text = str(t)
    return "void" if text == "none" else text


def signature_text(signature):
    """A signature as the compiler reads it: a string as it is; ``int32(int32,
    int32)`` and Numba's Signature objects (``return_type``, ``args``) as
    ``ret(args)``; a tuple of argument types as ``void(args)``."""
    if isinstance(signature, str):
        return signature
    if isinstance(signature, tuple):
        return f"void({', '.join(_type_text(a) for a in signature)})"
    if hasattr(signature, "return_type") and hasattr(signature, "args"):
        ret = "void" if signature.return_type is None else _type_text(signature.return_type)
        return f"{ret}({', '.join(_type_text(a) for a in signature.args)})"
    return _type_text(signature)
