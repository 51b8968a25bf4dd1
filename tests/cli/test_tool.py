"""End-to-end tests of the `ufjit` tool: exit codes, compile outputs, and
`run` on .npy files, including every error path (no partial output file)."""
import json
import os
import tempfile
import unittest

import npyfile
from clitest import TempDir, example, parse_repr, slurp, ufjit


class Verbs(unittest.TestCase):
    def test_version_prints_the_version(self):
        r = ufjit("--version")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("ufjit", r.stdout)

    def test_every_verb_has_help(self):
        for verb in ("check", "compile", "run", "info", "cache"):
            r = ufjit(verb, "--help")
            self.assertEqual(r.returncode, 0, verb + ": " + r.stderr)
            self.assertIn("Usage", r.stdout + r.stderr)

    def test_unknown_verb_is_a_usage_error(self):
        self.assertEqual(ufjit("frobnicate").returncode, 2)

    def test_missing_argument_is_a_usage_error(self):
        self.assertEqual(ufjit("check").returncode, 2)

    def test_info_runs_without_a_gpu(self):
        r = ufjit("info")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cache", r.stdout)


class Check(unittest.TestCase):
    def test_clean_example_exits_zero(self):
        r = ufjit("check", example("gaussian_pdf.ufn"))
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stderr, "")

    def test_error_exits_one_with_location_and_caret(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.ufn")
            with open(path, "w") as f:
                f.write("import math\n\n@vectorize(['float32(float32)'])\ndef f(x):\n    return math.exq(x)\n")
            r = ufjit("check", path)
            self.assertEqual(r.returncode, 1)
            self.assertIn(path + ":5:", r.stderr)
            self.assertIn("error:", r.stderr)
            self.assertIn("math.exp", r.stderr)
            self.assertIn("^", r.stderr)

    def test_missing_file_exits_one(self):
        r = ufjit("check", "/nonexistent/x.ufn")
        self.assertEqual(r.returncode, 1)
        self.assertIn("/nonexistent/x.ufn", r.stderr)

    def test_verify_diagnostics_annotation_past_the_file_is_named_not_a_stoi_error(self):
        # Offsets beyond int once gave "ufjit: error: stoi" or wrapped to a negative line.
        body = "@vectorize(['float64(float64)'])\ndef f(x):\n    return x\n"
        for offset in ("+99999999999", "+2147483647", "+9223372036854775807", "-9223372036854775808",
                       "99999999999999999999999"):
            with self.subTest(offset=offset), tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "v.ufn")
                with open(path, "w") as f:
                    f.write("# expected-error@" + offset + " {{x}}\n" + body)
                r = ufjit("check", "--verify-diagnostics", path)
                self.assertEqual(r.returncode, 1, r.stderr)
                self.assertIn(path + ":1: error: expected-error@" + offset + " names no line of the file", r.stderr)
                self.assertNotIn("stoi", r.stderr)


