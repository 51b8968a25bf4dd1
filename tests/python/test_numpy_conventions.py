"""NumPy's conventions for ufunc calls, each checked against what NumPy's
own np.add does with the same arguments: NEP 13 overrides, subclasses and
np.matrix, masked arrays, out= with casting=, out=(o,), and bad arguments
raising NumPy's exception classes with NumPy's words."""

import numpy as np
import pytest

import ufjit
from ufjit import guvectorize, vectorize

try:
    from numpy.exceptions import AxisError
except ImportError:  # NumPy < 1.25
    AxisError = np.AxisError


@vectorize(["int64(int64, int64)", "float32(float32, float32)", "float64(float64, float64)",
            "complex128(complex128, complex128)"], identity=0, target="cpu")
def add(x, y):
    return x + y


@vectorize(["float64(float64)"], target="cpu")
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return x ** 0.5


@vectorize(["float64(float64, float64)"], target="cpu")
def maximum(x, y):
    return x if x > y else y


@guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target="cpu")
def dot(a, b, res):
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    res[0] = acc


def numpy_error(fn):
    """The exception NumPy raises (its class and message)."""
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def same_error(ours, numpys):
    """``ours`` raises what ``numpys`` raises: the same builtin class (NumPy's
    own classes derive from them) and the same message."""
    expected = numpy_error(numpys)
    builtin = next(c for c in type(expected).__mro__ if c.__module__ == "builtins")
    with pytest.raises(builtin) as info:
        ours()
    assert str(info.value) == str(expected)
    return info.value


# ------------------------------------------------------------------ NEP 13

class Overrides:
    def __init__(self):
        self.seen = None

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        self.seen = (ufunc, method, inputs, kwargs)
        return "handled"


class Declines:
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return NotImplemented


class Refuses:
    __array_ufunc__ = None


def test_an_operand_that_overrides_array_ufunc_answers_the_call():
    o = Overrides()
    x = np.arange(3.0)
    assert add(x, o) == "handled"
    assert o.seen[0] is add and o.seen[1] == "__call__" and o.seen[2][0] is x and o.seen[2][1] is o
    out = np.empty(3)
    assert add(x, o, out=out) == "handled" and o.seen[3]["out"] == (out,)
    assert add.reduce(o, axis=0) == "handled" and o.seen[1] == "reduce"
    assert add.accumulate(o) == "handled" and o.seen[1] == "accumulate"
    assert add.outer(x, o) == "handled" and o.seen[1] == "outer"


def test_every_operand_declining_is_a_type_error_as_numpy_words_it():
    d = Declines()
    with pytest.raises(TypeError, match=r"operand type\(s\) all returned NotImplemented from __array_ufunc__\("
                                        r".*'__call__'.*: 'ndarray', 'Declines'$"):
        add(np.arange(3.0), d)
    with pytest.raises(TypeError, match=r"operand 'Refuses' does not support ufuncs \(__array_ufunc__=None\)"):
        add(1.0, Refuses())
    with pytest.raises(TypeError, match=r"all returned NotImplemented.*'reduce'"):
        add.reduce(d)


def test_subclasses_before_their_bases():
    order = []

    class Base:
        def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
            order.append(type(self).__name__)
            return NotImplemented

    class Derived(Base):
        pass

    with pytest.raises(TypeError):
        add(Base(), Derived())
    assert order == ["Derived", "Base"]


# ------------------------------------------------------ subclasses, matrix

class Tagged(np.ndarray):
    """A subclass that keeps an attribute through views (__array_finalize__)."""

    def __array_finalize__(self, obj):
        self.tag = getattr(obj, "tag", "none")


