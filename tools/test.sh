#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything, and
# runs every test suite with CTest (GPU suites skip with a reason without a GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh -DUFJIT_BUILD_TESTS=ON -DUFJIT_BUILD_FUZZERS=ON
cd build
ctest --output-on-failure -j "${UFJIT_JOBS:-$(nproc)}" --timeout 600
