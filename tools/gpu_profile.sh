#!/usr/bin/env bash
# Where a cold GPU call's time goes, ON a GPU host from the bundle: each seed
# kernel's first call in a fresh process with UFJIT_DEBUG=1 (stage times),
# then ptxas at several optimisation levels over the same PTX. Output: $OUT/profile.log.
set -uo pipefail
OUT=${OUT:-/tmp/ufjit-gpu-out}
mkdir -p "$OUT"
dest=/tmp/ufjit-bundle
[[ -x $dest/ufjit/bin/ufjit ]] || { rm -rf "$dest"; mkdir -p "$dest"; tar -C "$dest" -xJf .bundle/ufjit-bundle.tar.xz; }
B=$dest/ufjit
export LD_LIBRARY_PATH=$B/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
ptxas=$(command -v ptxas || echo /usr/local/cuda/bin/ptxas)
{
  for k in add_i64 sincos_f32 gauss_f32 polar_f32 gauss_f64; do
    dir=$(mktemp -d)
    echo "== $k cold"; UFJIT_DEBUG=1 UFJIT_CACHE_DIR=$dir "$B/bench/bench_gpu" --cold $k
    echo "== $k disk-warm"; UFJIT_DEBUG=1 UFJIT_CACHE_DIR=$dir "$B/bench/bench_gpu" --cold $k
  done
  for f in add_ufunc sincos gaussian_pdf polar_distance; do
    src=$B/examples/src/$f.ufn
    s=$(date +%s%N); "$B/bin/ufjit" compile "$src" --emit ptx -o /tmp/$f.ptx; e=$(date +%s%N)
    echo "== $f: ufjit compile --emit ptx (3 variants per signature) $(( (e - s) / 1000000 )) ms, $(wc -c </tmp/$f.ptx) bytes"
    for o in 3 2 1 0; do
      s=$(date +%s%N); "$ptxas" -arch=sm_90 -O$o /tmp/$f.ptx -o /tmp/$f.O$o.cubin; e=$(date +%s%N)
      echo "   ptxas -O$o: $(( (e - s) / 1000000 )) ms, $(wc -c </tmp/$f.O$o.cubin) bytes"
    done
  done
} 2>&1 | tee "$OUT/profile.log"
