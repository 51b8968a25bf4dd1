"""Dask arrays, xarray objects and pandas Series given to a ufjit ufunc are
handled as for a NumPy ufunc: their ``__array_ufunc__`` answers (NEP 13),
reading the ufunc's ``signature``, ``nin``, ``nout`` and ``__name__``."""

import importlib

import numpy as np
import pytest

from ufjit import guvectorize, vectorize


@vectorize(["float64(float64, float64)"], target="cpu")
def add(a, b):
    return a + b


@guvectorize(["void(float64[:], float64[:])"], "(n)->()", target="cpu")
def total(x, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i]
    out[0] = acc


def need(module):
    try:
        return importlib.import_module(module)
    except ImportError:
        pytest.skip(f"needs {module}")


def test_dask_arrays_stay_lazy_and_compute_chunk_by_chunk():
    da = need("dask.array")
    x = da.from_array(np.arange(10.0), chunks=5)
    result = add(x, x)
    assert isinstance(result, da.Array)
    assert result.compute().tolist() == (np.arange(10.0) * 2).tolist()


def test_a_gufunc_over_dask_chunks_is_dasks_apply_gufunc():
    da = need("dask.array")
    x = da.from_array(np.arange(6.0).reshape(3, 2), chunks=(1, 2))
    result = total(x)
    assert isinstance(result, da.Array)
    assert result.compute().tolist() == [1.0, 5.0, 9.0]


def test_xarray_and_pandas_keep_their_types():
    xr = need("xarray")
    pd = need("pandas")
    xa = xr.DataArray(np.arange(4.0), dims="x")
    assert isinstance(add(xa, xa), xr.DataArray) and add(xa, xa).dims == ("x",)
    s = pd.Series(np.arange(4.0), index=list("abcd"))
    r = add(s, s)
    assert isinstance(r, pd.Series) and list(r.index) == list("abcd") and r.tolist() == [0.0, 2.0, 4.0, 6.0]
