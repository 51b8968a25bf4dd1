"""Property tests of the Python layer against NumPy (Hypothesis): a ufjit
@vectorize `add` and `maximum`, with signatures in np.add.types' order so
that dispatch picks NumPy's loop, are called as NumPy's np.add and
np.maximum are, on random dtypes, broadcast shapes, strides (slices,
transposes, negative steps), subclasses and masked arrays, out= with every
casting rule, and the methods (reduce over axes, accumulate, outer); each
result (value, dtype, type, mask, or the exception and its message) must
be NumPy's. Derandomized with a bounded number of examples, so that a run
is reproducible and takes seconds. (ufjit has no reduceat.)"""

import numpy as np
import pytest

from ufjit import vectorize

try:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp
except ImportError:  # hosts without python3-hypothesis: one skipped test says so
    given = None

NUMERIC = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64",
           "complex64", "complex128"]
ORDERED = [t for t in NUMERIC if not t.startswith("complex")]


@vectorize([f"{t}({t}, {t})" for t in NUMERIC], identity=0, target="cpu")
def add(x, y):
    return x + y


@vectorize([f"{t}({t}, {t})" for t in ORDERED], target="cpu")
def maximum(x, y):
    return x if x > y else y


def same_outcome(ours, numpys):
    """Both raise (the same builtin class, the same message) or both give
    equal results of the same dtype and type (masks and NaNs included)."""
    try:
        expected = numpys()
    except Exception as e:  # noqa: BLE001 (whatever NumPy raises, ours must too)
        builtin = next(c for c in type(e).__mro__ if c.__module__ == "builtins")
        with pytest.raises(builtin) as info:
            ours()
        assert str(info.value) == str(e)
        return
    got = ours()
    assert type(got) is type(expected), (type(got), type(expected))
    if isinstance(expected, np.ma.MaskedArray):
        np.testing.assert_array_equal(np.ma.getmaskarray(got), np.ma.getmaskarray(expected))
        got, expected = got.compressed(), expected.compressed()
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(np.asarray(got), np.asarray(expected))


if given is None:
    def test_properties_need_hypothesis():
        pytest.skip("hypothesis is not installed (Debian: python3-hypothesis)")
