#!/usr/bin/env bash
# Builds the libFuzzer target ufjit_fuzz_call (tests/fuzz/fuzz_call.cpp) with
# clang-19 and optionally runs it.
#
#   tests/fuzz/build_call_fuzzer.sh LIBDIR [SECONDS|build-only] [OUT_DIR]
#
# LIBDIR: the main (g++) build directory holding libufjit.so. Only the
#         harness is instrumented (libFuzzer, ASan, UBSan); the library and
#         its JIT-compiled kernels are not, so the harness keeps its buffer
#         between guard pages to catch their out-of-bounds accesses.
# SECONDS: 0 (default): replay tests/fuzz/corpus_call once; build-only; or
#          how long to fuzz.
# OUT_DIR: binary, work corpus and crash files (default: LIBDIR/fuzz-call).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
libdir="$(cd "${1:?usage: build_call_fuzzer.sh LIBDIR [SECONDS|build-only] [OUT_DIR]}" && pwd)"
seconds="${2:-0}"
out="${3:-$libdir/fuzz-call}"
clangxx="${CLANGXX:-/usr/lib/llvm-19/bin/clang++}"
mkdir -p "$out/work-corpus" "$out/artifacts"

binary="$out/ufjit_fuzz_call"
if [[ ! -f "$binary" || "$here/fuzz_call.cpp" -nt "$binary" || -n "$(find "$root/include" -name '*.h' -newer "$binary" | head -1)" ]]; then
  "$clangxx" -std=c++20 -g -O1 -fno-omit-frame-pointer \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/include" "$here/fuzz_call.cpp" \
    -L"$libdir" -lufjit -Wl,-rpath,"$libdir" -o "$binary"
  echo "built $binary"
fi
if [[ "$seconds" == build-only ]]; then
  touch "$binary"  # newer than libufjit.so, for the build system's check
  exit 0
fi

export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
common=(-max_len=512 -timeout=10 -rss_limit_mb=4096 -artifact_prefix="$out/artifacts/")
if [[ "$seconds" == 0 ]]; then
  exec "$binary" "${common[@]}" -runs=0 "$here/corpus_call"
fi
exec "$binary" "${common[@]}" -max_total_time="$seconds" -print_final_stats=1 "$out/work-corpus" "$here/corpus_call"
