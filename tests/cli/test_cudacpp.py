"""`ufjit compile --emit device-ptx|device-ltoir`: a ufunc's scalar function as
an extern "C" __device__ function plus a header, and its error paths (exit
code, message, no output file left)."""
import os
import tempfile
import unittest

from clitest import example, ufjit


class DeviceFunction(unittest.TestCase):
    def test_device_ptx_writes_the_ptx_and_a_header_beside_it(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "gauss.ptx")
            r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "device-ptx", "--func", "gaussian_pdf",
                      "--abi", "c", "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out) as f:
                ptx = f.read()
            with open(os.path.join(d, "gauss.h")) as f:
                header = f.read()
            self.assertIn(".visible .func  (.param .b32 func_retval0) gaussian_pdf(", ptx)
            self.assertNotIn(".entry", ptx)
            self.assertIn('extern "C" __device__ float gaussian_pdf(float x, float mean, float sigma);', header)

    def test_numba_abi_and_symbol(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "g.ptx")
            r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "device-ptx", "--func", "gaussian_pdf",
                      "--abi", "numba", "--symbol", "gpdf", "-o", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "g.h")) as f:
                self.assertIn('extern "C" __device__ int gpdf(float *ret, float x, float mean, float sigma);',
                              f.read())

    def test_device_ptx_needs_an_output_file(self):
        r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "device-ptx", "--func", "gaussian_pdf")
        self.assertEqual(r.returncode, 2)
        self.assertIn("give -o OUT", r.stderr)

    def test_device_ltoir_is_refused_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "g.ltoir")
            r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "device-ltoir", "--func", "gaussian_pdf",
                      "-o", out)
            self.assertEqual(r.returncode, 1)
            self.assertIn("use --emit device-ptx", r.stderr)
            self.assertEqual(os.listdir(d), [])

    def test_unknown_function_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "g.ptx")
            r = ufjit("compile", example("gaussian_pdf.ufn"), "--emit", "device-ptx", "--func", "nothere", "-o", out)
            self.assertEqual(r.returncode, 1)
            self.assertIn("no ufunc named 'nothere'", r.stderr)
            self.assertEqual(os.listdir(d), [])


HELPER = ('extern "C" __device__ int cube_plus(float *ret, float x, float y) {\n'
          '  *ret = x * x * x + y;\n'
          '  return 0;\n'
          '}\n')
SOURCE = ("from numba import cuda, vectorize\n"
          "cube_plus = cuda.declare_device('cube_plus', 'float32(float32, float32)')\n"
          "@vectorize(['float32(float32, float32)'], target='cuda', link=['helpers.cu'])\n"
          "def f(x, y):\n"
          "    return cube_plus(x, y) + 1\n")


def nvrtc_present():
    return any(os.path.exists(os.path.join(d, "libnvrtc.so.13")) or os.path.exists(os.path.join(d, "libnvrtc.so"))
               for d in ("/usr/local/cuda/lib64", os.path.join(os.environ.get("CUDA_HOME", "/nonexistent"), "lib64")))


def temp_folder(test, files):
    """A temporary folder holding `files` ({relative path: text}), removed after `test`."""
    d = tempfile.TemporaryDirectory()
    test.addCleanup(d.cleanup)
    for name, text in files.items():
        path = os.path.join(d.name, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return d.name


class LinkedHelpers(unittest.TestCase):
    def folder(self, helper=HELPER):
        return temp_folder(self, {"k.ufn": SOURCE, "helpers.cu": helper})

    @unittest.skipUnless(nvrtc_present(), "NVRTC is not installed")
    def test_cubin_links_the_helper_relative_to_the_source(self):
        d = self.folder()
        out = os.path.join(d, "k.cubin")
        r = ufjit("compile", os.path.join(d, "k.ufn"), "--emit", "cubin", "-o", out, cwd="/")
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out, "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")

    def test_ptx_of_a_linked_module_says_what_it_can_emit(self):
        d = self.folder()
        r = ufjit("compile", os.path.join(d, "k.ufn"), "--emit", "ptx", "-o", os.path.join(d, "k.ptx"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("use --emit cubin", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "k.ptx")))

    @unittest.skipUnless(nvrtc_present(), "NVRTC is not installed")
    def test_helper_error_is_located_exits_one_and_writes_nothing(self):
        d = self.folder(HELPER.replace("+ y;", "+ q;"))
        out = os.path.join(d, "k.cubin")
        r = ufjit("compile", os.path.join(d, "k.ufn"), "--emit", "cubin", "-o", out)
        self.assertEqual(r.returncode, 1)
        self.assertIn('helpers.cu:2:22: error: identifier "q" is undefined', r.stderr)
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(os.path.join(d, "k.json")))

    def test_cpu_target_names_the_helper(self):
        d = self.folder()
        r = ufjit("run", os.path.join(d, "k.ufn"), "f", "--in", "2.0", "--in", "1.0", "--target", "cpu")
        self.assertEqual(r.returncode, 1)
        self.assertIn("calls CUDA C++ function 'cube_plus' (declare_device, from helpers.cu)", r.stderr)
        self.assertIn("k.ufn:2:", r.stderr)


