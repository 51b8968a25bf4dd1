"""Calls on NumPy arrays and scalars on the CPU: every dtype, strides
(negative, zero, Fortran), out=, weak Python scalars and strong NumPy ones,
0-d results, and the errors calls raise."""

import numpy as np
import pytest

import ufjit
from ufjit import vectorize

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "complex64", "complex128"]


@vectorize([f"{t}({t})" for t in DTYPES], target="cpu")
def identity(x):
    return x


@vectorize(["float32(float32, float32)", "float64(float64, float64)", "int64(int64, int64)",
            "complex128(complex128, complex128)"], target="cpu")
def add(x, y):
    return x + y


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(dtype):
    a = (np.arange(24) % 7).astype(dtype).reshape(2, 3, 4)
    r = identity(a)
    assert r.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(r, a)


@pytest.mark.parametrize("view", [
    lambda a: a[::-1],
    lambda a: a[:, ::-2],
    lambda a: a.T,
    lambda a: np.asfortranarray(a),
    lambda a: a[1:, 1::3],
    lambda a: np.broadcast_to(a[:1], a.shape),  # a stride-0 dimension
])
def test_strides(view):
    a = np.arange(60, dtype=np.float64).reshape(6, 10)
    b = np.linspace(0, 1, 60).reshape(6, 10)
    va, vb = view(a), view(b)
    np.testing.assert_array_equal(add(va, vb), va + vb)


def test_broadcast_row_against_column():
    row = np.arange(5, dtype=np.float32)
    col = np.arange(3, dtype=np.float32)[:, None]
    r = add(row, col)
    assert r.shape == (3, 5) and r.dtype == np.float32
    np.testing.assert_array_equal(r, row + col)


def test_out_keyword_and_positional():
    x = np.arange(10, dtype=np.float64)
    out = np.empty_like(x)
    assert add(x, 1.0, out=out) is out
    np.testing.assert_array_equal(out, x + 1)
    out2 = np.zeros_like(x)
    assert add(x, x, out2) is out2
    np.testing.assert_array_equal(out2, 2 * x)


def test_out_strided_and_in_place():
    x = np.arange(12, dtype=np.float64)
    out = np.zeros(24)
    add(x, 1.0, out=out[::2])
    np.testing.assert_array_equal(out[::2], x + 1)
    np.testing.assert_array_equal(out[1::2], 0)
    add(x, x, out=x)  # exactly the input: computed in place
    np.testing.assert_array_equal(x, 2 * np.arange(12))


def test_overlapping_out_reads_inputs_first():
    a = np.arange(6, dtype=np.float64)
    add(a[:-1], 0.0, out=a[1:])
    np.testing.assert_array_equal(a, [0, 0, 1, 2, 3, 4])


def test_weak_python_scalars_keep_the_array_dtype():
    x = np.arange(4, dtype=np.float32)
    assert add(x, 0.5).dtype == np.float32  # NEP 50: a Python float is weak
    assert add(x, 2).dtype == np.float32


def test_strong_numpy_scalars_dispatch_on_their_dtype():
    x = np.arange(4, dtype=np.float32)
    assert add(x, np.float64(0.5)).dtype == np.float64
    assert add(x, np.float32(0.5)).dtype == np.float32


def test_scalar_only_call_returns_a_numpy_scalar():
    r = add(1.5, 2.25)
    assert isinstance(r, np.float64) and r == 3.75
    r = add(np.float32(1), np.float32(2))
    assert isinstance(r, np.float32) and r == 3
    r = add(np.array(2.0), 1.0)  # 0-d array in, scalar out (as NumPy)
    assert isinstance(r, np.float64) and r == 3
    assert add(1 + 2j, 1j) == 1 + 3j


def test_python_bool_and_big_ints():
    assert identity(True) == True  # noqa: E712
    assert identity(np.uint64(2 ** 64 - 1)) == 2 ** 64 - 1
    with pytest.raises(OverflowError, match="does not fit"):  # as NumPy 2
        add(2 ** 70, 1)


def test_lists_and_empty_arrays():
    np.testing.assert_array_equal(add([1.0, 2.0], [3.0, 4.0]), [4.0, 6.0])
    r = add(np.empty((0, 3)), 1.0)
    assert r.shape == (0, 3)


