#!/usr/bin/env bash
# Installs what ufjit's build needs (Debian 12 packages), only what is missing,
# so that a second run is quick. The CUDA toolkit is expected at /usr/local/cuda
# (or CUDAToolkit_ROOT): ufjit uses its headers, libdevice and nvJitLink, and
# never needs a GPU or a driver to build.
set -euo pipefail

packages=(
  cmake ninja-build g++ ccache python3 libzstd-dev zlib1g-dev
  llvm-19-dev llvm-19-tools lld-19 clang-19 libclang-rt-19-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libsleef3  # SLEEF: the CPU target's accurate vector math, loaded at run time (codegen/VectorMath.h)
  libcli11-dev nlohmann-json3-dev libxxhash-dev libdlpack-dev
  pkg-config dpkg-dev file  # the packaging tests and cpack -G DEB (dpkg-shlibdeps)
  pybind11-dev python3-dev python3-pytest python3-numpy python3-hypothesis  # the Python property tests
  doxygen python3-sphinx python3-breathe python3-myst-parser  # tools/docs.sh: the documentation site
  python3-matplotlib  # tools/plot_perf.py: docs/PERFORMANCE.md's plots (the docs_perf_plots test)
  libopenmpi-dev openmpi-bin  # the optional ufjit_mpi library (mpi/) and its mpirun tests
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

cuda_root=${CUDAToolkit_ROOT:-/usr/local/cuda}
if [[ ! -f "$cuda_root/include/cuda.h" ]]; then
  echo "setup: the CUDA toolkit is not at $cuda_root (set CUDAToolkit_ROOT); ufjit needs its headers and libdevice" >&2
  exit 1
fi
