"""`ufjit run --method reduce|accumulate|outer` end to end on .npy files.
Expected values are NumPy's, printed by NumPy 1.24 for the same inputs."""
import os
import unittest

import npyfile
from clitest import TempDir, parse_repr, ufjit

SOURCE = """
from numba import vectorize

@vectorize(["int64(int64, int64)", "float64(float64, float64)"], identity=0)
def add(a, b):
    return a + b

@vectorize(["int64(int64, int64)"])
def maximum(a, b):
    return a if a > b else b
"""

# a = np.arange(24).reshape(2, 3, 4) * 3 % 11 - 4
A = [-4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1, 2, 5, -3, 0, 3, 6, -2, 1, 4, -4, -1]
TARGET = os.environ.get("UFJIT_CLI_TARGET", "cpu")


class Methods(TempDir):
    def setUp(self):
        super().setUp()
        with open(self.path("m.ufn"), "w") as f:
            f.write(SOURCE)
        npyfile.write(self.path("a.npy"), "<i8", (2, 3, 4), A)

    def run_method(self, func, *args):
        return ufjit("run", self.path("m.ufn"), func, "--target", TARGET, *args)

    def test_reduce_default_axis_is_0(self):
        r = self.run_method("add", "--method", "reduce", "--in", self.path("a.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [[-5, 1, 7, 2], [-3, 3, 9, 4], [-1, 5, 0, -5]])

    def test_reduce_several_axes_keepdims_to_a_file(self):
        r = self.run_method("add", "--method", "reduce", "--axis", "0,2", "--keepdims", "--in", self.path("a.npy"),
                            "--out", self.path("r.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("r.npy"))
        self.assertEqual((descr, shape, values), ("<i8", (1, 3, 1), [5, 13, -1]))

    def test_reduce_axis_none_and_initial(self):
        r = self.run_method("add", "--method", "reduce", "--axis", "none", "--in", self.path("a.npy"))
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "17"), r.stderr)
        r = self.run_method("add", "--method", "reduce", "--axis", "-2", "--initial", "100", "--in",
                            self.path("a.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [[91, 100, 109, 107], [100, 109, 107, 94]])

    def test_accumulate_and_outer(self):
        r = self.run_method("maximum", "--method", "accumulate", "--axis", "2", "--in", self.path("a.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        # np.maximum.accumulate(a, axis=2)
        self.assertEqual(parse_repr(r.stdout)[0], [[[-4, -1, 2, 5], [-3, 0, 3, 6], [-2, 1, 4, 4]],
                                                   [[-1, 2, 5, 5], [0, 3, 6, 6], [1, 4, 4, 4]]])
        npyfile.write(self.path("x.npy"), "<i8", (2,), [1, 2])
        npyfile.write(self.path("y.npy"), "<i8", (3,), [10, 20, 30])
        r = self.run_method("add", "--method", "outer", "--in", self.path("x.npy"), "--in", self.path("y.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [[11, 21, 31], [12, 22, 32]])

    def test_empty_reduction_without_identity_is_an_error(self):
        npyfile.write(self.path("e.npy"), "<i8", (0,), [])
        r = self.run_method("maximum", "--method", "reduce", "--in", self.path("e.npy"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("zero-size array to reduction operation 'maximum' which has no identity", r.stderr)
        r = self.run_method("add", "--method", "reduce", "--in", self.path("e.npy"))
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "0"), r.stderr)

    def test_dtype_and_where(self):
        # np.add.reduce(a, axis=2, dtype=np.float64) and np.add.accumulate(np.array([1.5, 2.5]), dtype=np.int64)
        r = self.run_method("add", "--method", "reduce", "--axis", "2", "--dtype", "float64", "--in",
                            self.path("a.npy"), "--out", self.path("r.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("r.npy"))[0::3], ("<f8", [2.0, 6.0, -1.0, 3.0, 7.0, 0.0]))
        npyfile.write(self.path("f.npy"), "<f8", (2,), [1.5, 2.5])
        r = self.run_method("add", "--method", "accumulate", "--dtype", "int64", "--in", self.path("f.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [1, 3])
        # np.add.reduce(a, axis=2, where=[True, False, True, False]), NumPy 1.24
        npyfile.write(self.path("w.npy"), "|b1", (4,), [True, False, True, False])
        r = self.run_method("add", "--method", "reduce", "--axis", "2", "--where", self.path("w.npy"), "--in",
                            self.path("a.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [[-2, 0, 2], [4, 6, -3]])
        r = self.run_method("maximum", "--method", "reduce", "--axis", "2", "--where", self.path("w.npy"), "--in",
                            self.path("a.npy"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("does not have an identity, so to use a where mask one has to specify 'initial'", r.stderr)
        r = self.run_method("maximum", "--method", "reduce", "--axis", "2", "--where", self.path("w.npy"),
                            "--initial", "-100", "--in", self.path("a.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout)[0], [[2, 3, 4], [5, 6, 1]])
        npyfile.write(self.path("i.npy"), "<i8", (4,), [1, 0, 1, 0])
        r = self.run_method("add", "--method", "reduce", "--axis", "2", "--where", self.path("i.npy"), "--in",
                            self.path("a.npy"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("to dtype('bool')", r.stderr)

    def test_usage_errors(self):
        for args, needle in [(("--axis", "1", "--in", "2"), "need --method"),
                             (("--method", "accumulate", "--initial", "1", "--in", "2"), "options of --method reduce"),
                             (("--method", "reduce", "--axis", "x", "--in", "2"), "--axis takes"),
                             (("--method", "outer", "--in", "2"), "takes 2 --in"),
                             (("--method", "accumulate", "--axis", "0,1", "--in", "2"), "one --axis"),
                             (("--method", "accumulate", "--where", "w.npy", "--in", "2"), "options of --method reduce"),
                             (("--method", "outer", "--dtype", "int64", "--in", "2"), "reduce and accumulate"),
                             (("--method", "reduce", "--dtype", "int65", "--in", "2"), "--dtype takes a dtype name"),
                             (("--dtype", "int64", "--in", "2"), "need --method")]:
            r = self.run_method("add", *args)
            self.assertEqual(r.returncode, 2, (args, r.stderr))
            self.assertIn(needle, r.stderr)
        r = self.run_method("add", "--method", "reduce", "--axis", "3", "--in", self.path("a.npy"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("axis 3 is out of bounds for array of dimension 3", r.stderr)


class SignatureLess(TempDir):
    def test_signature_less_function_compiles_for_its_inputs(self):
        with open(self.path("d.ufn"), "w") as f:
            f.write("from numba import vectorize\n\n@vectorize\ndef scale(x, y):\n    return x * y + 1\n")
        npyfile.write(self.path("x.npy"), "<f4", (3,), [1.0, 2.0, -4.0])
        r = ufjit("run", self.path("d.ufn"), "scale", "--target", TARGET, "--in", self.path("x.npy"), "--in", "2.5",
                  "--out", self.path("y.npy"))
        self.assertEqual(r.returncode, 0, r.stderr)
        # NEP 50: the weak 2.5 takes the array's float32.
        self.assertEqual(npyfile.read(self.path("y.npy"))[0::3], ("<f4", [3.5, 6.0, -9.0]))
        r = ufjit("run", self.path("d.ufn"), "scale", "--target", TARGET, "--in", "2", "--in", "3")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "7"), r.stderr)


if __name__ == "__main__":
    unittest.main()
