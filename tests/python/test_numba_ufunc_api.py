"""Numba's ufunc API beyond the decorators: the module paths of numba.np.ufunc,
the builders and dynamic ufuncs (add, build_ufunc, disable_compile), object
mode, layouts without outputs, Numba's gufunc conveniences and the exception
classes Numba users catch."""

import pickle

import numpy as np
import pytest

import ufjit
from ufjit import guvectorize, vectorize
from ufjit.np.ufunc import GUVectorize, PyUFunc_One, Vectorize
from ufjit.np.ufunc.dufunc import DUFunc
from ufjit.np.ufunc.ufuncbuilder import GUFuncBuilder


def add(a, b):
    """An addition"""
    return a + b


@vectorize(["int64(int64, int64)"])
def inner(a, b):
    return a + b


def outer(a, b):
    return inner(a, b) * 2


def guadd(a, b, c):
    for i in range(c.shape[0]):
        c[i] = a[i] + b[i]


def test_numba_module_paths_export_the_decorators_and_builders():
    from ufjit.np import ufunc

    assert ufunc.vectorize is vectorize and ufunc.guvectorize is guvectorize
    assert PyUFunc_One == 1 and ufunc.PyUFunc_None == -1


def test_vectorize_builder_adds_signatures_then_builds():
    builder = Vectorize(add, target="cpu")
    result = builder.add("float32(float32, float32)")
    assert not result.objectmode
    f = builder.build_ufunc()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    assert f(a, a).dtype == np.float32
    assert f.reduce(a).tolist() == [3.0, 5.0, 7.0]
    assert f.accumulate(a).flags.c_contiguous
    assert f.__name__ == "add" and "An addition" in f.__doc__


def test_dufunc_freezes_and_then_refuses_new_types():
    f = DUFunc(add)
    assert not f._frozen and f.ntypes == 0 and f.identity is None
    f._frozen = True
    with pytest.raises(ValueError):
        f._frozen = False
    with pytest.raises(TypeError):
        f(np.arange(3.0), np.arange(3.0))


def test_disable_compile_keeps_compiled_loops_only():
    f = vectorize(add)
    assert f(1, 2) == 3
    f.disable_compile()
    assert f._frozen and f(4, 5) == 9
    with pytest.raises(TypeError):
        f(np.arange(3.0), np.arange(3.0))


def test_signature_without_return_type_is_inferred():
    f = vectorize(["(float32, float32)", "(int64, int64)"])(add)
    assert f.signatures == ["float32(float32, float32)", "int64(int64, int64)"]
    g = DUFunc(outer)
    g.add("(int64, int64)")
    assert g(-1, 3) == 4  # a ufunc calling another @vectorize ufunc


def test_gufunc_builder_checks_signatures_as_numba():
    builder = GUFuncBuilder(guadd, "(n),(n)->(n)")
    builder.add("void(int32[:], int32[:], int32[:])")
    f = builder.build_ufunc()
    assert f(np.arange(3, dtype=np.int32), np.ones(3, dtype=np.int32)).tolist() == [1, 2, 3]
    built = GUVectorize(guadd, "(n),(n)->(n)")
    built.add("void(float64[:], float64[:], float64[:])")
    assert built.build_ufunc()(np.ones(2), np.ones(2)).tolist() == [2.0, 2.0]
    dynamic = GUVectorize(guadd, "(n),(n)->(n)", is_dynamic=True)
    assert dynamic.is_dynamic and dynamic(np.ones(2, np.int32), np.ones(2, np.int32)).tolist() == [2, 2]
    with pytest.raises(TypeError, match="scalar type int32 given for non scalar argument #2"):
        guvectorize(["int32[:], int32, int32[:]"], "(n),(n)->(n)")(guadd)
    with pytest.raises(TypeError, match="type and shape signature mismatch for arg #1"):
        guvectorize(["int32[:], int32[:]"], "(m,n)->(n)")(lambda a, b: None)


def test_bad_layouts_raise_numbas_exception_classes():
    sigs = ["(int32[:], int32[:], int32[:])"]
    with pytest.raises(ValueError, match="bad token in signature"):
        guvectorize(sigs, ")-:")(guadd)
    with pytest.raises(NameError, match="undefined output symbols: v,z"):
        guvectorize(sigs, "(x,y),(x,y)->(x,z,v)")(guadd)
    with pytest.raises(ValueError):
        guvectorize(sigs, "(n),(n),(n)->")(guadd)


