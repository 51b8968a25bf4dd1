#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the
# main job: checks and compiles an example ufunc, then runs it on the GPU where
# there is one, else on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
tools/build.sh -DUFJIT_BUILD_TESTS=OFF
echo "== ufjit check examples/gaussian_pdf.ufn"
build/ufjit check examples/gaussian_pdf.ufn && echo "no errors"
echo "== ufjit compile examples/gaussian_pdf.ufn --emit ir"
build/ufjit compile examples/gaussian_pdf.ufn --emit ir
if [[ -x build/examples/example_main_job ]]; then
  echo "== main job: gaussian_pdf on 1M float32 elements"
  build/examples/example_main_job
fi
