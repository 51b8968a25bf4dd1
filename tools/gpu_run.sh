#!/usr/bin/env bash
# Runs ufjit's GPU checks and benchmarks ON a GPU host, from the repository
# root, out of the bundle that tools/make_bundle.sh made (.bundle/ufjit-bundle.tar.xz):
#   ufjit info; the GPU suite, the CUDA C++ interop suite and the runtime's own GPU tests; the API (semantic) suite with UFJIT_TARGET=cuda;
#   compute-sanitizer memcheck and racecheck over the GPU suite; bench_gpu; the Numba/CuPy
#   comparison. Logs and JSON results go to $OUT (default /tmp/ufjit-gpu-out):
#   run.log, summary.json, gpu_tests.json, api_tests.json, sanitizer.log,
#   bench_ufjit.json, compare.json. Each step has a time limit (seconds, env
#   UFJIT_T_<STEP>) so the whole run fits one 8-minute lease; UFJIT_SKIP_BENCH=1
#   leaves the benchmarks out.
set -uo pipefail
root=$PWD
OUT=${OUT:-/tmp/ufjit-gpu-out}
mkdir -p "$OUT"
log=$OUT/run.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }

# shellcheck source=tools/gpu_bundle.sh
source "$root/tools/gpu_bundle.sh"
unpack_bundle || { say "gpu_run: no bundle"; exit 1; }
export UFJIT_CACHE_DIR=/tmp/ufjit-gpu-cache
export PYTHONUNBUFFERED=1
declare -A rc

# step NAME SECONDS command...: runs with a limit, appends to run.log.
step() {
  local name=$1 limit=$2
  shift 2
  say "=== $name (limit ${limit}s): $*"
  local t0=$SECONDS
  timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1
  rc[$name]=$?
  say "=== $name rc=${rc[$name]} in $((SECONDS - t0))s"
}

say "commit $(cat "$B/COMMIT" 2>/dev/null)  host $(hostname)  $(date -u +%FT%TZ)"
step nvidia_smi 20 nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm --format=csv
step info 30 "$B/bin/ufjit" info
step aot_example 30 sh -c "'$B/bin/ufjit' compile '$B/examples/src/gaussian_pdf.ufn' -o /tmp/gauss.ptx \
  && '$B/bin/ufjit' compile '$B/examples/src/add_ufunc.ufn' -o /tmp/add.ptx && '$B/examples/aot_launch' /tmp/gauss.ptx /tmp/add.ptx"
step examples 60 sh -c "for e in main_job add_ufunc gaussian_pdf polar_distance sincos cudacpp_host_kernel \
  cudacpp_linked_helper cudacpp_elementwise; do \
  UFJIT_EXAMPLES_DIR='$B/examples/src' '$B/examples/example_'\$e || exit 1; done"
step cli_cuda 60 python3 "$root/tools/gpu_cli_check.py" "$B/bin/ufjit" "$B/examples/src" /tmp/ufjit-cli-check
step gpu_tests "${UFJIT_T_GPU:-150}" "$B/tests/ufjit_gpu_tests" --gtest_output=json:"$OUT/gpu_tests.json"
step cudacpp_gpu_tests 60 "$B/tests/ufjit_cudacpp_gpu_tests" --gtest_output=json:"$OUT/cudacpp_gpu_tests.json"
step runtime_gpu_tests 30 "$B/tests/ufjit_runtime_gpu_tests" --gtest_output=json:"$OUT/runtime_gpu_tests.json"
step api_tests_cuda "${UFJIT_T_API:-150}" env UFJIT_TARGET=cuda "$B/tests/ufjit_api_tests" --gtest_output=json:"$OUT/api_tests.json"
sanitizer=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
sanitize_filter='-*SixtyFourBit*:*LargeHost*:*ManyHostThreads*:*OutOfMemory*:*RoundTrips*'
step memcheck "${UFJIT_T_SAN:-200}" sh -c "'$sanitizer' --tool memcheck --error-exitcode 9 --log-file '$OUT/sanitizer.log' \
  '$B/tests/ufjit_gpu_tests' --gtest_filter='$sanitize_filter'"
