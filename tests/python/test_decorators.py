"""What the decorators give the C++ compiler: constants from globals and
closures, device functions, imports; and the errors they raise."""

import cmath
import math
from math import exp, sqrt

import numpy as np
import numpy
import pytest

import ufjit
from ufjit import cuda, guvectorize, vectorize

SCALE = 3
OFFSET = 0.25
ROTATE = 1j
NEGATIVE = True
BIG = math.inf


@cuda.jit(device=True)
def square(x):
    return x * x


@cuda.jit(device=True)
def sum_of_squares(a, b):
    return square(a) + square(b)  # a device function calling another


def test_module_constants_of_every_kind():
    @vectorize(["complex128(float64)"], target="cpu")
    def uses_constants(x):
        sign = -1.0 if NEGATIVE else 1.0
        return sign * (x * SCALE + OFFSET) * ROTATE

    assert uses_constants(2.0) == -(2.0 * 3 + 0.25) * 1j
    for line in ("SCALE = 3", "OFFSET = 0.25", "ROTATE = complex(0.0, 1.0)", "NEGATIVE = True"):
        assert line in uses_constants.source


def test_closure_constants_and_infinity():
    local_factor = 0.5

    @vectorize(["float64(float64)"], target="cpu")
    def scaled(x):
        return min(x * local_factor, BIG)

    assert scaled(4.0) == 2.0
    assert "BIG = math.inf" in scaled.source


def test_device_functions_are_prepended_in_call_order():
    @vectorize(["float64(float64, float64)"], target="cpu")
    def hypot2(a, b):
        return math.sqrt(sum_of_squares(a, b))

    assert hypot2(3.0, 4.0) == 5.0
    src = hypot2.source
    assert src.index("def square") < src.index("def sum_of_squares") < src.index("def hypot2")
    assert square(3) == 9  # still callable from Python


def test_modules_under_other_names():
    np_alias = np  # noqa: F841 (read below)

    @vectorize(["complex128(float64)", "float32(float32)"], target="cpu")
    def uses_modules(x):
        return cmath.exp(numpy.complex128(x)) if x > 0 else numpy.float64(x)

    assert "import numpy" in uses_modules.source
    assert uses_modules(0.0) == 0


def test_functions_imported_from_math():
    @vectorize(["float64(float64)"], target="cpu")
    def f(x):
        return sqrt(exp(x))

    assert "from math import exp" in f.source and "from math import sqrt" in f.source
    assert f(2.0) == math.sqrt(math.exp(2.0))


def test_compile_error_carries_located_diagnostics():
    with pytest.raises(ufjit.CompileError) as info:
        @vectorize(["float32(float32)"], target="cpu")
        def broken(x):
            return math.exq(x)

    message = str(info.value)
    assert "unknown function 'math.exq'" in message
    assert __file__ in message  # the diagnostic names this file ...
    diag = info.value.diagnostics[0]
    assert diag["file"] == __file__ and diag["severity"] == "error"
    # ... and the line of the return statement in it
    lines = open(__file__).read().splitlines()
    assert "math.exq" in lines[diag["line"] - 1]
    assert isinstance(info.value, Exception) and not isinstance(info.value, TypeError)


def test_signature_errors_are_compile_errors():
    with pytest.raises(ufjit.CompileError, match="flaot32"):
        @vectorize(["flaot32(float32)"])
        def f(x):
            return x


def test_signature_less_vectorize_compiles_at_the_first_call():
    @vectorize
    def twice(x):
        return x * 2

    assert twice.signatures == []
    r = twice(np.arange(3, dtype=np.float32))
    assert r.dtype == np.float32
    assert r.tolist() == [0.0, 2.0, 4.0]
    assert twice.signatures == ["float32(float32)"]
    assert twice(np.arange(3, dtype=np.int16)).tolist() == [0, 2, 4]
    assert twice.signatures == ["float32(float32)", "int16(int16)"]

    @vectorize()
    def plus(a, b):
        return a + b

    # NEP 50: a Python float beside a float32 array stays float32.
    assert plus(np.ones(2, np.float32), 0.5).dtype == np.float32

    @vectorize(target="cpu")
    def half(x):
        return x / 2

    assert half(3) == 1.5


def test_identity_is_checked_as_numba_does():
    with pytest.raises(ufjit.CompileError, match="invalid identity value 2"):
        @vectorize(["float64(float64, float64)"], identity=2)
        def f(a, b):
            return a


def test_guvectorize_without_a_layout_is_refused_clearly():
    with pytest.raises(TypeError, match="needs a layout"):
        guvectorize()


def test_unknown_target():
    with pytest.raises(ValueError, match="unknown target"):
        vectorize(["float32(float32)"], target="tpu")