def test_subclasses_and_matrix_come_back_as_numpy_returns_them():
    t = np.arange(4.0).view(Tagged)
    t.tag = "kept"
    for ours, numpys in [(add(t, 1.0), np.add(t, 1.0)), (add.reduce(t), np.add.reduce(t)),
                         (add.reduce(t, keepdims=True), np.add.reduce(t, keepdims=True)),
                         (add.accumulate(t), np.add.accumulate(t)), (add.outer(t, t), np.add.outer(t, t))]:
        assert type(ours) is type(numpys) and ours.tag == numpys.tag == "kept"
        np.testing.assert_array_equal(ours, numpys)
    assert type(add(t, 1.0, subok=False)) is np.ndarray
    m = np.matrix([[1.0, 2.0], [3.0, 4.0]])
    for ours, numpys in [(add(m, 1.0), np.add(m, 1.0)), (add(m, m), np.add(m, m)),
                         (add.reduce(m, axis=1), np.add.reduce(m, axis=1)),
                         (add.accumulate(m, axis=1), np.add.accumulate(m, axis=1))]:
        assert type(ours) is type(numpys) is np.matrix
        assert ours.shape == numpys.shape
        np.testing.assert_array_equal(ours, numpys)


class Wrapped:
    """Not an ndarray: __array__ in, __array_wrap__ out."""

    def __init__(self, data):
        self.data = np.asarray(data)

    def __array__(self, dtype=None):
        return self.data

    def __array_wrap__(self, array, context=None, return_scalar=False):
        return Wrapped(array)


def test_array_wrap_of_a_non_array_operand_wraps_the_result():
    r = add(Wrapped([1.0, 2.0]), 1.0)
    assert isinstance(r, Wrapped)
    np.testing.assert_array_equal(r.data, [2.0, 3.0])


class Exploding:
    def __array__(self, dtype=None):
        raise KeyError("the operand's own error")


def test_an_exception_raised_by_array_passes_through_unchanged():
    for call in (lambda: add(Exploding(), 1.0), lambda: add.reduce(Exploding()), lambda: dot(Exploding(), [1.0])):
        with pytest.raises(KeyError, match="the operand's own error"):
            call()


# ---------------------------------------------------------------- masked

def test_a_masked_array_gives_a_masked_result_and_hides_masked_data():
    m = np.ma.array([4.0, -1.0, 9.0], mask=[False, True, False])
    r = checked_sqrt(m)  # the masked -1 never reaches the kernel: no ValueError
    expected = np.sqrt(m)
    assert isinstance(r, np.ma.MaskedArray)
    np.testing.assert_array_equal(np.ma.getmaskarray(r), np.ma.getmaskarray(expected))
    np.testing.assert_array_equal(r.compressed(), expected.compressed())
    two = np.ma.array([1.0, 2.0, 3.0], mask=[True, False, False])
    r = add(m, two)
    np.testing.assert_array_equal(np.ma.getmaskarray(r), np.ma.getmaskarray(np.add(m, two)))
    np.testing.assert_array_equal(r.compressed(), np.add(m, two).compressed())
    assert checked_sqrt(np.ma.array(-1.0, mask=True)) is np.ma.masked
    out = np.ma.zeros(3)
    assert add(m, 1.0, out=out) is out
    np.testing.assert_array_equal(np.ma.getmaskarray(out), m.mask)


def test_masked_methods_skip_masked_elements():
    m = np.ma.array([[1.0, 100.0], [3.0, 4.0]], mask=[[False, True], [False, False]])
    for axis in (0, 1, None):
        ours, numpys = add.reduce(m, axis=axis), np.ma.add.reduce(m, axis=axis)
        np.testing.assert_array_equal(np.ma.filled(ours, -1), np.ma.filled(numpys, -1))
    acc = add.accumulate(m, axis=1)
    np.testing.assert_array_equal(np.ma.getmaskarray(acc), m.mask)
    np.testing.assert_array_equal(acc.compressed(), np.ma.add.accumulate(m, axis=1)[~m.mask])
    o = add.outer(m[0], np.ma.array([1.0, 2.0], mask=[False, True]))
    np.testing.assert_array_equal(np.ma.getmaskarray(o), [[False, True], [True, True]])
    assert o[0, 0] == 2.0
    with pytest.raises(ValueError, match="needs an identity"):
        maximum.reduce(m)


