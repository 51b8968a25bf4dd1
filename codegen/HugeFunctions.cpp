#include "codegen/HugeFunctions.h"

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>

namespace ufjit::codegen {

void skip_quadratic_passes_on_huge_functions(llvm::PassInstrumentationCallbacks &callbacks) {
  callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass, llvm::Any ir) {
    if (pass != "SimplifyCFGPass" && pass != "GVNPass") return true;
    const llvm::Function *const *f = llvm::any_cast<const llvm::Function *>(&ir);
    return f == nullptr || (*f)->size() <= kHugeFunctionBlocks;
  });
}

bool has_huge_function(const llvm::Module &module) {
  for (const llvm::Function &f : module) {
    if (f.size() > kHugeFunctionBlocks) return true;
  }
  return false;
}

}  // namespace ufjit::codegen