def test_cuda_jit_without_device_makes_a_kernel():
    @cuda.jit
    def kernel(x):
        pass

    assert isinstance(kernel, cuda.KernelDispatcher)  # test_kernels.py launches them


def test_fastmath_and_numba_options_are_accepted():
    @vectorize(["float32(float32)"], target="cpu", fastmath=True, nopython=True, cache=False, identity=0)
    def fm(x):
        return x / 3

    assert "fastmath=True" in fm.source
    assert fm.identity == 0
    assert abs(fm(np.float32(3)) - 1) < 1e-6


def test_boundscheck_and_object_mode_options_reach_the_compiler():
    # They were accepted and dropped: an index past the array read garbage.
    @guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()", target="cpu", boundscheck=True)
    def pick(a, i, out):
        out[0] = a[i]

    assert "boundscheck=True" in pick.source
    assert pick(np.arange(4.0), 3) == 3.0
    with pytest.raises(IndexError):
        pick(np.arange(4.0), 7)

    # Object mode is Python's (one call per element), never the compiler's.
    @vectorize(["float64(float64)"], target="cpu", forceobj=True)
    def fo(x):
        return x + 1

    assert fo.source is None
    assert fo(np.arange(3.0)).tolist() == [1.0, 2.0, 3.0]


def test_guvectorize_dot_matches_numpy_einsum_with_broadcast_outer_dims():
    @guvectorize(["void(float64[:], float64[:], float64[:])"], "(n),(n)->()", target="cpu")
    def dot(a, b, out):
        acc = 0.0
        for i in range(a.shape[0]):
            acc += a[i] * b[i]
        out[0] = acc

    assert dot.nin == 2 and dot.nout == 1
    a = np.arange(24, dtype=np.float64).reshape(2, 3, 4)
    b = np.linspace(-1, 1, 12).reshape(3, 4)
    np.testing.assert_allclose(dot(a, b), np.einsum("...n,...n->...", a, b), rtol=1e-15)
    assert dot(np.ones(3), np.ones(3)) == 3.0
    out = np.empty((2, 3))
    assert dot(a, b, out=out) is out
    np.testing.assert_allclose(out, np.einsum("...n,...n->...", a, b), rtol=1e-15)


def test_guvectorize_matmul_several_outputs_and_positional_out():
    @guvectorize(["void(float32[:,:], float32[:,:], float32[:,:])"], "(m,n),(n,p)->(m,p)", target="cpu")
    def matmul(a, b, out):
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                acc = 0
                for k in range(a.shape[1]):
                    acc += a[i, k] * b[k, j]
                out[i, j] = acc

    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    b = np.arange(4 * 5, dtype=np.float32)[::-1].reshape(4, 5)  # negative strides
    np.testing.assert_array_equal(matmul(a, b), np.matmul(a, b))
    c = np.zeros((2, 3, 5), dtype=np.float32)
    matmul(a, b, c)  # Numba's positional output
    np.testing.assert_array_equal(c, np.matmul(a, b))
    with pytest.raises(ufjit.ShapeError, match="core dimension 'n'"):
        matmul(a, np.ones((3, 5), dtype=np.float32))

    @guvectorize(["void(int64[:], int64[:], int64[:])"], "(n)->(),()", target="cpu")
    def minmax(x, lo, hi):
        lo[0] = x[0]
        hi[0] = x[0]
        for i in range(x.shape[0]):
            lo[0] = min(lo[0], x[i])
            hi[0] = max(hi[0], x[i])

    x = np.array([[3, -1, 7], [0, 0, 5]], dtype=np.int64)
    lo, hi = minmax(x)
    np.testing.assert_array_equal(lo, x.min(axis=-1))
    np.testing.assert_array_equal(hi, x.max(axis=-1))
    lo2, hi2 = np.empty(2, np.int64), np.empty(2, np.int64)
    minmax(x, out=(lo2, hi2))
    np.testing.assert_array_equal(hi2, x.max(axis=-1))
    lo3, hi3 = minmax(x, axis=0)
    np.testing.assert_array_equal(lo3, x.min(axis=0))
    np.testing.assert_array_equal(hi3, x.max(axis=0))

    at = np.ascontiguousarray(np.moveaxis(a, 0, -1))  # (m, n, batch)
    np.testing.assert_array_equal(matmul(at, b, axes=[(0, 1), (-2, -1), (0, 1)]),
                                  np.matmul(at, b, axes=[(0, 1), (-2, -1), (0, 1)]))


def test_guvectorize_without_layout_is_refused():
    with pytest.raises(TypeError, match="needs a layout"):
        guvectorize(["void(float64[:], float64[:])"])