# ------------------------------------------------------------- out, casting

def test_out_casting_follows_numpys_same_kind_default():
    x = np.arange(3.0)
    o32 = np.empty(3, np.float32)
    assert add(x, 1.0, out=o32) is o32
    np.testing.assert_array_equal(o32, np.add(x, 1.0, out=np.empty(3, np.float32)))
    same_error(lambda: add(x, 1.0, out=np.empty(3, np.int64)), lambda: np.add(x, 1.0, out=np.empty(3, np.int64)))
    oi = np.empty(3, np.int64)
    add(x + 0.5, 1.0, out=oi, casting="unsafe")
    np.testing.assert_array_equal(oi, np.add(x + 0.5, 1.0, out=np.empty(3, np.int64), casting="unsafe"))
    same_error(lambda: add(x, 1.0, out=o32, casting="no"), lambda: np.add(x, 1.0, out=o32, casting="no"))
    same_error(lambda: add(np.arange(3), 1.5, casting="no"), lambda: np.add(np.arange(3), 1.5, casting="no"))
    np.testing.assert_array_equal(add(np.arange(3), 1.5, casting="safe"), np.add(np.arange(3), 1.5))
    same_error(lambda: add(x, 1.0, casting="bogus"), lambda: np.add(x, 1.0, casting="bogus"))
    same_error(lambda: add(x, 1.0, casting=3), lambda: np.add(x, 1.0, casting=3))


def test_a_refused_cast_writes_nothing():
    untouched = np.full(3, 7, np.int64)
    with pytest.raises(TypeError):
        add(np.arange(3.0), 1.0, out=untouched)
    np.testing.assert_array_equal(untouched, [7, 7, 7])


def test_out_tuples_as_numpy():
    x = np.arange(3.0)
    o = np.empty(3)
    assert add(x, 1.0, out=(o,)) is o
    assert add(x, 1.0, o) is o
    np.testing.assert_array_equal(add(x, 1.0, out=(None,)), np.add(x, 1.0, out=(None,)))
    same_error(lambda: add(x, 1.0, out=(o, o)), lambda: np.add(x, 1.0, out=(o, o)))
    same_error(lambda: add(x, 1.0, out=[0.0] * 3), lambda: np.add(x, 1.0, out=[0.0] * 3))
    same_error(lambda: add(x, 1.0, o, out=o), lambda: np.add(x, 1.0, o, out=o))
    r = np.empty(())
    assert add.reduce(x, out=(r,)) is r and r == 3.0


# ------------------------------------------------------------ bad arguments

@pytest.mark.parametrize("kwargs", [dict(axis=5), dict(axis=-2), dict(axis="x"), dict(axis=1.5), dict(axis=(0, 0)),
                                    dict(axis=[0]), dict(initial="x"), dict(initial=[1, 2]), dict(initial=object()),
                                    dict(keepdims="x"), dict(dtype="bogus")])
def test_bad_method_arguments_raise_numpys_errors(kwargs):
    x = np.arange(3.0)
    error = same_error(lambda: add.reduce(x, **kwargs), lambda: np.add.reduce(x, **kwargs))
    assert "pybind11" not in str(error) and "(self:" not in str(error)
    if kwargs.get("axis") in (5, -2):
        assert isinstance(error, AxisError) and isinstance(error, IndexError)


def test_bad_accumulate_axes_and_keywords():
    x = np.ones((2, 2))
    same_error(lambda: add.accumulate(x, axis=3), lambda: np.add.accumulate(x, axis=3))
    same_error(lambda: add.accumulate(x, axis=None), lambda: np.add.accumulate(x, axis=None))
    same_error(lambda: add.accumulate(x, axis=(0, 1)), lambda: np.add.accumulate(x, axis=(0, 1)))
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        add.reduce(x, bogus=1)
    with pytest.raises(TypeError, match="unexpected keyword argument 'bogus'"):
        add(x, x, bogus=1)
    with pytest.raises(TypeError, match=r"add\(\) takes from 2 to 3 positional arguments but 1 were given"):
        add(x)
    with pytest.raises(TypeError, match=r"add\(\) takes from 2 to 3 positional arguments but 4 were given"):
        add(x, x, x, x)


