#!/usr/bin/env bash
# Instructions per call of ufjit's own CUDA call path, on a machine without
# a GPU: bench_gpu --count-calls under callgrind, with the fake CUDA driver
# (benchmarks/gpu/fake_driver: every entry point returns at once) in front
# of dlopen's search path. Counts only measured_calls() (N calls after a
# warm-up), so the figure is ufjit's work per call plus a few instructions
# of the fake driver's stubs; the driver's own cost is measured on the GPU
# (bench_gpu --per-call).
# Usage: tools/callgrind_call_path.sh [BUILD_DIR] [N]
# Needs: valgrind; a build with -DUFJIT_BUILD_BENCHMARKS=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
calls=${2:-2000}
bench=$build/benchmarks/gpu/bench_gpu
fake=$build/benchmarks/gpu/fake_driver
[[ -x "$bench" && -f "$fake/libcuda.so.1" ]] || {
  echo "callgrind_call_path: build bench_gpu and fake_cuda_driver first (ninja -C $build bench_gpu fake_cuda_driver)" >&2
  exit 1
}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export LD_LIBRARY_PATH=$PWD/$fake${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export UFJIT_CACHE_DIR=$work/cache
printf '%-11s %10s %10s %10s %10s\n' kernel sync out async async_new
for kernel in add_i64 sincos_f32 gauss_f32 polar_f32 gauss_f64; do
  row=$(printf '%-11s' "$kernel")
  for mode in sync out async async_new; do
    valgrind --tool=callgrind --callgrind-out-file="$work/cg.out" --toggle-collect='*measured_calls*' \
      "$bench" --count-calls "$mode" "$kernel" "$calls" >/dev/null 2>"$work/log" || {
      cat "$work/log" >&2
      exit 1
    }
    total=$(awk '/^summary:/ {print $2}' "$work/cg.out")
    row+=$(printf ' %10d' $((total / calls)))
  done
  echo "$row"
done
