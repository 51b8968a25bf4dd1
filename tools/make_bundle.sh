#!/usr/bin/env bash
# Builds ufjit (Release) and packs what a GPU host needs into ONE stripped,
# compressed tarball, .bundle/ufjit-bundle.tar.xz (under 64 MiB), for
# tools/gpu_run.sh:
#   lib/       libufjit.so (stripped) and any shared library it or the
#              programs need that a GPU host may lack (from ldd); lib/compat
#              holds this machine's libstdc++/libgcc_s for older hosts
#   bin/       the ufjit tool
#   tests/     every test executable, plus tests/ data (lit, diagnostics, api)
#   bench/     bench_gpu, bench_methods, bench_kernels, bench_devices and benchmarks/compare/*; with -DUFJIT_BUILD_BENCHMARKS=ON
#              also bench_first_call, bench_cpu, bench_compile, compare_cpu.py
#              (tools/gpu_bench_all.sh). The fake CUDA driver is never bundled.
#   examples/  example programs and sources
# Usage: tools/make_bundle.sh [extra cmake configure arguments]
# Env: UFJIT_BUNDLE_BUILD (build dir, default build-bundle), UFJIT_JOBS;
#   UFJIT_BUNDLE_TESTS, an extended regex: only the test executables whose
#   names match it are packed (e.g. 'gpu|api', the suites tools/gpu_run.sh
#   runs; default: every one); UFJIT_BUNDLE_XZ, xz's options (default
#   "-9 -T1"; "-3 -T2" packs several times faster, a little larger).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1  # as tools/build.sh: hits across build folders
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
build=${UFJIT_BUNDLE_BUILD:-build-bundle}
jobs=${UFJIT_JOBS:-$(nproc)}
out=$root/.bundle
stage=$out/stage/ufjit

cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DUFJIT_BUILD_TESTS=ON -DUFJIT_BUILD_EXAMPLES=ON \
  "$@" >/dev/null
# Everything the tree defines (tests, tool, examples, library).
ninja -C "$build" -j "$jobs"

rm -rf "$out/stage"
mkdir -p "$stage"/{lib/compat,bin,tests,bench,examples}

# The file the libufjit.so link names: a build dir may still hold an older
# version's libufjit.so.X.Y.Z next to it.
lib=$(readlink -f "$build/libufjit.so" || true)
[[ -f "$lib" ]] || { echo "make_bundle: libufjit.so was not built" >&2; exit 1; }
cp "$lib" "$stage/lib/"
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
libfile=$(basename "$lib")
( cd "$stage/lib" && { [[ "$soname" == "$libfile" ]] || ln -sf "$libfile" "$soname"; } && ln -sf "$soname" libufjit.so )

[[ -x "$build/ufjit" ]] && cp "$build/ufjit" "$stage/bin/"
find "$build/tests" -maxdepth 2 -type f -executable -name 'ufjit_*' |
  grep -E "${UFJIT_BUNDLE_TESTS:-.}" | while read -r test; do cp "$test" "$stage/tests/"; done
if [[ -d "$build/examples" ]]; then
  find "$build/examples" -maxdepth 2 -type f -executable ! -name '*.so*' -exec cp {} "$stage/examples/" \;
fi
[[ -d examples ]] && cp -r examples "$stage/examples/src"
# Test inputs: everything under tests/ that is not C++ source.
mkdir -p "$stage/tests/data"
tar -C tests --exclude='*.cpp' --exclude='*.h' --exclude='CMakeLists.txt' -cf - . | tar -C "$stage/tests/data" -xf -

# bench_gpu: the CMake target when benchmarks are hooked in, else built here.
if [[ -x "$build/benchmarks/gpu/bench_gpu" ]]; then
  cp "$build/benchmarks/gpu/bench_gpu" "$stage/bench/"
else
  g++ -std=c++20 -O2 -I. -Iinclude -isystem "${CUDAToolkit_ROOT:-/usr/local/cuda}/include" \
    benchmarks/gpu/bench_gpu.cpp benchmarks/gpu/bench_per_call.cpp -L"$stage/lib" -lufjit -ldl -Wl,-rpath,'$ORIGIN/../lib' -o "$stage/bench/bench_gpu"
