#!/usr/bin/env bash
# Builds the ufjit Python package without CMake, against a carried libufjit.so
# (a GPU host with pip's pybind11 and no LLVM):
#
#   python/build_ext.sh LIBDIR INCLUDEDIR [OUTDIR]
#
# LIBDIR holds libufjit.so (bundle: lib/), INCLUDEDIR holds ufjit/ufjit.h
# (bundle: include/). The package is assembled in OUTDIR (default
# build/python): OUTDIR/ufjit/{*.py,np/...,_ufjit*.so}; then PYTHONPATH=OUTDIR.
# PYTHON picks the interpreter (default python3); CXX the compiler. A host
# without dlpack/dlpack.h (libdlpack-dev) uses src/dlpack_abi's, searched last.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
libdir=$(cd "${1:?usage: build_ext.sh LIBDIR INCLUDEDIR [OUTDIR]}" && pwd)
incdir=$(cd "${2:?usage: build_ext.sh LIBDIR INCLUDEDIR [OUTDIR]}" && pwd)
outdir=${3:-$here/../build/python}
python=${PYTHON:-python3}
mkdir -p "$outdir/ufjit"
outdir=$(cd "$outdir" && pwd)
suffix=$("$python" -c "import sysconfig; print(sysconfig.get_config_var('EXT_SUFFIX'))")
includes=$("$python" -m pybind11 --includes 2>/dev/null || echo "-I/usr/include/$("$python" -c 'import sysconfig,os; print(os.path.basename(sysconfig.get_paths()["include"]))')")
# The package with its subpackages (ufjit.np.ufunc), Python files only.
(cd "$here" && find ufjit -name "*.py" -exec cp --parents {} "$outdir" \;)
# shellcheck disable=SC2086  # $includes is a list of -I flags
${CXX:-c++} -O2 -std=c++20 -shared -fPIC -fvisibility=hidden $includes -I"$incdir" -idirafter "$here/src/dlpack_abi" \
  "$here"/src/*.cpp \
  -L"$libdir" -lufjit -Wl,-rpath,"$libdir" -o "$outdir/ufjit/_ufjit$suffix"
echo "built $outdir/ufjit/_ufjit$suffix; use PYTHONPATH=$outdir"
