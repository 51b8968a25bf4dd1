"""Run by CTest (python_installed_package) with PYTHONPATH set to the
install prefix's Python path, as docs/guide/python.md says: the package imports from
there (not from the build tree), its extension finds the installed
libufjit.so, and a ufunc compiles and runs."""

import pathlib
import sys

import numpy as np

prefix = pathlib.Path(sys.argv[1]).resolve()

import ufjit  # noqa: E402 (after reading the prefix)
from ufjit import vectorize  # noqa: E402

where = pathlib.Path(ufjit.__file__).resolve()
if prefix not in where.parents:
    sys.exit(f"ufjit was imported from {where}, not from the prefix {prefix}")
extension = pathlib.Path(ufjit._ufjit.__file__).resolve()
if prefix not in extension.parents:
    sys.exit(f"ufjit._ufjit was imported from {extension}, not from the prefix {prefix}")


@vectorize(["float64(float64, float64)"], target="cpu")
def hyp(x, y):
    return (x * x + y * y) ** 0.5


r = hyp(np.array([3.0, 5.0]), np.array([4.0, 12.0]))
if r.tolist() != [5.0, 13.0]:
    sys.exit(f"hyp([3, 5], [4, 12]) gave {r.tolist()}, expected [5.0, 13.0]")
print(f"installed ufjit {ufjit.version()} from {where.parent}: ok")
