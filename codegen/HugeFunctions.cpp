#include "codegen/HugeFunctions.h"

#include <map>
#include <vector>

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>

namespace ufjit::codegen {

void skip_quadratic_passes_on_huge_functions(llvm::PassInstrumentationCallbacks &callbacks) {
  callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass, llvm::Any ir) {
    // InstCombine and ADCE revisit an elif chain's phi of n entries for
    // each of its n blocks (40,000 branches: 2.2 s and 1.0 s of 5.5 s).
    if (pass != "SimplifyCFGPass" && pass != "GVNPass" && pass != "InstCombinePass" && pass != "ADCEPass") {
      return true;
    }
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

namespace {

/// Splits `block` before every `every`-th instruction, cutting from the end
/// (each split moves only its own piece); returns the new blocks, last first.
std::vector<llvm::BasicBlock *> cut_block(llvm::BasicBlock *block, std::size_t every) {
  std::vector<llvm::Instruction *> cuts;
  std::size_t count = 0;
  for (llvm::Instruction &inst : llvm::make_range(block->getFirstNonPHIIt(), block->end())) {
    if (++count % every == 0 && !inst.isTerminator()) cuts.push_back(&inst);
  }
  std::vector<llvm::BasicBlock *> pieces;
  for (auto cut = cuts.rbegin(); cut != cuts.rend(); ++cut) {
    pieces.push_back(block->splitBasicBlock(*cut));
  }
  return pieces;
}

/// Gives `piece` a copy (a freeze, the identity on any defined value) of each
/// value from outside it that many instructions use, such as a parameter
/// every statement reads: CodeExtractor walks all uses of each input of a
/// region, which over a function of n pieces that all read it is n^2.
void localize_shared_inputs(llvm::BasicBlock *piece) {
  constexpr unsigned kManyUses = 16;
  std::map<llvm::Value *, llvm::Value *> local;
  llvm::IRBuilder<> b(&*piece->getFirstInsertionPt());
  for (llvm::Instruction &inst : *piece) {
    if (llvm::isa<llvm::FreezeInst>(inst) && local.count(inst.getOperand(0)) != 0) continue;
    for (llvm::Use &use : inst.operands()) {
      llvm::Value *v = use.get();
      auto *defined = llvm::dyn_cast<llvm::Instruction>(v);
      const bool outside = llvm::isa<llvm::Argument>(v) || (defined != nullptr && defined->getParent() != piece);
      if (!outside || !v->hasNUsesOrMore(kManyUses)) continue;
      auto [it, fresh] = local.try_emplace(v, nullptr);
      if (fresh) it->second = b.CreateFreeze(v, v->getName() + ".local");
      use.set(it->second);
    }
  }
}

}  // namespace

void outline_huge_blocks(llvm::Module &module) {
  std::vector<llvm::Function *> functions;
  for (llvm::Function &f : module) {
    if (!f.isDeclaration()) functions.push_back(&f);
  }
  for (llvm::Function *f : functions) {
    std::vector<llvm::BasicBlock *> huge;
    for (llvm::BasicBlock &block : *f) {
      if (block.size() > kHugeBlockInstructions) huge.push_back(&block);
    }
    if (huge.empty()) continue;
    {
      // Values instead of stack slots: what crosses a cut is then a few SSA
      // values, not variables behind pointers the optimizer cannot promote.
      llvm::DominatorTree dt(*f);
      std::vector<llvm::AllocaInst *> allocas;
      for (llvm::Instruction &inst : f->getEntryBlock()) {
        auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
        if (alloca != nullptr && llvm::isAllocaPromotable(alloca)) allocas.push_back(alloca);
      }
      if (!allocas.empty()) llvm::PromoteMemToReg(allocas, dt);
    }
    std::vector<llvm::BasicBlock *> pieces;
    for (llvm::BasicBlock *block : huge) {
      std::vector<llvm::BasicBlock *> cut = cut_block(block, kOutlineInstructions);
      // The last piece keeps the block's own terminator (a return, a branch
      // of the function's control flow): it stays.
      pieces.insert(pieces.end(), cut.begin() + (cut.empty() ? 0 : 1), cut.end());
    }
    // Every piece its local copies first: a value's uses shrink to one per
    // piece before any extraction walks them.
    std::erase_if(pieces, [&](llvm::BasicBlock *piece) {
      auto *branch = llvm::dyn_cast<llvm::BranchInst>(piece->getTerminator());
      return branch == nullptr || branch->isConditional() || piece == &f->getEntryBlock();
    });
    for (llvm::BasicBlock *piece : pieces) {
      localize_shared_inputs(piece);
    }
    llvm::DominatorTree dt(*f);
    llvm::CodeExtractorAnalysisCache cache(*f);
    for (llvm::BasicBlock *piece : pieces) {
      llvm::CodeExtractor extractor({piece}, &dt, false, nullptr, nullptr, nullptr, false, false, nullptr,
                                    f->getName().str() + ".piece");
      if (!extractor.isEligible()) continue;
      if (llvm::Function *outlined = extractor.extractCodeRegion(cache)) {
        outlined->addFnAttr(llvm::Attribute::NoInline);
      }
    }
  }
}

void demote_huge_phis(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.size() <= kHugeFunctionBlocks) continue;
    std::vector<llvm::PHINode *> huge;
    for (llvm::BasicBlock &block : f) {
      for (llvm::PHINode &phi : block.phis()) {
        if (phi.getNumIncomingValues() > kHugePhiEntries) huge.push_back(&phi);
      }
    }
    for (llvm::PHINode *phi : huge) llvm::DemotePHIToStack(phi);
  }
}

