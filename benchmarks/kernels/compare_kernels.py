"""Numba's cuda.jit and CuPy's RawKernel on the kernels of bench_kernels.cpp,
measured the same way (best of N after a warm-up, device arrays), printed as
one JSON object. On a machine without a GPU, `--simulator` times the shared-
memory kernels under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1, set
before numba is imported) for the CPU comparison.

    python3 compare_kernels.py               # GPU: numba_* and cupy_* keys
    python3 compare_kernels.py --simulator   # CPU: numba_sim_* keys
"""
import json
import os
import sys
import time

SIMULATOR = "--simulator" in sys.argv
if SIMULATOR:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "1"

import numpy as np  # noqa: E402

for old, new in (("row_stack", "vstack"), ("trapz", "trapezoid"), ("in1d", "isin")):
    if not hasattr(np, old) and hasattr(np, new):  # numba-cuda 0.30 under NumPy 2.5
        setattr(np, old, getattr(np, new))

from numba import cuda, float32  # noqa: E402

TPB = 16


@cuda.jit("void(float32[:], float32[:], float32[:])")
def add(x, y, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i] + y[i]


@cuda.jit("void(float32[:], float32[:])")
def copy(x, out):
    start = cuda.grid(1)
    stride = cuda.gridsize(1)
    for i in range(start, x.shape[0], stride):
        out[i] = x[i]


