#!/usr/bin/python3
"""Plots of ufjit's benchmark figures, as the PNG files docs/PERFORMANCE.md shows.

    tools/plot_perf.py DATA.json... -o OUT_DIR

Each DATA.json is one of:

- a `results.json` of tools/gpu_bench_all.sh (tools/gpu_bench_summary.py writes it),
  copied to docs/perf/<device>-<date>.json: one PNG per section it holds,
  <stem>-throughput.png, <stem>-per-call.png, <stem>-first-call.png,
  <stem>-cpu-threads.png and <stem>-compile-scaling.png;
- a hand-written file with `"kind": "explicit_kernels"` or `"kind": "python_per_call"`
  (figures measured by benchmarks/kernels/ and benchmarks/python/): <stem>.png.

An optional top-level `"source"` object (`device`, `date`, `commit`) names what was
measured; without it the device comes from the `env` text of gpu_bench_all.sh
(nvidia-smi's line) and the date from the file name. A section that is missing or
null draws no plot. Output is deterministic: fixed size and resolution, matplotlib's
default style and no software or date metadata, so that the same data and the same
matplotlib give byte-identical files.

The shebang names Debian's interpreter: python3-matplotlib (tools/setup.sh) is
installed for it, not for another python3 that may come first on PATH.
"""
import argparse
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (the backend is chosen first)

SIZE_IN = (8.0, 4.2)
DPI = 100
# One colour per implementation, the same in every plot.
COLOURS = {
    "ufjit": "#1f77b4",
    "ufjit fastmath": "#9ecae1",
    "ufjit into out": "#6baed6",
    "ufjit disk-warm": "#9ecae1",
    "CuPy": "#2ca02c",
    "CuPy disk-warm": "#98df8a",
    "Numba": "#ff7f0e",
    "floor": "#7f7f7f",
}


def value(x):
    """A figure as a float, NaN when absent (None in the JSON)."""
    return float(x) if isinstance(x, (int, float)) and not isinstance(x, bool) else math.nan


def present(values):
    return any(not math.isnan(v) for v in values)


def env_line(data, predicate):
    """The first line of gpu_bench_all.sh's env text (nvidia-smi, lscpu) that
    predicate accepts, or None."""
    return next((line for line in (data.get("env") or "").splitlines() if predicate(line)), None)


def labels_of(data, stem):
    """The plots' titles' last line, 'machine, date (commit)', for the GPU's
    sections ("gpu") and the host CPU's ("cpu")."""
    source = data.get("source") or {}
    # nvidia-smi's csv: a header line, then "NAME, driver, memory, ...".
    smi = env_line(data, lambda line: line.startswith("NVIDIA") and "," in line)
    device = source.get("device") or (smi.split(",")[0].strip() if smi else stem)
    lscpu = env_line(data, lambda line: line.startswith("Model name:"))
    cpu = source.get("cpu") or (lscpu.split(":", 1)[1].strip() if lscpu else f"the {device} host's CPU")
    date = source.get("date")
    if not date:
        m = re.search(r"\d{4}-\d{2}-\d{2}", stem)
        date = m.group(0) if m else ""
    commit = f" ({source['commit']})" if source.get("commit") else ""
    return {which: ", ".join(p for p in (machine, date) if p) + commit
            for which, machine in (("gpu", device), ("cpu", cpu))}


def new_figure(ncols=1):
    plt.rcdefaults()
    fig, axes = plt.subplots(1, ncols, figsize=SIZE_IN, dpi=DPI, squeeze=False)
    return fig, list(axes[0])


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    # A figure-wide legend sits in a strip along the bottom.
    fig.tight_layout(rect=(0, 0.07 if fig.legends else 0, 1, 1))
    fig.savefig(path, dpi=DPI, metadata={"Software": None})
    plt.close(fig)
    return path


