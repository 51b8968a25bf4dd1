#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything, and
# runs every test suite with CTest (GPU suites skip with a reason without a GPU),
# and builds the documentation site (tools/docs.sh).
# Then the same suites once more from a sanitizer build (ASan + UBSan, in
# build-asan/), less the packaging tests and the Python package, whose
# consumer programs and interpreter are not instrumented.
# UFJIT_SKIP_SANITIZE=1 leaves that second pass out.
# Tests write only to build folders or temporary ones: the tree's git status
# must be the same after the run as before it, and the run fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
tree_status() { git status --porcelain --untracked-files=all 2>/dev/null || true; }
status_before=$(tree_status)
jobs=${UFJIT_JOBS:-$(nproc)}
tools/setup.sh
tools/build.sh -DUFJIT_BUILD_TESTS=ON -DUFJIT_BUILD_FUZZERS=ON
(cd build && ctest --output-on-failure -j "$jobs" --timeout 600)
tools/docs.sh  # the documentation site, warnings as errors (build/docs/html)
if [[ "${UFJIT_SKIP_SANITIZE:-0}" != 1 ]]; then
  echo "test.sh: the sanitizer build (ASan + UBSan) in build-asan/"
  UFJIT_BUILD_DIR=build-asan tools/build.sh -DUFJIT_SANITIZE=ON -DUFJIT_BUILD_TESTS=ON \
    -DUFJIT_BUILD_EXAMPLES=OFF -DUFJIT_BUILD_FUZZERS=OFF -DUFJIT_BUILD_BENCHMARKS=OFF -DUFJIT_BUILD_PYTHON=OFF
  (cd build-asan &&
    ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1:strict_string_checks=1:check_initialization_order=1 \
    LSAN_OPTIONS=suppressions="$PWD/../tools/lsan.supp" \
    UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --output-on-failure -j "$jobs" --timeout 900 -E '^packaging_')
fi
status_after=$(tree_status)
if [[ "$status_before" != "$status_after" ]]; then
  echo "test.sh: the tests changed the source tree (they must write only to build/ or a temporary folder):" >&2
  diff <(echo "$status_before") <(echo "$status_after") >&2 || true
  exit 1
fi
