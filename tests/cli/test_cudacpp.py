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


if __name__ == "__main__":
    unittest.main()
