#!/usr/bin/env python3
"""Issue 13's bar from the raw files of tools/gpu_bench_all.sh, as one
markdown summary and one JSON file.

    gpu_bench_summary.py WORK_DIR SUMMARY.md RESULTS.json

WORK_DIR holds what the steps wrote: per_call.json (bench_gpu --per-call),
bench_ufjit.json and bench_ufjit_fast.json (bench_gpu --skip-cold
[--fastmath]), compare.json (benchmarks/compare/compare.py), first_call.txt
(bench_first_call), compare_cpu.json (benchmarks/cpu/compare_cpu.py),
scaling_<shape>.txt (bench_compile --scaling), env.txt and steps.tsv. A
missing file leaves its section as "no result" (with the step's status);
nothing here fails on a partial run.
"""
import json
import math
import os
import sys

SEEDS = ["add_i64", "sincos_f32", "gauss_f32", "polar_f32", "gauss_f64"]
CPU_SEEDS = ["add_ufunc", "sincos", "gaussian_pdf", "polar_distance", "gaussian_pdf64"]
NAN = float("nan")


def load_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def read_text(path):
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return None


def num(d, *keys):
    """d[k0][k1]... as a float, NaN when absent or not a number."""
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return NAN
        d = d[k]
    return float(d) if isinstance(d, (int, float)) and not isinstance(d, bool) else NAN


def fmt(x, digits=1):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def verdict(ok):
    return "-" if ok is None else ("met" if ok else "NOT met")


def check(value, op, target):
    if value is None or math.isnan(value):
        return None
    return value <= target if op == "<=" else value >= target


def steps(work):
    rows = {}
    text = read_text(os.path.join(work, "steps.tsv")) or ""
    for line in text.splitlines():
        parts = line.split("\t")
        if len(parts) == 4:
            rows[parts[0]] = {"status": parts[1], "seconds": int(parts[2]), "limit": int(parts[3])}
    return rows


def compare_rows(work):
    """compare.py's output and its rows by kernel (Numba and CuPy beside ufjit)."""
    cmp_ = load_json(os.path.join(work, "compare.json")) or {}
    return cmp_, {r["kernel"]: r for r in cmp_.get("rows", []) if isinstance(r, dict) and "kernel" in r}