fi
# Benchmarks of the public API only: the CMake target when benchmarks are
# hooked in, else built here. bench_methods (ufunc methods; compare_methods.py
# is its CuPy side), bench_kernels (explicit kernels; compare_kernels.py is
# its Numba and CuPy side), bench_devices (one call across every GPU).
for source in benchmarks/gpu/bench_methods.cpp benchmarks/kernels/bench_kernels.cpp benchmarks/gpu/bench_devices.cpp; do
  name=$(basename "$source" .cpp)
  target="$build/$(dirname "$source")/$name"
  if [[ -x "$target" ]]; then
    cp "$target" "$stage/bench/"
  else
    g++ -std=c++20 -O2 -Iinclude "$source" -L"$stage/lib" -lufjit -Wl,-rpath,'$ORIGIN/../lib' -o "$stage/bench/$name"
  fi
done
cp benchmarks/kernels/compare_kernels.py "$stage/bench/"
cp benchmarks/compare/*.py benchmarks/compare/*.json "$stage/bench/"
# The other benchmarks of tools/gpu_bench_all.sh, when built (-DUFJIT_BUILD_BENCHMARKS=ON).
for b in gpu/bench_first_call cpu/bench_cpu bench_compile; do
  if [[ -x "$build/benchmarks/$b" ]]; then cp "$build/benchmarks/$b" "$stage/bench/"; fi
done
cp benchmarks/cpu/compare_cpu.py "$stage/bench/"

# Strip, then bring along the shared libraries a GPU host may lack.
find "$stage" -type f \( -name '*.so*' -o -perm -u+x \) -exec sh -c 'file -b "$1" | grep -q ELF && strip --strip-unneeded "$1"' _ {} \;
system_libs='^(linux-vdso|libc|libm|libdl|librt|libpthread|ld-linux-x86-64|libcuda|libstdc\+\+|libgcc_s)\.so'
for elf in $(find "$stage" -type f -exec sh -c 'file -b "$1" | grep -q ELF && echo "$1"' _ {} \;); do
  LD_LIBRARY_PATH="$stage/lib" ldd "$elf" 2>/dev/null | awk '/=>/ {print $1, $3}' | while read -r name path; do
    if [[ ! "$name" =~ $system_libs && "$name" != libufjit* && -f "$path" && ! -e "$stage/lib/$name" ]]; then
      cp -L "$path" "$stage/lib/$name"
      echo "make_bundle: bundling $name"
    fi
  done
done
# Libraries ufjit opens with dlopen at run time, which ldd cannot see: SLEEF
# (the CPU target's vector math, codegen/VectorMath.h). A host without them
# would silently measure the scalar fallback.
for dlopened in libsleef.so.3; do
  path=$(ldconfig -p | awk -v n="$dlopened" '$1 == n && /x86-64/ {if (!found) print $NF; found = 1}')
  [[ -n "$path" ]] && cp -L "$path" "$stage/lib/$dlopened" && echo "make_bundle: bundling $dlopened (dlopen)"
done
for compat in libstdc++.so.6 libgcc_s.so.1; do
  path=$(ldconfig -p | awk -v n="$compat" '$1 == n && /x86-64/ {if (!found) print $NF; found = 1}')
  [[ -n "$path" ]] && cp -L "$path" "$stage/lib/compat/"
done
cp tools/gpu_run.sh tools/gpu_bench_all.sh tools/gpu_bundle.sh tools/gpu_bench_summary.py "$stage/"
git rev-parse HEAD >"$stage/COMMIT" 2>/dev/null || echo unknown >"$stage/COMMIT"

tarball=$out/ufjit-bundle.tar.xz
XZ_OPT="${UFJIT_BUNDLE_XZ:--9 -T1}" tar -C "$out/stage" -cJf "$tarball" ufjit
size=$(stat -c %s "$tarball")
echo "make_bundle: $tarball $((size / 1024 / 1024)) MiB ($size bytes)"
if (( size >= 64 * 1024 * 1024 )); then
  echo "make_bundle: the bundle is over 64 MiB" >&2
  exit 1
fi
rm -rf "$out/stage"
