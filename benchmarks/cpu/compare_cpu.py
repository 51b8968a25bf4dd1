"""ufjit's CPU target against NumPy and Numba's `parallel` target, on one host.

NumPy: each seed kernel written as NumPy's own (multi-pass) expression, as a
user would: `np.cos(x)**2 + np.sin(x)**2` (NumPy's ufuncs are single-threaded,
and its float32 sin/cos/exp are SIMD). Numba: the same Python functions as
bench_cpu's sources under `@vectorize([...], target='parallel')`, called with a
preallocated `out=` as bench_cpu calls ufjit, at each thread count
(`numba.set_num_threads`). ufjit: bench_cpu's medians, read from its JSON
(`--benchmark_out=FILE --benchmark_repetitions=N
--benchmark_report_aggregates_only=true`).

Same sizes (2**24), dtypes and input ranges as bench_cpu (x uniform in
[-3, 3], rho in [1, 7]; gaussian_pdf's mean 0.5 and sigma 1.5 are scalars).
Times: medians of --reps runs, wall clock (and, for NumPy, process CPU time:
the figure to read on a loaded machine, where ufjit's 1-thread CPU time is
the matching one).

    python3 compare_cpu.py --bench bench_cpu.json [--threads 1,2,4,8,16] [--json out.json]
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

N = 2 ** 24
SQRT_2PI = np.float32((2 * math.pi) ** 0.5)
SEEDS = ["add_ufunc", "gaussian_pdf", "gaussian_pdf64", "sincos", "polar_distance"]


def make_data():
    rng = np.random.default_rng(7)
    a = rng.uniform(-3, 3, N).astype(np.float32)
    b = (rng.uniform(-3, 3, N) + 4).astype(np.float32)
    c = rng.uniform(-3, 3, N).astype(np.float32)
    d = (rng.uniform(-3, 3, N) + 4).astype(np.float32)
    i = np.arange(N, dtype=np.int64)
    return {"a": a, "b": b, "c": c, "d": d, "a64": a.astype(np.float64), "i": i, "j": 3 * i}


def numpy_expressions(x):
    """Each seed as NumPy's own expression (new result, temporaries)."""
    m32, s32 = np.float32(0.5), np.float32(1.5)
    sqrt_2pi64 = float(SQRT_2PI)
    return {
        "add_ufunc": lambda: x["i"] + x["j"],
        "gaussian_pdf": lambda: np.exp(np.float32(-0.5) * ((x["a"] - m32) / s32) ** 2) / (s32 * SQRT_2PI),
        "gaussian_pdf64": lambda: np.exp(-0.5 * ((x["a64"] - 0.5) / 1.5) ** 2) / (1.5 * sqrt_2pi64),
        "sincos": lambda: np.cos(x["a"]) ** 2 + np.sin(x["a"]) ** 2,
        "polar_distance": lambda: np.sqrt(
            (x["b"] * np.cos(x["a"]) - x["d"] * np.cos(x["c"])) ** 2
            + (x["b"] * np.sin(x["a"]) - x["d"] * np.sin(x["c"])) ** 2
        ),
    }


def numba_kernels(x):
    """The seeds under Numba's parallel target, each called into `out`."""
    from numba import njit, vectorize

    @vectorize(["int64(int64, int64)"], target="parallel")
    def add_ufunc(x, y):
        return x + y

    def gaussian(x, mean, sigma):
        return math.exp(-0.5 * ((x - mean) / sigma) ** 2) / (sigma * SQRT_2PI)

    gaussian_pdf = vectorize(["float32(float32, float32, float32)"], target="parallel")(gaussian)
    gaussian_pdf64 = vectorize(["float64(float64, float64, float64)"], target="parallel")(gaussian)

    @vectorize(["float32(float32)"], target="parallel")
    def sincos(x):
        return math.cos(x) ** 2 + math.sin(x) ** 2

    @njit
    def polar_to_cartesian(rho, theta):
        return rho * math.cos(theta), rho * math.sin(theta)

    @vectorize(["float32(float32, float32, float32, float32)"], target="parallel")
    def polar_distance(rho1, theta1, rho2, theta2):
        x1, y1 = polar_to_cartesian(rho1, theta1)
        x2, y2 = polar_to_cartesian(rho2, theta2)
        return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5

    out32 = np.empty(N, np.float32)
    out64 = np.empty(N, np.float64)
    outi = np.empty(N, np.int64)
    return {
        "add_ufunc": lambda: add_ufunc(x["i"], x["j"], out=outi),
        "gaussian_pdf": lambda: gaussian_pdf(x["a"], np.float32(0.5), np.float32(1.5), out=out32),
        "gaussian_pdf64": lambda: gaussian_pdf64(x["a64"], 0.5, 1.5, out=out64),
        "sincos": lambda: sincos(x["a"], out=out32),
        "polar_distance": lambda: polar_distance(x["b"], x["a"], x["d"], x["c"], out=out32),
    }


