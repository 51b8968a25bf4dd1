"""Records (NumPy structured dtypes) as kernel arguments, with only the import
changed (numba -> ufjit): fields read and written by attribute and by name,
subarray fields, whole records copied, one record passed on its own (its
array sees the writes, as in Numba), and the errors of unsupported fields.
Checked against the same function run by Python on the same data."""

import numpy as np
import pytest

from ufjit import cuda

RECORD = np.dtype([("a", np.float64), ("b", np.int32), ("c", np.complex64), ("h", np.float32, 2)], align=True)
PACKED = np.dtype([("i", np.int32), ("j", np.float32, (3, 2))])


def sample(n=4):
    recs = np.zeros(n, dtype=RECORD)
    recs["a"] = np.arange(n) / 2
    recs["b"] = np.arange(n) * 10
    recs["c"] = np.arange(n) * 1j
    recs["h"] = np.arange(2 * n, dtype=np.float32).reshape(n, 2)
    return recs


@cuda.jit
def set_fields(recs, i, v):
    recs[i].a = v
    recs[i]["b"] = v
    r = recs[i]
    r.h[1] = r.a + r.b


@cuda.jit
def copy_record(recs, i, j):
    recs[i] = recs[j]


@cuda.jit
def read_fields(r, out):
    out[0] = r.a
    out[1] = r["b"]
    out[2] = r.c.imag
    out[3] = r.h[1]
    out[4] = r[1]


@cuda.jit
def fill_subarray(r, src):
    r["j"] = src
    r.i = src.shape[0]


@cuda.jit
def scale_every_record(recs, factor):
    i = cuda.grid(1)
    if i < recs.shape[0]:
        recs.a[i] *= factor
        recs[i].h[:] = recs[i].b


def test_fields_are_written_by_attribute_and_by_name():
    got, expect = sample(), sample().view(np.recarray)
    set_fields[1, 1](got, 2, 7.5)
    expect[2].a = 7.5
    expect[2].b = 7
    expect[2].h[1] = 7.5 + 7
    np.testing.assert_array_equal(got, expect)


def test_a_record_assigned_to_another_copies_every_field():
    got = sample()
    expect = sample()
    copy_record[1, 1](got, 0, 3)
    expect[0] = expect[3]
    np.testing.assert_array_equal(got, expect)


def test_one_record_is_passed_by_reference_to_its_array():
    recs = sample()
    out = np.zeros(5)
    read_fields[1, 1](recs[3], out)
    np.testing.assert_array_equal(out, [1.5, 30.0, 3.0, 7.0, 30.0])
    packed = np.zeros(2, dtype=PACKED)
    fill_subarray[1, 1](packed[1], np.arange(6, dtype=np.float32).reshape(3, 2))
    assert packed[1]["i"] == 3
    np.testing.assert_array_equal(packed[1]["j"], np.arange(6).reshape(3, 2))
    assert packed[0]["i"] == 0


def test_a_field_of_every_record_is_a_strided_view():
    recs = sample(100)
    expect = sample(100)
    scale_every_record[4, 32](recs, 3.0)
    expect["a"] *= 3.0
    expect["h"] = expect["b"][:, None]
    np.testing.assert_array_equal(recs, expect)


def test_a_recarray_and_a_structured_array_give_the_same_result():
    plain = sample()
    as_recarray = sample().view(np.recarray)
    set_fields[1, 1](plain, 1, -2.0)
    set_fields[1, 1](as_recarray, 1, -2.0)
    np.testing.assert_array_equal(plain, as_recarray)


def test_a_stored_array_of_another_shape_raises_value_error():
    packed = np.zeros(1, dtype=PACKED)
    with pytest.raises(ValueError, match="broadcast"):
        fill_subarray[1, 1](packed[0], np.ones((2, 2), dtype=np.float32))


def test_a_record_with_a_string_field_is_refused_naming_it():
    recs = np.zeros(2, dtype=[("name", "S8"), ("x", np.float64)])
    with pytest.raises(TypeError, match="field 'name'"):
        copy_record[1, 1](recs, 0, 1)


def test_an_unaligned_record_is_refused_with_the_fix():
    recs = np.zeros(2, dtype=[("a", np.int8), ("b", np.float64)])
    with pytest.raises(Exception, match="align=True"):
        copy_record[1, 1](recs, 0, 1)


POINTS = np.array([(1.0, 2), (3.0, 4)], dtype=[("x", np.float64), ("y", np.int64)])
SHAPES = np.array([(1, (2.0, 3.0))], dtype=np.dtype([("n", np.uint8), ("v", np.float32, 2)], align=True))


@cuda.jit
def read_constant_records(xs, ys, vs):
    points = cuda.const.array_like(POINTS)
    i = cuda.grid(1)
    if i < points.shape[0]:
        xs[i] = points[i]["x"]
        ys[i] = points[i].y
    vs[0] = SHAPES[0].v[1] + SHAPES[0].n


def test_a_module_level_array_of_records_is_a_constant():
    xs, ys, vs = np.zeros(2), np.zeros(2, dtype=np.int64), np.zeros(1, dtype=np.float32)
    read_constant_records[1, 2](xs, ys, vs)
    np.testing.assert_array_equal(xs, POINTS["x"])
    np.testing.assert_array_equal(ys, POINTS["y"])
    assert vs[0] == 4.0
