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


if __name__ == "__main__":
    unittest.main()
