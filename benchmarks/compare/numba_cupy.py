"""Numba @vectorize(target='cuda') and CuPy ElementwiseKernel on the seed
kernels, measured as shared/anchors/bench_anchors.py does (copied from it, as
the shared folder does not travel to the GPU host). measure() returns the same
JSON shape as the anchors; `python3 numba_cupy.py --cold TOOL KERNEL` is the
fresh-process child of the cold measurements.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as _np
if not hasattr(_np, "row_stack"):  # numba-cuda 0.30 on numpy 2.5 still names it
    _np.row_stack = _np.vstack

KERNELS = {
    "add_i64": ("int64(int64, int64)", "def f(x, y):\n    return x + y\n", 2, "int64"),
    "sincos_f32": ("float32(float32)", "def f(x):\n    return math.cos(x) ** 2 + math.sin(x) ** 2\n", 1, "float32"),
    "gauss_f32": ("float32(float32, float32, float32)",
                  "def f(x, mean, sigma):\n    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)\n", 3, "float32"),
    "polar_f32": ("float32(float32, float32, float32, float32)", None, 4, "float32"),
    "gauss_f64": ("float64(float64, float64, float64)",
                  "def f(x, mean, sigma):\n    return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)\n", 3, "float64"),
}

POLAR = '''
@cuda.jit(device=True)
def polar_to_cartesian(rho, theta):
    x = rho * math.cos(theta)
    y = rho * math.sin(theta)
    return x, y

def f(rho1, theta1, rho2, theta2):
    x1, y1 = polar_to_cartesian(rho1, theta1)
    x2, y2 = polar_to_cartesian(rho2, theta2)
    return ((x1 - x2)**2 + (y1 - y2)**2)**0.5
'''

CUPY_SRC = {
    "add_i64": ("int64 x, int64 y", "int64 z", "z = x + y"),
    "sincos_f32": ("float32 x", "float32 z", "z = cosf(x)*cosf(x) + sinf(x)*sinf(x)"),
    "gauss_f32": ("float32 x, float32 mean, float32 sigma", "float32 z",
                  "float t = (x - mean) / sigma; z = expf(-0.5f * t * t) / (sigma * 2.5066282746310002f)"),
    "polar_f32": ("float32 r1, float32 t1, float32 r2, float32 t2", "float32 z",
                  "float x1 = r1*cosf(t1), y1 = r1*sinf(t1), x2 = r2*cosf(t2), y2 = r2*sinf(t2); z = sqrtf((x1-x2)*(x1-x2) + (y1-y2)*(y1-y2))"),
    "gauss_f64": ("float64 x, float64 mean, float64 sigma", "float64 z",
                  "double t = (x - mean) / sigma; z = exp(-0.5 * t * t) / (sigma * 2.5066282746310002)"),
}


def numba_make(name):
    import math
    import numpy as np
    from numba import vectorize, cuda
    sig, src, nargs, dt = KERNELS[name]
    g = {"math": math, "cuda": cuda,
         "SQRT_2PI": np.float32((2 * math.pi) ** 0.5) if dt == "float32" else (2 * math.pi) ** 0.5}
    exec(POLAR if name == "polar_f32" else src, g)
    return vectorize([sig], target="cuda")(g["f"])


def inputs(name, n, xp):
    import numpy as np
    sig, src, nargs, dt = KERNELS[name]
    rng = np.random.default_rng(0)
    if dt == "int64":
        arrs = [rng.integers(-1000, 1000, n).astype(np.int64) for _ in range(nargs)]
    else:
        arrs = [rng.uniform(0.5, 1.5, n).astype(dt) for _ in range(nargs)]
    return [xp.asarray(a) for a in arrs]


def cold_child(tool, name):
    import numpy as np
    t0 = time.perf_counter()
    if tool == "numba":
        from numba import cuda
        cuda.current_context()
        t1 = time.perf_counter()
        f = numba_make(name)
        x = inputs(name, 1024, np)
        t2 = time.perf_counter(); f(*x); t3 = time.perf_counter()
        f(*x); t4 = time.perf_counter()
    else:
        import cupy as cp
        cp.cuda.runtime.getDevice(); cp.empty(1)
        t1 = time.perf_counter()
        k = cp.ElementwiseKernel(*CUPY_SRC[name], name="k_" + name)
        x = inputs(name, 1024, cp)
        t2 = time.perf_counter(); r = k(*x); cp.cuda.Device().synchronize(); t3 = time.perf_counter()
        r = k(*x); cp.cuda.Device().synchronize(); t4 = time.perf_counter()
    print(json.dumps({"import_ctx_ms": (t1 - t0) * 1e3, "first_call_ms": (t3 - t2) * 1e3,
                      "second_call_ms": (t4 - t3) * 1e3}))


def cold(tool, name, cache_dir=None):
    env = dict(os.environ)
    if cache_dir:
        env["CUPY_CACHE_DIR"] = cache_dir
    out = subprocess.run([sys.executable, os.path.abspath(__file__), "--cold", tool, name],
                         capture_output=True, text=True, env=env)
    try:
        return json.loads(out.stdout.strip().splitlines()[-1])
    except Exception:
        return {"error": out.stderr[-400:]}


def timed(fn, sync, reps):
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter(); fn(); sync(); ts.append(time.perf_counter() - t0)
    return statistics.median(ts)


def measure(names=None, cold_runs=True):
    import numpy as np
    import cupy as cp
    from numba import cuda
    res = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}
    sync = cp.cuda.Device().synchronize
    n = 1 << 28
    a = cp.empty(n, dtype=cp.float32); b = cp.empty_like(a)
    t = timed(lambda: b.__setitem__(slice(None), a), sync, 20)
    res["d2d_copy_GBps_rw"] = 2 * a.nbytes / t / 1e9
    del a, b
    res["kernels"] = {}
    for name in (names or list(KERNELS)):
        r = {}
        if cold_runs:
            r["numba_cold"] = cold("numba", name)
            cdir = tempfile.mkdtemp()
            r["cupy_cold"] = cold("cupy", name, cdir)
            r["cupy_warmdisk"] = cold("cupy", name, cdir)
        f = numba_make(name); k = cp.ElementwiseKernel(*CUPY_SRC[name], name="k_" + name)
        xs = inputs(name, 1, cp); xd = [cuda.as_cuda_array(x) for x in xs]
        f(*xd); k(*xs); sync()
        r["numba_tiny_dev_us"] = timed(lambda: f(*xd), sync, 300) * 1e6
        r["cupy_tiny_dev_us"] = timed(lambda: k(*xs), sync, 300) * 1e6
        N = 1 << 26
        xs = inputs(name, N, cp); xd = [cuda.as_cuda_array(x) for x in xs]
        itemsize = xs[0].itemsize
        bytes_moved = (len(xs) + 1) * N * itemsize
        outd = cuda.device_array(N, dtype=xs[0].dtype)
        f(*xd, out=outd); k(*xs); sync()
        tn = timed(lambda: f(*xd, out=outd), sync, 20)
        outc = cp.empty(N, dtype=xs[0].dtype)
        tc = timed(lambda: k(*xs, outc), sync, 20)
        r["numba_dev_GBps"] = bytes_moved / tn / 1e9
        r["cupy_dev_GBps"] = bytes_moved / tc / 1e9
        r["numba_dev_ms"] = tn * 1e3; r["cupy_dev_ms"] = tc * 1e3
        NH = 1 << 24
        xh = inputs(name, NH, np)
        f(*xh)
        th = timed(lambda: f(*xh), lambda: None, 5)
        r["numba_host_ms_2^24"] = th * 1e3
        r["host_bytes_2^24"] = (len(xh) + 1) * NH * itemsize
        res["kernels"][name] = r
        del xs, xd, outd, outc
    return res


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--cold":
        cold_child(sys.argv[2], sys.argv[3])
    else:
        print(json.dumps(measure(), indent=1))
