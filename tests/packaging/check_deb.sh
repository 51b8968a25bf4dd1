#!/usr/bin/env bash
# check_deb.sh BUILD_DIR WORK_DIR EMBED_SRC GENERATOR CXX
# Makes the Debian package with CPack (output under WORK_DIR only), checks its
# declared dependencies and contents, unpacks it with dpkg-deb -x (no dpkg -i:
# the machine is left alone), runs the unpacked tool, checks no file names the
# build directory, and builds examples/embed against the unpacked /usr.
set -euo pipefail
build=$1 work=$2 embed=$3 generator=$4 cxx=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
(cd "$build" && cpack -G DEB -B "$work/out" > "$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; exit 1; }
debs=("$work"/out/ufjit_*.deb)
deb=${debs[0]}
echo "package: $deb"

info=$(dpkg-deb -I "$deb")
echo "$info" | grep -E '^ (Package|Version|Architecture|Depends|Suggests):'
depends=$(echo "$info" | sed -n 's/^ Depends: //p')
for lib in libc6 libstdc++6 libgcc-s1; do
  if [[ ",$depends," != *"$lib"* ]]; then
    echo "FAIL: Depends ('$depends') lacks $lib" >&2
    exit 1
  fi
done
dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./postinst | grep -q ldconfig || { echo "FAIL: postinst runs no ldconfig" >&2; exit 1; }

contents=$(dpkg-deb -c "$deb" | awk '{print $6}')
for f in ./usr/bin/ufjit ./usr/include/ufjit/ufjit.h ./usr/include/ufjit/dlpack.h \
    ./usr/lib/pkgconfig/ufjit.pc ./usr/lib/cmake/ufjit/ufjitConfig.cmake; do
  grep -qx -- "$f" <<< "$contents" || { echo "FAIL: $f not in the package" >&2; exit 1; }
done
grep -q '^\./usr/lib/libufjit\.so\.0$' <<< "$contents" || { echo "FAIL: no libufjit.so.0 (SONAME link)" >&2; exit 1; }

root=$work/root
dpkg-deb -x "$deb" "$root"
"$root/usr/bin/ufjit" --version
"$root/usr/bin/ufjit" info
cmake -DTREE="$root" -DBUILD="$build" -P "$here/check_no_build_paths.cmake"
grep -qx 'prefix=/usr' "$root/usr/lib/pkgconfig/ufjit.pc" || { echo "FAIL: ufjit.pc's prefix is not /usr" >&2; exit 1; }
ctest --build-and-test "$embed" "$work/embed" --build-generator "$generator" \
  --build-options -DCMAKE_PREFIX_PATH="$root/usr" -DCMAKE_CXX_COMPILER="$cxx" \
  --test-command "$work/embed/embed"
