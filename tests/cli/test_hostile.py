"""Hostile and careless input to the `ufjit` tool (issue 8): output paths that
are links, devices, read-only files or the inputs themselves; inputs that
are FIFOs, directories, devices or lie about their size; a cache directory
holding FIFOs or being a file; command-line scalars. Each test checks the
exit code, a message naming the problem, and that nothing was lost."""
import json
import os
import resource
import shutil
import stat
import subprocess
import sys
import threading
import unittest

import npyfile
from clitest import TOOL, TempDir, example, slurp, ufjit

ADD = example("add_ufunc.ufn")
QUICK = 30  # seconds: a command that hangs on a FIFO fails by timeout


class Hostile(TempDir):
    def source(self):
        """A private copy of add_ufunc.ufn (tests may try to overwrite it)."""
        path = self.path("g.ufn")
        with open(ADD) as src, open(path, "w") as dst:
            dst.write(src.read())
        return path

    def assert_no_temps(self):
        self.assertEqual([f for f in os.listdir(self.d) if ".tmp-" in f], [], "temporary file left")


class OutputFiles(Hostile):
    def test_output_that_is_the_source_is_a_usage_error(self):
        src = self.source()
        before = slurp(src)
        r = ufjit("compile", src, "-o", src)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("same file as the input", r.stderr)
        self.assertEqual(slurp(src), before)

    def test_output_hard_link_to_the_source_is_refused(self):
        src = self.source()
        os.link(src, self.path("alias.ptx"))
        r = ufjit("compile", src, "-o", self.path("alias.ptx"))
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertNotIn(".entry", slurp(src))

    def test_run_output_that_is_an_input_is_refused(self):
        npyfile.write(self.path("a.npy"), "<i8", (2,), [1, 2])
        os.symlink(self.path("a.npy"), self.path("link.npy"))
        r = ufjit("run", ADD, "add_ufunc", "--in", self.path("a.npy"), "--in", "1", "--out",
                  self.path("link.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(npyfile.read(self.path("a.npy"))[3], [1, 2])

    def test_symlink_is_written_through(self):
        os.symlink("real.ptx", self.path("link.ptx"))
        r = ufjit("compile", self.source(), "-o", self.path("link.ptx"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.islink(self.path("link.ptx")))
        self.assertIn(".entry", slurp(self.path("real.ptx")))
        self.assert_no_temps()

    def test_existing_file_keeps_its_mode(self):
        out = self.path("k.ptx")
        with open(out, "w") as f:
            f.write("old")
        os.chmod(out, 0o640)
        r = ufjit("compile", self.source(), "-o", out)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o640)
        self.assertIn(".entry", slurp(out))

    def test_read_only_file_is_refused_and_kept(self):
        out = self.path("ro.ptx")
        with open(out, "w") as f:
            f.write("keep me")
        os.chmod(out, 0o444)
        r = ufjit("compile", self.source(), "-o", out)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("read-only", r.stderr)
        self.assertEqual(slurp(out), "keep me")
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o444)
        self.assertFalse(os.path.exists(self.path("ro.json")))
        self.assert_no_temps()

    def test_dev_full_is_a_write_error_and_stays_a_device(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        r = ufjit("compile", self.source(), "-o", "/dev/full")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("No space left", r.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))
        self.assertFalse(os.path.exists("/dev/full.json"))
        npyfile.write(self.path("a.npy"), "<i8", (2,), [1, 2])
        r = ufjit("run", ADD, "add_ufunc", "--in", self.path("a.npy"), "--in", "1", "--out", "/dev/full",
                  "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertTrue(stat.S_ISCHR(os.stat("/dev/full").st_mode))

    def test_stdout_write_errors_are_errors(self):
        if not os.path.exists("/dev/full"):
            self.skipTest("no /dev/full")
        for args in (["compile", self.source()], ["run", ADD, "add_ufunc", "--in", "2", "--in", "3", "--target", "cpu"]):
            with open("/dev/full", "w") as full:
                r = subprocess.run([TOOL, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=QUICK)
            self.assertEqual(r.returncode, 1, r.stderr)
            self.assertIn("standard output", r.stderr)

    def test_dev_stdout_is_written_through_not_replaced(self):
        for name in ("/dev/stdout", "/proc/self/fd/1"):
            captured = self.path("captured.ptx")
            with open(captured, "w") as f:
                inode = os.fstat(f.fileno()).st_ino
                r = subprocess.run([TOOL, "compile", self.source(), "-o", name], stdout=f, stderr=subprocess.PIPE,
                                   text=True, timeout=QUICK)
            self.assertEqual(r.returncode, 0, name + ": " + r.stderr)
            self.assertEqual(os.stat(captured).st_ino, inode, name + " replaced the file behind it")
            self.assertIn(".entry", slurp(captured))
            self.assertTrue(os.path.islink("/dev/stdout"))
            self.assertFalse(os.path.exists("/dev/stdout.json"))

    def test_new_file_gets_the_umask_mode(self):
        out = self.path("new.ptx")
        r = subprocess.run([TOOL, "compile", self.source(), "-o", out], capture_output=True, text=True,
                           timeout=QUICK, preexec_fn=lambda: os.umask(0o027))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(stat.S_IMODE(os.stat(out).st_mode), 0o640)
        self.assertEqual(stat.S_IMODE(os.stat(self.path("new.json")).st_mode), 0o640)

    def test_fifo_output_is_written_through(self):
        fifo = self.path("out.fifo")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(slurp(fifo, "rb")))
        reader.start()
        r = ufjit("compile", self.source(), "-o", fifo, timeout=QUICK)
        reader.join(QUICK)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode))
        self.assertIn(b".entry", got[0])
        self.assertFalse(os.path.exists(self.path("out.json")), "a manifest beside a FIFO")

    def test_missing_directory_is_a_clear_error(self):
        r = ufjit("compile", self.source(), "-o", self.path("nope/x.ptx"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("does not exist", r.stderr)

    def test_directory_as_output_is_refused(self):
        r = ufjit("compile", self.source(), "-o", self.d)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("directory", r.stderr)

    def test_gufunc_compile_writes_its_module_and_manifest(self):
        src = self.path("dot.ufn")
        with open(src, "w") as f:
            f.write("from numba import guvectorize\n\n"
                    "@guvectorize(['void(float32[:], float32[:], float32[:])'], '(n),(n)->()')\n"
                    "def dot(a, b, out):\n"
                    "    out[0] = a[0] * b[0]\n")
        r = ufjit("compile", src, "-o", self.path("dot.ptx"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(".entry dot__float32_1d_float32_1d_float32_1d__gufunc", slurp(self.path("dot.ptx")))
        self.assertTrue(os.path.exists(self.path("dot.json")))
        self.assert_no_temps()

    def test_failing_manifest_leaves_no_module(self):
        # The manifest's path is a directory: nothing may be written at all.
        os.mkdir(self.path("m.json"))
        r = ufjit("compile", self.source(), "-o", self.path("m.ptx"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertFalse(os.path.exists(self.path("m.ptx")))
        self.assert_no_temps()


class InputFiles(Hostile):
    def run_add(self, *inputs):
        args = []
        for i in inputs:
            args += ["--in", i]
        return ufjit("run", ADD, "add_ufunc", *args, "--out", self.path("out.npy"), "--target", "cpu",
                     timeout=QUICK)

    def assert_refused(self, r, needle):
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn(needle, r.stderr)
        self.assertFalse(os.path.exists(self.path("out.npy")))

    def test_fifo_input_is_refused_at_once(self):
        os.mkfifo(self.path("in.npy"))
        self.assert_refused(self.run_add(self.path("in.npy"), "1"), "FIFO")

    def test_directory_input_is_refused(self):
        self.assert_refused(self.run_add(self.d, "1"), "directory")

    def test_dev_zero_input_is_refused(self):
        self.assert_refused(self.run_add("/dev/zero", "1"), "character device")

    def test_missing_input_says_no_such_file(self):
        self.assert_refused(self.run_add(self.path("missing.npy"), "1"), "No such file")

    def test_huge_declared_shape_in_a_small_file_is_truncated(self):
        header = "{'descr': '<i8', 'fortran_order': False, 'shape': (1000000000000,), }"
        with open(self.path("big.npy"), "wb") as f:
            pad = 64 - (10 + len(header) + 1) % 64
            h = (header + " " * pad + "\n").encode()
            f.write(b"\x93NUMPY\x01\x00" + len(h).to_bytes(2, "little") + h + b"\0" * 16)
        self.assert_refused(self.run_add(self.path("big.npy"), "1"), "truncated")

    def test_trailing_bytes_are_refused(self):
        npyfile.write(self.path("a.npy"), "<i8", (2,), [1, 2])
        with open(self.path("a.npy"), "ab") as f:
            f.write(b"junk")
        self.assert_refused(self.run_add(self.path("a.npy"), "1"), "follow the data")

    def test_fifo_source_is_refused_at_once(self):
        os.mkfifo(self.path("g.ufn"))
        r = ufjit("check", self.path("g.ufn"), timeout=QUICK)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("FIFO", r.stderr)

    def test_dev_zero_source_is_refused(self):
        r = ufjit("check", "/dev/zero", timeout=QUICK)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("character device", r.stderr)

    def test_oversized_source_is_refused(self):
        with open(self.path("huge.ufn"), "wb") as f:
            f.truncate((64 << 20) + 1)  # sparse: no disk used
        r = ufjit("check", self.path("huge.ufn"), timeout=QUICK)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("MiB", r.stderr)



class Cache(Hostile):
    ENTRY = "0123456789abcdef0123456789abcdef.cubin"

    def cache(self, *args):
        return ufjit(*args, env={"UFJIT_CACHE_DIR": self.path("cache"), "UFJIT_CACHE": "on"}, timeout=QUICK)

    def test_fifo_entry_blocks_no_verb(self):
        os.mkdir(self.path("cache"), 0o700)
        os.mkfifo(os.path.join(self.path("cache"), self.ENTRY), 0o600)
        for args in (["cache", "list"], ["cache", "stats"], ["cache", "verify"], ["cache", "prune"], ["info"]):
            r = self.cache(*args)  # a hang fails by timeout
            self.assertIn(r.returncode, (0, 1), " ".join(args) + ": " + r.stderr)
        r = self.cache("cache", "verify")
        self.assertIn("not a regular file", r.stdout)
        r = self.cache("run", ADD, "add_ufunc", "--in", "2", "--in", "3", "--target", "cpu")
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "5"), r.stderr)

    def test_cache_dir_that_is_a_file_is_reported(self):
        with open(self.path("cache"), "w") as f:
            f.write("keep")
        r = self.cache("info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("not a directory", r.stdout)
        self.assertNotIn("not created yet", r.stdout)
        for verb in ("list", "stats", "prune", "clear"):
            r = self.cache("cache", verb)
            self.assertEqual(r.returncode, 1, verb + ": " + r.stderr)
            self.assertIn("is not a directory", r.stderr)
        self.assertEqual(slurp(self.path("cache")), "keep")

    def test_clear_reports_entries_it_cannot_remove(self):
        os.makedirs(os.path.join(self.path("cache"), self.ENTRY))  # a directory named like an entry
        r = self.cache("cache", "clear")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("1 entries could not be removed", r.stderr)
        self.assertIn("Is a directory", r.stderr)

    @unittest.skipIf(os.geteuid() == 0, "root removes entries from a read-only directory anyway")
    def test_clear_on_a_read_only_directory_fails(self):
        os.mkdir(self.path("cache"), 0o700)
        with open(os.path.join(self.path("cache"), self.ENTRY), "wb") as f:
            f.write(b"x" * 100)
        os.chmod(self.path("cache"), 0o500)
        try:
            r = self.cache("cache", "clear")
        finally:
            os.chmod(self.path("cache"), 0o700)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("could not be removed", r.stderr)
        self.assertIn("Permission denied", r.stderr)


# Run by a NumPy-capable interpreter: saves each case as DIR/cI.npy and
# prints the list of NumPy's reprs as JSON.
NUMPY_REPR_CASES = """
import json, sys
import numpy as np
cases = [np.zeros((0, 3), np.float32), np.arange(6.0).reshape(2, 3) / 3, np.array([1e-10, 1.0, 2.0]),
         np.array([1e20, 2.5]), np.arange(2000), np.array([[True, False]]), np.array([1 + 2j, 3 - 4j]),
         np.arange(12, dtype=np.int32).reshape(2, 2, 3), np.array([np.nan, np.inf, -np.inf, 0.5], np.float32),
         np.array([255, 0], np.uint8), np.linspace(0, 1, 7, dtype=np.float32),
         np.array([123456789.0, 0.001]), np.array([0.1, 65504, -2.5], np.float16)]
for i, a in enumerate(cases):
    np.save('%s/c%d.npy' % (sys.argv[1], i), a)
print(json.dumps([repr(a) for a in cases]))
"""

IDENT = """from numba import vectorize

@vectorize(['float32(float32)', 'float64(float64)', 'int32(int32)', 'int64(int64)', 'complex128(complex128)',
            'float16(float16)', 'bool(bool)', 'uint8(uint8)'])
def ident(x):
    return x
"""


class LargeSources(Hostile):
    @unittest.skipIf("ASAN_OPTIONS" in os.environ, "ASan reserves terabytes of address space")
    def test_a_source_of_60_mb_of_comments_checks_under_a_1_gib_address_space_limit(self):
        # The lexer reserved a token per 2 bytes of source: 3.6 GB of
        # address space for this file, which failed under `ulimit -v`.
        src = self.path("commented.ufn")
        with open(ADD) as f, open(src, "w") as out:
            out.write(f.read())
            out.write(("# " + "x" * 1022 + "\n") * (60 * 1024))
        limit = 1024 ** 3

        def limit_address_space():
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        r = subprocess.run([TOOL, "check", src], capture_output=True, text=True, timeout=QUICK,
                           preexec_fn=limit_address_space)
        self.assertEqual(r.returncode, 0, r.stderr)


class Arguments(Hostile):
    """One --in is one operand; Python's number literals are numbers; the
    result prints in NumPy's repr layout."""

    def ident(self, *inputs, cwd=None):
        src = self.path("ident.ufn")
        with open(src, "w") as f:
            f.write(IDENT)
        args = []
        for i in inputs:
            args += ["--in", i]
        return ufjit("run", src, "ident", *args, "--target", "cpu", cwd=cwd)

    def test_list_literal_is_one_input_and_a_usage_error_with_a_hint(self):
        r = self.ident("[1,2]")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("np.save", r.stderr)
        self.assertNotIn("operands", r.stderr)  # not split into two

    def test_python_float_words_are_scalars(self):
        for text, expected in (("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("+inf", "inf"),
                               ("Infinity", "inf"), ("-0.0", "-0.0"), ("1e300", "1e+300"), (".5", "0.5"),
                               ("nanj", "nanj"), ("1+2j", "(1+2j)"), ("(1-2j)", "(1-2j)"), ("j", "1j"),
                               ("+7", "7"), ("True", "True")):
            r = self.ident(text)
            self.assertEqual((r.returncode, r.stdout.strip()), (0, expected), text + ": " + r.stderr)

    def test_integer_beyond_int64_is_an_error(self):
        r = self.ident("99999999999999999999")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("int64", r.stderr)

    def test_numbers_win_over_files_unless_written_with_a_slash(self):
        npyfile.write(self.path("2"), "<i4", (1,), [40])
        r = self.ident("2", cwd=self.d)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "2"), r.stderr)
        self.assertIn("./2", r.stderr)  # the note says how to read the file
        r = self.ident("./2", cwd=self.d)
        self.assertEqual((r.returncode, r.stdout.strip()), (0, "array([40], dtype=int32)"), r.stderr)

    def test_a_missing_path_is_no_such_file(self):
        r = self.ident(self.path("x.npy"))
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("No such file", r.stderr)

    def test_empty_results_keep_shape_and_dtype(self):
        npyfile.write(self.path("e.npy"), "<f4", (0, 3), [])
        r = self.ident(self.path("e.npy"))
        self.assertEqual(r.stdout.strip(), "array([], shape=(0, 3), dtype=float32)", r.stderr)
        npyfile.write(self.path("e1.npy"), "<i8", (0,), [])
        self.assertEqual(self.ident(self.path("e1.npy")).stdout.strip(), "array([], dtype=int64)")

    def test_printed_results_equal_numpys_own_repr(self):
        # Differential: the strings above were written from NumPy's rules; here
        # NumPy itself (Debian's python3-numpy) writes the files and the
        # expected reprs, from whichever interpreter can import it.
        python = next((exe for exe in (sys.executable, "/usr/bin/python3", shutil.which("python3"))
                       if exe and subprocess.run([exe, "-c", "import numpy"], capture_output=True).returncode == 0),
                      None)
        if python is None:
            self.skipTest("no interpreter here imports NumPy")
        made = subprocess.run([python, "-c", NUMPY_REPR_CASES, self.d], capture_output=True, text=True, check=True)
        expected = json.loads(made.stdout)
        self.assertGreater(len(expected), 10)
        for i, want in enumerate(expected):
            with self.subTest(case=i):
                self.assertEqual(self.ident(self.path("c%d.npy" % i)).stdout, want + "\n")

    def test_nd_results_print_as_numpy_does(self):
        npyfile.write(self.path("a.npy"), "<i4", (2, 2, 2), list(range(8)))
        self.assertEqual(self.ident(self.path("a.npy")).stdout,
                         "array([[[0, 1],\n        [2, 3]],\n\n       [[4, 5],\n        [6, 7]]], dtype=int32)\n")
        cases = [
            ("<f8", (4,), [1.0, 2.5, -3.25, float("nan")], "array([ 1.  ,  2.5 , -3.25,   nan])"),
            ("<f8", (2,), [1 / 3, 2.0], "array([0.33333333, 2.        ])"),
            ("<f4", (2, 2), [0.1, 1.0, 1e20, float("nan")],
             "array([[1.e-01, 1.e+00],\n       [1.e+20,    nan]], dtype=float32)"),
            ("<f2", (3,), [0.1, 65504, -2.5], "array([ 1.00e-01,  6.55e+04, -2.50e+00], dtype=float16)"),
            ("<f8", (3,), [0.1, 1e16, 1e-5], "array([1.e-01, 1.e+16, 1.e-05])"),
            ("<f8", (3,), [1.0, float("-inf"), 2.0], "array([  1., -inf,   2.])"),
            ("<i8", (5,), [1, 100, -5, 7, 12345], "array([    1,   100,    -5,     7, 12345])"),
            ("<i8", (2000,), list(range(2000)), "array([   0,    1,    2, ..., 1997, 1998, 1999])"),
            ("<i8", (30,), list(range(0, 3000, 100)),
             "array([   0,  100,  200,  300,  400,  500,  600,  700,  800,  900, 1000,\n"
             "       1100, 1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100,\n"
             "       2200, 2300, 2400, 2500, 2600, 2700, 2800, 2900])"),
            ("|b1", (2,), [True, False], "array([ True, False])"),
            ("<f4", (), [3.5], "3.5"),  # 0-d: the value
        ]
        for descr, shape, values, expected in cases:
            npyfile.write(self.path("x.npy"), descr, shape, values)
            r = self.ident(self.path("x.npy"))
            self.assertEqual((r.returncode, r.stdout.rstrip("\n")), (0, expected), r.stderr)

class Libdevice(Hostile):
    def test_a_libdevice_that_declares_a_table_it_uses_is_an_error_not_a_crash(self):
        libdevice = os.environ.get("UFJIT_TEST_LIBDEVICE", "")
        extract = os.environ.get("UFJIT_TEST_LLVM_EXTRACT", "")
        if not (os.path.isfile(libdevice) and os.access(extract, os.X_OK)):
            self.skipTest("needs the toolkit's libdevice and LLVM's llvm-extract")
        # sinf and cosf with what they call, but their string and table only declared.
        broken = self.path("libdevice.10.bc")
        subprocess.run([extract, "--recursive", "--func=__nv_sinf", "--func=__nv_cosf", libdevice, "-o", broken],
                       check=True)
        out = self.path("sincos.ptx")
        r = ufjit("compile", example("sincos.ufn"), "-o", out, env={"UFJIT_LIBDEVICE": broken})
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("libdevice at '%s' declares" % broken, r.stderr)
        self.assertIn("without defining it (set UFJIT_LIBDEVICE", r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assert_no_temps()


if __name__ == "__main__":
    unittest.main()