def timed(fn, reps):
    fn()  # compile / warm up outside the timing
    wall, cpu = [], []
    for _ in range(reps):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
    return statistics.median(wall) * 1e3, statistics.median(cpu) * 1e3


def read_bench(path):
    """{(seed, threads): (wall ms, cpu ms)} from bench_cpu's JSON medians."""
    with open(path) as f:
        doc = json.load(f)
    scale = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}
    result = {}
    entries = doc.get("benchmarks", [])
    medians = [b for b in entries if b.get("aggregate_name") == "median"]
    for b in medians or [b for b in entries if b.get("run_type") == "iteration"]:
        parts = b["run_name"].split("/") if "run_name" in b else b["name"].split("/")
        head = parts[0]
        if not head.startswith("BM_") or not head.endswith("_ufjit") or "_fast_" in head:
            continue
        seed = head[len("BM_"):-len("_ufjit")]
        threads = next((int(p.split(":")[1]) for p in parts if p.startswith("threads:")), 1)
        k = scale[b.get("time_unit", "ns")]
        result[(seed, threads)] = (b["real_time"] * k, b["cpu_time"] * k)
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bench", required=True, help="bench_cpu's JSON output")
    parser.add_argument("--threads", default="1,2,4,8,16")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--no-numba", action="store_true")
    parser.add_argument("--json", help="write the table here")
    args = parser.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    x = make_data()
    ufjit = read_bench(args.bench)
    rows = {}
    for seed, fn in numpy_expressions(x).items():
        rows.setdefault(seed, {})["numpy"] = timed(fn, args.reps)
    numba_error = None
    if not args.no_numba:
        try:
            import numba

            kernels = numba_kernels(x)
            for t in threads:
                if t > numba.config.NUMBA_NUM_THREADS:
                    continue
                numba.set_num_threads(t)
                for seed, fn in kernels.items():
                    rows[seed][f"numba{t}"] = timed(fn, args.reps)
            print(f"numba {numba.__version__}, threading layer {numba.threading_layer()}")
        except Exception as error:  # report and go on with NumPy alone
            numba_error = f"{type(error).__name__}: {error}"
            print("numba: " + numba_error, file=sys.stderr)
    print(f"numpy {np.__version__}, {os.cpu_count()} CPUs; times in ms (medians), wall unless marked cpu")
    print(f"{'seed':16} {'ufjit 1t cpu':>12} {'numpy cpu':>10} {'numpy/ufjit':>11}", end="")
    for t in threads:
        print(f" | {'ufjit ' + str(t) + 't':>9} {'numba ' + str(t) + 't':>9} {'ratio':>6}", end="")
    print()
    table = {"threads": threads, "numpy": np.__version__, "numba_error": numba_error, "rows": {}}
    for seed in SEEDS:
        one = ufjit.get((seed, 1))
        numpy_wall, numpy_cpu = rows[seed]["numpy"]
        ratio = numpy_cpu / one[1] if one else float("nan")
        print(f"{seed:16} {one[1] if one else float('nan'):12.2f} {numpy_cpu:10.2f} {ratio:11.2f}", end="")
        entry = {"ufjit": {t: ufjit.get((seed, t)) for t in threads}, "numpy_wall_cpu": rows[seed]["numpy"]}
        for t in threads:
            u = ufjit.get((seed, t))
            nb = rows[seed].get(f"numba{t}")
            r = nb[0] / u[0] if u and nb else float("nan")
            print(f" | {u[0] if u else float('nan'):9.2f} {nb[0] if nb else float('nan'):9.2f} {r:6.2f}", end="")
            entry[f"numba{t}_wall_cpu"] = nb
        print()
        table["rows"][seed] = entry
    if args.json:
        with open(args.json, "w") as f:
            json.dump(table, f, indent=1)


if __name__ == "__main__":
    main()
