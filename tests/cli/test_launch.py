"""`ufjit launch`: explicit kernels (@cuda.jit, LANGUAGE.md section 9) from the
command line, on the CPU target: the tutorials' kernels (a grid-stride add, a
2-D grid, a shared-memory reduction with barriers, atomics), numbers as
arguments, the saved arrays, input files left as they were, every error path
writing nothing; and `ufjit compile` / `ufjit check` of a kernel file.
Expected values computed here by plain loops."""
import json
import os
import stat
import struct
import unittest

import npyfile
from clitest import TempDir, ufjit

ADD = '''from numba import cuda

@cuda.jit("void(float32[:], float32[:], float32[:])")
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]
'''

FILL_2D = '''from numba import cuda

@cuda.jit
def fill(a, scale):
    i, j = cuda.grid(2)
    if i < a.shape[0] and j < a.shape[1]:
        a[i, j] = i * scale + j
'''

BLOCK_SUM = '''from numba import cuda, float32

@cuda.jit("void(float32[:], float32[:])")
def block_sum(x, partial):
    tile = cuda.shared.array(128, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 64
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = tile[0]
'''

HISTOGRAM = '''from numba import cuda

@cuda.jit
def histogram(values, bins):
    i = cuda.grid(1)
    if i < values.size:
        cuda.atomic.add(bins, values[i] % bins.size, 1)
'''

SCALARS = '''from numba import cuda

@cuda.jit
def affine(a, k, b):
    i = cuda.grid(1)
    if i < a.size:
        a[i] = a[i] * k + b

@cuda.jit
def complex_parts(out, z):
    if cuda.grid(1) == 0:
        out[0] = z.real
        out[1] = z.imag
'''

REVERSE = '''from numba import cuda, float32

@cuda.jit
def reverse(a):
    buf = cuda.shared.array(0, float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    a[t] = buf[cuda.blockDim.x - 1 - t]
'''

CHECKED = '''from numba import cuda

@cuda.jit("void(float64[:])")
def checked(a):
    i = cuda.grid(1)
    if i < a.size and a[i] < 0:
        raise ValueError("negative element")
'''

BROKEN = '''from numba import cuda

@cuda.jit("void(float32[:])")
def broken(a):
    i = cuda.grid(1)
    a[i] = math.sqrtx(a[i])
'''


def floats32(values):
    """The values rounded to float32, as the kernel computes them."""
    return list(struct.unpack("<%df" % len(values), struct.pack("<%df" % len(values), *values)))


