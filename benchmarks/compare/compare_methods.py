"""ufjit's ufunc methods beside CuPy's: cupy.add.reduce and cupy.cumsum on the
cases of benchmarks/gpu/bench_methods.cpp (same shapes, dtypes and axes, all
ones), timed the same way: wall clock around the call and a device
synchronize, median of 20 after a warm-up. Reads bench_methods' JSON, writes
one JSON and prints a side-by-side table (ratio = ufjit GB/s / CuPy GB/s).

    bench_methods --json methods.json
    python3 compare_methods.py --ufjit methods.json --out compare_methods.json [--quick]
"""
import argparse
import json
import time

# name -> (method, dtype, shape, axis); --quick as bench_methods --quick
def cases(quick):
    big = 1 << 22 if quick else 1 << 26
    side = 2048 if quick else 8192
    return {
        "reduce_f32_1d": ("reduce", "float32", (big,), 0),
        "reduce_i64_1d": ("reduce", "int64", (big // 2,), 0),
        "reduce_f32_rows": ("reduce", "float32", (side, side), 1),
        "accumulate_f32_1d": ("accumulate", "float32", (big // 4,), 0),
        "accumulate_i64_1d": ("accumulate", "int64", (big // 2,), 0),
        "accumulate_f32_rows": ("accumulate", "float32", (side, side), 1),
    }


def measure_cupy(quick, reps):
    import cupy
    results = {}
    for name, (method, dtype, shape, axis) in cases(quick).items():
        x = cupy.ones(shape, dtype=dtype)
        if method == "reduce":
            out = cupy.empty(shape[:axis] + shape[axis + 1:], dtype=dtype)
            fn = lambda: cupy.add.reduce(x, axis=axis, out=out)  # noqa: E731
            nbytes = x.nbytes
        else:
            out = cupy.empty(shape, dtype=dtype)
            fn = lambda: cupy.cumsum(x, axis=axis, out=out)  # noqa: E731
            nbytes = 2 * x.nbytes
        fn()
        cupy.cuda.Device().synchronize()
        times = []
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            cupy.cuda.Device().synchronize()
            times.append((time.perf_counter() - t0) * 1e3)
        times.sort()
        median = times[len(times) // 2]
        results[name] = {"median_ms": median, "min_ms": times[0], "GBps": nbytes / median / 1e6}
        del x, out
    copy_src = cupy.ones(1 << 26, dtype="float32")
    copy_dst = cupy.empty_like(copy_src)
    copy_dst[...] = copy_src
    cupy.cuda.Device().synchronize()
    t0 = time.perf_counter()
    for _ in range(reps):
        copy_dst[...] = copy_src
    cupy.cuda.Device().synchronize()
    copy_ms = (time.perf_counter() - t0) * 1e3 / reps
    return results, 2 * copy_src.nbytes / copy_ms / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ufjit", required=True, help="bench_methods --json output")
    ap.add_argument("--out", required=True)
    ap.add_argument("--quick", action="store_true", help="the shapes of bench_methods --quick")
    args = ap.parse_args()
    with open(args.ufjit) as f:
        ufjit = json.load(f)
    try:
        cupy_results, copy_gbps = measure_cupy(args.quick, 5 if args.quick else 20)
        error = None
    except Exception as e:  # report; the table then has ufjit only
        cupy_results, copy_gbps, error = {}, float("nan"), repr(e)
    rows = []
    for name, u in ufjit["cases"].items():
        c = cupy_results.get(name, {})
        ratio = u["GBps"] / c["GBps"] if c.get("GBps") else float("nan")
        rows.append({"case": name, "ufjit_ms": u["median_ms"], "ufjit_GBps": u["GBps"], "exact": u["exact"],
                     "cupy_ms": c.get("median_ms", float("nan")), "cupy_GBps": c.get("GBps", float("nan")),
                     "ratio": ratio})
    with open(args.out, "w") as f:
        json.dump({"device": ufjit.get("device"), "cupy_error": error, "copy_GBps_rw": copy_gbps, "rows": rows}, f,
                  indent=1)
    if error:
        print(f"CuPy not measured: {error}")
    print(f"device {ufjit.get('device')}, CuPy device copy (read+write) {copy_gbps:.0f} GB/s")
    print("| case | ufjit ms | ufjit GB/s | CuPy ms | CuPy GB/s | ufjit / CuPy | exact |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['ufjit_ms']:.3f} | {r['ufjit_GBps']:.0f} | {r['cupy_ms']:.3f} | "
              f"{r['cupy_GBps']:.0f} | {r['ratio']:.2f} | {r['exact']} |")


if __name__ == "__main__":
    main()
