// CPU kernels for the JIT engine: see CpuToolchain.h.
#include "runtime/CpuToolchain.h"

#include <memory>
#include <vector>

#include "support/InternalAssert.h"

namespace ufjit::runtime {

CpuToolchain::CpuToolchain() : target_key_("cpu-" + compiler_.host_description()) {}

BuiltKernel CpuToolchain::compile(const KernelRequest &request, codegen::PtxTier /*tier: host code has one*/) {
  std::vector<codegen::CpuEntry> entries = compiler_.compile({request.codegen_request()});
  internal_assert(entries.size() == 1 && entries[0] != nullptr) << "no CPU entry for " << request.entry_name();
  BuiltKernel built;
  built.kernel = std::make_shared<CpuKernel>(entries[0]);
  return built;
}

}  // namespace ufjit::runtime
