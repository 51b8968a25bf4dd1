#include "runtime/cuda/CompilerWarmUp.h"

#include <dlfcn.h>

#include <memory>

#include "codegen/Codegen.h"
#include "frontend/Diagnostics.h"
#include "ir/Frontend.h"

namespace ufjit::cuda {
namespace {

constexpr const char *kWarmUpSource =
    "import math\n"
    "def warm_up(x):\n"
    "    return math.sin(x) * 2.0 + 1.0\n";

void compile_warm_up_kernel() {
  DiagnosticEngine diags;
  auto file = std::make_shared<const SourceFile>("<warm-up>", kWarmUpSource);
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags, {"float32(float32)"});
  if (!program || program->ufuncs.empty() || program->ufuncs[0].modules.empty()) {
    return;
  }
  codegen::EntryRequest request;
  request.module = &program->ufuncs[0].modules[0];
  request.base_name = codegen::entry_base_name("warm_up", {"float32"});
  request.variants = {codegen::KernelVariant{codegen::Layout::Contiguous, true, 0}};
  (void)codegen::emit_ptx({request}, codegen::GpuOptions{});
}

}  // namespace

std::future<void> start_compiler_warm_up() {
  // Without the driver library there is no context to wait for, and no GPU
  // compile will follow: warming would only cost time.
  if (dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL) == nullptr) {
    return {};
  }
  try {
    return std::async(std::launch::async, [] {
      try {
        compile_warm_up_kernel();
      } catch (...) {
        // Best effort: the real compile reports any problem.
      }
    });
  } catch (...) {
    return {};  // no thread could be started
  }
}

}  // namespace ufjit::cuda