def per_call(work):
    pc = load_json(os.path.join(work, "per_call.json"))
    cmp_, ref = compare_rows(work)
    if pc is None:
        return None
    fl = pc.get("floors_us", {})
    floor = min(num(fl, "launch_sync"), num(fl, "launch_sync_after"))
    # f.async launches on a blocking stream: compared with a bare launch there
    # (older files have the legacy stream's figure only).
    launch = min(num(fl, "launch_host_stream"), num(fl, "launch_host_stream_after"))
    if math.isnan(launch):
        launch = min(num(fl, "launch_host"), num(fl, "launch_host_after"))
    # A hand-written 1-element int64 add through the bare driver: the floor
    # with the GPU's own work of such a call (what bounds the rows).
    elementwise = min(num(fl, "elementwise_sync"), num(fl, "elementwise_sync_after"))
    elementwise_launch = min(num(fl, "elementwise_host_stream"), num(fl, "elementwise_host_stream_after"))
    rows = []
    for name in SEEDS:
        k = pc.get("kernels", {}).get(name)
        if k is None:
            continue
        row = {
            "kernel": name,
            "sync_new_us": num(k, "sync_new_us"),
            "sync_out_us": num(k, "sync_out_us"),
            "async_host_us": num(k, "async_host_us"),
            "async_new_host_us": num(k, "async_new_host_us"),
            "out_prebuilt_us": num(k, "out_prebuilt_us"),
            "async_prebuilt_host_us": num(k, "async_prebuilt_host_us"),
            "numba_tiny_us": num(ref.get(name, {}), "numba_tiny_us"),
            "cupy_tiny_us": num(ref.get(name, {}), "cupy_tiny_us"),
        }
        paired = k.get("paired")
        if isinstance(paired, dict):
            # Each figure against the floors taken in the same rounds (bench_per_call.h):
            # the median over the rounds of the round's difference.
            row["rounds"] = paired.get("rounds")
            row["floor_sync_us"] = num(paired, "floor_sync_us")
            row["sync_over_floor_us"] = num(paired, "sync_over_floor_us")
            row["out_over_floor_us"] = num(paired, "out_over_floor_us")
            row["async_over_launch_us"] = num(paired, "async_over_launch_us")
        else:  # older files: every figure against the lease's smaller floor
            row["floor_sync_us"] = floor
            row["sync_over_floor_us"] = row["sync_new_us"] - floor
            row["out_over_floor_us"] = row["sync_out_us"] - floor
            row["async_over_launch_us"] = row["async_host_us"] - launch
        row["met_sync"] = check(row["sync_over_floor_us"], "<=", 1.0)
        row["met_out"] = check(row["out_over_floor_us"], "<=", 0.5)
        row["met_async"] = check(row["async_over_launch_us"], "<=", 0.5)
        row["out_over_elementwise_us"] = row["sync_out_us"] - elementwise
        row["async_over_elementwise_launch_us"] = row["async_host_us"] - elementwise_launch
        # ufjit's own kernel for the source launched bare on the same arrays:
        # the GPU's work of this call; what is left over it is ufjit's host path.
        bare = num(k, "bare_kernel_sync_us")
        row["bare_kernel_sync_us"] = bare if bare > 0 else NAN  # 0: it could not be run
        if isinstance(paired, dict) and bare > 0:
            row["bare_kernel_over_floor_us"] = num(paired, "bare_kernel_over_floor_us")
            row["out_over_bare_kernel_us"] = num(paired, "out_over_bare_kernel_us")
        else:
            row["bare_kernel_over_floor_us"] = row["bare_kernel_sync_us"] - row["floor_sync_us"]
            row["out_over_bare_kernel_us"] = row["sync_out_us"] - row["bare_kernel_sync_us"]
        rows.append(row)
    return {"floor_launch_sync_us": floor, "launch_host_us": launch, "elementwise_sync_us": elementwise,
            "elementwise_launch_host_us": elementwise_launch,
            "floor_block1024_us": num(fl, "launch_sync_block1024"), "rows": rows,
            "numba_cupy_reference": cmp_.get("reference"), "numba_cupy_live_error": cmp_.get("live_error")}


def throughput(work):
    strict = load_json(os.path.join(work, "bench_ufjit.json"))
    fast = load_json(os.path.join(work, "bench_ufjit_fast.json"))
    cmp_, ref = compare_rows(work)
    if strict is None and fast is None:
        return None
    copy = num(strict or {}, "d2d_copy_GBps_rw")
    copy_fast = num(fast or {}, "d2d_copy_GBps_rw")
    rows = []
    for name in SEEDS:
        s = num(strict or {}, "kernels", name, "ufjit_dev_GBps")
        f = num(fast or {}, "kernels", name + "_fast", "ufjit_dev_GBps")
        cupy = num(ref.get(name, {}), "cupy_GBps")
        row = {
            "kernel": name,
            "strict_GBps": s,
            "strict_pct_copy": 100 * s / copy if copy > 0 else NAN,
            "fast_GBps": f,
            "fast_pct_copy": 100 * f / copy_fast if copy_fast > 0 else NAN,
            "numba_GBps": num(ref.get(name, {}), "numba_GBps"),
            "cupy_GBps": cupy,
            "ufjit_over_cupy": s / cupy if cupy > 0 else NAN,
            "ufjit_host_ms": num(strict or {}, "kernels", name, "ufjit_host_ms_2^24"),
            "numba_host_ms": num(ref.get(name, {}), "numba_host_ms"),
        }
        row["met_fast_95"] = check(row["fast_pct_copy"], ">=", 95.0)
        row["met_ahead_of_cupy"] = check(row["ufjit_over_cupy"], ">=", 1.0)
        if name == "sincos_f32":
            row["met_strict_90"] = check(row["strict_pct_copy"], ">=", 90.0)
        rows.append(row)
    return {"copy_GBps": copy, "copy_GBps_fast_run": copy_fast,
            "copy_GBps_compare": num(cmp_, "d2d_copy_GBps_rw", "reference"), "rows": rows,
            "numba_cupy_reference": cmp_.get("reference")}


