"""tools/gpu_bench_summary.py on fake inputs: the bar's verdicts from
hand-made tool outputs (expected values worked out by hand from the
figures below), and a partial run (missing files) summarised without
failing."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "tools", "gpu_bench_summary.py")


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def run(work):
    md = os.path.join(work, "summary.md")
    js = os.path.join(work, "results.json")
    proc = subprocess.run([sys.executable, SCRIPT, work, md, js], capture_output=True, text=True)
    return proc, md, js


class FullRun(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        w = cls.tmp.name
        # Floors 8.0 (after: 8.4, the smaller counts) and 3.0 us on a blocking
        # stream (the legacy stream's 2.5 is not what f.async launches on).
        write(os.path.join(w, "per_call.json"), json.dumps({
            "floors_us": {"launch_sync": 8.0, "launch_sync_block1024": 8.2, "launch_host": 2.5,
                          "launch_host_stream": 3.1, "launch_sync_after": 8.4, "launch_host_after": 2.6,
                          "launch_host_stream_after": 3.0, "elementwise_sync": 8.5, "elementwise_sync_after": 8.3,
                          "elementwise_host_stream": 3.2, "elementwise_host_stream_after": 3.3},
            "kernels": {
                # sync 8.9 - 8.0 = 0.9 <= 1.0 met; out 8.6 - 8.0 = 0.6 > 0.5 not; async 3.4 - 3.0 = 0.4 met
                "add_i64": {"sync_new_us": 8.9, "sync_out_us": 8.6, "async_host_us": 3.4, "async_new_host_us": 4.0,
                            "out_prebuilt_us": 8.45, "async_prebuilt_host_us": 3.25, "bare_kernel_sync_us": 8.2},
                # 9.5 - 8.0 = 1.5 not; 8.3 - 8.0 = 0.3 met; 3.7 - 3.0 = 0.7 not
                # the bare launch of its own kernel could not be run (0): no figure
                "sincos_f32": {"sync_new_us": 9.5, "sync_out_us": 8.3, "async_host_us": 3.7, "async_new_host_us": 4.0,
                               "bare_kernel_sync_us": 0},
                # Paired rounds: the verdicts read the differences from the floors of the same
                # rounds, not the absolute figures against the lease's floor (9.6 - 8.0 = 1.6).
                "gauss_f32": {"sync_new_us": 9.6, "sync_out_us": 9.3, "async_host_us": 3.9, "async_new_host_us": 4.1,
                              "bare_kernel_sync_us": 9.1,
                              "paired": {"rounds": 30, "floor_sync_us": 8.7, "floor_launch_stream_us": 3.5,
                                         "sync_over_floor_us": 0.8, "out_over_floor_us": 0.55,
                                         "async_over_launch_us": 0.3, "bare_kernel_over_floor_us": 0.45,
                                         "out_over_bare_kernel_us": 0.15}},
            }}))
        write(os.path.join(w, "bench_ufjit.json"), json.dumps({
            "d2d_copy_GBps_rw": 3000.0,
            "kernels": {"add_i64": {"ufjit_dev_GBps": 3030.0, "ufjit_host_ms_2^24": 8.0},
                        "sincos_f32": {"ufjit_dev_GBps": 2610.0, "ufjit_host_ms_2^24": 3.0}}}))
        write(os.path.join(w, "bench_ufjit_fast.json"), json.dumps({
            "d2d_copy_GBps_rw": 2000.0,
            "kernels": {"add_i64_fast": {"ufjit_dev_GBps": 1800.0},     # 90% of 2000: not met
                        "sincos_f32_fast": {"ufjit_dev_GBps": 1960.0}}}))  # 98%: met
        write(os.path.join(w, "compare.json"), json.dumps({
            "reference": "live", "live_error": None, "d2d_copy_GBps_rw": {"reference": 2950.0},
            "rows": [
                {"kernel": "add_i64", "cupy_GBps": 3000.0, "numba_GBps": 2500.0, "numba_tiny_us": 150.0,
                 "cupy_tiny_us": 14.0, "numba_cold_ms": 200.0, "cupy_cold_ms": 150.0, "cupy_disk_ms": 20.0,
                 "numba_host_ms": 80.0},
                {"kernel": "sincos_f32", "cupy_GBps": 2700.0, "numba_GBps": 1400.0}]}))
        write(os.path.join(w, "first_call.txt"),
              "first call in a fresh process, median of 5, ms\n"
              "kernel                cold    cold_fe  cold_call    disk_warm disk_warm_fe   optimised_in\n"
              "add_i64              9.80       1.00       8.80         0.45         0.30          12.50\n"
              "collatz_i64         15.50       2.00      13.50         0.70         0.50\n"
              "\nUFJIT_DEBUG=1 logs:\n-- add_i64 cold\nufjit: f: disk lookup 0.1 ms\n")
        write(os.path.join(w, "compare_cpu.json"), json.dumps({
            "threads": [1, 16], "numpy": "2.0", "numba_error": None,
            "rows": {"sincos": {"ufjit": {"1": [40.0, 40.0], "16": [3.0, 40.0]},
                                "numpy_wall_cpu": [100.0, 90.0],
                                "numba1_wall_cpu": [200.0, 200.0], "numba16_wall_cpu": [15.0, 200.0]}}}))
        write(os.path.join(w, "scaling_statements.txt"),
              "statements to PTX, process CPU ms\n"
              "kernel                frontend     lower  cut+link  optimize   codegen     total   ratio\n"
              "statements:1000           10.0       2.0       1.0      20.0      20.0      53.0     0.0\n"
              "statements:10000         100.0      20.0      10.0     200.0     200.0     530.0    10.0\n"
              "statements:100000       1000.0     200.0     400.0    3000.0    2000.0    6600.0    12.5\n")
        write(os.path.join(w, "steps.tsv"), "per_call\t0\t9\t45\nscaling_elif_assign\t124\t45\t45\n")
        write(os.path.join(w, "env.txt"), "NVIDIA H100 80GB HBM3, 580.159.04\n")
        cls.proc, cls.md, cls.js = run(w)
        with open(cls.js) as f:
            cls.res = json.load(f)
        with open(cls.md) as f:
            cls.text = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_exits_zero(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)

    def test_per_call_verdicts_use_the_smaller_floors(self):
        pc = self.res["per_call"]
        self.assertEqual((pc["floor_launch_sync_us"], pc["launch_host_us"]), (8.0, 3.0))
        rows = {r["kernel"]: r for r in pc["rows"]}
        self.assertEqual([rows["add_i64"][k] for k in ("met_sync", "met_out", "met_async")], [True, False, True])
        self.assertEqual([rows["sincos_f32"][k] for k in ("met_sync", "met_out", "met_async")], [False, True, False])
        self.assertAlmostEqual(rows["add_i64"]["out_over_floor_us"], 0.6)
        self.assertEqual(rows["add_i64"]["cupy_tiny_us"], 14.0)
        self.assertAlmostEqual(rows["add_i64"]["out_over_bare_kernel_us"], 0.4)
        self.assertIsNone(rows["sincos_f32"]["out_over_bare_kernel_us"])  # NaN, written as null

    def test_per_call_verdicts_read_paired_differences_when_the_rounds_were_paired(self):
        rows = {r["kernel"]: r for r in self.res["per_call"]["rows"]}
        gauss = rows["gauss_f32"]
        self.assertEqual([gauss[k] for k in ("met_sync", "met_out", "met_async")], [True, False, True])
        self.assertEqual((gauss["floor_sync_us"], gauss["rounds"]), (8.7, 30))
        self.assertAlmostEqual(gauss["out_over_bare_kernel_us"], 0.15)
        self.assertAlmostEqual(gauss["bare_kernel_over_floor_us"], 0.45)
        with open(self.md) as f:
            self.assertIn("in 30 rounds", f.read())

    def test_throughput_against_each_runs_own_copy_bandwidth(self):
        rows = {r["kernel"]: r for r in self.res["throughput"]["rows"]}
        self.assertAlmostEqual(rows["add_i64"]["strict_pct_copy"], 101.0)
        self.assertAlmostEqual(rows["add_i64"]["fast_pct_copy"], 90.0)
        self.assertFalse(rows["add_i64"]["met_fast_95"])
        self.assertTrue(rows["sincos_f32"]["met_fast_95"])
        self.assertAlmostEqual(rows["sincos_f32"]["strict_pct_copy"], 87.0)
        self.assertFalse(rows["sincos_f32"]["met_strict_90"])
        self.assertTrue(rows["add_i64"]["met_ahead_of_cupy"])  # 3030 / 3000
        self.assertNotIn("met_strict_90", rows["add_i64"])

    def test_first_call_bars_differ_for_seeds_and_general_kernels(self):
        rows = {r["kernel"]: r for r in self.res["first_call"]["rows"]}
        self.assertEqual(set(rows), {"add_i64", "collatz_i64"})  # header and log lines skipped
        self.assertTrue(rows["add_i64"]["met_cold"])       # 9.8 <= 10
        self.assertTrue(rows["add_i64"]["met_disk_warm"])  # 0.45 <= 0.5
        self.assertFalse(rows["collatz_i64"]["met_cold"])  # 15.5 > 15
        self.assertEqual(rows["add_i64"]["numba_cold_ms"], 200.0)
        self.assertEqual(rows["add_i64"]["optimised_in_ms"], 12.5)  # the tiering column, when present
        self.assertIsNone(rows["collatz_i64"]["optimised_in_ms"])  # NaN is null in results.json

    def test_cpu_speedups(self):
        row = self.res["cpu"]["rows"][0]
        self.assertEqual(row["seed"], "sincos")
        self.assertAlmostEqual(row["speedup_vs_numba"]["16"], 5.0)  # 15 / 3
        self.assertTrue(row["met_4x_numba_at_max_threads"])
        self.assertAlmostEqual(row["speedup_vs_numpy_1t"], 2.25)  # 90 / 40, CPU time
        self.assertTrue(row["met_2x_numpy_1t"])

    def test_scaling_ratio_bar(self):
        rows = self.res["scaling"]["statements"]
        self.assertEqual([r["met_12x"] for r in rows], [None, True, False])
        self.assertEqual(rows[2]["cut_link_ms"], 400.0)

    def test_markdown_names_live_reference_and_step_status(self):
        self.assertIn("measured live in this run", self.text)
        self.assertIn("| scaling_elif_assign | 124 | 45 | 45 |", self.text)
        # out - the hand-written add's floor (the smaller of before and after): 8.6 - 8.3; async: 3.4 - 3.2
        self.assertIn("| add_i64 | 8.00 | 8.90 | 8.60 | 3.40 | 0.90 | 0.60 | 0.40 | 0.30 | 0.20 | 8.45 | 3.25 |", self.text)


class PartialRun(unittest.TestCase):
    def test_missing_files_give_no_result_sections(self):
        with tempfile.TemporaryDirectory() as w:
            write(os.path.join(w, "steps.tsv"), "per_call\t124\t45\t45\n")
            proc, md, js = run(w)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(js) as f:
                res = json.load(f)
            self.assertIsNone(res["per_call"])
            self.assertIsNone(res["cpu"])
            with open(md) as f:
                self.assertEqual(f.read().count("no result"), 5)

    def test_stored_anchors_are_flagged(self):
        with tempfile.TemporaryDirectory() as w:
            write(os.path.join(w, "per_call.json"), json.dumps({"floors_us": {}, "kernels": {}}))
            write(os.path.join(w, "compare.json"), json.dumps({"reference": "anchors-h100", "live_error": "no numba",
                                                              "rows": []}))
            proc, md, _ = run(w)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(md) as f:
                self.assertIn("STORED anchors-h100 figures, not this run (live failed: no numba)", f.read())


if __name__ == "__main__":
    unittest.main()