@cuda.jit("void(float32[:], float32[:])")
def block_sum(x, partial):
    tile = cuda.shared.array(256, float32)
    t = cuda.threadIdx.x
    i = cuda.grid(1)
    tile[t] = x[i] if i < x.size else 0
    cuda.syncthreads()
    step = 128
    while step > 0:
        if t < step:
            tile[t] += tile[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        partial[cuda.blockIdx.x] = tile[0]


@cuda.jit("void(float32[:, :], float32[:, :], float32[:, :])")
def matmul(A, B, C):
    sA = cuda.shared.array((TPB, TPB), float32)
    sB = cuda.shared.array((TPB, TPB), float32)
    x, y = cuda.grid(2)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    tmp = float32(0.0)
    for i in range(cuda.gridDim.x):
        sA[ty, tx] = 0
        sB[ty, tx] = 0
        if y < A.shape[0] and tx + i * TPB < A.shape[1]:
            sA[ty, tx] = A[y, tx + i * TPB]
        if x < B.shape[1] and ty + i * TPB < B.shape[0]:
            sB[ty, tx] = B[ty + i * TPB, x]
        cuda.syncthreads()
        for j in range(TPB):
            tmp += sA[ty, j] * sB[j, tx]
        cuda.syncthreads()
    if y < C.shape[0] and x < C.shape[1]:
        C[y, x] = tmp


@cuda.jit("void()")
def empty():
    pass


CUPY_SOURCE = r"""
extern "C" __global__ void add(const float *x, const float *y, float *out, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
    out[i] = x[i] + y[i];
}
#define TPB 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int n) {
  __shared__ float sA[TPB][TPB], sB[TPB][TPB];
  int x = blockIdx.x * TPB + threadIdx.x, y = blockIdx.y * TPB + threadIdx.y;
  float tmp = 0;
  for (int i = 0; i < gridDim.x; ++i) {
    sA[threadIdx.y][threadIdx.x] = (y < n && threadIdx.x + i * TPB < n) ? A[y * n + threadIdx.x + i * TPB] : 0;
    sB[threadIdx.y][threadIdx.x] = (x < n && threadIdx.y + i * TPB < n) ? B[(threadIdx.y + i * TPB) * n + x] : 0;
    __syncthreads();
    for (int j = 0; j < TPB; ++j) tmp += sA[threadIdx.y][j] * sB[j][threadIdx.x];
    __syncthreads();
  }
  if (y < n && x < n) C[y * n + x] = tmp;
}
extern "C" __global__ void empty() {}
"""


def best_of(repeats, fn, sync=None):
    fn()
    if sync:
        sync()
    best = 1e30
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        if sync:
            sync()
        best = min(best, time.perf_counter() - start)
    return best


def numba_gpu(out):
    n = 1 << 26
    x = cuda.to_device(np.arange(n, dtype=np.float32) % 1000)
    y = cuda.to_device((np.arange(n, dtype=np.float32) % 77) * 0.25)
    o = cuda.device_array(n, dtype=np.float32)
    grid, block = 132 * 16, 256
    t_add = best_of(20, lambda: add[grid, block](x, y, o), cuda.synchronize)
    t_copy = best_of(20, lambda: copy[grid, block](x, o), cuda.synchronize)
    out["numba_add_gbs"] = 12 * n / t_add / 1e9
    out["numba_copy_gbs"] = 8 * n / t_copy / 1e9
    m = 1024
    a = cuda.to_device((np.arange(m * m, dtype=np.float32) % 13 - 6).reshape(m, m))
    b = cuda.to_device(((np.arange(m * m, dtype=np.float32) % 7) * 0.5).reshape(m, m))
    c = cuda.device_array((m, m), dtype=np.float32)
    out["numba_matmul_1024_ms"] = 1e3 * best_of(20, lambda: matmul[(m // 16, m // 16), (16, 16)](a, b, c),
                                               cuda.synchronize)
    launches = 2000

    def sync_launches():
        for _ in range(launches):
            empty[1, 1]()
            cuda.synchronize()
    out["numba_empty_sync_us"] = 1e6 / launches * best_of(5, sync_launches)
    stream = cuda.stream()

    def async_launches():
        for _ in range(launches):
            empty[1, 1, stream]()
        stream.synchronize()
    out["numba_empty_async_us"] = 1e6 / launches * best_of(5, async_launches)


def cupy_gpu(out):
    import cupy as cp
    module = cp.RawModule(code=CUPY_SOURCE)
    add_k, matmul_k, empty_k = (module.get_function(k) for k in ("add", "matmul", "empty"))
    n = 1 << 26
    x = cp.arange(n, dtype=cp.float32) % 1000
    y = (cp.arange(n, dtype=cp.float32) % 77) * 0.25
    o = cp.empty(n, dtype=cp.float32)
    sync = cp.cuda.Device().synchronize
    t_add = best_of(20, lambda: add_k((132 * 16,), (256,), (x, y, o, cp.int64(n))), sync)
    out["cupy_add_gbs"] = 12 * n / t_add / 1e9
    m = 1024
    a = (cp.arange(m * m, dtype=cp.float32) % 13 - 6).reshape(m, m)
    b = ((cp.arange(m * m, dtype=cp.float32) % 7) * 0.5).reshape(m, m)
    c = cp.empty((m, m), dtype=cp.float32)
    out["cupy_matmul_1024_ms"] = 1e3 * best_of(20, lambda: matmul_k((m // 16, m // 16), (16, 16), (a, b, c, cp.int32(m))),
                                              sync)
    launches = 2000

    def sync_launches():
        for _ in range(launches):
            empty_k((1,), (1,), ())
            sync()
    out["cupy_empty_sync_us"] = 1e6 / launches * best_of(5, sync_launches)
    stream = cp.cuda.Stream(non_blocking=True)

    def async_launches():
        for _ in range(launches):
            empty_k((1,), (1,), (), stream=stream)
        stream.synchronize()
    out["cupy_empty_async_us"] = 1e6 / launches * best_of(5, async_launches)


def simulator(out):
    # Small launches: the simulator runs a Python thread per CUDA thread.
    r = 1 << 12
    x = (np.arange(r, dtype=np.float32) % 1000)
    partial = np.zeros(r // 256, dtype=np.float32)
    out["numba_sim_block_sum_2p12_ms"] = 1e3 * best_of(1, lambda: block_sum[r // 256, 256](x, partial))
    m = 64
    a = (np.arange(m * m, dtype=np.float32) % 13 - 6).reshape(m, m)
    b = ((np.arange(m * m, dtype=np.float32) % 7) * 0.5).reshape(m, m)
    c = np.zeros((m, m), dtype=np.float32)
    out["numba_sim_matmul_64_ms"] = 1e3 * best_of(1, lambda: matmul[(m // 16, m // 16), (16, 16)](a, b, c))
    if not np.allclose(c, a @ b, rtol=1e-4):
        raise SystemExit("the simulator's matmul is wrong")


def main():
    out = {}
    if SIMULATOR:
        simulator(out)
    else:
        numba_gpu(out)
        try:
            cupy_gpu(out)
        except ImportError:
            out["cupy"] = "not installed"
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
