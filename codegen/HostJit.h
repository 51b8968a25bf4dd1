// Internal to codegen/: the host-side optimization that CpuCompiler applies,
// exposed so tests and diagnostics can read what the vectorizer made of an
// entry without running it.
#pragma once

#include <string>
#include <vector>

#include "codegen/Codegen.h"

namespace ufjit::codegen {

/// The LLVM IR of the CPU entries for `entries` after the same pipeline
/// CpuCompiler runs (host CPU and features, O3, loop and SLP vectorization).
std::string optimized_cpu_ir(const std::vector<EntryRequest> &entries);

}  // namespace ufjit::codegen
