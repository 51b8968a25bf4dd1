#!/usr/bin/env bash
# Every row of issue 13's bar in ONE run on the GPU host, from the repository
# root, out of the bundle of `tools/make_bundle.sh -DUFJIT_BUILD_BENCHMARKS=ON`
# (.bundle/ufjit-bundle.tar.xz), in about 8 minutes:
#   per_call     bench_gpu --per-call: the driver's floors (empty launch + sync,
#                a bare cuLaunchKernel) and ufjit's sync / into-out / async host
#                cost on 1-element device arrays, one process
#   bench        bench_gpu --skip-cold: 2^26 throughput vs the copy bandwidth,
#                tiny calls, 2^24 host arrays (strict math)
#   bench_fast   the same with fastmath=True ("<kernel>_fast")
#   compare      benchmarks/compare/compare.py: Numba and CuPy live (cold, disk,
#                tiny, 2^26 throughput, host), beside `bench`
#   first_call   bench_first_call: cold and disk-warm first call, seeds and
#                the six general kernels
#   cpu          bench_cpu (ufjit's CPU target, 1..16 threads) and
#                compare_cpu.py (NumPy, Numba parallel at 1/2/4/8/16 threads)
#   scaling      bench_compile --scaling=statements and =elif_assign
# Each step has a time limit (UFJIT_T_<STEP> seconds) and the whole run a
# budget (UFJIT_BENCH_BUDGET, default 480 s): a step gets at most what is
# left, so one hang cannot eat the run. Steps run one after another (CPU
# figures need an idle host). Results in $OUT (default /tmp/ufjit-bench-out),
# at most 5 files:
#   summary.md     the bar, row by row: figure, target, met or not
#   results.json   every figure the summary uses, by section, with step statuses
#   run.log        each step's command, output, exit status and seconds
#   raw.tgz        every raw file (JSON and text of each tool)
# Env: UFJIT_SKIP=<step,step> leaves steps out; UFJIT_BUNDLE as gpu_run.sh.
set -uo pipefail
root=$PWD
final=${OUT:-/tmp/ufjit-bench-out}
work=/tmp/ufjit-bench-work
rm -rf "$work" && mkdir -p "$work" "$final"
log=$work/run.log
: >"$log"
say() { echo "$*" | tee -a "$log"; }
start=$SECONDS
budget=${UFJIT_BENCH_BUDGET:-480}
reserve=15 # for the summary and packing

# shellcheck source=tools/gpu_bundle.sh
source "$root/tools/gpu_bundle.sh"
if ! unpack_bundle; then
  cp "$log" "$final/"
  exit 1
fi
export UFJIT_CACHE_DIR=$work/ufjit-cache
export UFJIT_SOURCE_DIR=$root # bench_cpu reads examples/*.ufn from here
export PYTHONUNBUFFERED=1
bench=$B/bench
steps_file=$work/steps.tsv
: >"$steps_file"

# step NAME SECONDS command...: runs with min(SECONDS, budget left) as its
# limit, output appended to run.log; skipped when UFJIT_SKIP names it or
# fewer than 10 s are left. Records "name rc seconds limit" in steps.tsv.
step() {
  local name=$1 limit=$2
  shift 2
  local left=$((budget - reserve - (SECONDS - start)))
  if [[ ",${UFJIT_SKIP:-}," == *",$name,"* ]]; then
    say "=== $name skipped (UFJIT_SKIP)"
    printf '%s\tskipped\t0\t0\n' "$name" >>"$steps_file"
    return
  fi
  if ((left < 10)); then
    say "=== $name skipped: ${left}s of the budget left"
    printf '%s\tno-time\t0\t0\n' "$name" >>"$steps_file"
    return
  fi
  ((limit > left)) && limit=$left
  say "=== $name (limit ${limit}s): $*"
  local t0=$SECONDS
  timeout --kill-after=5 "$limit" "$@" >>"$log" 2>&1
  local status=$?
  say "=== $name rc=$status in $((SECONDS - t0))s"
  printf '%s\t%s\t%s\t%s\n' "$name" "$status" "$((SECONDS - t0))" "$limit" >>"$steps_file"
}

# step_to FILE NAME SECONDS command...: as step, the command's stdout (also)
# in FILE for the summary.
step_to() {
  local file=$1
  shift
  local name=$1 limit=$2
  shift 2
  # shellcheck disable=SC2016 # expanded by the inner bash, on purpose
  step "$name" "$limit" bash -c 'set -o pipefail; "$@" | tee "$0"' "$file" "$@"
}

say "commit $(cat "$B/COMMIT" 2>/dev/null)  host $(hostname)  $(date -u +%FT%TZ)  budget ${budget}s"
step_to "$work/env.txt" env 30 sh -c "nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm \
  --format=csv; '$B/bin/ufjit' info; echo \"cpus: \$(nproc)\"; lscpu | grep -E 'Model name|^CPU\\(s\\)|MHz' ; \
  python3 -c 'import numba, numpy; print(\"numba\", numba.__version__, \"numpy\", numpy.__version__)'; \
  python3 -c 'import cupy; print(\"cupy\", cupy.__version__)'; true"
step per_call "${UFJIT_T_PER_CALL:-45}" "$bench/bench_gpu" --per-call --reps 3000 --json "$work/per_call.json"
step bench "${UFJIT_T_BENCH:-75}" "$bench/bench_gpu" --skip-cold --json "$work/bench_ufjit.json"
step bench_fast "${UFJIT_T_BENCH_FAST:-60}" "$bench/bench_gpu" --skip-cold --fastmath --json "$work/bench_ufjit_fast.json"
if [[ -f "$work/bench_ufjit.json" ]]; then
  step compare "${UFJIT_T_COMPARE:-150}" python3 "$bench/compare.py" --ufjit "$work/bench_ufjit.json" \
    --out "$work/compare.json"
fi
step_to "$work/first_call.txt" first_call "${UFJIT_T_FIRST_CALL:-75}" "$bench/bench_first_call" --runs=5
step cpu_bench "${UFJIT_T_CPU:-70}" "$bench/bench_cpu" --benchmark_filter='_ufjit/threads' \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true --benchmark_min_time=0.1 \
  --benchmark_out="$work/bench_cpu.json" --benchmark_out_format=json
if [[ -f "$work/bench_cpu.json" ]]; then
  step cpu_compare "${UFJIT_T_CPU_COMPARE:-70}" python3 "$bench/compare_cpu.py" --bench "$work/bench_cpu.json" \
    --threads 1,2,4,8,16 --reps 5 --json "$work/compare_cpu.json"
fi
step_to "$work/scaling_statements.txt" scaling_statements "${UFJIT_T_SCALING:-45}" \
  "$bench/bench_compile" --scaling=statements
step_to "$work/scaling_elif_assign.txt" scaling_elif_assign "${UFJIT_T_SCALING_ELIF:-60}" \
  "$bench/bench_compile" --scaling=elif_assign

say "=== summary"
python3 "$root/tools/gpu_bench_summary.py" "$work" "$final/summary.md" "$final/results.json" >>"$log" 2>&1 ||
  say "summary failed (raw files in raw.tgz)"
say "total $((SECONDS - start))s"
cp "$log" "$final/run.log"
tar -C "$work" --exclude=ufjit-cache -czf "$final/raw.tgz" .
cat "$final/summary.md" 2>/dev/null
