// The compilation driver: one flat, linear function per request that runs the
// stages in order (text -> tokens -> AST -> typed IR -> LLVM IR -> PTX ->
// cubin) and can stop and dump after any of them (STYLE.md item 7). The
// UFJIT_DEBUG environment variable (1..3) logs each step to stderr.
#pragma once

#include <string>
#include <vector>

#include "codegen/kernel/KernelABI.h"
#include "codegen/LaunchHint.h"
#include "ufjit/compiler.h"

namespace ufjit::driver {

/// The variants `ufjit compile` emits for each signature: contiguous with
/// 32- and 64-bit indexing, and strided, all operands arrays.
std::vector<codegen::KernelVariant> aot_variants();

/// The JSON description of one entry's parameters in launch order (KernelABI.h).
struct ManifestEntry {
  std::string entry;
  std::string function;
  std::string signature;
  codegen::KernelVariant variant;
  codegen::KernelSpec spec;  // the parameter table's input (KernelABI.h)
  std::string layout;        // gufuncs: "(n),(n)->()"
  codegen::LaunchHint launch;  // GPU: read back from the emitted PTX
};
std::string manifest_json(const std::vector<ManifestEntry> &entries, const CompileRequest &request);

}  // namespace ufjit::driver
