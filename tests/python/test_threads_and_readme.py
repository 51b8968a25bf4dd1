"""Calls from many threads at once (the GIL is released while compiling and
running), and the Python guide's first example run as written."""

import concurrent.futures
import importlib.util
import math
import os
import pathlib
import re
import threading
import time

import numpy as np

from ufjit import vectorize

PYTHON_GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "guide" / "python.md"


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


@vectorize(["float64(float64)"], target="cpu")
def slow(x):
    acc = x
    for _ in range(200):
        acc = math.sin(acc) + x
    return acc


def test_the_gil_is_released_while_a_call_runs():
    """Python code in this thread keeps running while another thread's call
    runs: with the GIL held through the call, this loop would stop for all
    of it (one gap as long as the call)."""
    x = np.linspace(0.0, 1.0, 50_000 * (os.cpu_count() or 2))  # about half a second on any machine
    slow(x[:10])  # compiled before timing
    done = threading.Event()

    def work():
        start = time.perf_counter()
        slow(x)
        done.duration = time.perf_counter() - start
        done.set()

    worker = threading.Thread(target=work)
    last = time.perf_counter()
    gaps = []
    worker.start()
    while not done.is_set():
        now = time.perf_counter()
        gaps.append(now - last)
        last = now
        time.sleep(0.001)
    worker.join()
    assert done.duration > 0.05, f"the call took {done.duration:.3f} s: too short to tell"
    assert len(gaps) > 10 and max(gaps) < 0.5 * done.duration, (
        f"this thread stalled {max(gaps):.3f} s of a {done.duration:.3f} s call ({len(gaps)} turns)")


def test_python_guide_example(tmp_path):
    section = PYTHON_GUIDE.read_text()
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