class LaunchCase(TempDir):
    def source(self, text, name="k.ufn"):
        path = self.path(name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def launch(self, src, kernel, *args, target="cpu"):
        return ufjit("launch", src, kernel, *args, *(("--target", target) if target else ()))

    def snapshot(self):
        """Every file under the temporary directory with its bytes and mtime,
        every folder (as None) and every symlink (as its target)."""
        files = {}
        for root, dirs, names in os.walk(self.d):
            for name in dirs + names:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    files[os.path.relpath(path, self.d)] = os.readlink(path)
                elif name in dirs:
                    files[os.path.relpath(path, self.d)] = None
            for name in names:
                path = os.path.join(root, name)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as f:
                    files[os.path.relpath(path, self.d)] = (f.read(), os.stat(path).st_mtime_ns)
        return files

    def add_inputs(self, n=1000):
        x = [float(i) for i in range(n)]
        y = [0.5 * i for i in range(n)]
        npyfile.write(self.path("x.npy"), "<f4", (n,), x)
        npyfile.write(self.path("y.npy"), "<f4", (n,), y)
        npyfile.write(self.path("out.npy"), "<f4", (n,), [-1.0] * n)
        return x, y

    def add_args(self, out_dir="out"):
        return ("--arg", self.path("x.npy"), "--arg", self.path("y.npy"), "--arg", self.path("out.npy"),
                "--out-dir", self.path(out_dir))


class TutorialKernels(LaunchCase):
    def test_grid_stride_add_with_fewer_threads_than_elements(self):
        src = self.source(ADD)
        x, y = self.add_inputs()
        r = self.launch(src, "add", "--grid", "3", "--block", "64", *self.add_args())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual((r.stdout, r.stderr), ("", ""))
        descr, shape, _, values = npyfile.read(self.path("out/out.npy"))
        self.assertEqual((descr, shape), ("<f4", (1000,)))
        self.assertEqual(values, [a + b for a, b in zip(x, y)])
        self.assertEqual(npyfile.read(self.path("out/x.npy"))[3], x)
        self.assertEqual(npyfile.read(self.path("out/y.npy"))[3], y)

    def test_a_two_dimensional_grid_and_block(self):
        src = self.source(FILL_2D)
        npyfile.write(self.path("a.npy"), "<i8", (20, 30), [-1] * 600)
        r = self.launch(src, "fill", "--grid", "2,2", "--block", "16,16", "--arg", self.path("a.npy"), "--arg",
                        "100", "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("out/a.npy"))
        self.assertEqual((descr, shape), ("<i8", (20, 30)))
        self.assertEqual(values, [i * 100 + j for i in range(20) for j in range(30)])

    def test_a_shared_memory_reduction_with_barriers(self):
        src = self.source(BLOCK_SUM)
        x = [float(i % 17) for i in range(1000)]
        npyfile.write(self.path("x.npy"), "<f4", (1000,), x)
        npyfile.write(self.path("partial.npy"), "<f4", (8,), [-1.0] * 8)
        r = self.launch(src, "block_sum", "--grid", "8", "--block", "128", "--arg", self.path("x.npy"), "--arg",
                        self.path("partial.npy"), "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        want = [sum(x[b * 128:(b + 1) * 128]) for b in range(8)]
        self.assertEqual(npyfile.read(self.path("out/partial.npy"))[3], want)

    def test_atomics_count_every_thread(self):
        src = self.source(HISTOGRAM)
        values = [(i * 7919) % 1001 for i in range(1000)]
        npyfile.write(self.path("values.npy"), "<i4", (1000,), values)
        npyfile.write(self.path("bins.npy"), "<i4", (10,), [0] * 10)
        r = self.launch(src, "histogram", "--grid", "4", "--block", "256", "--arg", self.path("values.npy"),
                        "--arg", self.path("bins.npy"), "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        want = [0] * 10
        for v in values:
            want[v % 10] += 1
        self.assertEqual(npyfile.read(self.path("out/bins.npy"))[3], want)

    def test_dynamic_shared_memory_from_shared(self):
        src = self.source(REVERSE)
        npyfile.write(self.path("a.npy"), "<f4", (48,), [float(i) for i in range(48)])
        r = self.launch(src, "reverse", "--grid", "1", "--block", "48", "--shared", str(48 * 4), "--arg",
                        self.path("a.npy"), "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/a.npy"))[3], [float(47 - i) for i in range(48)])

    def test_the_default_target_runs_too(self):
        # The CPU where there is no GPU, the GPU (with copies back) where there is one.
        src = self.source(ADD)
        x, y = self.add_inputs(100)
        r = self.launch(src, "add", "--grid", "1", "--block", "32", *self.add_args(), target=None)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/out.npy"))[3], [a + b for a, b in zip(x, y)])


class ScalarArguments(LaunchCase):
    def run_affine(self, k, b, descr="<f8"):
        src = self.source(SCALARS)
        npyfile.write(self.path("a.npy"), descr, (4,), [1, 2, 3, 4])
        return self.launch(src, "affine", "--grid", "1", "--block", "32", "--arg", self.path("a.npy"), "--arg", k,
                           "--arg", b, "--out-dir", self.path("out"))

    def test_ints_and_floats_are_weak_scalars(self):
        r = self.run_affine("3", "0.5")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/a.npy"))[3], [3.5, 6.5, 9.5, 12.5])
        self.assertEqual(sorted(os.listdir(self.path("out"))), ["a.npy"])  # scalars are not saved

    def test_an_int_array_keeps_its_dtype(self):
        r = self.run_affine("-2", "+7", descr="<i4")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, _, _, values = npyfile.read(self.path("out/a.npy"))
        self.assertEqual((descr, values), ("<i4", [5, 3, 1, -1]))

    def test_inf_and_nan(self):
        r = self.run_affine("inf", "nan")
        self.assertEqual(r.returncode, 0, r.stderr)
        values = npyfile.read(self.path("out/a.npy"))[3]
        self.assertTrue(all(v != v for v in values), values)
        r = self.run_affine("-inf", "1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/a.npy"))[3], [float("-inf")] * 4)

    def test_a_complex_number(self):
        src = self.source(SCALARS)
        npyfile.write(self.path("out.npy"), "<f8", (2,), [0.0, 0.0])
        r = self.launch(src, "complex_parts", "--grid", "1", "--block", "1", "--arg", self.path("out.npy"),
                        "--arg", "1.5-2j", "--out-dir", self.path("o"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("o/out.npy"))[3], [1.5, -2.0])

    def test_verbose_prints_the_signature_the_target_and_the_time(self):
        r = self.run_affine("3", "0.5")
        self.assertEqual(r.returncode, 0, r.stderr)
        r = ufjit("launch", self.path("k.ufn"), "affine", "--grid", "1", "--block", "32", "--arg",
                  self.path("a.npy"), "--arg", "3", "--arg", "0.5", "--out-dir", self.path("out"), "--target", "cpu",
                  "-v")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kernel 'affine' void(float64[:], int64, float64) on cpu", r.stderr)
        self.assertIn("grid (1, 1, 1), block (32, 1, 1)", r.stderr)
        self.assertRegex(r.stderr, r"[0-9.]+ ms")

    def test_verbose_names_the_given_signature_that_fits(self):
        src = self.source(ADD)
        self.add_inputs(10)
        r = self.launch(src, "add", "--grid", "1", "--block", "32", *self.add_args(), "-v")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("kernel 'add' void(float32[:], float32[:], float32[:]) on cpu", r.stderr)


