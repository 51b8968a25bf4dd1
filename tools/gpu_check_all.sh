#!/usr/bin/env bash
# On the GPU host, from the repository root: every GPU check of one session in
# one command, with what comes back packed to fit the device tool's limits
# (a few files): tools/gpu_run.sh (suites, examples, memcheck, racecheck,
# benchmarks unless UFJIT_SKIP_BENCH=1), then the Python package's GPU tests
# (python/gpu_check.sh, built against the bundle's library and this tree's
# include/). Writes $OUT/summary.json, $OUT/run.log, $OUT/python_tests.log and
# $OUT/results.tgz (every log and JSON file).
set -uo pipefail
root=$PWD
final=${OUT:-/tmp/ufjit-gpu-final}
work=/tmp/ufjit-gpu-work
rm -rf "$work" && mkdir -p "$work/python" "$final"

OUT=$work bash tools/gpu_run.sh >"$work/gpu_run.out" 2>&1
run_status=$?
bundle=/tmp/ufjit-bundle/ufjit
if [[ "${UFJIT_SKIP_PYTHON:-0}" != 1 ]]; then
  OUT=$work/python timeout --kill-after=5 "${UFJIT_T_PYTHON:-240}" \
    bash python/gpu_check.sh "$bundle/lib" "$root/include" >"$work/python/gpu_check.out" 2>&1
  echo "python gpu_check rc=$?" >>"$work/run.log"
fi

tar -C "$work" -czf "$final/results.tgz" .
cp "$work/run.log" "$final/" 2>/dev/null
cp "$work/summary.json" "$final/" 2>/dev/null
cp "$work/python/python_tests.log" "$final/" 2>/dev/null
tail -n 25 "$work/run.log"
tail -n 15 "$work/python/python_tests.log" 2>/dev/null
exit $run_status
