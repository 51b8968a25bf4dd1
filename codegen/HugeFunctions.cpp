#include "codegen/HugeFunctions.h"

#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
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

bool has_huge_block(const llvm::Module &module) {
  for (const llvm::Function &f : module) {
    for (const llvm::BasicBlock &block : f) {
      if (block.size() > kHugeBlockInstructions) return true;
    }
  }
  return false;
}

void split_huge_blocks(llvm::Module &module) {
  for (llvm::Function &f : module) {
    std::vector<llvm::BasicBlock *> huge;
    for (llvm::BasicBlock &block : f) {
      if (block.size() > kHugeBlockInstructions) huge.push_back(&block);
    }
    for (llvm::BasicBlock *block : huge) {
      // Cut from the end: each split moves only the piece after its cut
      // (splitting from the front would move the whole rest each time).
      std::vector<llvm::Instruction *> cuts;
      std::size_t count = 0;
      for (llvm::Instruction &inst : llvm::make_range(block->getFirstNonPHIIt(), block->end())) {
        if (++count % kSplitBlockInstructions == 0 && !inst.isTerminator()) cuts.push_back(&inst);
      }
      for (auto cut = cuts.rbegin(); cut != cuts.rend(); ++cut) {
        block->splitBasicBlock(*cut);
      }
    }
  }
}

}  // namespace ufjit::codegen
