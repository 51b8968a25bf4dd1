"""What the tool's Python tests share: the tool's path, a runner, and a
test case with a private temporary directory."""
import os
import subprocess
import tempfile
import unittest

TOOL = os.environ.get("UFJIT_TOOL", "ufjit")
EXAMPLES = os.environ.get("UFJIT_EXAMPLES", os.path.join(os.path.dirname(__file__), "..", "..", "examples"))


def ufjit(*args, cwd=None, env=None, timeout=120):
    """Runs the tool; `env` adds to (or overrides) this process's environment."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([TOOL, *args], capture_output=True, text=True, cwd=cwd, env=full_env, timeout=timeout)


def example(name):
    return os.path.join(EXAMPLES, name)


DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
          "float64", "complex64", "complex128")


def parse_repr(text):
    """The value of `ufjit run`'s printed result (NumPy's repr layout), as
    nested lists, with the dtype and shape NumPy would print:
    (values, dtype or None, shape or None)."""
    seen = {}

    def array(values, dtype=None, shape=None):
        seen.update(dtype=dtype, shape=shape)
        return values

    names = {"array": array, "nan": float("nan"), "inf": float("inf"), "nanj": complex(0, float("nan"))}
    names.update({d: d for d in DTYPES})
    values = eval(text, {"__builtins__": {}}, names)  # noqa: S307 (our own tool's output)
    return values, seen.get("dtype"), seen.get("shape")


def slurp(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


class TempDir(unittest.TestCase):
    """A test case with a fresh temporary directory, self.d."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.d = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.d, name)