def first_call(work):
    text = read_text(os.path.join(work, "first_call.txt"))
    cmp_, ref = compare_rows(work)
    if text is None:
        return None
    rows = []
    for line in text.splitlines():
        parts = line.split()
        # kernel, cold, cold_fe, cold_call, disk_warm, disk_warm_fe[, optimised_in]
        if len(parts) not in (6, 7) or parts[0] == "kernel":
            continue
        try:
            cold, cold_fe, cold_call, warm, warm_fe = (float(p) for p in parts[1:6])
            optimised_in = float(parts[6]) if len(parts) == 7 else NAN
        except ValueError:
            continue
        name = parts[0]
        seed = name in SEEDS
        rows.append({
            "kernel": name, "seed": seed, "cold_ms": cold, "cold_frontend_ms": cold_fe, "cold_call_ms": cold_call,
            "disk_warm_ms": warm, "disk_warm_frontend_ms": warm_fe, "optimised_in_ms": optimised_in,
            "numba_cold_ms": num(ref.get(name, {}), "numba_cold_ms"),
            "cupy_cold_ms": num(ref.get(name, {}), "cupy_cold_ms"),
            "cupy_disk_ms": num(ref.get(name, {}), "cupy_disk_ms"),
            "met_cold": check(cold, "<=", 10.0 if seed else 15.0),
            "met_disk_warm": check(warm, "<=", 0.5),
        })
    return {"rows": rows}


def cpu(work):
    c = load_json(os.path.join(work, "compare_cpu.json"))
    if c is None:
        return None
    threads = c.get("threads", [])
    rows = []
    for seed in CPU_SEEDS:
        r = c.get("rows", {}).get(seed)
        if r is None:
            continue
        u = r.get("ufjit", {})
        row = {"seed": seed, "ufjit_ms": {}, "numba_ms": {}, "speedup_vs_numba": {}}
        for t in threads:
            uw = u.get(str(t)) or u.get(t)
            nb = r.get(f"numba{t}_wall_cpu")
            row["ufjit_ms"][t] = uw[0] if uw else NAN
            row["numba_ms"][t] = nb[0] if nb else NAN
            row["speedup_vs_numba"][t] = nb[0] / uw[0] if uw and nb and uw[0] > 0 else NAN
        one = u.get("1")
        numpy_cpu = (r.get("numpy_wall_cpu") or [NAN, NAN])[1]
        row["ufjit_1t_cpu_ms"] = one[1] if one else NAN
        row["numpy_cpu_ms"] = numpy_cpu
        row["speedup_vs_numpy_1t"] = numpy_cpu / one[1] if one and one[1] > 0 else NAN
        top = max(threads) if threads else None
        row["met_4x_numba_at_max_threads"] = check(row["speedup_vs_numba"].get(top, NAN), ">=", 4.0)
        row["met_2x_numpy_1t"] = check(row["speedup_vs_numpy_1t"], ">=", 2.0)
        rows.append(row)
    return {"threads": threads, "numba_error": c.get("numba_error"), "rows": rows}


def scaling(work):
    result = {}
    for shape in ("statements", "elif_assign"):
        text = read_text(os.path.join(work, f"scaling_{shape}.txt"))
        if text is None:
            continue
        rows = []
        for line in text.splitlines():
            parts = line.split()
            if len(parts) != 8 or ":" not in parts[0]:
                continue
            try:
                fe, lower, cut, opt, codegen, total, ratio = (float(p) for p in parts[1:])
            except ValueError:
                continue
            rows.append({"kernel": parts[0], "frontend_ms": fe, "lower_ms": lower, "cut_link_ms": cut,
                         "optimize_ms": opt, "codegen_ms": codegen, "total_ms": total,
                         "ratio": ratio if ratio > 0 else NAN,
                         "met_12x": check(ratio, "<=", 12.0) if ratio > 0 else None})
        result[shape] = rows
    return result or None


