#!/usr/bin/env bash
# Builds the documentation site into build/docs/html: the Markdown pages of
# docs/ through Sphinx and MyST, and the C++ API reference from the public
# headers' comments through Doxygen (XML) and Breathe. Warnings are errors in
# both (Doxygen's WARN_AS_ERROR, sphinx-build -W). Writes only under
# build/docs (UFJIT_DOCS_DIR changes that). Debian 12 packages: doxygen,
# python3-sphinx, python3-breathe, python3-myst-parser (tools/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${UFJIT_DOCS_DIR:-$root/build/docs}
mkdir -p "$out/doxygen"
export PYTHONDONTWRITEBYTECODE=1

echo "docs.sh: doxygen (include/ufjit -> $out/doxygen/xml)"
UFJIT_SOURCE_DIR="$root" UFJIT_DOXYGEN_OUT="$out/doxygen" doxygen docs/Doxyfile

echo "docs.sh: sphinx-build (docs -> $out/html)"
UFJIT_DOXYGEN_XML="$out/doxygen/xml" \
  sphinx-build -W --keep-going -q -b html -d "$out/doctrees" docs "$out/html"
echo "docs.sh: $out/html/index.html"