def grouped_bars(ax, categories, series, log=False, horizontal=False, legend=True):
    """Bars of each (label, values) series side by side per category; absent
    values draw nothing. Without legend, the figure carries one for all panels."""
    series = [(name, vals) for name, vals in series if present(vals)]
    if not series:
        ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
        return
    width = 0.8 / max(len(series), 1)
    for i, (name, vals) in enumerate(series):
        pos = [c + (i - (len(series) - 1) / 2) * width for c in range(len(categories))]
        vals = [0.0 if math.isnan(v) else v for v in vals]
        bar = ax.barh if horizontal else ax.bar
        bar(pos, vals, width, label=name, color=COLOURS.get(name, "#555555"))
    ticks = range(len(categories))
    if horizontal:
        ax.set_yticks(ticks, categories, fontsize=8)
        ax.invert_yaxis()
        if log:
            ax.set_xscale("log")
        if legend:
            ax.legend(fontsize=7, loc="lower right")
        return
    ax.set_xticks(ticks, categories, fontsize=8)
    if log:
        ax.set_yscale("log")
    shown = [v for _, vals in series for v in vals if not math.isnan(v) and v > 0] or [1.0]
    if log:
        ax.set_ylim(bottom=min(shown) / 2)
    if legend:
        # Room above the bars for the legend: one row on a full-width plot,
        # rows of three on a panel.
        ncol = len(series) if ax.get_position().width > 0.6 else min(len(series), 3)
        ax.set_ylim(top=max(shown) * ((6 if ncol == len(series) else 30) if log else 1.3))
        ax.legend(fontsize=7, loc="upper center", ncol=ncol)


def throughput(sec, label):
    """% of the device's copy bandwidth per kernel at 2^26 elements."""
    rows = sec.get("rows") or []
    copy = value(sec.get("copy_GBps"))

    def pct(r, key):
        return 100 * value(r.get(key)) / copy if copy > 0 else math.nan

    fig, (ax,) = new_figure()
    grouped_bars(ax, [r["kernel"] for r in rows], [
        ("ufjit", [value(r.get("strict_pct_copy")) for r in rows]),
        ("ufjit fastmath", [value(r.get("fast_pct_copy")) for r in rows]),
        ("CuPy", [pct(r, "cupy_GBps") for r in rows]),
        ("Numba", [pct(r, "numba_GBps") for r in rows]),
    ])
    ax.axhline(100, color=COLOURS["floor"], linestyle="--", linewidth=1)
    ax.set_ylabel("% of the copy bandwidth")
    ax.set_title(f"2^26 elements on device arrays, copy {copy:.0f} GB/s\n{label}", fontsize=10)
    return fig


def per_call(sec, label):
    """A synchronous call on 1-element device arrays, and an async call's host
    cost, each against the driver's floor measured in the same run."""
    rows = sec.get("rows") or []
    kernels = [r["kernel"] for r in rows]
    floor = [value(r.get("floor_sync_us")) for r in rows]
    launch = value(sec.get("launch_host_us"))
    fig, (left, right) = new_figure(2)
    grouped_bars(left, kernels, [
        ("floor", floor),
        ("ufjit", [f + value(r.get("sync_over_floor_us")) for f, r in zip(floor, rows)]),
        ("ufjit into out", [f + value(r.get("out_over_floor_us")) for f, r in zip(floor, rows)]),
        ("CuPy", [value(r.get("cupy_tiny_us")) for r in rows]),
        ("Numba", [value(r.get("numba_tiny_us")) for r in rows]),
    ], log=True)
    left.set_ylabel("us per call (log scale)")
    left.set_title("synchronous call (floor: empty launch + sync)", fontsize=9)
    left.tick_params(axis="x", labelrotation=30)
    grouped_bars(right, kernels, [
        ("floor", [launch] * len(rows)),
        ("ufjit", [launch + value(r.get("async_over_launch_us")) for r in rows]),
    ])
    right.set_ylabel("us of host time per call")
    right.set_title("asynchronous call (floor: bare cuLaunchKernel)", fontsize=9)
    right.tick_params(axis="x", labelrotation=30)
    fig.suptitle(label, fontsize=10)
    return fig


def first_call(sec, label):
    """Cold (fresh process, empty disk cache) and disk-warm first calls."""
    rows = sec.get("rows") or []
    fig, (ax,) = new_figure()
    grouped_bars(ax, [r["kernel"] for r in rows], [
        ("ufjit", [value(r.get("cold_ms")) for r in rows]),
        ("ufjit disk-warm", [value(r.get("disk_warm_ms")) for r in rows]),
        ("CuPy", [value(r.get("cupy_cold_ms")) for r in rows]),
        ("CuPy disk-warm", [value(r.get("cupy_disk_ms")) for r in rows]),
        ("Numba", [value(r.get("numba_cold_ms")) for r in rows]),
    ], log=True, horizontal=True)
    ax.set_xlabel("ms to the first result (log scale; cold unless marked disk-warm)")
    ax.set_title(f"first call in a fresh process\n{label}", fontsize=10)
    return fig


