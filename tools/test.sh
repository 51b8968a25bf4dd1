#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything, and
# runs every test suite with CTest (GPU suites skip with a reason without a GPU).
# Tests write only to build/ or temporary folders: the tree's git status must
# be the same after the run as before it, and the run fails otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
tree_status() { git status --porcelain --untracked-files=all 2>/dev/null || true; }
status_before=$(tree_status)
tools/setup.sh
tools/build.sh -DUFJIT_BUILD_TESTS=ON -DUFJIT_BUILD_FUZZERS=ON
(cd build && ctest --output-on-failure -j "${UFJIT_JOBS:-$(nproc)}" --timeout 600)
status_after=$(tree_status)
if [[ "$status_before" != "$status_after" ]]; then
  echo "test.sh: the tests changed the source tree (they must write only to build/ or a temporary folder):" >&2
  diff <(echo "$status_before") <(echo "$status_after") >&2 || true
  exit 1
fi
