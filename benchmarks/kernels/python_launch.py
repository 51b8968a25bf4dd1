"""The host cost of launching an explicit kernel from Python: an empty kernel
launched and synchronised, and enqueued on a stream, through ufjit.cuda,
Numba's cuda.jit and CuPy's RawKernel, side by side in one process (best of 5
rounds of 2000 launches). Printed as one JSON object.

    PYTHONPATH=build/python python3 python_launch.py
"""
import json
import time

import numpy as np

for old, new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    if not hasattr(np, old) and hasattr(np, new):  # numba-cuda 0.30 under NumPy 2.5
        setattr(np, old, getattr(np, new))

LAUNCHES = 2000


def per_launch(fn):
    fn()
    best = 1e30
    for _ in range(5):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return 1e6 * best / LAUNCHES


def cuda_jit_side(cuda, prefix, out):
    """One empty launch loop through a numba.cuda-like module (ufjit.cuda or numba.cuda)."""

    @cuda.jit("void(float32[:])")
    def empty(a):
        pass

    a = cuda.device_array(1, dtype=np.float32)
    stream = cuda.stream()

    def sync():
        for _ in range(LAUNCHES):
            empty[1, 1](a)
            cuda.synchronize()

    def enqueue():
        for _ in range(LAUNCHES):
            empty[1, 1, stream](a)
        stream.synchronize()
    out[prefix + "_sync_us"] = per_launch(sync)
    out[prefix + "_async_us"] = per_launch(enqueue)


def ufjit_side(out):
    from ufjit import cuda
    cuda_jit_side(cuda, "ufjit", out)


def numba_side(out):
    from numba import cuda
    cuda_jit_side(cuda, "numba", out)


def cupy_side(out):
    import cupy as cp
    empty = cp.RawKernel(r'extern "C" __global__ void empty(float *a) {}', "empty")
    a = cp.empty(1, dtype=cp.float32)
    stream = cp.cuda.Stream(non_blocking=True)
    device = cp.cuda.Device()

    def sync():
        for _ in range(LAUNCHES):
            empty((1,), (1,), (a,))
            device.synchronize()

    def enqueue():
        for _ in range(LAUNCHES):
            empty((1,), (1,), (a,), stream=stream)
        stream.synchronize()
    out["cupy_sync_us"] = per_launch(sync)
    out["cupy_async_us"] = per_launch(enqueue)


def main():
    out = {}
    for side in (ufjit_side, numba_side, cupy_side):
        try:
            side(out)
        except Exception as e:  # not installed, or no GPU for it
            out[side.__name__] = f"not available: {e}"
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
