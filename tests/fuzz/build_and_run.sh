#!/usr/bin/env bash
# Builds the libFuzzer targets ufjit_fuzz_frontend and ufjit_fuzz_npy (the
# .npy reader) with clang-19 (the main build uses g++, which has no
# libFuzzer) and optionally runs one.
#
#   tests/fuzz/build_and_run.sh [SECONDS] [OUT_DIR]
#
# SECONDS: how long to fuzz (0: build, then run the corpus once and stop;
#          build-only: just build).
# OUT_DIR: where the binary, the work corpus and crash files go
#          (default: build-fuzz/ in the repository root).
# Environment: CLANGXX (default /usr/lib/llvm-19/bin/clang++),
#              UFJIT_FUZZ_TYPER=0 to leave the typer (ir/, typer/) out,
#              UFJIT_FUZZ_TARGET=npy to run ufjit_fuzz_npy over corpus_npy/
#              (default: frontend), UFJIT_FUZZ_TIMEOUT (seconds an input may
#              take, default 5: more on a loaded machine).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-0}"
out="${2:-$root/build-fuzz}"
clangxx="${CLANGXX:-/usr/lib/llvm-19/bin/clang++}"
mkdir -p "$out/obj" "$out/work-corpus" "$out/artifacts"

flags=(-std=c++20 -g -O1 -fno-omit-frame-pointer
       -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
       -I"$root" -I"$root/include")
sources=("$root"/support/{InternalAssert,LargeStack,Diagnostics,Settings}.cpp "$root"/frontend/*.cpp)
if [[ "${UFJIT_FUZZ_TYPER:-1}" != 0 && -f "$root/typer/Typer.h" ]]; then
  flags+=(-DUFJIT_FUZZ_TYPER)
  sources+=("$root"/ir/*.cpp "$root"/typer/*.cpp)
fi
sources+=("$here/fuzz_frontend.cpp")

# Compiles each source once per change (two at a time: a small machine) and
# appends its object to `objects`.
compile() {
  local pids=() src name obj
  for src in "$@"; do
    name="$(echo "${src#$root/}" | tr '/' '_')"
    obj="$out/obj/${name%.cpp}.o"
    objects+=("$obj")
    if [[ ! -f "$obj" || "$src" -nt "$obj" || -n "$(find "$root/support" "$root/frontend" "$root/ir" "$root/typer" "$root/runtime" "$root/include" -name '*.h' -newer "$obj" 2>/dev/null | head -1)" ]]; then
      "$clangxx" "${flags[@]}" -c "$src" -o "$obj" &
      pids+=($!)
      if (( ${#pids[@]} >= 2 )); then
        wait "${pids[0]}"
        pids=("${pids[@]:1}")
      fi
    fi
  done
  for pid in "${pids[@]}"; do wait "$pid"; done
}
objects=()
compile "${sources[@]}"
"$clangxx" -fsanitize=fuzzer,address,undefined "${objects[@]}" -o "$out/ufjit_fuzz_frontend"
echo "built $out/ufjit_fuzz_frontend"
# The .npy reader needs only Npy.cpp, the host-array helpers it calls, and
# dtypes, internal asserts and escape_text (messages) from the front end.
objects=()
compile "$root"/runtime/{Npy,Files,HostArrays,Broadcast,ViewChecks}.cpp "$root"/frontend/DType.cpp "$root"/support/{Diagnostics,InternalAssert}.cpp "$here/fuzz_npy.cpp"
"$clangxx" -fsanitize=fuzzer,address,undefined "${objects[@]}" -o "$out/ufjit_fuzz_npy"
echo "built $out/ufjit_fuzz_npy"
if [[ "$seconds" == build-only ]]; then
  exit 0
fi

export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
common=(-max_len=4096 -timeout="${UFJIT_FUZZ_TIMEOUT:-5}" -rss_limit_mb=2048 -artifact_prefix="$out/artifacts/")
if [[ "${UFJIT_FUZZ_TARGET:-frontend}" == npy ]]; then
  binary="$out/ufjit_fuzz_npy"
  corpus="$here/corpus_npy"
  mkdir -p "$out/work-corpus-npy"
  work="$out/work-corpus-npy"
else
  binary="$out/ufjit_fuzz_frontend"
  corpus="$here/corpus"
  work="$out/work-corpus"
  common+=(-dict="$here/python.dict")
fi
if [[ "$seconds" == 0 ]]; then
  exec "$binary" "${common[@]}" -runs=0 "$corpus"
fi
exec "$binary" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 "$work" "$corpus"