def test_unknown_options_and_identities_are_refused_as_numba():
    with pytest.raises(KeyError, match="Unrecognized options"):
        vectorize(["float64(float64, float64)"], nonexistent=2)(add)
    with pytest.raises(TypeError, match="not supported: 'what1'"):
        guvectorize(["void(float32[:], float32[:])"], "(x)->(x)", target="cuda", what1=True)(guadd)
    with pytest.raises(ValueError):
        vectorize(["int32(int32, int32)"], identity="none")(add)
    assert vectorize(["int32(int32, int32)"], identity="reorderable")(add).identity is None


def test_layout_without_outputs_updates_arguments_in_place():
    f = guvectorize(["(int32[:], int32[:], int32[:])"], "(n),(n),(n)")(guadd)
    assert f.nin == 3 and f.nout == 0
    a = np.arange(5, dtype=np.int32)
    out = np.zeros_like(a)
    assert f(a, a, out) is None
    assert out.tolist() == (a + a).tolist()


def fill(x0_t, x1_t, y_1):
    for t in range(x0_t.shape[0]):
        x0_t[t] = y_1[0]
        x1_t[t] = 2 * y_1[0]


def test_update_in_place_converts_other_dtypes_and_copies_back_writable_args_only():
    plain = guvectorize(["void(f8[:], f8[:], f8[:])"], "(t),(t),()")(fill)
    assert plain.nin == 3 and plain.nout == 0
    a, b = np.zeros(4), np.zeros(4, dtype=np.float32)
    plain(a, b, 2)
    assert a.tolist() == [2.0] * 4 and b.tolist() == [0.0] * 4  # b was converted: a copy was written
    named = guvectorize(["void(f8[:], f8[:], f8[:])"], "(t),(t),()", writable_args=("x0_t", 1))(fill)
    named(a, b, 3)
    assert a.tolist() == [3.0] * 4 and b.tolist() == [6.0] * 4  # written back, as Numba's writable_args


def test_writable_args_are_checked_with_numbas_classes():
    with pytest.raises(ValueError):
        guvectorize(["void(f8[:], f8[:], f8[:])"], "(t),(t),()", writable_args=(0, 1, 2, 5))(fill)
    with pytest.raises(ValueError):
        guvectorize(["void(f8[:], f8[:], f8[:])"], "(t),(t),()", writable_args=(5,))(fill)
    with pytest.raises(RuntimeError):
        guvectorize(["void(f8[:], f8[:], f8[:])"], "(t),(t),()", writable_args=("z_t",))(fill)


def test_old_style_scalar_core_given_a_one_element_array():
    @guvectorize(["void(int32[:], int32[:], int32[:])"], "(n),()->(n)", target="cpu")
    def shift(x, y, res):
        for i in range(x.shape[0]):
            res[i] = x[i] + y[0]

    res = np.zeros(4, dtype=np.int32)
    shift(np.arange(4, dtype=np.int32), np.array([2], dtype=np.int32), out=res)
    assert res.tolist() == [2, 3, 4, 5]


def test_cuda_gufunc_casts_host_inputs_to_the_signature_same_kind():
    def scale(a, b, out):
        for i in range(b.size):
            out[i] = a * b[i]

    gpu = guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)", target="cuda")(scale)
    assert gpu(np.int64(2), np.arange(3, dtype=np.int32)).tolist() == [0, 2, 4]
    cpu = guvectorize(["void(int32, int32[:], int32[:])"], "(),(t)->(t)", target="cpu")(scale)
    with pytest.raises(TypeError):  # a NumPy gufunc, as Numba's CPU gufuncs are: no unsafe input cast
        cpu(np.int64(2), np.arange(3, dtype=np.int32))


def test_object_mode_calls_the_python_function_per_element():
    class NotCompilable:
        pass

    def sqrt(val):
        NotCompilable()
        if val < 0.0:
            raise ValueError("Value must be positive")
        return val ** 0.5

    f = vectorize(["float64(float64)"], forceobj=True)(sqrt)
    out = np.zeros(4)
    with pytest.raises(ValueError, match="positive"):
        f(np.array([1.0, 4.0, -2.0, 9.0]), out)
    assert out.tolist() == [1.0, 2.0, 0.0, 3.0]  # the other elements are computed, as Numba's

    def gu(a, b, c):
        NotCompilable()
        c[:] = a + b

    g = guvectorize(["(complex64[:,:], complex64[:,:], complex64[:,:])"], "(x,y),(x,y)->(x,y)",
                    nopython=False)(gu)
    a = np.arange(4, dtype=np.complex64).reshape(2, 2) + 1j
    assert np.array_equal(g(a, a), a + a)