PRINTS = '''from numba import cuda

@cuda.jit
def hello(a, scale):
    i = cuda.grid(1)
    print(i, "of", cuda.gridsize(1), a[i] * scale, a[i] > 1, 1 + 2j, "100%")
    print()
'''


class Print(LaunchCase):
    def test_each_thread_prints_its_line_as_numbas_cuda_print(self):
        src = self.source(PRINTS)
        npyfile.write(self.path("a.npy"), "<f4", (3,), [0.5, 1.5, 2.5])
        r = self.launch(src, "hello", "--grid", "1", "--block", "3", "--arg", self.path("a.npy"), "--arg", "2",
                        "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = sorted(line for line in r.stdout.splitlines() if line)
        self.assertEqual(lines, [f"{i} of 3 {(i + 0.5) * 2:.6f} {i > 0} (1.000000+2.000000j) 100%" for i in range(3)])
        self.assertEqual(r.stdout.count("\n"), 6)  # print() prints an empty line

    def test_print_with_keywords_is_refused_naming_them(self):
        src = self.source(PRINTS.replace("@cuda.jit", '@cuda.jit("void(float32[:], int64)")').replace(
            "print()", 'print(1, sep=",")'))
        r = ufjit("check", src)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("print() takes values to print only (no sep=, end=, file= or *args)", r.stderr)


class Files(LaunchCase):
    def test_input_files_are_never_modified(self):
        src = self.source(ADD)
        self.add_inputs()
        before = self.snapshot()
        r = self.launch(src, "add", "--grid", "4", "--block", "256", *self.add_args())
        self.assertEqual(r.returncode, 0, r.stderr)
        after = self.snapshot()
        for name, content in before.items():
            self.assertEqual(after[name], content, name)  # bytes and mtime
        self.assertNotEqual(after["out/out.npy"][0], before["out.npy"][0])

    def test_the_out_dir_holds_one_file_per_array_parameter_and_nothing_else(self):
        src = self.source(ADD)
        self.add_inputs()
        r = self.launch(src, "add", "--grid", "4", "--block", "256", *self.add_args("a/b/c"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sorted(os.listdir(self.path("a/b/c"))), ["out.npy", "x.npy", "y.npy"])

    def test_an_existing_out_dir_is_used_and_its_files_replaced(self):
        src = self.source(ADD)
        x, y = self.add_inputs(10)
        os.mkdir(self.path("out"))
        with open(self.path("out/out.npy"), "w") as f:
            f.write("old")
        with open(self.path("out/keep.txt"), "w") as f:
            f.write("kept")
        r = self.launch(src, "add", "--grid", "1", "--block", "32", *self.add_args())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/out.npy"))[3], [a + b for a, b in zip(x, y)])
        self.assertEqual(sorted(os.listdir(self.path("out"))), ["keep.txt", "out.npy", "x.npy", "y.npy"])

    def test_an_out_dir_that_links_to_a_directory_is_written_through_the_link(self):
        src = self.source(ADD)
        self.add_inputs(10)
        os.mkdir(self.path("real"))
        os.symlink(self.path("real"), self.path("out"))
        r = self.launch(src, "add", "--grid", "1", "--block", "32", *self.add_args())
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(self.path("out")))
        self.assertEqual(sorted(os.listdir(self.path("real"))), ["out.npy", "x.npy", "y.npy"])

    def test_a_fortran_ordered_input_is_saved_as_it_was_laid_out(self):
        src = self.source(FILL_2D)
        npyfile.write(self.path("a.npy"), "<i8", (3, 2), [0] * 6, fortran=True)
        r = self.launch(src, "fill", "--grid", "1", "--block", "4,4", "--arg", self.path("a.npy"), "--arg", "10",
                        "--out-dir", self.path("out"))
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, fortran, values = npyfile.read(self.path("out/a.npy"))
        self.assertEqual((shape, fortran), ((3, 2), True))
        self.assertEqual(values, [0, 10, 20, 1, 11, 21])  # column by column


class Errors(LaunchCase):
    """Every error exits with the tool's codes and writes nothing: no out-dir,
    no file in an existing one, the inputs as they were."""

    def assert_fails(self, code, message, *args, src=None, out_dir="out"):
        src = src or self.source(ADD)
        if not os.path.exists(self.path("x.npy")):
            self.add_inputs(10)
        before = self.snapshot()
        r = self.launch(src, *args, "--out-dir", self.path(out_dir))
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertIn(message, r.stderr)
        self.assertEqual(self.snapshot(), before)  # no out-dir made, no file written or replaced
        return r

    def inputs(self):
        return "--arg", self.path("x.npy"), "--arg", self.path("y.npy"), "--arg", self.path("out.npy")

    def test_bad_grid_and_block_syntax_is_a_usage_error(self):
        for option, value in (("--grid", "4x4"), ("--grid", "1,2,3,4"), ("--grid", ""), ("--grid", "2,,2"),
                              ("--block", "-32"), ("--block", "1.5"), ("--block", "99999999999999999999")):
            with self.subTest(option=option, value=value):
                args = {"--grid": "1", "--block": "32"}
                args[option] = value
                r = self.assert_fails(2, option + " " + value + ": expected 1 to 3 whole numbers", "add", "--grid",
                                      args["--grid"], "--block", args["--block"], *self.inputs())

    def test_zero_extents_and_too_many_threads_name_cudas_limits(self):
        cases = (("0", "32", "grid (0, 1, 1) is outside CUDA's limits"),
                 ("1,0", "32", "grid (1, 0, 1) is outside CUDA's limits"),
                 ("1", "32,64", "block (32, 64, 1) is outside CUDA's limits"),
                 ("1", "2048", "block (2048, 1, 1) is outside CUDA's limits"))
        for grid, block, message in cases:
            with self.subTest(grid=grid, block=block):
                self.assert_fails(1, message, "add", "--grid", grid, "--block", block, *self.inputs())

    def test_too_much_dynamic_shared_memory(self):
        self.assert_fails(1, "bytes of dynamic shared memory", "add", "--grid", "1", "--block", "32", "--shared",
                          "-1", *self.inputs())

    def test_the_argument_count_names_the_kernel_and_its_parameters(self):
        r = self.assert_fails(2, "kernel 'add' takes 3 arguments (x, y, out), 2 --arg given", "add", "--grid", "1",
                              "--block", "32", "--arg", self.path("x.npy"), "--arg", self.path("y.npy"))
        self.assertIn("give one --arg per parameter", r.stderr)
        self.assert_fails(2, "kernel 'add' takes 3 arguments (x, y, out), 0 --arg given", "add", "--grid", "1",
                          "--block", "32")

    def test_an_unknown_kernel_lists_the_kernels(self):
        src = self.source(SCALARS)
        self.assert_fails(1, "has no kernel 'affin'; it has 'affine', 'complex_parts'", "affin", "--grid", "1",
                          "--block", "1", src=src)

    def test_a_file_without_kernels(self):
        src = self.source("from numba import vectorize\n\n@vectorize(['f8(f8)'])\ndef f(x):\n    return x\n")
        self.assert_fails(1, "has no @cuda.jit kernel", "f", "--grid", "1", "--block", "1", src=src)

    def test_an_argument_that_is_neither_a_number_nor_an_npy_file(self):
        self.assert_fails(2, "--arg x.txt: neither a number", "add", "--grid", "1", "--block", "32", "--arg",
                          "x.txt", "--arg", self.path("y.npy"), "--arg", self.path("out.npy"))
        self.assert_fails(2, "--arg [1,2]: a list is not an operand", "add", "--grid", "1", "--block", "32", "--arg",
                          "[1,2]", "--arg", self.path("y.npy"), "--arg", self.path("out.npy"))

    def test_an_unreadable_npy_file(self):
        self.assert_fails(1, "missing.npy", "add", "--grid", "1", "--block", "32", "--arg", self.path("missing.npy"),
                          "--arg", self.path("y.npy"), "--arg", self.path("out.npy"))
        with open(self.path("bad.npy"), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00garbage")
        self.assert_fails(1, "bad.npy", "add", "--grid", "1", "--block", "32", "--arg", self.path("bad.npy"),
                          "--arg", self.path("y.npy"), "--arg", self.path("out.npy"))

    def test_an_array_of_another_dtype_is_a_dispatch_error(self):
        npyfile.write(self.path("wide.npy"), "<f8", (10,), [0.0] * 10)
        self.assert_fails(1, "kernel 'add' has no signature for arguments (float32[:], float32[:], float64[:])",
                          "add", "--grid", "1", "--block", "32", "--arg", self.path("x.npy"), "--arg",
                          self.path("y.npy"), "--arg", self.path("wide.npy"))

    def test_a_compile_error_prints_the_located_diagnostic(self):
        src = self.source(BROKEN, "broken.ufn")
        npyfile.write(self.path("a.npy"), "<f4", (4,), [1.0] * 4)
        r = self.assert_fails(1, "broken.ufn:6:17: error:", "broken", "--grid", "1", "--block", "4", "--arg",
                              self.path("a.npy"), src=src)
        self.assertIn("unknown function 'math.sqrtx'; did you mean 'math.sqrt'?", r.stderr)
        self.assertEqual(r.stderr, ufjit("check", src).stderr)  # as `check` prints it

    def test_a_raise_in_the_kernel_is_reported_after_the_launch(self):
        src = self.source(CHECKED)
        npyfile.write(self.path("a.npy"), "<f8", (3,), [1.0, -2.0, 3.0])
        r = self.assert_fails(1, "ValueError: negative element", "checked", "--grid", "1", "--block", "32",
                              "--arg", self.path("a.npy"), src=src)
        self.assertIn("k.ufn:7:9", r.stderr)

    def test_check_reports_an_index_out_of_bounds_naming_the_array_and_the_thread(self):
        r = self.assert_fails(1, "IndexError: index is out of bounds for axis 0 of 'x' (index 10, size 10), in "
                              "thread (10, 0, 0) of block (0, 0, 0)", "add", "--grid", "1", "--block", "11",
                              "--check", *self.inputs(), src=self.source(ADD.replace("x.shape[0]", "x.shape[0] + 1")))
        self.assertIn("k.ufn:8:", r.stderr)

    def test_a_failed_launch_replaces_no_file_of_an_existing_out_dir(self):
        src = self.source(CHECKED)
        npyfile.write(self.path("a.npy"), "<f8", (3,), [1.0, -2.0, 3.0])
        os.mkdir(self.path("existing"))
        with open(self.path("existing/a.npy"), "w") as f:
            f.write("old")
        self.assert_fails(1, "ValueError", "checked", "--grid", "1", "--block", "32", "--arg", self.path("a.npy"),
                          src=src, out_dir="existing")
        self.assertEqual(sorted(os.listdir(self.path("existing"))), ["a.npy"])

    def test_an_out_dir_that_is_a_file_is_refused(self):
        with open(self.path("file"), "w") as f:
            f.write("not a directory")
        self.assert_fails(2, "--out-dir " + self.path("file") + " is not a directory", "add", "--grid", "1",
                          "--block", "32", *self.inputs(), out_dir="file")
        self.assert_fails(2, "is not a directory", "add", "--grid", "1", "--block", "32", *self.inputs(),
                          out_dir="file/sub")

    def test_an_out_dir_that_is_a_broken_symlink_is_refused(self):
        os.symlink(self.path("nowhere"), self.path("link"))
        self.assert_fails(2, "is a symbolic link to nothing", "add", "--grid", "1", "--block", "32", *self.inputs(),
                          out_dir="link")

    def test_an_output_that_would_replace_an_input_is_refused(self):
        # --out-dir the inputs' own folder: x.npy would be written over the input x.npy.
        self.add_inputs(10)
        r = self.assert_fails(2, "is the same file as the input", "add", "--grid", "1", "--block", "32",
                              *self.inputs(), out_dir=".")
        self.assertIn("x.npy", r.stderr)

    def test_a_read_only_output_file_is_refused_before_the_launch(self):
        self.add_inputs(10)
        os.mkdir(self.path("out"))
        with open(self.path("out/y.npy"), "w") as f:
            f.write("keep")
        os.chmod(self.path("out/y.npy"), stat.S_IRUSR)
        self.assert_fails(1, "y.npy", "add", "--grid", "1", "--block", "32", *self.inputs())
        self.assertEqual(sorted(os.listdir(self.path("out"))), ["y.npy"])


class CudaTarget(LaunchCase):
    def test_the_cuda_target_launches_or_exits_3_writing_nothing(self):
        src = self.source(ADD)
        x, y = self.add_inputs(300)
        before = self.snapshot()
        r = self.launch(src, "add", "--grid", "2", "--block", "64", *self.add_args(), target="cuda")
        if r.returncode == 3:  # no GPU here: a device error, nothing written
            self.assertIn("ufjit: error:", r.stderr)
            self.assertEqual(self.snapshot(), before)
            return
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("out/out.npy"))[3], [a + b for a, b in zip(x, y)])