def cpu_threads(sec, label):
    """Wall time of each seed on 2^24 elements against the thread count,
    ufjit's CPU target (solid) and Numba's parallel target (dashed)."""
    threads = [int(t) for t in sec.get("threads") or []]
    fig, (ax,) = new_figure()
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for i, r in enumerate(sec.get("rows") or []):
        colour = cycle[i % len(cycle)]
        for key, style, name in (("ufjit_ms", "-", r["seed"]), ("numba_ms", "--", None)):
            ms = [value((r.get(key) or {}).get(str(t))) for t in threads]
            if present(ms):
                ax.plot(threads, ms, style, marker="o", markersize=3, color=colour, label=name)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(threads, [str(t) for t in threads])
    ax.set_xlabel("threads")
    ax.set_ylabel("ms per call, 2^24 elements (log scale)")
    ax.set_title(f"CPU target (solid) and Numba parallel (dashed)\n{label}", fontsize=10)
    ax.legend(fontsize=7, loc="lower left")
    return fig


def compile_scaling(sec, label):
    """Compile time against source size, with the linear line through the
    smallest size."""
    fig, (ax,) = new_figure()
    for shape, rows in sorted(sec.items()):
        sizes = [int(r["kernel"].split(":")[1]) for r in rows]
        total = [value(r.get("total_ms")) for r in rows]
        if not sizes or not present(total):
            continue
        line, = ax.plot(sizes, total, "-o", markersize=3, label=shape)
        ax.plot(sizes, [total[0] * s / sizes[0] for s in sizes], ":", color=line.get_color(), linewidth=1,
                label=f"{shape}, linear")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("statements or branches")
    ax.set_ylabel("process CPU ms to PTX (log scale)")
    ax.set_title(f"compile time against source size\n{label}", fontsize=10)
    ax.legend(fontsize=7)
    return fig


# results.json's sections and the plot each becomes.
SECTION_PLOTS = [
    ("throughput", "throughput", throughput, "gpu"),
    ("per_call", "per-call", per_call, "gpu"),
    ("first_call", "first-call", first_call, "gpu"),
    ("cpu", "cpu-threads", cpu_threads, "cpu"),
    ("scaling", "compile-scaling", compile_scaling, "cpu"),
]


def implementations_panel(ax, panel):
    """One panel of a hand-written file: rows of figures per implementation."""
    rows = panel["rows"]
    grouped_bars(ax, [r["name"] for r in rows],
                 [(who, [value(r.get(who)) for r in rows]) for who in ("ufjit", "CuPy", "Numba")],
                 log=panel.get("log", False), legend=False)
    ax.set_title(panel["title"], fontsize=8)
    ax.set_ylabel(panel["unit"], fontsize=8)
    ax.tick_params(axis="x", labelsize=7)


def hand_written(data, label):
    panels = data["panels"]
    fig, axes = new_figure(len(panels))
    for ax, panel in zip(axes, panels):
        implementations_panel(ax, panel)
    handles, names = axes[0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=len(names), fontsize=8)
    fig.suptitle(f"{data['title']}\n{label}", fontsize=10)
    return fig


def plot_file(path, out_dir):
    with open(path) as f:
        data = json.load(f)
    stem = os.path.splitext(os.path.basename(path))[0]
    labels = labels_of(data, stem)
    if data.get("kind") in ("explicit_kernels", "python_per_call"):
        return [save(hand_written(data, labels["gpu"]), out_dir, f"{stem}.png")]
    written = []
    for key, suffix, draw, machine in SECTION_PLOTS:
        if data.get(key):
            written.append(save(draw(data[key], labels[machine]), out_dir, f"{stem}-{suffix}.png"))
    return written


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="+", help="results.json files of gpu_bench_all.sh, or hand-written files")
    parser.add_argument("-o", "--out", required=True, help="folder for the PNG files")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    for path in args.data:
        for written in plot_file(path, args.out):
            print(written)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
