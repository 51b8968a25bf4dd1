"""`ufjit run` of a ufunc whose body raises (LANGUAGE.md section 5, "Errors in
kernels"): exit status 1, the located message on stderr, no output file."""
import os
import unittest

import npyfile
from clitest import TempDir, ufjit

SOURCE = '''import math
from numba import vectorize

@vectorize(["float64(float64)"])
def checked_sqrt(x):
    if x < 0:
        raise ValueError("negative input")
    return math.sqrt(x)
'''


class RunRaise(TempDir):
    def write_source(self):
        path = self.path("checked.ufn")
        with open(path, "w") as f:
            f.write(SOURCE)
        return path

    def test_a_raise_exits_1_with_the_located_message_and_no_output_file(self):
        src = self.write_source()
        npyfile.write(self.path("x.npy"), "<f8", (5,), [1.0, 4.0, -9.0, 16.0, 25.0])
        r = ufjit("run", src, "checked_sqrt", "--in", self.path("x.npy"), "--out", self.path("y.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("checked.ufn:7:9: ValueError: negative input", r.stderr)
        self.assertIn("ufunc 'checked_sqrt'", r.stderr)
        self.assertFalse(os.path.exists(self.path("y.npy")))

    def test_no_raise_writes_the_results(self):
        src = self.write_source()
        npyfile.write(self.path("x.npy"), "<f8", (3,), [1.0, 4.0, 9.0])
        r = ufjit("run", src, "checked_sqrt", "--in", self.path("x.npy"), "--out", self.path("y.npy"), "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(npyfile.read(self.path("y.npy"))[3], [1.0, 2.0, 3.0])

    def test_a_message_with_terminal_escapes_or_a_nul_is_printed_escaped_and_whole(self):
        # ESC, a bidi override and a NUL from the source reached the terminal as
        # they were; the NUL cut the rest of the line off.
        path = self.path("esc.ufn")
        with open(path, "w") as f:
            f.write("@vectorize(['float64(float64)'])\ndef f(x):\n"
                    "    raise ValueError('\\x1b[31mred\\u202e\\x00tail')\n")
        r = ufjit("run", path, "f", "--in", "1.0", "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("ValueError: \\x1b[31mred\\u202e\\x00tail (raised by ufunc 'f'", r.stderr)
        self.assertNotIn("\x1b", r.stderr)
        self.assertNotIn("\u202e", r.stderr)

    def test_an_npy_dtype_with_terminal_escapes_is_printed_escaped(self):
        path = self.path("bad.npy")
        header = "{'descr': '<f8\x1b[31m', 'fortran_order': False, 'shape': (1,), }"
        header += " " * (63 - (10 + len(header)) % 64) + "\n"
        with open(path, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode() + b"\0" * 8)
        r = ufjit("run", self.write_source(), "checked_sqrt", "--in", path, "--target", "cpu")
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("unsupported dtype '<f8\\x1b[31m'", r.stderr)
        self.assertNotIn("\x1b", r.stderr)


if __name__ == "__main__":
    unittest.main()
