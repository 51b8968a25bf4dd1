"""docs/PERFORMANCE.md's plots: every image the page shows is checked in under
docs/perf/, tools/plot_perf.py makes each of them again, byte for byte, from the
checked-in JSON, and a results.json that tools/gpu_bench_all.sh writes (through
tools/gpu_bench_summary.py) can be dropped in and plotted, whole or partial.

Needs matplotlib (Debian's python3-matplotlib, tools/setup.sh): run with the
interpreter it is installed for."""
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
PAGE = os.path.join(ROOT, "docs", "PERFORMANCE.md")
PERF = os.path.join(ROOT, "docs", "perf")
PLOT = os.path.join(ROOT, "tools", "plot_perf.py")
SUMMARY = os.path.join(ROOT, "tools", "gpu_bench_summary.py")
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)\)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s#]+)(?:#[^)]*)?\)")
MAX_PNG_BYTES = 100_000


def page_text():
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def plot(data_files, out_dir):
    proc = subprocess.run([sys.executable, PLOT, *data_files, "-o", out_dir], capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssertionError(f"plot_perf.py failed:\n{proc.stdout}{proc.stderr}")
    return sorted(os.path.basename(line) for line in proc.stdout.splitlines())


def plot_perf():
    """tools/plot_perf.py as a module, for what its files do not show."""
    spec = importlib.util.spec_from_file_location("plot_perf", PLOT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def checked_in_json():
    return sorted(os.path.join(PERF, n) for n in os.listdir(PERF) if n.endswith(".json"))


class CheckedInPlots(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise AssertionError(f"{sys.executable} has no matplotlib: install python3-matplotlib (tools/setup.sh)")
        cls.tmp = tempfile.TemporaryDirectory()
        cls.made = plot(checked_in_json(), cls.tmp.name)
        cls.images = IMAGE.findall(page_text())

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_the_page_shows_plots_and_each_lies_in_docs_perf(self):
        self.assertTrue(self.images, "PERFORMANCE.md shows no image")
        for link in self.images:
            self.assertTrue(link.startswith("perf/") and link.endswith(".png"), link)
            self.assertTrue(os.path.isfile(os.path.join(ROOT, "docs", link)), f"{link} is not checked in")

    def test_the_script_makes_every_image_the_page_shows(self):
        for link in self.images:
            self.assertIn(os.path.basename(link), self.made, f"no data in docs/perf/ makes {link}")

    def test_each_checked_in_plot_is_what_the_script_makes_from_the_checked_in_data(self):
        for name in self.made:
            with open(os.path.join(self.tmp.name, name), "rb") as f:
                fresh = f.read()
            with open(os.path.join(PERF, name), "rb") as f:
                self.assertEqual(f.read(), fresh, f"docs/perf/{name} is stale: run "
                                 "tools/plot_perf.py docs/perf/*.json -o docs/perf/")

    def test_every_png_in_docs_perf_is_made_by_the_script_and_shown_by_the_page(self):
        shown = {os.path.basename(link) for link in self.images}
        for name in os.listdir(PERF):
            if name.endswith(".png"):
                self.assertIn(name, self.made, f"docs/perf/{name}: no data makes it")
                self.assertIn(name, shown, f"docs/perf/{name}: the page does not show it")

    def test_each_plot_is_small(self):
        for name in self.made:
            self.assertLess(os.path.getsize(os.path.join(self.tmp.name, name)), MAX_PNG_BYTES, name)

    def test_every_figure_file_names_its_device_and_date(self):
        for path in checked_in_json():
            with open(path) as f:
                data = json.load(f)
            self.assertRegex(os.path.basename(path), r"\d{4}-\d{2}-\d{2}", f"{path}: a date in the name")
            device = (data.get("source") or {}).get("device") or re.search(r"^NVIDIA", data.get("env") or "", re.M)
            self.assertTrue(device, f"{path}: no source.device and no nvidia-smi line in env")

    def test_the_page_links_only_inside_the_repository(self):
        for target in LINK.findall(page_text()) + self.images:
            if re.match(r"[a-z]+://", target):
                continue
            path = os.path.normpath(os.path.join(ROOT, "docs", target))
            self.assertTrue(path.startswith(ROOT + os.sep), f"{target} leaves the repository")
            self.assertTrue(os.path.exists(path), f"{target} does not exist")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def summarise(work):
    """gpu_bench_summary.py over the raw files in work: its results.json."""
    results = os.path.join(work, "results.json")
    subprocess.run([sys.executable, SUMMARY, work, os.path.join(work, "summary.md"), results],
                   check=True, capture_output=True)
    return results


class ResultsOfARun(unittest.TestCase):
    """A results.json as gpu_bench_all.sh leaves it, from hand-made raw files."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = os.path.join(self.tmp.name, "work")
        self.out = os.path.join(self.tmp.name, "out")
        os.makedirs(self.work)

    def tearDown(self):
        self.tmp.cleanup()

    def write_raw(self, name, data):
        write(os.path.join(self.work, name), data if isinstance(data, str) else json.dumps(data))

    def test_a_whole_run_gives_every_plot_titled_with_the_device_from_its_env(self):
        self.write_raw("env.txt", "name, driver_version\nNVIDIA H200, 580.159.04\nModel name: Some CPU\n")
        self.write_raw("per_call.json", {
            "floors_us": {"launch_sync": 8.0, "launch_host_stream": 3.0},
            "kernels": {"add_i64": {"sync_new_us": 8.9, "sync_out_us": 8.6, "async_host_us": 3.4}}})
        self.write_raw("bench_ufjit.json", {"d2d_copy_GBps_rw": 4000.0,
                                            "kernels": {"add_i64": {"ufjit_dev_GBps": 4040.0}}})
        self.write_raw("compare.json", {"reference": "live", "rows": [
            {"kernel": "add_i64", "cupy_GBps": 3900.0, "numba_GBps": 3000.0, "cupy_tiny_us": 14.0,
             "numba_tiny_us": 150.0, "numba_cold_ms": 200.0, "cupy_cold_ms": 150.0, "cupy_disk_ms": 20.0}]})
        self.write_raw("first_call.txt", "kernel cold cold_fe cold_call disk_warm disk_warm_fe\n"
                                         "add_i64 4.0 0.1 3.9 0.40 0.10\n")
        self.write_raw("compare_cpu.json", {"threads": [1, 16], "rows": {"sincos": {
            "ufjit": {"1": [20.0, 20.0], "16": [2.0, 20.0]}, "numba1_wall_cpu": [300.0, 300.0],
            "numba16_wall_cpu": [40.0, 600.0], "numpy_wall_cpu": [80.0, 80.0]}}})
        self.write_raw("scaling_statements.txt", "statements:1000 5 1 1 20 20 47 0\n"
                                                 "statements:10000 50 10 10 150 250 470 10.0\n")
        copy = os.path.join(self.tmp.name, "h200-2026-11-29.json")
        os.replace(summarise(self.work), copy)
        made = plot([copy], self.out)
        self.assertEqual(made, sorted(f"h200-2026-11-29-{s}.png" for s in (
            "throughput", "per-call", "first-call", "cpu-threads", "compile-scaling")))
        with open(copy) as f:
            labels = plot_perf().labels_of(json.load(f), "h200-2026-11-29")
        self.assertEqual(labels, {"gpu": "NVIDIA H200, 2026-11-29", "cpu": "Some CPU, 2026-11-29"})

    def test_a_partial_run_plots_only_the_sections_it_has(self):
        self.write_raw("per_call.json", {"floors_us": {"launch_sync": 8.0},
                                         "kernels": {"add_i64": {"sync_new_us": 8.9, "sync_out_us": 8.6}}})
        self.assertEqual(plot([summarise(self.work)], self.out), ["results-per-call.png"])


if __name__ == "__main__":
    unittest.main()
