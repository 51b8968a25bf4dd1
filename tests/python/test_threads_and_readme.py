"""Calls from many threads at once (the GIL is released while compiling and
running), and the README's Python example run as written."""

import concurrent.futures
import importlib.util
import pathlib
import re

import numpy as np

from ufjit import vectorize

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


@vectorize(["float64(float64, float64)"], target="cpu")
def mul_add(x, y):
    return x * y + 1.0


def test_many_threads_share_one_ufunc():
    xs = [np.full(100_000, float(i)) for i in range(16)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
        results = list(pool.map(lambda x: mul_add(x, 2.0), xs))
    for i, r in enumerate(results):
        np.testing.assert_array_equal(r, 2.0 * i + 1.0)


def test_threads_compile_at_once():
    def make(k):
        @vectorize(["int64(int64)"], target="cpu")
        def plus(x):
            return x + k

        return plus(np.arange(4))

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(make, range(8)))
    for k, r in enumerate(results):
        np.testing.assert_array_equal(r, np.arange(4) + k)


def test_readme_python_example(tmp_path):
    section = README.read_text().split("## Python", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    path = tmp_path / "readme_example.py"
    path.write_text(code)
    spec = importlib.util.spec_from_file_location("readme_example", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.linspace(-3, 3, 1 << 20, dtype=np.float32)
    ref = np.exp(-0.5 * x.astype(np.float64) ** 2) / np.sqrt(2 * np.pi)
    assert module.y.dtype == np.float32
    np.testing.assert_allclose(module.y, ref, rtol=2e-6, atol=1e-7)
