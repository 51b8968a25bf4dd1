"""`ufjit run` under `mpirun -np 4` on the CPU target (docs/guide/mpi.md): the
call split across the ranks gives the file one process gives, byte for byte;
a rank that fails stops every rank and leaves no output file. (Accumulate and
halos: mpi_api_test.cpp. Each mpirun costs about a second of start-up, so the
cases here are few.)"""
import array
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
import npyfile  # noqa: E402
from clitest import TOOL, TempDir, ufjit  # noqa: E402

MPIRUN = os.environ.get("UFJIT_MPIRUN") or shutil.which("mpirun")
RANKS = 4

SOURCE = '''from numba import vectorize, guvectorize

@vectorize(["int32(int32, int32)"], identity=0)
def add(x, y):
    return x + y

@vectorize(["float32(float32, float32, float32)"])
def affine(x, a, b):
    return x * a + b

@guvectorize(["void(float32[:], float32[:], float32[:])"], "(n),(n)->()")
def dot(x, y, out):
    acc = 0.0
    for i in range(x.shape[0]):
        acc += x[i] * y[i]
    out[0] = acc

@vectorize(["float32(float32)"])
def checked(x):
    if x < 0:
        raise ValueError("negative input")
    return x * 2
'''


def block_rows(rows, rank, ranks):
    """The block rule of ufjit/mpi.h."""
    return rank * rows // ranks, (rank + 1) * rows // ranks


def write_f32(path, shape, values):
    """A float32 .npy file, fast for millions of elements (array, not struct)."""
    npyfile.write(path, "<f4", shape, [])  # the header alone
    with open(path, "ab") as f:
        f.write(array.array("f", values).tobytes())


@unittest.skipIf(MPIRUN is None, "mpirun is not installed (Debian: openmpi-bin)")
class MpiRun(TempDir):
    def setUp(self):
        super().setUp()
        self.src = self.path("mpi.ufn")
        with open(self.src, "w") as f:
            f.write(SOURCE)

    def mpirun(self, *args):
        return subprocess.run([MPIRUN, "--oversubscribe", "-np", str(RANKS), TOOL, "run", self.src, *args,
                               "--target", "cpu"], capture_output=True, text=True, timeout=300)

    def one_process(self, *args):
        r = ufjit("run", self.src, *args, "--target", "cpu")
        self.assertEqual(r.returncode, 0, r.stderr)
        return r

    def assert_same_file(self, args, name="y.npy"):
        """Runs `args` under mpirun and in one process; the outputs are equal bytes."""
        r = self.mpirun(*args, "--out", self.path("mpi-" + name))
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.one_process(*args, "--out", self.path("one-" + name))
        with open(self.path("mpi-" + name), "rb") as a, open(self.path("one-" + name), "rb") as b:
            self.assertEqual(a.read(), b.read())
        return r

    def test_uneven_split_gives_the_file_of_one_process_and_each_rank_reports_its_slab(self):
        n = 1_000_003  # 4 MB of float32, uneven over 4 ranks
        write_f32(self.path("x.npy"), (n,), [(i % 1000) * 0.25 - 7.0 for i in range(n)])
        r = self.assert_same_file(["affine", "--in", self.path("x.npy"), "--in", "1.5", "--in", "0.5", "-v"])
        for rank in range(RANKS):
            begin, end = block_rows(n, rank, RANKS)
            self.assertIn("rank %d of %d: elements [%d, %d)" % (rank, RANKS, begin, end), r.stderr)

    def test_a_gufunc_splits_its_loop_dimension_and_reads_a_broadcast_operand_whole(self):
        rows, n = 23, 4
        write_f32(self.path("x.npy"), (rows, n), [(i % 7) - 3.0 for i in range(rows * n)])
        write_f32(self.path("w.npy"), (1, n), [1.0, -2.0, 0.5, 4.0])  # outer extent 1: every rank reads it
        self.assert_same_file(["dot", "--in", self.path("x.npy"), "--in", self.path("w.npy")])

    def test_reduce_over_axis_0_is_global(self):
        npyfile.write(self.path("m.npy"), "<i4", (10, 3), list(range(-15, 15)))
        self.assert_same_file(["add", "--in", self.path("m.npy"), "--method", "reduce"])

    def test_reduce_over_another_axis_keeps_the_split(self):
        npyfile.write(self.path("m.npy"), "<i4", (10, 3), list(range(-15, 15)))
        self.assert_same_file(["add", "--in", self.path("m.npy"), "--method", "reduce", "--axis", "1"])

    def test_a_raise_on_one_rank_stops_every_rank_and_writes_nothing(self):
        values = [float(i) for i in range(16)]
        values[block_rows(16, 2, RANKS)[0]] = -1.0  # on rank 2 alone
        write_f32(self.path("x.npy"), (16,), values)
        with open(self.path("y.npy"), "wb") as f:
            f.write(b"kept")
        r = self.mpirun("checked", "--in", self.path("x.npy"), "--out", self.path("y.npy"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("ValueError: negative input", r.stderr)
        self.assertIn("rank 2 of 4 failed", r.stderr)
        with open(self.path("y.npy"), "rb") as f:
            self.assertEqual(f.read(), b"kept")
        self.assertEqual(sorted(os.listdir(self.d)), ["mpi.ufn", "x.npy", "y.npy"])

    def test_a_bad_input_file_stops_every_rank_with_its_message(self):
        with open(self.path("x.npy"), "wb") as f:
            f.write(b"\x93NUMPY not really")
        r = self.mpirun("checked", "--in", self.path("x.npy"), "--out", self.path("y.npy"))
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
        self.assertIn("x.npy", r.stderr)
        self.assertEqual(r.stderr.count("ufjit: error:"), 1, r.stderr)
        self.assertFalse(os.path.exists(self.path("y.npy")))


if __name__ == "__main__":
    unittest.main()
