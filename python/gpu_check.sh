#!/usr/bin/env bash
# On the GPU host (Python 3.12, NumPy 2, CuPy, PyTorch, Numba, pip's pybind11;
# no LLVM): builds the Python package against a carried libufjit.so, runs
# tests/python with every GPU test required (UFJIT_REQUIRE_GPU=1: a skip is a
# failure), then the side-by-side benchmark.
#
#   python/gpu_check.sh LIBDIR INCLUDEDIR      # bundle: lib/ and include/
#
# Logs and benchmarks/python JSON go to $OUT when set (else a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
libdir=${1:?usage: gpu_check.sh LIBDIR INCLUDEDIR}
incdir=${2:?usage: gpu_check.sh LIBDIR INCLUDEDIR}
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
pkg=$(mktemp -d)
python=${PYTHON:-python3}
export PYTHON=$python PYTHONDONTWRITEBYTECODE=1 PYTHONPATH=$pkg UFJIT_REQUIRE_GPU=1
export UFJIT_CACHE_DIR=${UFJIT_CACHE_DIR:-$pkg/cache}
python/build_ext.sh "$libdir" "$incdir" "$pkg" 2>&1 | tee "$out/python_build.log"
status=0
"$python" tests/python/run_pytest.py tests/python -p no:cacheprovider -q -rs 2>&1 | tee "$out/python_tests.log" ||
  status=1
"$python" benchmarks/python/compare_python.py --json "$out/compare_python.json" 2>&1 |
  tee "$out/compare_python.log" || status=1
echo "gpu_check: logs in $out (status $status)"
exit $status
