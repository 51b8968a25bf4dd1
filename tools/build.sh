#!/usr/bin/env bash
# Configures and builds ufjit in build/ (Release, Ninja, ccache). Extra
# arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1 CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
jobs=${UFJIT_JOBS:-$(nproc)}
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > build-configure.log 2>&1 || {
  cat build-configure.log >&2
  exit 1
}
rm -f build-configure.log
cmake --build build -j "$jobs"
