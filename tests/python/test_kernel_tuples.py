"""Tuples and namedtuples as ``@cuda.jit`` kernel arguments, as Numba's
dispatcher takes them: tuples of numbers, of arrays (written through), nested,
empty, mixed, namedtuples; their errors, located at the user's line."""

import inspect
from collections import namedtuple

import numpy as np
import pytest

import ufjit
from ufjit import cuda

Point = namedtuple("Point", ("x", "y", "r"))


@cuda.jit
def copy_three(r, x):
    r[0] = x[0]
    r[1] = x[1]
    r[2] = x[-1]


@cuda.jit
def lengths_and_items(r, x):
    r[0] = len(x)
    r[1] = len(x[0])
    r[2] = len(x[1])
    r[3] = x[1][0]
    r[4] = x[1][1]


@cuda.jit
def add_through(x):
    i = cuda.grid(1)
    if i < len(x[0]):
        x[0][i] = x[1][i] + x[2][i]


@cuda.jit(device=True)
def total(t):
    return t[0] + t[1] + t[2]


@cuda.jit
def sums(r, x):
    s = 0.0
    for v in x[0]:
        s += v
    r[0] = s
    r[1] = total(x[0])
    r[2] = total(x[1])


@cuda.jit
def wrong_shape(r, x):
    r[0] = len(x) + x[0].shape  # a number has no shape: the error's column is the one of this line


def test_a_tuple_of_numbers_is_passed_by_value():
    r = np.zeros(3, dtype=np.int64)
    copy_three[1, 1](r, (1, 2, 3))
    np.testing.assert_array_equal(r, [1, 2, 3])


def test_a_tuple_of_ints_and_floats_keeps_each_items_type():
    r = np.zeros(3)
    copy_three[1, 1](r, (1, 2.5, np.float32(0.25)))
    np.testing.assert_array_equal(r, [1.0, 2.5, 0.25])


def test_namedtuple_fields_and_indices():
    @cuda.jit
    def fields(r1, r2, p):
        r1[0] = p.x
        r1[1] = p[1]
        r2[0] = p.r

    r1 = np.zeros(2, dtype=np.int64)
    r2 = np.zeros(1)
    fields[1, 1](r1, r2, Point(1, 2, 2.236))
    np.testing.assert_array_equal(r1, [1, 2])
    assert r2[0] == 2.236


def test_nested_and_empty_tuples_have_constant_lengths():
    r = np.full(5, -1, dtype=np.int64)
    lengths_and_items[1, 1](r, ((), (5, 6), (8, 9, 10)))
    np.testing.assert_array_equal(r, [3, 0, 2, 5, 6])

    @cuda.jit
    def length(r, x):
        r[0] = len(x)

    length[1, 1](r, ())
    assert r[0] == 0


def test_a_tuple_of_arrays_is_written_through():
    x0 = np.zeros(10)
    x1 = np.ones_like(x0)
    x2 = x1 * 3
    add_through[1, 10]((x0, x1, x2))
    np.testing.assert_array_equal(x0, x1 + x2)
    d0 = cuda.to_device(np.zeros(4))
    add_through[1, 4]((d0, cuda.to_device(np.arange(4.0)), np.ones(4)))
    np.testing.assert_array_equal(d0.copy_to_host(), np.arange(4.0) + 1)


def test_a_tuple_of_an_array_a_number_and_a_tuple():
    @cuda.jit
    def mixed(r, x):
        r[0] = x[0][1]
        r[1] = x[1]
        r[2] = x[2][0] + x[2][1]

    r = np.zeros(3, dtype=np.int64)
    mixed[1, 1](r, (np.arange(2, dtype=np.int64) * 2, 10, (4, 3)))
    np.testing.assert_array_equal(r, [2, 10, 7])


def test_a_tuple_of_numbers_is_iterated_and_passed_to_device_functions():
    r = np.zeros(3)
    sums[1, 1](r, ((1.0, 2.0, 4.0), (2.0, 3.0, 5.0)))
    np.testing.assert_array_equal(r, [7.0, 7.0, 10.0])


def test_a_tuple_of_numbers_is_indexed_at_run_time():
    @cuda.jit
    def gather(r, x):
        for i in range(len(x[1])):
            r[i] = x[1][i] + x[0][-1 - i]

    r = np.zeros(3)
    gather[1, 1](r, ((10, 20, 30), (1, 2.5, 4)))
    np.testing.assert_array_equal(r, [31.0, 22.5, 14.0])


def test_each_tuple_structure_compiles_its_own_variant():
    r = np.zeros(3)
    copy_three[1, 1](r, (1.0, 2.0, 3.0))
    copy_three[1, 1](r, (4.0, 5.0, 6.0))
    copy_three[1, 1](r, (4.0, 5.0, 6.0, 7.0))
    np.testing.assert_array_equal(r, [4.0, 5.0, 7.0])
    copy_three[1, 1](r, np.array([8.0, 9.0, 10.0]))  # an array still takes the kernel as written
    np.testing.assert_array_equal(r, [8.0, 9.0, 10.0])


def test_an_element_that_is_no_array_number_or_tuple_is_named():
    r = np.zeros(3)
    with pytest.raises(TypeError, match=r"argument 2 \('x'\) of kernel 'copy_three': element x\[2\]\[0\] "
                                        r"of a tuple argument is a str"):
        copy_three[1, 1](r, (1, 2, ("a",)))
    with pytest.raises(TypeError, match=r"element x\[1\] of a tuple argument is a list"):
        copy_three[1, 1](r, (1, [2.0], 3))


def test_a_launch_with_tuples_and_the_wrong_argument_count_says_so():
    with pytest.raises(ufjit.InputError, match="takes 2 arguments, 1 were given"):
        copy_three[1, 1]((1.0, 2.0, 3.0))


def test_a_tuple_of_arrays_used_whole_is_refused_at_its_line():
    @cuda.jit
    def whole(x):
        for a in x:
            a[0] = 1

    line = inspect.getsourcelines(whole.py_func)[1] + 2
    with pytest.raises(TypeError, match=f"test_kernel_tuples.py:{line}: the tuple x holds arrays"):
        whole[1, 1]((np.zeros(1), np.zeros(1)))


def test_an_item_of_a_tuple_argument_is_not_assigned():
    @cuda.jit
    def assign(x):
        x[0] = 1

    with pytest.raises(TypeError, match="x\\[0\\] is an item of a tuple, which cannot be assigned to"):
        assign[1, 1]((np.zeros(1),))


def test_a_compile_error_in_a_tuple_variant_points_at_the_users_line_and_column():
    lines, first = inspect.getsourcelines(wrong_shape.py_func)
    column = lines[2].index("shape") + 1
    with pytest.raises(ufjit.CompileError, match=f"test_kernel_tuples.py:{first + 2}:{column}: error: attribute 'shape'"):
        wrong_shape[1, 1](np.zeros(1), (1.0,))


def test_kernels_with_signatures_take_no_tuples():
    @cuda.jit("void(float64[:], float64)")
    def given(r, v):
        r[0] = v

    with pytest.raises(TypeError, match="was given signatures"):
        given[1, 1](np.zeros(1), (1.0,))
    with pytest.raises(TypeError, match="specialize\\(\\) takes no tuples"):
        copy_three.specialize(np.zeros(3), (1.0, 2.0, 3.0))