def test_dispatch_error_is_a_type_error():
    @vectorize(["float32(float32)"], target="cpu")
    def only_float32(x):
        return x

    with pytest.raises(TypeError, match="float64"):  # no safe cast float64 -> float32
        only_float32(np.arange(3, dtype=np.float64))
    with pytest.raises(ufjit.DispatchError):
        only_float32(np.float64(1))
    assert only_float32(np.arange(3, dtype=np.int8)).dtype == np.float32  # safe cast


def test_shape_error_is_a_value_error():
    with pytest.raises(ValueError, match=r"\(3,?\)|3\]"):
        add(np.zeros(3), np.zeros(4))
    with pytest.raises(ufjit.ShapeError):
        add(np.zeros(3), 1.0, out=np.zeros(4))


def test_unsupported_operands():
    with pytest.raises(TypeError, match="no dtype"):
        add(np.array(["a"]), 1.0)
    with pytest.raises(TypeError, match="byte order"):
        add(np.zeros(3, dtype=">f8"), 1.0)
    with pytest.raises(TypeError, match="return arrays must be of ArrayType"):  # NumPy's words
        add(np.zeros(3), 1.0, out=[0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="read-only"):
        ro = np.zeros(3)
        ro.flags.writeable = False
        add(np.zeros(3), 1.0, out=ro)
    with pytest.raises(TypeError, match="invalid keyword|unexpected keyword"):
        add(1.0, 2.0, where=True)


def test_wrong_number_of_operands():
    with pytest.raises(TypeError):
        add(np.zeros(3))


@pytest.mark.parametrize("dtype", DTYPES)
def test_strong_numpy_scalar_of_every_dtype(dtype):
    value = np.array(5 if dtype != "bool" else True).astype(dtype)[()]
    r = identity(value)
    assert isinstance(r, np.generic) and r.dtype == np.dtype(dtype) and r == value


def test_weak_scalars_take_the_array_kind():
    @vectorize(["uint64(uint64, uint64)", "complex64(complex64, complex64)"], target="cpu")
    def plus(x, y):
        return x + y

    r = plus(np.array([1], dtype=np.uint64), 2 ** 64 - 2)  # above int64: a weak uint64
    assert r.dtype == np.uint64 and r[0] == 2 ** 64 - 1
    r = plus(np.array([1j], dtype=np.complex64), 1.5)
    assert r.dtype == np.complex64 and r[0] == 1.5 + 1j


def test_a_raise_comes_out_as_the_builtin_class_it_names_and_as_kernel_error():
    # Numba's nopython ufuncs raise the class itself: `except ValueError` must
    # catch ufjit's too; a class of the user's own is a plain KernelError.
    @ufjit.vectorize(["float64(float64)"], target="cpu")
    def checked(x):
        if x < 0:
            raise ValueError("negative input")
        if x == 0:
            raise ZeroDivisionError("zero")
        if x > 100:
            raise TooLarge("over 100")
        return 1 / x

    with pytest.raises(ValueError, match="negative input") as info:
        checked(np.array([1.0, -1.0]))
    assert isinstance(info.value, ufjit.KernelError)
    assert info.value.exception == "ValueError"
    assert info.value.message == "negative input"
    with pytest.raises(ZeroDivisionError, match="zero"):
        checked(np.array([0.0]))
    with pytest.raises(ufjit.KernelError, match="over 100") as info:
        checked(np.array([101.0]))
    assert not isinstance(info.value, ValueError)
    assert info.value.exception == "TooLarge"


def test_set_devices_chooses_the_device_set_before_the_runtime_is_made():
    """ufjit.set_devices('all' | K | [K, L]) is read when the process's runtime
    is made; after that, or with a bad spelling, it raises and changes nothing."""
    import os
    import subprocess
    import sys
    import textwrap

    program = textwrap.dedent("""\
        import numpy as np
        import ufjit

        try:
            ufjit.set_devices("zero")
        except ufjit.InputError as e:
            print("refused:", e)
        ufjit.set_devices("all")

        @ufjit.vectorize(["float64(float64)"])
        def twice(x):
            return 2 * x

        print(twice(np.arange(3.0)).tolist())
        try:
            ufjit.set_devices([0])
        except ValueError as e:
            print("late:", e)
    """)
    env = dict(os.environ, UFJIT_TARGET="cpu")
    env.pop("UFJIT_DEVICES", None)
    done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("refused: set_devices='zero' is not valid")
    assert lines[1] == "[0.0, 2.0, 4.0]"
    assert lines[2].startswith("late: ufjit.set_devices() must come before")
