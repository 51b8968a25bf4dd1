#!/usr/bin/env bash
# Configures and builds ufjit in build/ (Release, Ninja, ccache), or in the
# folder UFJIT_BUILD_DIR names (tools/test.sh's sanitizer build uses
# build-asan). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Precompiled headers (the tool's CLI11, the test suites' GoogleTest) are
# cached only with these sloppiness settings.
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
jobs=${UFJIT_JOBS:-$(nproc)}
build=${UFJIT_BUILD_DIR:-build}
log="$build-configure.log"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > "$log" 2>&1 || {
  cat "$log" >&2
  exit 1
}
rm -f "$log"
cmake --build "$build" -j "$jobs"