def reference(section):
    """Where the Numba and CuPy columns come from: measured live in this run, or stored anchors."""
    ref = section.get("numba_cupy_reference")
    if ref is None:
        return "no compare.py result"
    if ref == "live":
        return "measured live in this run"
    error = section.get("numba_cupy_live_error")
    return f"STORED {ref} figures, not this run" + (f" (live failed: {error})" if error else "")


def table(*names):
    """A markdown table's header and rule lines."""
    return [row(*names), "|" + "---|" * len(names)]


def row(*cells):
    return "| " + " | ".join(str(c) for c in cells) + " |"


def per_call_lines(pc):
    out = [f"Floors in the same process: empty launch + sync {fmt(pc['floor_launch_sync_us'], 2)} us "
           f"(1024 threads: {fmt(pc['floor_block1024_us'], 2)}), bare cuLaunchKernel "
           f"{fmt(pc['launch_host_us'], 2)} us (on a blocking stream, as f.async). A hand-written 1-element "
           f"int64 add (two loads, a store, four parameters) through the bare driver: launch + sync "
           f"{fmt(pc.get('elementwise_sync_us'), 2)} us, its cuLaunchKernel "
           f"{fmt(pc.get('elementwise_launch_host_us'), 2)} us. Numba and CuPy: {reference(pc)}.", ""]
    rounds = [r["rounds"] for r in pc["rows"] if r.get("rounds")]
    if rounds:
        out += [f"Each kernel's figures and the empty launch (+ sync, and alone on a blocking stream) were taken "
                f"in {rounds[0]} rounds, in a shuffled order each round; the differences are the median over the "
                f"rounds of each round's difference (`floor` is that kernel's own, the median of its rounds).", ""]
    out += table("kernel", "floor", "sync", "into out", "async host", "sync - floor", "out - floor",
                 "async - launch", "out - hand-written add", "async - its launch", "out, operands prebuilt",
                 "async host, prebuilt", "own kernel bare + sync", "own kernel - floor", "out - own kernel bare",
                 "Numba sync", "CuPy sync", "bar (sync/out/async)")
    for r in pc["rows"]:
        us = [fmt(r.get(k), 2) for k in ("floor_sync_us", "sync_new_us", "sync_out_us", "async_host_us",
                                          "sync_over_floor_us", "out_over_floor_us", "async_over_launch_us",
                                          "out_over_elementwise_us", "async_over_elementwise_launch_us",
                                          "out_prebuilt_us", "async_prebuilt_host_us", "bare_kernel_sync_us",
                                          "bare_kernel_over_floor_us", "out_over_bare_kernel_us")]
        bars = " / ".join(verdict(r[k]) for k in ("met_sync", "met_out", "met_async"))
        out.append(row(r["kernel"], *us, fmt(r["numba_tiny_us"]), fmt(r["cupy_tiny_us"]), bars))
    return out


def throughput_lines(tp):
    out = [f"Copy bandwidth: {fmt(tp['copy_GBps'], 0)} GB/s (fastmath run {fmt(tp['copy_GBps_fast_run'], 0)}, "
           f"compare.py's {fmt(tp['copy_GBps_compare'], 0)}). Numba and CuPy: {reference(tp)}.", ""]
    out += table("kernel", "strict", "% copy", "fastmath", "% copy", "Numba", "CuPy", "ufjit / CuPy",
                 "host 2^24 ms (Numba)", "bars")
    for r in tp["rows"]:
        bars = f"fast95 {verdict(r['met_fast_95'])}, >=CuPy {verdict(r['met_ahead_of_cupy'])}"
        if "met_strict_90" in r:
            bars += f", strict90 {verdict(r['met_strict_90'])}"
        out.append(row(r["kernel"], fmt(r["strict_GBps"], 0), fmt(r["strict_pct_copy"]), fmt(r["fast_GBps"], 0),
                       fmt(r["fast_pct_copy"]), fmt(r["numba_GBps"], 0), fmt(r["cupy_GBps"], 0),
                       fmt(r["ufjit_over_cupy"], 3), f"{fmt(r['ufjit_host_ms'], 2)} ({fmt(r['numba_host_ms'], 1)})",
                       bars))
    return out


