"""cupy.add.reduce and cupy.sum over 2^26 float32: median of 20 after a
warm-up (the counterpart of bench_reduce.cpp)."""
import sys
import time

import cupy

n = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 26
x = cupy.ones(n, dtype=cupy.float32)
for name, fn in (("cupy.add.reduce", lambda: cupy.add.reduce(x)), ("cupy.sum", lambda: cupy.sum(x))):
    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        fn()
        cupy.cuda.Device().synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    times.sort()
    median = times[len(times) // 2]
    print(f"{name} float32 n={n}: median {median:.3f} ms, min {times[0]:.3f} ms, {n * 4 / median / 1e6:.1f} GB/s")