class Help(unittest.TestCase):
    def test_launch_help_ends_with_an_example_and_the_top_level_help_lists_launch(self):
        r = ufjit("launch", "--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        for option in ("--grid", "--block", "--shared", "--arg", "--out-dir", "--target", "--check", "-v"):
            self.assertIn(option, r.stdout)
        last_line = r.stdout.strip().splitlines()[-1]
        self.assertIn("ufjit launch examples/kernels.ufn add --grid 4 --block 256", last_line)
        r = ufjit("--help")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("launch", r.stdout)

    def test_missing_required_options_are_usage_errors(self):
        r = ufjit("launch", "k.ufn", "add", "--block", "32", "--out-dir", "out")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--grid", r.stderr)


class CompileAndCheckKernels(LaunchCase):
    def compile(self, emit, output):
        src = self.source(ADD + "\n" + BLOCK_SUM.replace("from numba import cuda, float32\n", ""))
        r = ufjit("compile", src, "--emit", emit, "-o", self.path(output))
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.splitext(self.path(output))[0] + ".json") as f:
            return json.load(f)

    def assert_kernel_manifest(self, manifest):
        entries = {e["function"]: e for e in manifest["entries"]}
        self.assertEqual(sorted(entries), ["add", "block_sum"])
        add = entries["add"]
        self.assertEqual(add["signature"], "void(float32[:], float32[:], float32[:])")
        self.assertEqual(add["variant"]["layout"], "kernel")
        self.assertNotIn("launch", add)
        # Per array parameter in order: its pointer, then 8 int64 of shape and 8 of strides.
        kinds = [(p["kind"], p["type"]) for p in add["params"]]
        self.assertEqual(kinds, [("array", "float32*"), ("core_shape", "int64[8]"), ("core_strides", "int64[8]")] * 3)
        self.assertEqual([p["name"] for p in add["params"]][:3], ["x", "x_shape", "x_strides"])
        self.assertIn("'kernel' entries (@cuda.jit)", manifest["abi"])

    def test_compile_emits_ptx_with_a_manifest_of_kernel_entries(self):
        manifest = self.compile("ptx", "k.ptx")
        self.assert_kernel_manifest(manifest)
        with open(self.path("k.ptx")) as f:
            ptx = f.read()
        for entry in manifest["entries"]:
            self.assertIn(".entry " + entry["entry"], ptx)
        self.assertIn("bar.sync", ptx)
        self.assertIn(".shared", ptx)

    def test_compile_emits_a_cubin_with_a_manifest(self):
        manifest = self.compile("cubin", "k.cubin")
        self.assert_kernel_manifest(manifest)
        with open(self.path("k.cubin"), "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")

    def test_check_of_a_kernel_file(self):
        r = ufjit("check", self.source(ADD))
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        r = ufjit("check", self.source(BROKEN, "broken.ufn"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("broken.ufn:6:17: error:", r.stderr)


if __name__ == "__main__":
    unittest.main()
