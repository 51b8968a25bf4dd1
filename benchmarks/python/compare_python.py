"""Side by side, in one process: the seed kernels through ufjit, Numba and
CuPy on the GPU: first call (compile + launch), per call (small arrays),
and throughput on 2**24 elements (device arrays in and out).

    PYTHONPATH=build/python python3 benchmarks/python/compare_python.py [--json out.json]

Needs a GPU; Numba and CuPy are optional (their columns are left out
without them). Times are medians of repeated runs, synchronised.
"""

import argparse
import json
import math
import statistics
import sys
import time

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 on NumPy 2.5 still names it (as compare/numba_cupy.py)
    np.row_stack = np.vstack

SQRT_2PI = np.float32((2 * math.pi) ** 0.5)
N_BIG = 2 ** 24
N_SMALL = 1024
SIGS = {
    "add_ufunc": ["int64(int64, int64)"],
    "gaussian_pdf": ["float32(float32, float32, float32)"],
    "polar_distance": ["float32(float32, float32, float32, float32)"],
    "sincos": ["float32(float32)"],
}


def kernels(vectorize, device_jit):
    """The seed kernels, decorated by `vectorize` (ufjit's or Numba's)."""

    @vectorize(SIGS["add_ufunc"], target="cuda")
    def add_ufunc(x, y):
        return x + y

    @vectorize(SIGS["gaussian_pdf"], target="cuda")
    def gaussian_pdf(x, mean, sigma):
        return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

    @device_jit(device=True)
    def polar_to_cartesian(rho, theta):
        x = rho * math.cos(theta)
        y = rho * math.sin(theta)
        return x, y

    @vectorize(SIGS["polar_distance"], target="cuda")
    def polar_distance(rho1, theta1, rho2, theta2):
        x1, y1 = polar_to_cartesian(rho1, theta1)
        x2, y2 = polar_to_cartesian(rho2, theta2)
        return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5

    @vectorize(SIGS["sincos"], target="cuda")
    def sincos(x):
        return math.cos(x) ** 2 + math.sin(x) ** 2

    return {"add_ufunc": add_ufunc, "gaussian_pdf": gaussian_pdf, "polar_distance": polar_distance,
            "sincos": sincos}


def cupy_kernels(cp):
    gauss = cp.ElementwiseKernel("float32 x, float32 mean, float32 sigma", "float32 y",
                                 f"y = expf(-0.5f * ((x - mean) / sigma) * ((x - mean) / sigma)) / "
                                 f"(sigma * {float(SQRT_2PI)}f)", "cmp_gauss")
    polar = cp.ElementwiseKernel("float32 r1, float32 t1, float32 r2, float32 t2", "float32 d",
                                 "float dx = r1 * cosf(t1) - r2 * cosf(t2); float dy = r1 * sinf(t1) - r2 * sinf(t2);"
                                 " d = sqrtf(dx * dx + dy * dy)", "cmp_polar")
    sincos = cp.ElementwiseKernel("float32 x", "float32 y", "y = cosf(x) * cosf(x) + sinf(x) * sinf(x)",
                                  "cmp_sincos")  # a kernel named sincos clashes with CUDA's sincos()
    add = cp.ElementwiseKernel("int64 x, int64 y", "int64 z", "z = x + y", "cmp_add")
    return {"add_ufunc": add, "gaussian_pdf": gauss, "polar_distance": polar, "sincos": sincos}


def operands(name, n, to_device):
    rng = np.random.default_rng(0)
    if name == "add_ufunc":
        host = [rng.integers(0, 1000, n), rng.integers(0, 1000, n)]
    elif name == "gaussian_pdf":
        host = [rng.standard_normal(n).astype(np.float32), np.float32(0.0), np.float32(1.0)]
    elif name == "polar_distance":
        host = [rng.uniform(0, 2, n).astype(np.float32) for _ in range(4)]
    else:
        host = [rng.uniform(-10, 10, n).astype(np.float32)]
    return [to_device(a) if isinstance(a, np.ndarray) else a for a in host]


def timed(fn, sync, repeat):
    times = []
    for _ in range(repeat):
        sync()
        t0 = time.perf_counter()
        fn()
        sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(label, make, to_device, sync, results):
    t0 = time.perf_counter()
    funcs = make()
    decorate_s = time.perf_counter() - t0
    for name, f in funcs.items():
        small = operands(name, N_SMALL, to_device)
        big = operands(name, N_BIG, to_device)
        t0 = time.perf_counter()
        f(*small)
        sync()
        first = time.perf_counter() - t0
        per_call = timed(lambda: f(*small), sync, 200)
        big_s = timed(lambda: f(*big), sync, 20)
        nbytes = sum(a.nbytes for a in big if hasattr(a, "nbytes")) + big[0].nbytes
        results.append({"impl": label, "kernel": name, "decorate_s": decorate_s, "first_call_s": first,
                        "per_call_us": per_call * 1e6, "big_ms": big_s * 1e3, "big_gb_s": nbytes / big_s / 1e9})
        print(f"{label:6} {name:15} first {first * 1e3:8.2f} ms  per call {per_call * 1e6:7.1f} us  "
              f"2^24: {big_s * 1e3:7.3f} ms ({nbytes / big_s / 1e9:6.1f} GB/s)", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="write the results here")
    args = parser.parse_args()
    import ufjit

    if not ufjit.cuda.is_available():
        print("compare_python: no CUDA device", file=sys.stderr)
        return 77
    results = []
    measure("ufjit", lambda: kernels(ufjit.vectorize, ufjit.cuda.jit), ufjit.to_device, ufjit.synchronize, results)
    try:
        import numba
        from numba import cuda as numba_cuda
        measure("numba", lambda: kernels(numba.vectorize, numba_cuda.jit), numba_cuda.to_device,
                numba_cuda.synchronize, results)
    except ImportError as e:
        print(f"compare_python: numba left out ({e})", file=sys.stderr)
    try:
        import cupy as cp
        measure("cupy", lambda: cupy_kernels(cp), cp.asarray, cp.cuda.Device().synchronize, results)
    except ImportError as e:
        print(f"compare_python: cupy left out ({e})", file=sys.stderr)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"n_big": N_BIG, "n_small": N_SMALL, "results": results}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