else:
    BOUNDED = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                       suppress_health_check=list(HealthCheck))

    def exact_elements(dtype):
        """Small integers: every sum of a few is exact in every dtype, so a
        reduction's order (NumPy's pairwise sums) cannot change its value."""
        return st.integers(0 if np.dtype(dtype).kind == "u" else -8, 8).map(lambda v: np.dtype(dtype).type(v))

    @st.composite
    def laid_out(draw, dtype, shape):
        """An array of `shape` in one of several memory layouts."""
        a = draw(hnp.arrays(dtype, shape, elements=exact_elements(dtype)))
        layout = draw(st.sampled_from(["c", "f", "reversed", "strided", "broadcast"]))
        if layout == "f":
            return np.asfortranarray(a)
        if layout == "reversed":  # negative strides, the same values
            return np.flip(np.flip(a).copy())
        if layout == "strided" and a.ndim:  # every other element of a wider array
            return np.repeat(a, 2, axis=-1)[..., ::2]
        if layout == "broadcast" and a.ndim and a.shape[0] > 0:  # a stride-0 axis
            return np.broadcast_to(a[:1], a.shape)
        return a

    @st.composite
    def operand_pair(draw, min_dims=1):
        shapes = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=min_dims, max_dims=3, max_side=4))
        dtypes = draw(st.lists(st.sampled_from(ORDERED), min_size=2, max_size=2))
        return tuple(draw(laid_out(d, s)) for d, s in zip(dtypes, shapes.input_shapes))

    @BOUNDED
    @given(operand_pair())
    def test_calls_match_numpy_on_dtypes_shapes_and_strides(pair):
        x, y = pair
        same_outcome(lambda: add(x, y), lambda: np.add(x, y))
        same_outcome(lambda: maximum(x, y), lambda: np.maximum(x, y))

    @BOUNDED
    @given(operand_pair(), st.sampled_from(NUMERIC), st.sampled_from(["no", "equiv", "safe", "same_kind", "unsafe"]))
    def test_out_and_casting_match_numpy(pair, out_dtype, casting):
        x, y = pair
        shape = np.broadcast_shapes(x.shape, y.shape)
        ours, numpys = np.full(shape, 3, out_dtype), np.full(shape, 3, out_dtype)
        with np.errstate(all="ignore"), _no_warning_check():
            same_outcome(lambda: add(x, y, out=ours, casting=casting),
                         lambda: np.add(x, y, out=numpys, casting=casting))
        np.testing.assert_array_equal(ours, numpys)  # a refused call wrote nothing in either

    @BOUNDED
    @given(operand_pair(min_dims=2), st.sampled_from(["matrix", "masked", "subclass"]), st.data())
    def test_subclasses_and_masked_arrays_match_numpy(pair, kind, data):
        x, y = pair
        if kind == "matrix":
            xm, ym = np.matrix(x[(0,) * (x.ndim - 2)]), y[(0,) * (y.ndim - 2)]
            same_outcome(lambda: add(xm, ym), lambda: np.add(xm, ym))
            same_outcome(lambda: add.reduce(xm, axis=1, dtype=xm.dtype),
                         lambda: np.add.reduce(xm, axis=1, dtype=xm.dtype))
            return
        if kind == "subclass":
            x = x.view(Sub)
            same_outcome(lambda: add(x, y), lambda: np.add(x, y))
            same_outcome(lambda: add.reduce(x, axis=-1, dtype=x.dtype), lambda: np.add.reduce(x, axis=-1,
                                                                                                 dtype=x.dtype))
            return
        mask = data.draw(hnp.arrays(bool, x.shape))
        m = np.ma.array(x, mask=mask)
        same_outcome(lambda: add(m, y), lambda: np.add(m, y))

    @BOUNDED
    @given(st.sampled_from(ORDERED).flatmap(lambda d: laid_out(d, hnp.array_shapes(min_dims=1, max_dims=3,
                                                                                    min_side=0, max_side=4))),
           st.data())
    def test_methods_match_numpy(x, data):
        ndim = x.ndim
        axis = data.draw(st.one_of(st.none(), st.integers(-ndim, ndim - 1),
                                   st.lists(st.integers(0, ndim - 1), unique=True).map(tuple)))
        keepdims = data.draw(st.booleans())
        same_outcome(lambda: add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims),
                     lambda: np.add.reduce(x, axis=axis, dtype=x.dtype, keepdims=keepdims))
        one_axis = axis if isinstance(axis, int) else -1  # maximum has no identity: one axis at a time
        if x.shape[one_axis]:
            same_outcome(lambda: maximum.reduce(x, axis=one_axis), lambda: np.maximum.reduce(x, axis=one_axis))
        acc_axis = data.draw(st.integers(-ndim, ndim - 1))
        same_outcome(lambda: add.accumulate(x, axis=acc_axis, dtype=x.dtype),
                     lambda: np.add.accumulate(x, axis=acc_axis, dtype=x.dtype))
        other = x.reshape(-1)[:3]
        same_outcome(lambda: add.outer(other, x), lambda: np.add.outer(other, x))
        bad_axis = data.draw(st.sampled_from([ndim, -ndim - 1, "0", 1.5]))
        same_outcome(lambda: add.reduce(x, axis=bad_axis), lambda: np.add.reduce(x, axis=bad_axis))


class Sub(np.ndarray):
    pass


class _no_warning_check:
    """Casting float to int (casting='unsafe') may warn in NumPy and not in
    ufjit; the test compares values, not warnings."""

    def __enter__(self):
        import warnings
        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


def test_the_package_has_a_version_string_as_every_package():
    import ufjit

    assert ufjit.__version__ == ufjit.version().split()[0]
    assert all(part.isdigit() for part in ufjit.__version__.split("."))