# racecheck looks for shared-memory hazards: only the method kernels (reduce
# trees, block scans) use shared memory, so it runs their tests.
race_filter=${UFJIT_RACE_FILTER:-'GpuMethods*:*Reduce*:*Accumulate*:*Scan*'}
step racecheck "${UFJIT_T_RACE:-200}" sh -c "'$sanitizer' --tool racecheck --error-exitcode 9 --log-file '$OUT/racecheck.log' \
  '$B/tests/ufjit_gpu_tests' --gtest_filter='$race_filter'"
# Explicit kernels (@cuda.jit: shared memory, barriers, atomics, warps) under each tool.
for tool in memcheck racecheck synccheck; do
  step "${tool}_kernels" "${UFJIT_T_SAN_KERNELS:-120}" sh -c "UFJIT_TARGET=cuda '$sanitizer' --tool $tool --error-exitcode 9 \
    --log-file '$OUT/${tool}_kernels.log' '$B/tests/ufjit_api_tests' --gtest_filter='Kernels.*'"
done
step memcheck_cudacpp "${UFJIT_T_SAN_CPP:-90}" sh -c "'$sanitizer' --tool memcheck --error-exitcode 9 \
  --log-file '$OUT/sanitizer_cudacpp.log' '$B/tests/ufjit_cudacpp_gpu_tests'"
step cli_methods_cuda 90 sh -c "cd '$B/tests/data/cli' && UFJIT_TOOL='$B/bin/ufjit' UFJIT_CLI_TARGET=cuda \
  python3 -m unittest test_methods"
if [[ "${UFJIT_SKIP_BENCH:-0}" == 1 ]]; then
  say "=== bench and compare skipped (UFJIT_SKIP_BENCH=1)"
else
step bench "${UFJIT_T_BENCH:-75}" "$B/bench/bench_gpu" --json "$OUT/bench_ufjit.json"
if [[ -f "$OUT/bench_ufjit.json" ]]; then
  step compare "${UFJIT_T_CMP:-120}" python3 "$B/bench/compare.py" --ufjit "$OUT/bench_ufjit.json" --out "$OUT/compare.json" ${UFJIT_CMP_ARGS:-}
fi
step bench_kernels 90 sh -c "UFJIT_TARGET=cuda '$B/bench/bench_kernels' > '$OUT/bench_kernels.json'"
step compare_kernels 120 sh -c "python3 '$B/bench/compare_kernels.py' > '$OUT/compare_kernels.json'"
fi

python3 - "$OUT" <<'PY' | tee -a "$log"
import json, os, sys
out = sys.argv[1]
summary = {}
for suite in ("gpu_tests", "cudacpp_gpu_tests", "runtime_gpu_tests", "api_tests"):
    path = os.path.join(out, suite + ".json")
    if not os.path.exists(path):
        summary[suite] = "no result"
        continue
    d = json.load(open(path))
    failed, skipped, names = 0, 0, []
    for s in d.get("testsuites", []):
        for t in s.get("testsuite", []):
            if t.get("failures"):
                failed += 1
                names.append(s["name"] + "." + t["name"])
            if t.get("result") == "SKIPPED" or t.get("status") == "NOTRUN":
                skipped += 1
    summary[suite] = {"tests": d.get("tests"), "failed": failed, "skipped": skipped, "failed_names": names[:40]}
for tool, logname in (("memcheck", "sanitizer.log"), ("racecheck", "racecheck.log"),
                      ("memcheck_cudacpp", "sanitizer_cudacpp.log"), ("memcheck_kernels", "memcheck_kernels.log"),
                      ("racecheck_kernels", "racecheck_kernels.log"), ("synccheck_kernels", "synccheck_kernels.log")):
    path = os.path.join(out, logname)
    if os.path.exists(path):
        text = open(path, errors="replace").read()
        summary[tool] = [l for l in text.splitlines() if "ERROR SUMMARY" in l or "RACECHECK SUMMARY" in l][-1:] or ["no summary"]
json.dump(summary, open(os.path.join(out, "summary.json"), "w"), indent=1)
print(json.dumps(summary, indent=1))
PY
status=0
for name in "${!rc[@]}"; do
  say "rc $name=${rc[$name]}"
  [[ ${rc[$name]} == 0 ]] || status=1
done
grep -A12 '^kernel ' "$log" | head -n 14
grep -A8 '^| kernel' "$log" | head -n 9
# A failed step or suite, not the tables above (absent with UFJIT_SKIP_BENCH=1).
exit $status