def test_gufunc_attributes_and_methods_as_numpy():
    @guvectorize("(n)->(n)")
    def cumsum(x, res):
        acc = 0
        for i in range(x.shape[0]):
            acc += x[i]
            res[i] = acc

    assert cumsum.signature == "(n)->(n)"
    with pytest.raises(RuntimeError, match="Reduction not defined"):
        cumsum.reduce(np.arange(3))
    with pytest.raises(TypeError, match="non-trivial signature"):
        cumsum.outer(np.arange(3), np.arange(3))

    @guvectorize("(),()->()")
    def plus(x, y, res):
        res[0] = x + y

    a = np.array([1, 2, 3, 4])
    plus(a, a, np.zeros_like(a))
    assert plus.signature is None
    assert plus.reduce(a) == 10
    assert plus.accumulate(a).tolist() == [1, 3, 6, 10]
    assert plus.reduceat(a, [0, 2]).tolist() == [3, 7]
    x = np.array([1, 2, 3, 4])
    plus.at(x, [0, 1], np.array([1, 2]))
    assert x.tolist() == [2, 4, 3, 4]


def test_ufunc_at_and_reduceat_match_numpy():
    f = vectorize(["int64(int64, int64)"], identity=0)(add)
    x = np.arange(5)
    expected = x.copy()
    np.add.at(expected, [0, 0, 3], 10)
    f.at(x, [0, 0, 3], 10)
    assert x.tolist() == expected.tolist()
    a = np.arange(8)
    assert f.reduceat(a, [0, 4, 1, 5]).tolist() == np.add.reduceat(a, [0, 4, 1, 5]).tolist()


def test_output_given_twice_is_numbas_value_error_and_numpys_type_error():
    f = vectorize(["float64(float64, float64)"])(add)
    out = np.zeros(3)
    with pytest.raises(ValueError, match="both a positional and keyword"):
        f(out, out, out, out=out)
    with pytest.raises(TypeError):
        f(out, out, out, out=out)


def test_numba_jit_dispatchers_compile_their_python_function():
    class Dispatcher:  # what a @numba.jit function offers
        def __init__(self, fn):
            self.py_func = fn

    f = vectorize(["float64(float64, float64)"])(Dispatcher(add))
    assert f(1.0, 2.0) == 3.0
    assert pickle.loads(pickle.dumps(inner)) is inner


def test_gufunc_engine_schedules_cores_and_the_outer_loop():
    from ufjit.np.ufunc.deviceufunc import GUFuncEngine

    schedule = GUFuncEngine.from_signature("(m, n), (n, p) -> (m, p)").schedule([(100, 4, 5), (1, 5, 7)])
    assert schedule.ishapes == [(4, 5), (5, 7)] and schedule.oshapes == [(4, 7)]
    assert schedule.loopdims == (100,) and schedule.pinned == [False, True]
    with pytest.raises(ValueError, match="mismatch"):
        GUFuncEngine.from_signature("(n),(n)->()").schedule([(3,), (4,)])


def test_cpu_target_streams_are_accepted_by_calls_and_reduce():
    f = vectorize(["int32(int32, int32)"], target="cpu", identity=0)(add)
    stream = ufjit.cuda.stream() if not ufjit.cuda.is_available() else None
    if stream is None:
        pytest.skip("a GPU is present: cuda.stream() is a device stream")
    x = np.arange(5, dtype=np.int32)
    assert f.reduce(ufjit.cuda.to_device(x, stream), stream=stream) == 10
    out = np.zeros_like(x)
    f(x, x, out=out, stream=stream)
    assert out.tolist() == (x + x).tolist()


def test_out_of_another_dtype_is_cast_same_kind_also_for_gufuncs():
    @guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cpu")
    def total(x, s):
        acc = 0.0
        for i in range(x.shape[0]):
            acc += x[i]
        s[0] = acc

    out = np.zeros(2, np.float32)
    total(np.arange(6.0).reshape(2, 3), out)
    assert out.tolist() == [3.0, 12.0]
    with pytest.raises(TypeError, match="Cannot cast"):
        total(np.arange(6.0).reshape(2, 3), np.zeros(2, np.int64))
