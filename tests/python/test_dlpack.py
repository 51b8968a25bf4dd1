"""DLPack on the CPU: ufjit.from_dlpack on NumPy's own __dlpack__ and on raw
capsules (zero-copy, strides, every dtype NumPy exports), the capsule
protocol (renamed "used_dltensor" when consumed, the deleter run exactly
once, an unconsumed capsule freed), objects with only __dlpack__ passed to
ufuncs, and ufjit's own exporter (the one DeviceArray.__dlpack__ uses) read
back by NumPy and by ufjit. Deleter counts are read from the reference count
of the NumPy array each capsule keeps alive."""

import ctypes
import gc
import sys

import numpy as np
import pytest

import ufjit
from ufjit import _ufjit, vectorize

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


def numpy_exports(dtype):
    """NumPy < 1.25 exports no bool through DLPack."""
    try:
        np.zeros(1, dtype).__dlpack__()
    except BufferError:
        return False
    return True


NUMPY_DTYPES = [d for d in DTYPES if numpy_exports(d)]


@vectorize(["float32(float32)", "float64(float64)", "int64(int64)"], target="cpu")
def twice(x):
    return x + x


class DLPackOnly:
    """Offers only __dlpack__ and __dlpack_device__ (as a JAX array does), for
    a producer's tensor or a bare capsule (then a host one), and records the
    stream each __dlpack__ call was given."""

    def __init__(self, source):
        self.source = source
        self.streams = []

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        if hasattr(self.source, "__dlpack__"):
            return self.source.__dlpack__(stream=stream)
        return self.source  # a capsule

    def __dlpack_device__(self):
        if hasattr(self.source, "__dlpack_device__"):
            return self.source.__dlpack_device__()
        return (1, 0)  # kDLCPU


def capsule_name(capsule):
    get_name = ctypes.pythonapi.PyCapsule_GetName
    get_name.restype = ctypes.c_char_p
    get_name.argtypes = [ctypes.py_object]
    return get_name(capsule).decode()


def refs(a):
    gc.collect()
    return sys.getrefcount(a)


def test_numpy_exports_the_dtypes_its_version_documents():
    expected = set(DTYPES) if np.lib.NumpyVersion(np.__version__) >= "1.25.0" else set(DTYPES) - {"bool"}
    assert set(NUMPY_DTYPES) == expected


@pytest.mark.parametrize("dtype", NUMPY_DTYPES)
def test_every_dtype_numpy_exports_comes_in_without_a_copy(dtype):
    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    r = ufjit.from_dlpack(a)
    assert type(r) is np.ndarray and r.dtype == np.dtype(dtype) and r.shape == a.shape
    assert np.shares_memory(r, a)
    np.testing.assert_array_equal(r, a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_through_ufjits_exporter(dtype):
    a = (np.arange(12) % 5).astype(dtype).reshape(3, 4)[:, ::-2]
    r = ufjit.from_dlpack(_ufjit._export_dlpack(a))
    assert r.dtype == np.dtype(dtype) and r.strides == a.strides and np.shares_memory(r, a)
    np.testing.assert_array_equal(r, a)
    if dtype in NUMPY_DTYPES:
        n = np.from_dlpack(DLPackOnly(_ufjit._export_dlpack(a)))
        assert n.dtype == np.dtype(dtype) and np.shares_memory(n, a)
        np.testing.assert_array_equal(n, a)


@pytest.mark.parametrize("view", [
    lambda a: a[::-1],
    lambda a: a[:, ::-2],
    lambda a: a.T,
    lambda a: a[1:, 1::3],
    lambda a: a[2, 3, ...],  # 0-d
    lambda a: a[:0],  # empty
])
def test_strides_and_shapes_are_kept(view):
    a = np.arange(42, dtype=np.float64).reshape(6, 7)
    v = view(a)
    r = ufjit.from_dlpack(v)
    assert r.shape == v.shape
    if v.size > 1:
        assert r.strides == v.strides and np.shares_memory(r, a)
    np.testing.assert_array_equal(r, v)
    np.testing.assert_array_equal(twice(DLPackOnly(v)), v + v)


def test_a_consumed_capsule_is_renamed_and_deleted_once():
    a = np.arange(6.0)
    base = refs(a)
    capsule = a.__dlpack__()
    assert capsule_name(capsule) == "dltensor" and refs(a) == base + 1
    r = ufjit.from_dlpack(capsule)
    assert capsule_name(capsule) == "used_dltensor"
    with pytest.raises(ValueError, match="already consumed"):
        ufjit.from_dlpack(capsule)
    del capsule  # NumPy's capsule destructor leaves a used capsule alone
    assert refs(a) == base + 1
    r[0] = 42.0  # zero-copy and writable
    assert a[0] == 42.0
    del r  # the deleter: once
    assert refs(a) == base


def test_ufjits_capsules_unconsumed_consumed_by_numpy_or_by_ufjit():
    a = np.arange(6.0)
    base = refs(a)
    capsule = _ufjit._export_dlpack(a)
    assert capsule_name(capsule) == "dltensor" and refs(a) == base + 1
    del capsule  # never consumed: ufjit's capsule destructor frees it
    assert refs(a) == base

    capsule = _ufjit._export_dlpack(a)
    n = np.from_dlpack(DLPackOnly(capsule))
    assert capsule_name(capsule) == "used_dltensor"
    del capsule
    assert refs(a) == base + 1
    np.testing.assert_array_equal(n, a)
    del n
    assert refs(a) == base

    capsule = _ufjit._export_dlpack(a)
    r = ufjit.from_dlpack(capsule)
    del capsule
    assert refs(a) == base + 1
    del r
    assert refs(a) == base


def test_ufunc_calls_take_objects_with_only_dlpack():
    a = np.arange(10, dtype=np.float32)
    x = DLPackOnly(a[::2])
    np.testing.assert_array_equal(twice(x), a[::2] * 2)
    assert x.streams == [None]  # a host producer is asked with stream=None
    base = refs(a)
    r = twice(DLPackOnly(a), out=np.empty_like(a))
    assert refs(a) == base  # the consumed tensor was released after the call
    np.testing.assert_array_equal(r, a * 2)


class CannotExport:
    """A producer whose __dlpack__ refuses (BufferError, as NumPy's does for a
    read-only array) but that np.asarray reads."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        raise BufferError("cannot export")

    def __array__(self, dtype=None, copy=None):  # NumPy 2 passes copy=
        return self.a


def test_a_producer_that_cannot_export_is_read_as_np_asarray_reads_it():
    a = np.arange(4, dtype=np.float64)
    np.testing.assert_array_equal(twice(CannotExport(a)), a + a)
    with pytest.raises(BufferError):
        ufjit.from_dlpack(CannotExport(a))


def test_errors():
    with pytest.raises(TypeError, match="__dlpack__"):
        ufjit.from_dlpack([1.0, 2.0])
    new_capsule = ctypes.pythonapi.PyCapsule_New
    new_capsule.restype = ctypes.py_object
    new_capsule.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
    name = b"not_a_dltensor"  # outlives the capsule
    with pytest.raises(ValueError):
        ufjit.from_dlpack(new_capsule(ctypes.addressof(ctypes.c_int(0)), name, None))
