"""Issue 10's language features through the tool: boundscheck=True (and
NUMBA_BOUNDSCHECK) in `ufjit run`, slices clipped as Python clips them, the
np.* functions Numba supports in `ufjit run` and `ufjit compile`. Expected
values from Python's own slicing and math module (no NumPy needed)."""
import itertools
import math
import os
import unittest

import npyfile
from clitest import TempDir, ufjit

PICK = '''from numba import guvectorize

@guvectorize(["void(float64[:], int64, float64[:])"], "(n),()->()"BOUNDSCHECK)
def pick(a, i, out):
    out[0] = a[i]
'''

SLICES = '''from numba import guvectorize

@guvectorize(['void(float64[:], int64, int64, float64[:])'], '(n),(),()->()', boundscheck=True)
def weighted(a, lo, hi, out):
    acc = 0.0
    k = 1.0
    for x in a[lo:hi]:
        acc += x * k
        k += 1.0
    for x in a[lo:hi:2]:
        acc += x * k
        k += 1.0
    for x in a[hi:lo:-3]:
        acc += x * k
        k += 1.0
    for x in a[:hi:-2]:
        acc += x * k
        k += 1.0
    out[0] = acc + len(a[lo:hi]) * 1000
'''

NUMPY = '''import numpy as np
from numba import vectorize

@vectorize(["int64(int64, int64)"], target="cuda")
def gcd_lcm(a, b):
    q, r = np.divmod(a, b)
    return np.gcd(a, b) * 1000000 + np.lcm(a, b) * 100 + r

@vectorize(["float64(float64, float64)"], target="cuda")
def soft(x, y):
    m, e = np.frexp(x)
    return np.logaddexp(x, y) + np.ldexp(m, e) + np.round(x, decimals=1)
'''


def weighted_reference(a, lo, hi):
    acc = 0.0
    k = 1.0
    for part in (a[lo:hi], a[lo:hi:2], a[hi:lo:-3], a[:hi:-2]):
        for x in part:
            acc += x * k
            k += 1.0
    return acc + len(a[lo:hi]) * 1000


class Language(TempDir):
    def write(self, name, text):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_boundscheck_raises_index_error_and_writes_no_output(self):
        src = self.write("pick.ufn", PICK.replace("BOUNDSCHECK", ", boundscheck=True"))
        npyfile.write(self.path("a.npy"), "<f8", (4,), [10.0, 11.0, 12.0, 13.0])
        npyfile.write(self.path("i.npy"), "<i8", (3,), [0, -1, 4])
        r = ufjit("run", src, "pick", "--in", self.path("a.npy"), "--in", self.path("i.npy"),
                  "--out", self.path("out.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("pick.ufn:5:16: IndexError: index is out of bounds", r.stderr)
        self.assertFalse(os.path.exists(self.path("out.npy")))
        npyfile.write(self.path("i.npy"), "<i8", (3,), [0, -1, 3])
        r = ufjit("run", src, "pick", "--in", self.path("a.npy"), "--in", self.path("i.npy"),
                  "--out", self.path("out.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out.npy"))[3], [10.0, 13.0, 13.0])

    def test_numba_boundscheck_variable_checks_a_gufunc_without_the_option(self):
        src = self.write("pick.ufn", PICK.replace("BOUNDSCHECK", ""))
        npyfile.write(self.path("a.npy"), "<f8", (2,), [1.0, 2.0])
        r = ufjit("run", src, "pick", "--in", self.path("a.npy"), "--in", "2", "--target", "cpu",
                  env={"NUMBA_BOUNDSCHECK": "1"})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("IndexError: index is out of bounds", r.stderr)

    def test_slices_out_of_range_are_clipped_as_python_clips_them(self):
        src = self.write("slices.ufn", SLICES)
        a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]
        bounds = [-100, -8, -7, -3, -1, 0, 2, 6, 7, 8, 100]
        pairs = list(itertools.product(bounds, bounds))
        npyfile.write(self.path("a.npy"), "<f8", (7,), a)
        npyfile.write(self.path("lo.npy"), "<i8", (len(pairs),), [p[0] for p in pairs])
        npyfile.write(self.path("hi.npy"), "<i8", (len(pairs),), [p[1] for p in pairs])
        r = ufjit("run", src, "weighted", "--in", self.path("a.npy"), "--in", self.path("lo.npy"),
                  "--in", self.path("hi.npy"), "--out", self.path("out.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        got = npyfile.read(self.path("out.npy"))[3]
        for (lo, hi), value in zip(pairs, got):
            self.assertEqual(value, weighted_reference(a, lo, hi), "a[%d:%d]" % (lo, hi))

    def test_numpy_functions_run_and_compile(self):
        src = self.write("np.ufn", NUMPY)
        npyfile.write(self.path("a.npy"), "<i8", (3,), [12, -18, 7])
        npyfile.write(self.path("b.npy"), "<i8", (3,), [18, 12, 0])
        r = ufjit("run", src, "gcd_lcm", "--in", self.path("a.npy"), "--in", self.path("b.npy"),
                  "--out", self.path("out.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        expected = []
        for a, b in ((12, 18), (-18, 12), (7, 0)):
            remainder = a % b if b != 0 else 0  # Python's sign rule; 0 by zero (NumPy)
            lcm = abs(a * b) // math.gcd(a, b) if a and b else 0
            expected.append(math.gcd(a, b) * 1000000 + lcm * 100 + remainder)
        self.assertEqual(npyfile.read(self.path("out.npy"))[3], expected)
        r = ufjit("run", src, "soft", "--in", "1.25", "--in", "-0.5", "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        want = math.log(math.exp(1.25) + math.exp(-0.5)) + 1.25 + 1.2
        self.assertAlmostEqual(float(r.stdout.strip()), want, places=12)
        r = ufjit("compile", src, "--emit", "ptx", "-o", self.path("np.ptx"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("np.ptx")) as f:
            ptx = f.read()
        self.assertIn(".entry gcd_lcm", ptx)
        self.assertIn(".entry soft", ptx)


if __name__ == "__main__":
    unittest.main()
