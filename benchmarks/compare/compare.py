"""ufjit beside Numba @vectorize(target='cuda') and CuPy ElementwiseKernel.

Runs on a GPU host. Measures Numba and CuPy on the seed kernels exactly as the
anchor measurements did (shared/anchors/bench_anchors.py, copied into
numba_cupy.py here), reads ufjit's figures from bench_gpu's JSON, and writes
one JSON plus a side-by-side table. Timings are medians.

    python3 compare.py --ufjit bench_ufjit.json --out compare.json [--skip-cold] [--kernels a,b]

When Numba or CuPy cannot run (not installed, out of time) the stored H100
anchor figures (anchors-h100-2026-11-21.json) stand in, marked as such.
"""
import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def load(path):
    with open(path) as f:
        return json.load(f)


def g(d, *keys):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return float("nan")
        d = d[k]
    return d if isinstance(d, (int, float)) else float("nan")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ufjit", required=True, help="bench_gpu --json output")
    ap.add_argument("--out", required=True)
    ap.add_argument("--skip-cold", action="store_true", help="skip Numba/CuPy fresh-process measurements")
    ap.add_argument("--kernels", default="", help="comma-separated subset")
    ap.add_argument("--no-live", action="store_true", help="use the stored anchors only")
    args = ap.parse_args()

    ufjit = load(args.ufjit)
    anchors = load(os.path.join(HERE, "anchors-h100-2026-11-21.json"))
    live, live_error = None, None
    if not args.no_live:
        try:
            import numba_cupy
            t0 = time.time()
            names = [k for k in args.kernels.split(",") if k] or None
            live = numba_cupy.measure(names, cold_runs=not args.skip_cold)
            live["seconds"] = time.time() - t0
        except Exception as e:  # report and fall back to the anchors
            live_error = repr(e)
    ref = live if live else anchors
    source = "live" if live else "anchors-h100-2026-11-21"

    rows = []
    for name, u in ufjit["kernels"].items():
        r = ref.get("kernels", {}).get(name, {})
        row = {
            "kernel": name,
            "ufjit_cold_ms": g(u, "ufjit_cold", "first_call_ms"),
            "numba_cold_ms": g(r, "numba_cold", "first_call_ms"),
            "cupy_cold_ms": g(r, "cupy_cold", "first_call_ms"),
            "ufjit_disk_ms": g(u, "ufjit_warmdisk", "first_call_ms"),
            "cupy_disk_ms": g(r, "cupy_warmdisk", "first_call_ms"),
            "ufjit_tiny_us": g(u, "ufjit_tiny_dev_us"),
            "ufjit_tiny_out_us": g(u, "ufjit_tiny_dev_out_us"),
            "numba_tiny_us": g(r, "numba_tiny_dev_us"),
            "cupy_tiny_us": g(r, "cupy_tiny_dev_us"),
            "ufjit_GBps": g(u, "ufjit_dev_GBps"),
            "numba_GBps": g(r, "numba_dev_GBps"),
            "cupy_GBps": g(r, "cupy_dev_GBps"),
            "ufjit_host_ms": g(u, "ufjit_host_ms_2^24"),
            "numba_host_ms": g(r, "numba_host_ms_2^24"),
        }
        row["host_speedup_vs_numba"] = row["numba_host_ms"] / row["ufjit_host_ms"]
        rows.append(row)

    result = {"reference": source, "live_error": live_error, "ufjit": ufjit, "numba_cupy": live,
              "d2d_copy_GBps_rw": {"ufjit_run": ufjit.get("d2d_copy_GBps_rw"),
                                   "reference": ref.get("d2d_copy_GBps_rw")},
              "rows": rows}
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)

    print(f"reference for Numba/CuPy: {source}" + (f" (live failed: {live_error})" if live_error else ""))
    cols = ["kernel", "ufjit_cold_ms", "numba_cold_ms", "cupy_cold_ms", "ufjit_disk_ms", "cupy_disk_ms",
            "ufjit_tiny_us", "numba_tiny_us", "cupy_tiny_us", "ufjit_GBps", "numba_GBps", "cupy_GBps",
            "ufjit_host_ms", "numba_host_ms", "host_speedup_vs_numba"]
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))
    for row in rows:
        cells = [row["kernel"]] + [f"{row[c]:.1f}" for c in cols[1:]]
        print("| " + " | ".join(cells) + " |")
    print("device copy GB/s (read+write): ufjit run %.0f, reference %.0f" %
          (ufjit.get("d2d_copy_GBps_rw", float("nan")), ref.get("d2d_copy_GBps_rw", float("nan"))))


if __name__ == "__main__":
    main()
