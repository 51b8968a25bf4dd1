#!/usr/bin/env bash
# embed_pkgconfig.sh PKG_CONFIG_DIR MAIN_CPP WORKDIR CXX
# Builds examples/embed/main.cpp with only `pkg-config --cflags --libs ufjit`
# (and -std=c++20, which pkg-config users pass themselves), then runs it.
set -euo pipefail
pcdir=$1 main=$2 work=$3 cxx=$4
mkdir -p "$work"
flags=$(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs ufjit)
echo "pkg-config --cflags --libs ufjit: $flags"
libdir=$(PKG_CONFIG_PATH="$pcdir" pkg-config --variable=libdir ufjit)
# shellcheck disable=SC2086  # $flags is a list of words
"$cxx" -std=c++20 "$main" $flags -Wl,-rpath,"$libdir" -o "$work/embed"
"$work/embed"
