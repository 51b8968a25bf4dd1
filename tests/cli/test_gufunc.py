"""`ufjit run` and `ufjit compile` on generalized ufuncs (examples/gufunc_matmul.ufn):
several --out files for several outputs, printed results, and the manifest's
gufunc entries. Expected values computed here by plain loops."""
import json
import os
import unittest

import npyfile
from clitest import TempDir, example, parse_repr, ufjit


def matmul(a, b, m, n, p):
    return [sum(a[i * n + k] * b[k * p + j] for k in range(n)) for i in range(m) for j in range(p)]


class RunGufunc(TempDir):
    def test_batched_matmul_broadcasts_outer_dims(self):
        a = [float(i % 7) - 3 for i in range(2 * 3 * 4)]
        b = [float(i % 5) * 0.5 for i in range(4 * 2)]
        npyfile.write(self.path("a.npy"), "<f8", (2, 3, 4), a)
        npyfile.write(self.path("b.npy"), "<f8", (4, 2), b)
        r = ufjit("run", example("gufunc_matmul.ufn"), "matmul", "--in", self.path("a.npy"), "--in",
                  self.path("b.npy"), "--out", self.path("c.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("c.npy"))
        self.assertEqual((descr, shape), ("<f8", (2, 3, 2)))
        self.assertEqual(values, matmul(a[:12], b, 3, 4, 2) + matmul(a[12:], b, 3, 4, 2))

    def test_two_outputs_go_to_two_out_files(self):
        npyfile.write(self.path("x.npy"), "<i8", (2, 3), [3, -1, 7, 0, 0, 5])
        r = ufjit("run", example("gufunc_matmul.ufn"), "minmax", "--in", self.path("x.npy"), "--out",
                  self.path("lo.npy"), "--out", self.path("hi.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("lo.npy"))[3], [-1, 0])
        self.assertEqual(npyfile.read(self.path("hi.npy"))[3], [7, 5])

    def test_two_outputs_are_printed_one_per_line(self):
        npyfile.write(self.path("x.npy"), "<i8", (2, 3), [3, -1, 7, 0, 0, 5])
        r = ufjit("run", example("gufunc_matmul.ufn"), "minmax", "--in", self.path("x.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.strip().splitlines()
        self.assertEqual(len(lines), 2, r.stdout)
        self.assertEqual(parse_repr(lines[0])[0], [-1, 0])
        self.assertEqual(parse_repr(lines[1])[0], [7, 5])

    def test_wrong_number_of_out_files_is_a_usage_error(self):
        npyfile.write(self.path("x.npy"), "<i8", (3,), [1, 2, 3])
        r = ufjit("run", example("gufunc_matmul.ufn"), "minmax", "--in", self.path("x.npy"), "--out",
                  self.path("lo.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("2 outputs", r.stderr)
        self.assertFalse(os.path.exists(self.path("lo.npy")))

    def test_mismatched_core_dim_is_an_input_error(self):
        npyfile.write(self.path("a.npy"), "<f8", (2, 3), [1.0] * 6)
        r = ufjit("run", example("gufunc_matmul.ufn"), "matmul", "--in", self.path("a.npy"), "--in",
                  self.path("a.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("core dimension 'n'", r.stderr)


class CompileGufunc(TempDir):
    def test_manifest_lists_gufunc_entries_with_core_parameters(self):
        r = ufjit("compile", example("gufunc_matmul.ufn"), "-o", self.path("k.ptx"))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(self.path("k.json")) as f:
            manifest = json.load(f)
        entries = {e["entry"]: e for e in manifest["entries"]}
        name = "matmul__float32_2d_float32_2d_float32_2d__gufunc"
        self.assertIn(name, entries)
        e = entries[name]
        self.assertEqual(e["gufunc_layout"], "(m,n),(n,p)->(m,p)")
        kinds = [p["kind"] for p in e["params"]]
        self.assertEqual(kinds, ["count", "ndim", "shape"] + ["array", "strides", "core_shape", "core_strides"] * 3)
        self.assertEqual([p["name"] for p in e["params"]][-4:], ["out0", "out0_strides", "out0_core_shape",
                                                                 "out0_core_strides"])
        with open(self.path("k.ptx")) as f:
            self.assertIn(".entry " + name, f.read())


if __name__ == "__main__":
    unittest.main()


DYNAMIC = """from numba import guvectorize

@guvectorize('(n),(n)->()')
def dot(a, b, out):
    acc = a[0] * b[0]
    for i in range(1, a.shape[0]):
        acc += a[i] * b[i]
    out[0] = acc

@guvectorize('(n)->()')
def lowbit(a, out):
    out[0] = a[0] & 1
"""


class RunDynamicGufunc(TempDir):
    """A layout-only @guvectorize is compiled for the --in files' dtypes at the call."""

    def setUp(self):
        super().setUp()
        with open(self.path("dyn.ufn"), "w") as f:
            f.write(DYNAMIC)

    def test_output_dtype_is_the_inputs_common_type(self):
        a = [1, -2, 3, 4, 5, 6]
        npyfile.write(self.path("a.npy"), "<i4", (2, 3), a)
        npyfile.write(self.path("b.npy"), "<f4", (3,), [0.5, 1.0, 2.0])
        r = ufjit("run", self.path("dyn.ufn"), "dot", "--in", self.path("a.npy"), "--in", self.path("b.npy"),
                  "--out", self.path("c.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("c.npy"))
        self.assertEqual((descr, shape), ("<f8", (2,)))  # result_type(int32, float32) is float64
        self.assertEqual(values, [0.5 * 1 - 2.0 * 1 + 3 * 2.0, 4 * 0.5 + 5 * 1.0 + 6 * 2.0])

    def test_int64_files_give_int64(self):
        npyfile.write(self.path("x.npy"), "<i8", (2, 2), [1, 2, 3, 4])
        r = ufjit("run", self.path("dyn.ufn"), "dot", "--in", self.path("x.npy"), "--in", self.path("x.npy"),
                  "--out", self.path("c.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("c.npy"))
        self.assertEqual((descr, values), ("<i8", [1 + 4, 9 + 16]))

    def test_dtype_that_does_not_type_is_a_located_compile_error(self):
        npyfile.write(self.path("f.npy"), "<f8", (2,), [1.5, 2.0])
        r = ufjit("run", self.path("dyn.ufn"), "lowbit", "--in", self.path("f.npy"), "--target", "cpu")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("dyn.ufn:", r.stderr)