UNLINKED = SOURCE.replace(", link=['helpers.cu']", "")


class LinkOption(unittest.TestCase):
    """--link FILE (relative to the current folder) and --nvrtc-option for a
    source whose decorator names no file."""

    def folder(self, helper=HELPER):
        return temp_folder(self, {os.path.join("src", "k.ufn"): UNLINKED, "helpers.cu": helper})

    @unittest.skipUnless(nvrtc_present(), "NVRTC is not installed")
    def test_compile_cubin_links_a_file_relative_to_the_current_folder(self):
        d = self.folder()
        r = ufjit("compile", "src/k.ufn", "--link", "helpers.cu", "--emit", "cubin", "-o", "k.cubin", cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(d, "k.cubin"), "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")

    def test_without_link_the_source_is_an_error(self):
        d = self.folder()
        r = ufjit("compile", "src/k.ufn", "--emit", "ir", cwd=d)
        self.assertEqual(r.returncode, 1)
        self.assertIn("names no file that defines it", r.stderr)

    def test_ir_lists_the_linked_file_and_its_nvrtc_options(self):
        d = self.folder()
        r = ufjit("compile", "src/k.ufn", "--link", "helpers.cu", "--nvrtc-option=-DSCALE=2", "--emit", "ir", cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertRegex(r.stdout, r"link .*helpers\.cu bytes=%d fnv1a=[0-9a-f]+ nvrtc:-DSCALE=2\n" % len(HELPER))

    def test_missing_link_file_exits_one_and_writes_nothing(self):
        d = self.folder()
        r = ufjit("compile", "src/k.ufn", "--link", "nothere.cu", "--emit", "cubin", "-o", "k.cubin", cwd=d)
        self.assertEqual(r.returncode, 1)
        self.assertIn("link file '%s' (given with the link option) not found" % os.path.join(d, "nothere.cu"),
                      r.stderr)
        self.assertFalse(os.path.exists(os.path.join(d, "k.cubin")))

    def test_output_that_is_a_link_file_is_refused(self):
        d = self.folder()
        r = ufjit("compile", "src/k.ufn", "--link", "helpers.cu", "--emit", "ptx", "-o", "helpers.cu", cwd=d)
        self.assertEqual(r.returncode, 2)
        self.assertIn("is the same file as the input", r.stderr)
        with open(os.path.join(d, "helpers.cu")) as f:
            self.assertEqual(f.read(), HELPER)

    @unittest.skipUnless(nvrtc_present(), "NVRTC is not installed")
    def test_nvrtc_option_reaches_nvrtc(self):
        d = self.folder(HELPER.replace("+ y;", "+ SCALE * y;"))
        out = os.path.join(d, "k.cubin")
        r = ufjit("compile", "src/k.ufn", "--link", "helpers.cu", "--emit", "cubin", "-o", out, cwd=d)
        self.assertEqual(r.returncode, 1)
        self.assertIn('helpers.cu:2:', r.stderr)
        self.assertIn('"SCALE" is undefined', r.stderr)
        self.assertFalse(os.path.exists(out))
        r = ufjit("compile", "src/k.ufn", "--link", "helpers.cu", "--nvrtc-option=-DSCALE=2.0f", "--emit", "cubin",
                  "-o", out, cwd=d)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_run_links_the_file_and_the_cpu_target_names_it(self):
        d = self.folder()
        r = ufjit("run", "src/k.ufn", "f", "--link", "helpers.cu", "--in", "2.0", "--in", "1.0", "--target", "cpu",
                  cwd=d)
        self.assertEqual(r.returncode, 1)
        self.assertIn("calls CUDA C++ function 'cube_plus' (declare_device, from %s)" % os.path.join(d, "helpers.cu"),
                      r.stderr)


if __name__ == "__main__":
    unittest.main()
