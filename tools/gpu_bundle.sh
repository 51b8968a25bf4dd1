# shellcheck shell=bash
# Sourced by tools/gpu_run.sh and tools/gpu_bench_all.sh on the GPU host:
# unpacks the bundle of tools/make_bundle.sh (UFJIT_BUNDLE, default
# .bundle/ufjit-bundle.tar.xz under the current directory) into
# /tmp/ufjit-bundle, sets B to its ufjit/ folder and LD_LIBRARY_PATH to its
# libraries (with the bundled libstdc++ when the host's is older). Calls
# `say` (the caller's logger). Returns 1 when the bundle cannot be unpacked.
unpack_bundle() {
  local bundle=${UFJIT_BUNDLE:-$PWD/.bundle/ufjit-bundle.tar.xz}
  local dest=/tmp/ufjit-bundle
  rm -rf "$dest" && mkdir -p "$dest"
  if ! tar -C "$dest" -xJf "$bundle"; then
    say "cannot unpack $bundle"
    return 1
  fi
  B=$dest/ufjit
  export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # An older host libstdc++ than the build machine's: use the bundled one.
  if ! "$B/bin/ufjit" --help >/dev/null 2>&1 &&
    LD_LIBRARY_PATH=$B/lib/compat:$LD_LIBRARY_PATH "$B/bin/ufjit" --help >/dev/null 2>&1; then
    export LD_LIBRARY_PATH=$B/lib/compat:$LD_LIBRARY_PATH
    say "using the bundled libstdc++"
  fi
  return 0
}