void fold_empty_blocks_of_huge_functions(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (f.size() <= kHugeFunctionBlocks) continue;
    // Blocks holding only `br dest`, with one predecessor that is a branch.
    llvm::DenseMap<llvm::BasicBlock *, llvm::BasicBlock *> pred_of;
    for (llvm::BasicBlock &block : llvm::drop_begin(f)) {
      auto *branch = llvm::dyn_cast<llvm::BranchInst>(block.getTerminator());
      if (branch == nullptr || branch->isConditional() || &block.front() != branch) continue;
      llvm::BasicBlock *pred = block.getSinglePredecessor();
      llvm::BasicBlock *dest = branch->getSuccessor(0);
      if (pred == nullptr || pred == &block || dest == &block || !llvm::isa<llvm::BranchInst>(pred->getTerminator())) {
        continue;
      }
      pred_of[&block] = pred;
    }
    // Keep a fold only where the predecessor reaches the destination by no
    // other edge (a phi takes one value per predecessor) and neither end is
    // folded itself.
    llvm::DenseMap<std::pair<llvm::BasicBlock *, llvm::BasicBlock *>, int> edges;
    for (auto &[block, pred] : pred_of) ++edges[{pred, block->getSingleSuccessor()}];
    std::vector<llvm::BasicBlock *> folds;
    for (auto &[block, pred] : pred_of) {
      llvm::BasicBlock *dest = block->getSingleSuccessor();
      if (edges[{pred, dest}] != 1 || pred_of.count(pred) != 0 || pred_of.count(dest) != 0 ||
          llvm::is_contained(llvm::successors(pred), dest)) {
        continue;
      }
      folds.push_back(block);
    }
    if (folds.empty()) continue;
    llvm::DenseMap<llvm::BasicBlock *, llvm::BasicBlock *> folded;
    llvm::SmallPtrSet<llvm::BasicBlock *, 16> dests;
    for (llvm::BasicBlock *block : folds) {
      llvm::BasicBlock *dest = block->getSingleSuccessor();
      pred_of[block]->getTerminator()->replaceSuccessorWith(block, dest);
      folded[block] = pred_of[block];
      dests.insert(dest);
    }
    // Each phi once over its entries: linear, where CodeGenPrepare folding
    // the blocks one at a time scans the phi for each (n^2 for an elif chain
    // of n assignments merging in one phi).
    for (llvm::BasicBlock *dest : dests) {
      for (llvm::PHINode &phi : dest->phis()) {
        for (unsigned i = 0; i < phi.getNumIncomingValues(); ++i) {
          auto it = folded.find(phi.getIncomingBlock(i));
          if (it != folded.end()) phi.setIncomingBlock(i, it->second);
        }
      }
    }
    for (llvm::BasicBlock *block : folds) {
      block->eraseFromParent();
    }
  }
}

}  // namespace ufjit::codegen