class Compile(unittest.TestCase):
    def test_emit_ir_prints_typed_ir(self):
        r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "ir")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gaussian_pdf", r.stdout)
        self.assertIn("float32", r.stdout)

    def compile_ptx(self, source):
        """`ufjit compile SOURCE -o X.ptx`: the PTX text and the manifest beside it."""
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "k.ptx")
            r = ufjit("compile", example(source), "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                ptx = f.read()
            with open(os.path.join(d, "k.json")) as f:
                return ptx, json.load(f)

    def test_ptx_output_comes_with_a_manifest(self):
        ptx, manifest = self.compile_ptx("gaussian_pdf.ufn")
        self.assertIn(".entry", ptx)
        names = [e["entry"] for e in manifest["entries"]]
        self.assertTrue(names)
        for name in names:
            self.assertIn(name, ptx)
        first = manifest["entries"][0]
        self.assertEqual(first["params"][0]["kind"], "count")
        self.assertEqual(first["params"][-1]["name"], "out" if first["variant"]["layout"] == "contiguous"
                         else "out_strides")

    def test_manifest_states_each_entrys_launch(self):
        # int64 add: 16-byte vectors of 2 elements, one per thread over the
        # whole array; the strided entry keeps the capped grid.
        ptx, manifest = self.compile_ptx("add_ufunc.ufn")
        entries = {e["entry"]: e for e in manifest["entries"]}
        contig = entries["add_ufunc__int64_int64__contig_i64"]["launch"]
        self.assertEqual(contig, {"grid": "full", "elements_per_thread": 2})
        self.assertIn(".b8 add_ufunc__int64_int64__contig_i64__launch[3];", ptx)  # 2 + 1
        strided = entries["add_ufunc__int64_int64__strided_i64"]["launch"]
        self.assertEqual(strided, {"grid": "capped", "elements_per_thread": 0})
        self.assertIn(".b8 add_ufunc__int64_int64__strided_i64__launch[1];", ptx)  # 0 + 1

    def test_non_ascii_ufunc_name_gets_ptx_entries_of_ptx_characters(self):
        # NVPTX aborted the process ("Symbol name with unsupported characters").
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "u.ufn")
            with open(src, "w", encoding="utf-8") as f:
                f.write("@vectorize(['float64(float64)'])\ndef \u00e9(x):\n    return x + 1.0\n")
            out = os.path.join(d, "u.ptx")
            r = ufjit("compile", src, "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(".visible .entry $c3$a9__float64__contig_i64(", slurp(out))
            r = ufjit("run", src, "\u00e9", "--in", "2.0", "--target", "cpu")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout.strip(), "3.0")

    def test_device_symbol_that_is_no_c_identifier_is_an_error_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "s.ufn")
            with open(src, "w") as f:
                f.write("import math\n@vectorize(['float64(float64)'])\ndef f(x):\n    return math.sin(x)\n")
            for symbol, why in (("a b", "is not a C identifier"), ("1abc", "is not a C identifier"),
                                ("f.g", "is not a C identifier"), ("\u00e9", "is not a C identifier"),
                                ("__internal_trig_reduction_slowpathd", "begins with '__'")):
                with self.subTest(symbol=symbol):
                    out = os.path.join(d, "s.ptx")
                    r = ufjit("compile", src, "--emit", "device-ptx", "--func", "f", "--symbol", symbol, "-o", out)
                    self.assertEqual(r.returncode, 1, r.stderr)
                    self.assertIn("device function name '" + symbol + "' " + why, r.stderr)
                    self.assertFalse(os.path.exists(out))

    def test_func_selects_one_ufunc_and_unknown_func_fails(self):
        r = ufjit("compile", example("polar_distance.ufn"), "--emit", "ir", "--func", "nope")
        self.assertEqual(r.returncode, 1)
        self.assertIn("nope", r.stderr)

    def test_cpu_target_emits_llvm(self):
        r = ufjit("compile", example("add_ufunc.ufn"), "--emit", "llvm", "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("define", r.stdout)

    def test_cubin_needs_an_output_file(self):
        self.assertEqual(ufjit("compile", example("add_ufunc.ufn"), "--emit", "cubin").returncode, 2)


class Run(TempDir):
    def test_add_writes_the_sum(self):
        npyfile.write(self.path("a.npy"), "<i8", (5,), [1, 2, 3, -4, 5])
        npyfile.write(self.path("b.npy"), "<i8", (5,), [10, 20, 30, 40, 2**62])
        r = ufjit("run", example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in",
                  self.path("b.npy"), "--out", self.path("c.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("c.npy"))
        self.assertEqual((descr, shape), ("<i8", (5,)))
        self.assertEqual(values, [11, 22, 33, 36, 2**62 + 5])

    def test_scalar_broadcasts_and_result_is_printed(self):
        npyfile.write(self.path("a.npy"), "<i8", (2, 3), [1, 2, 3, 4, 5, 6])
        r = ufjit("run", example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in", "100",
                  "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout), ([[101, 102, 103], [104, 105, 106]], None, None))

    def test_fortran_order_input(self):
        # A 2x3 Fortran-order array holding [[1, 2, 3], [4, 5, 6]] stores 1 4 2 5 3 6.
        npyfile.write(self.path("a.npy"), "<i8", (2, 3), [1, 4, 2, 5, 3, 6], fortran=True)
        r = ufjit("run", example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in", "0",
                  "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(parse_repr(r.stdout), ([[1, 2, 3], [4, 5, 6]], None, None))

    def test_float32_gaussian(self):
        npyfile.write(self.path("x.npy"), "<f4", (3,), [0.0, 1.0, -2.0])
        r = ufjit("run", example("gaussian_pdf.ufn"), "gaussian_pdf", "--in", self.path("x.npy"), "--in", "0.0",
                  "--in", "1.0", "--out", self.path("y.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        descr, shape, _, values = npyfile.read(self.path("y.npy"))
        self.assertEqual(descr, "<f4")
        import math
        for x, y in zip([0.0, 1.0, -2.0], values):
            self.assertAlmostEqual(y, math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi), places=6)

    def assert_fails_without_output(self, args, code, needle):
        out = self.path("out.npy")
        r = ufjit("run", *args, "--out", out, "--target", "cpu")
        self.assertEqual(r.returncode, code, r.stderr)
        self.assertIn(needle, r.stderr)
        self.assertFalse(os.path.exists(out), "a failed run left an output file")
        self.assertEqual([f for f in os.listdir(self.d) if f.startswith(".out")], [], "temporary file left")

    def test_shape_mismatch_names_both_shapes(self):
        npyfile.write(self.path("a.npy"), "<i8", (3,), [1, 2, 3])
        npyfile.write(self.path("b.npy"), "<i8", (4,), [1, 2, 3, 4])
        self.assert_fails_without_output([example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in",
                                          self.path("b.npy")], 1, "(4")

    def test_no_matching_signature_lists_what_was_tried(self):
        npyfile.write(self.path("a.npy"), "<f8", (2,), [1.5, 2.5])
        self.assert_fails_without_output([example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in",
                                          self.path("a.npy")], 1, "int64(int64, int64)")

    def test_truncated_npy_is_an_input_error(self):
        npyfile.write(self.path("a.npy"), "<i8", (100,), list(range(100)))
        with open(self.path("a.npy"), "r+b") as f:
            f.truncate(200)
        self.assert_fails_without_output([example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in",
                                          "1"], 1, "a.npy")

    def test_bad_magic_is_an_input_error(self):
        with open(self.path("a.npy"), "wb") as f:
            f.write(b"not a numpy file at all")
        self.assert_fails_without_output([example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in",
                                          "1"], 1, "a.npy")

    def test_unknown_function_is_an_error(self):
        npyfile.write(self.path("a.npy"), "<i8", (1,), [1])
        self.assert_fails_without_output([example("add_ufunc.ufn"), "nosuch", "--in", self.path("a.npy")], 1,
                                         "nosuch")

    def test_wrong_operand_count_is_an_error(self):
        npyfile.write(self.path("a.npy"), "<i8", (1,), [1])
        self.assert_fails_without_output([example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy")], 1,
                                         "2")

    def test_cuda_target_without_gpu_exits_three(self):
        info = ufjit("info").stdout
        if "not available" not in info:
            self.skipTest("a GPU is present")
        npyfile.write(self.path("a.npy"), "<i8", (1,), [1])
        out = self.path("out.npy")
        r = ufjit("run", example("add_ufunc.ufn"), "add_ufunc", "--in", self.path("a.npy"), "--in", "1",
                  "--out", out, "--target", "cuda")
        self.assertEqual(r.returncode, 3, r.stderr)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