def test_bad_gufunc_axes_and_targets_raise_numpys_errors_not_pybind11s():
    a = np.ones((2, 3))
    for kwargs, error, words in [(dict(axis=1.5), TypeError, "'float' object cannot be interpreted as an integer"),
                                 (dict(axes=1.5), TypeError, "axes should be a list."),
                                 (dict(axes=[(0,), ("x",), ()]), TypeError,
                                  "'str' object cannot be interpreted as an integer"),
                                 (dict(target=3), TypeError, "target= must be 'cpu', 'cuda' or None, not int")]:
        with pytest.raises(error) as info:
            dot(a, a, **kwargs)
        assert str(info.value) == words
    np.testing.assert_array_equal(dot(a, a, axes=[0, 0, ()]), np.einsum("ij,ij->j", a, a))


def test_reduce_over_no_axis_passes_each_element_through_as_numpy():
    a = np.arange(6.0).reshape(2, 3)
    for kwargs in (dict(), dict(initial=5.0), dict(where=np.array([True, False, True]), initial=0.0)):
        ours, numpys = add.reduce(a, axis=(), **kwargs), np.add.reduce(a, axis=(), **kwargs)
        assert ours.shape == numpys.shape and ours.dtype == numpys.dtype
        np.testing.assert_array_equal(ours, numpys)


class Unwraps(np.ndarray):
    """NumPy's documented subclass pattern: views its operands as ndarray and
    defers to ndarray.__array_ufunc__, which calls the ufunc again."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        args = [i.view(np.ndarray) if isinstance(i, Unwraps) else i for i in inputs]
        result = super().__array_ufunc__(ufunc, method, *args, **kwargs)
        return NotImplemented if result is NotImplemented else np.asarray(result).view(Unwraps)


class Defers(np.ndarray):
    """Defers to ndarray.__array_ufunc__ without unwrapping: NumPy declines."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return super().__array_ufunc__(ufunc, method, *inputs, **kwargs)


def test_subclasses_deferring_to_ndarray_array_ufunc_behave_as_with_numpy():
    u = np.arange(3.0).view(Unwraps)
    ours, numpys = add(u, 1.0), np.add(u, 1.0)
    assert type(ours) is type(numpys) is Unwraps
    assert np.array_equal(ours.view(np.ndarray), numpys.view(np.ndarray))
    d = np.arange(3.0).view(Defers)
    expected = numpy_error(lambda: np.add(d, 1.0))
    with pytest.raises(TypeError) as info:
        add(d, 1.0)
    assert str(info.value).split("'__call__'")[1] == str(expected).split("'__call__'")[1]


class _DeviceLike:
    """What a device array shows a call: __cuda_array_interface__ only."""

    @property
    def __cuda_array_interface__(self):
        return {"shape": (1,), "typestr": "<f8", "data": (0, False), "version": 3}


class _WrappedDeviceLike(_DeviceLike):
    def __array_wrap__(self, array, context=None, return_scalar=False):
        return array


def test_plain_operands_and_device_arrays_go_straight_to_the_kernel():
    # Nothing of NumPy's conventions applies to them (ufjit never dispatches
    # a device array's __array_ufunc__), so a call skips that layer.
    from ufjit import _numpy_calls as calls
    assert all(calls.is_plain(x) for x in (np.zeros(3), 1.5, 2, True, np.float32(1), _DeviceLike()))
    assert not any(calls.is_plain(x) for x in (np.ma.zeros(3), np.matrix([[1.0]]), [1.0], _WrappedDeviceLike()))