def test_layout_only_guvectorize_compiles_per_operand_dtypes():
    @guvectorize("(m,n),(n,p)->(m,p)", target="cpu")
    def matmul(a, b, out):
        for i in range(a.shape[0]):
            for j in range(b.shape[1]):
                acc = a[i, 0] * b[0, j]
                for k in range(1, a.shape[1]):
                    acc += a[i, k] * b[k, j]
                out[i, j] = acc

    assert matmul.signatures == [] and matmul.nin == 2 and matmul.nout == 1
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    b = np.linspace(-1, 1, 20, dtype=np.float32).reshape(4, 5)
    r = matmul(a, b)
    assert r.dtype == np.float32
    np.testing.assert_allclose(r, np.matmul(a, b), rtol=1e-6)
    ia = np.arange(12, dtype=np.int64).reshape(3, 4) - 5
    ib = np.arange(8, dtype=np.int64).reshape(4, 2)
    np.testing.assert_array_equal(matmul(ia, ib), np.matmul(ia, ib))
    # float32 with int32: outputs take NumPy's result_type of the inputs.
    mixed = matmul(a[0], ib.astype(np.int32))
    assert mixed.dtype == np.result_type(np.float32, np.int32)
    np.testing.assert_allclose(mixed, np.matmul(a[0].astype(np.float64), ib), rtol=1e-12)
    out = np.empty((3, 5), dtype=np.float64)
    matmul(a[0], b, out=out)  # out= gives the output dtype
    np.testing.assert_allclose(out, np.matmul(a[0], b), rtol=1e-6)
    assert len(matmul.signatures) == 4

    @guvectorize("(n)->()", target="cpu")
    def lowbit(x, out):
        out[0] = x[0] & 1

    np.testing.assert_array_equal(lowbit(np.array([[3, 1], [4, 4]])), [1, 0])
    with pytest.raises(ufjit.CompileError):
        lowbit(np.array([1.5, 2.0]))


def test_is_dynamic_and_writable_args():
    @guvectorize(["void(float64[:], float64, float64[:])"], "(n),()->(n)", is_dynamic=True, target="cpu")
    def scale(a, s, out):
        for i in range(a.shape[0]):
            out[i] = a[i] * s

    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    r = scale(x, np.int32(3))
    assert r.dtype == np.int32
    np.testing.assert_array_equal(r, x * 3)
    assert scale.signatures == ["void(float64[:], float64, float64[:])", "void(int32[:], int32, int32[:])"]

    @guvectorize("(n)->(n)", writable_args=("a",), target="cpu")
    def bump(a, out):
        for i in range(a.shape[0]):
            a[i] = a[i] + 1
            out[i] = 2 * a[i]

    a = np.arange(4.0)
    np.testing.assert_array_equal(bump(a), 2 * (np.arange(4.0) + 1))
    np.testing.assert_array_equal(a, np.arange(4.0) + 1)


def test_device_paths_need_a_gpu():
    if cuda.is_available():  # the GPU host: the same calls work
        assert ufjit.to_device(np.zeros(3)).shape == (3,)
        assert not ufjit.stream().borrowed and ufjit.Stream.borrow(0).borrowed
        return
    with pytest.raises(ufjit.DeviceError):
        ufjit.to_device(np.zeros(3))
    with pytest.raises(ufjit.NoDeviceError):
        ufjit.stream()
    with pytest.raises(ufjit.DeviceError):
        ufjit.Stream.borrow(0)


@vectorize(["float64(float64, float64)"], target="cpu")
def _pickled_add(a, b):
    return a + b


def test_a_module_level_ufunc_pickles_by_reference():
    # Dask ships ufuncs to its workers by pickle: what comes back is the same ufunc.
    import pickle
    again = pickle.loads(pickle.dumps(_pickled_add))
    assert again is _pickled_add
    np.testing.assert_array_equal(again(np.arange(3.0), 1.0), [1.0, 2.0, 3.0])


def test_a_ufunc_not_reachable_by_name_is_pickled_by_value_as_numbas():
    import pickle
    local = vectorize(["float64(float64)"], target="cpu")(lambda x: x + 1)
    clone = pickle.loads(pickle.dumps(local))
    assert clone is not local and clone.signatures == local.signatures
    assert clone(np.arange(3.0)).tolist() == [1.0, 2.0, 3.0]

    @guvectorize("()->()", identity=1)
    def double(x, out):
        out[:] = x * 2

    double(np.arange(3.0), out=np.zeros(3))
    clone = pickle.loads(pickle.dumps(double))
    assert clone.is_dynamic and clone.identity == 1 and not clone._frozen
    clone.disable_compile()
    assert clone(np.arange(3.0)).tolist() == [0.0, 2.0, 4.0]