def first_call_lines(fc):
    out = table("kernel", "cold", "frontend", "compile+load+run", "disk-warm", "optimised kernel in", "Numba cold",
                "CuPy cold", "CuPy disk", "bars (cold/disk)")
    for r in fc["rows"]:
        ms = [fmt(r.get(k), 2) for k in ("cold_ms", "cold_frontend_ms", "cold_call_ms", "disk_warm_ms",
                                         "optimised_in_ms")]
        ref = [fmt(r[k]) for k in ("numba_cold_ms", "cupy_cold_ms", "cupy_disk_ms")]
        out.append(row(r["kernel"], *ms, *ref, f"{verdict(r['met_cold'])} / {verdict(r['met_disk_warm'])}"))
    return out


def cpu_lines(c):
    ts = c["threads"]
    out = table("seed", *(f"ufjit {t}t / Numba {t}t" for t in ts), "1t vs NumPy", "bars (Numba/NumPy)")
    for r in c["rows"]:
        cells = [f"{fmt(r['ufjit_ms'].get(t), 2)} / {fmt(r['numba_ms'].get(t), 2)} "
                 f"({fmt(r['speedup_vs_numba'].get(t), 2)}x)" for t in ts]
        out.append(row(r["seed"], *cells, f"{fmt(r['speedup_vs_numpy_1t'], 2)}x",
                       f"{verdict(r['met_4x_numba_at_max_threads'])} / {verdict(r['met_2x_numpy_1t'])}"))
    if c.get("numba_error"):
        out += ["", f"Numba failed: {c['numba_error']}"]
    return out


def scaling_lines(sc):
    out = table("kernel", "frontend", "lower", "cut+link", "optimize", "codegen", "total", "ratio", "bar")
    for rows in sc.values():
        for r in rows:
            ms = [fmt(r[k]) for k in ("frontend_ms", "lower_ms", "cut_link_ms", "optimize_ms", "codegen_ms",
                                      "total_ms", "ratio")]
            out.append(row(r["kernel"], *ms, verdict(r["met_12x"])))
    return out


def steps_lines(steps_):
    return table("step", "status", "seconds", "limit") + [
        row(name, s["status"], s["seconds"], s["limit"]) for name, s in steps_.items()]


SECTIONS = [
    ("per_call", "## 1. Per call at the floor (us; bar: sync <= floor + 1.0, out <= floor + 0.5, async host <= "
     "cuLaunchKernel + 0.5)", per_call_lines),
    ("throughput", "## 2-4. Throughput at 2^26 on device arrays (GB/s read + write; bars: fastmath >= 95% of copy, "
     "strict sincos >= 90%, strict ahead of CuPy)", throughput_lines),
    ("first_call", "## 6. First call (ms; bars: cold <= 10 seeds, <= 15 general; disk-warm <= 0.5)", first_call_lines),
    ("cpu", "## 5. CPU target on this host (ms, wall; bars: >= 4x Numba parallel at the most threads, >= 2x NumPy "
     "on one thread by CPU time)", cpu_lines),
    ("scaling", "## 7. Compile time against source size (process CPU ms; bar: <= 12x per 10x)", scaling_lines),
    ("steps", "## Steps", steps_lines),
]


def markdown(res):
    env = (res.get("env") or "").strip()[:1500] or "(no env.txt)"
    out = ["# Issue 13's bar, one run", "", "```", env, "```"]
    for key, title, lines in SECTIONS:
        out += ["", title, ""] + (lines(res[key]) if res.get(key) else ["no result"])
    return "\n".join(out) + "\n"


def clean(x):
    """NaN -> None, for strict JSON."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {str(k): clean(v) for k, v in x.items()}
    if isinstance(x, list):
        return [clean(v) for v in x]
    return x


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    work, md_path, json_path = sys.argv[1:]
    res = {
        "env": read_text(os.path.join(work, "env.txt")),
        "steps": steps(work),
        "per_call": per_call(work),
        "throughput": throughput(work),
        "first_call": first_call(work),
        "cpu": cpu(work),
        "scaling": scaling(work),
    }
    text = markdown(res)
    with open(md_path, "w") as f:
        f.write(text)
    with open(json_path, "w") as f:
        json.dump(clean(res), f, indent=1)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
