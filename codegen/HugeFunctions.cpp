#include "codegen/HugeFunctions.h"

#include <llvm/ADT/DenseMap.h>
#include <llvm/ADT/DenseSet.h>
#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/CFG.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Dominators.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassInstrumentation.h>
#include <llvm/Transforms/Utils/CodeExtractor.h>
#include <llvm/Transforms/Utils/Local.h>
#include <llvm/Transforms/Utils/PromoteMemToReg.h>

#include <algorithm>
#include <vector>

namespace ufjit::codegen {

void skip_passes_that_scale_badly(llvm::PassInstrumentationCallbacks &callbacks) {
  callbacks.registerShouldRunOptionalPassCallback([](llvm::StringRef pass, llvm::Any ir) {
    // ufjit emits no indirect calls, which are all CalledValuePropagation
    // annotates; it still solves a lattice over every instruction of the
    // module (0.4 s of a 100,000-branch elif chain's 3.3 s optimization).
    if (pass == "CalledValuePropagationPass") return false;
    // IPSCCP solves constants over the whole module at once, every part of
    // a huge function together (1.0 s of those 3.3 s); each function's own
    // SCCP still runs after the inliner. GlobalOpt walks every function for
    // the few globals a kernel has (0.45 s). Both grew 14-15x from 10,000
    // to 100,000 branches where the passes that work a part at a time grew
    // 11-12x.
    if (pass == "IPSCCPPass" || pass == "GlobalOptPass") {
      const llvm::Module *const *m = llvm::any_cast<const llvm::Module *>(&ir);
      return m == nullptr || !has_huge_function(**m);
    }
    // InstCombine and ADCE revisit an elif chain's phi of n entries for
    // each of its n blocks (40,000 branches: 2.2 s and 1.0 s of 5.5 s);
    // JumpThreading folds the chain's empty blocks into that phi one at a
    // time (10,000 returns merged in one block: 10 s).
    // Float2Int walks every float computation of the function for the rare
    // one it can do in integers (0.2 s of those 3.3 s, 18x per 10x).
    if (pass != "SimplifyCFGPass" && pass != "GVNPass" && pass != "InstCombinePass" && pass != "ADCEPass" &&
        pass != "JumpThreadingPass" && pass != "Float2IntPass") {
      return true;
    }
    const llvm::Function *const *f = llvm::any_cast<const llvm::Function *>(&ir);
    return f == nullptr || !is_huge_function(**f);
  });
}

bool is_huge_function(const llvm::Function &f) {
  return f.size() > kHugeFunctionBlocks || f.hasFnAttribute(kHugeAttribute);
}

bool has_huge_function(const llvm::Module &module) {
  for (const llvm::Function &f : module) {
    if (is_huge_function(f)) return true;
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

/// Blocks times promoted variables that promote_variables may spend.
constexpr std::size_t kPromotionBudget = std::size_t{8} << 20;

/// Promotes `f`'s promotable stack slots (its variables) to SSA values;
/// `dt` is `f`'s dominator tree (kept: promotion leaves the CFG as it is).
void promote_variables(llvm::Function &f, llvm::DominatorTree &dt) {
  std::vector<llvm::AllocaInst *> allocas;
  for (llvm::Instruction &inst : f.getEntryBlock()) {
    auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
    if (alloca != nullptr && llvm::isAllocaPromotable(alloca)) allocas.push_back(alloca);
  }
  // Placing a variable's phis walks the blocks where it is live: for a loop
  // carrying thousands of locals, that is nearly every block, per local
  // (4,000 locals over 12,000 blocks: most of a 16 s compile, 7 s with the
  // budget, on a loaded machine). Past the budget the remaining variables
  // stay in their stack slots, which the parts then take by address.
  const std::size_t most = std::max<std::size_t>(1, kPromotionBudget / std::max<std::size_t>(1, f.size()));
  if (allocas.size() > most) allocas.resize(most);
  if (!allocas.empty()) llvm::PromoteMemToReg(allocas, dt);
}

/// Values from outside a region that at least this many instructions use
/// get a copy of the region's own (localize_inputs).
constexpr unsigned kManyUses = 16;

/// A region's own copy of `v`, made before `at`: a pointer offset by zero
/// for a pointer, else a freeze (the identity on any defined value). Not a
/// freeze of a pointer: alignment inference asks, for each load and store
/// through one, whether the pointer can be poison, which walks the dominator
/// tree up from the access (for an elif chain, the depth of the chain): a
/// 10,000-branch chain's stores through frozen slots took 120 ms of a
/// 280 ms optimization.
llvm::Instruction *local_copy(llvm::Value *v, llvm::BasicBlock::iterator at) {
  if (v->getType()->isPointerTy()) {
    llvm::Type *byte = llvm::Type::getInt8Ty(v->getContext());
    llvm::Value *zero = llvm::ConstantInt::get(llvm::Type::getInt64Ty(v->getContext()), 0);
    return llvm::GetElementPtrInst::Create(byte, v, {zero}, v->getName() + ".local", at);
  }
  return new llvm::FreezeInst(v, v->getName() + ".local", at);
}

/// Gives each region one copy (local_copy) of every value from outside it
/// that kManyUses or more instructions use, such as a parameter that every
/// statement or every test of an elif chain reads, made at the region's
/// first block: CodeExtractor walks all uses of each input of what it cuts,
/// which over a function cut into n regions that all read the value is n^2.
/// `region_of(block)` is the first block of the region holding `block`, null
/// for none; `blocks` lists the regions' blocks. Phis keep their values.
template <typename RegionOf>
void localize_inputs(const std::vector<llvm::BasicBlock *> &blocks, RegionOf region_of) {
  llvm::DenseMap<std::pair<llvm::BasicBlock *, llvm::Value *>, llvm::Value *> copy_of;
  llvm::DenseMap<llvm::BasicBlock *, llvm::Instruction *> insert_at;  // the copies in the order made
  llvm::DenseSet<llvm::Value *> copies;
  for (llvm::BasicBlock *block : blocks) {
    llvm::BasicBlock *region = region_of(block);
    if (region == nullptr) continue;
    for (llvm::Instruction &inst : *block) {
      if (llvm::isa<llvm::PHINode>(inst) || copies.count(&inst) != 0) continue;
      for (llvm::Use &use : inst.operands()) {
        llvm::Value *v = use.get();
        auto *defined = llvm::dyn_cast<llvm::Instruction>(v);
        const bool outside =
            llvm::isa<llvm::Argument>(v) || (defined != nullptr && region_of(defined->getParent()) != region);
        if (!outside || !v->hasNUsesOrMore(kManyUses)) continue;
        auto [it, fresh] = copy_of.try_emplace({region, v}, nullptr);
        if (fresh) {
          // The value dominates the region's first block: it dominates a
          // use that block dominates, from outside the region.
          llvm::Instruction *at = insert_at.try_emplace(region, &*region->getFirstInsertionPt()).first->second;
          it->second = local_copy(v, at->getIterator());
          copies.insert(it->second);
        }
        use.set(it->second);
      }
    }
  }
}

/// Gives each region that uses `slot`, but for `home`'s own, one copy of it
/// (local_copy) that its uses then take. DemotePHIToStack stores to a phi's
/// slot in every block that reached the phi, and that is every region of an
/// elif chain; cutting each region walked every remaining store (50,000
/// branches: 40 parts, a third of the extraction's instructions). The users
/// are all below `home` (the phi's block, which `home` dominates, is no
/// part's head), so the slot dominates each copy. `region_of` as for
/// localize_inputs.
template <typename RegionOf>
void localize_slot(llvm::AllocaInst *slot, llvm::BasicBlock *home, RegionOf region_of) {
  llvm::DenseMap<llvm::BasicBlock *, llvm::Value *> copy_in;
  for (llvm::Use &use : llvm::make_early_inc_range(slot->uses())) {
    auto *user = llvm::dyn_cast<llvm::Instruction>(use.getUser());
    llvm::BasicBlock *region = user != nullptr ? region_of(user->getParent()) : nullptr;
    if (region == nullptr || region == home) continue;
    llvm::Value *&copy = copy_in[region];
    if (copy == nullptr) copy = local_copy(slot, region->getFirstInsertionPt());
    use.set(copy);
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
    // Values instead of stack slots: what crosses a cut is then a few SSA
    // values, not variables behind pointers the optimizer cannot promote.
    {
      llvm::DominatorTree before_cuts(*f);
      promote_variables(*f, before_cuts);
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
    const llvm::DenseSet<llvm::BasicBlock *> is_piece(pieces.begin(), pieces.end());
    localize_inputs(pieces, [&](llvm::BasicBlock *block) { return is_piece.count(block) != 0 ? block : nullptr; });
    llvm::DominatorTree dt(*f);
    llvm::CodeExtractorAnalysisCache cache(*f);
    for (llvm::BasicBlock *piece : pieces) {
      llvm::CodeExtractor extractor({piece}, &dt, false, nullptr, nullptr, nullptr, false, false, nullptr,
                                    f->getName().str() + ".piece");
      if (!extractor.isEligible()) continue;
      if (llvm::Function *outlined = extractor.extractCodeRegion(cache)) {
        outlined->addFnAttr(llvm::Attribute::NoInline);
        outlined->addFnAttr(kPartAttribute);
      }
    }
  }
}

void demote_huge_phis(llvm::Module &module) {
  for (llvm::Function &f : module) {
    if (!is_huge_function(f)) continue;
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
    if (!is_huge_function(f)) continue;
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

namespace {

/// Gives `f` one return block: each `ret v` becomes a branch to a block that
/// returns the phi of the values. No part cut from `f` then returns (a
/// return moved into a part would leave the part, not `f`).
void unify_returns(llvm::Function &f) {
  std::vector<llvm::ReturnInst *> returns;
  for (llvm::BasicBlock &block : f) {
    if (auto *ret = llvm::dyn_cast<llvm::ReturnInst>(block.getTerminator())) returns.push_back(ret);
  }
  if (returns.size() < 2) return;
  llvm::LLVMContext &context = f.getContext();
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(context, "unified.return", &f);
  llvm::PHINode *value = nullptr;
  if (!f.getReturnType()->isVoidTy()) {
    value = llvm::PHINode::Create(f.getReturnType(), static_cast<unsigned>(returns.size()), "return.value", exit);
  }
  llvm::ReturnInst::Create(context, value, exit);
  for (llvm::ReturnInst *ret : returns) {
    if (value != nullptr) value->addIncoming(ret->getReturnValue(), ret->getParent());
    llvm::BranchInst::Create(exit, ret->getParent());
    ret->eraseFromParent();
  }
}

/// The dominator tree's nodes, children before parents (iteratively: the
/// tree of an elif chain is as deep as the chain).
std::vector<llvm::DomTreeNode *> dominator_post_order(llvm::DominatorTree &dt) {
  std::vector<llvm::DomTreeNode *> order;
  std::vector<std::pair<llvm::DomTreeNode *, std::size_t>> stack{{dt.getRootNode(), 0}};
  while (!stack.empty()) {
    llvm::DomTreeNode *node = stack.back().first;
    const std::size_t next = stack.back().second++;
    if (next < node->getNumChildren()) {
      stack.push_back({*(node->begin() + static_cast<std::ptrdiff_t>(next)), 0});
    } else {
      order.push_back(node);
      stack.pop_back();
    }
  }
  return order;
}

/// Whether a part may begin at `block`: reached by one branch, with no phi
/// (the part's entry is then `block` itself, not a block split off it).
bool can_begin_part(const llvm::BasicBlock &block) {
  const llvm::BasicBlock *pred = block.getSinglePredecessor();
  return pred != nullptr && pred != &block && llvm::isa<llvm::BranchInst>(pred->getTerminator()) &&
         block.phis().empty() && !block.isEHPad();
}

/// Every block dominated by `head`, but for the parts already cut below it,
/// whose calls stand in for them (`cut`: a part's first block -> the block
/// of its call). `head` first: the part's entry.
std::vector<llvm::BasicBlock *> part_blocks(llvm::DomTreeNode *head,
                                            const llvm::DenseMap<llvm::BasicBlock *, llvm::BasicBlock *> &cut) {
  std::vector<llvm::BasicBlock *> blocks;
  std::vector<llvm::DomTreeNode *> stack{head};
  while (!stack.empty()) {
    llvm::DomTreeNode *node = stack.back();
    stack.pop_back();
    auto it = node == head ? cut.end() : cut.find(node->getBlock());
    if (it != cut.end()) {
      blocks.push_back(it->second);
      continue;
    }
    blocks.push_back(node->getBlock());
    for (llvm::DomTreeNode *child : node->children()) stack.push_back(child);
  }
  return blocks;
}

/// The phis of the blocks that `blocks` branch out to: a part's only values
/// used after it are such phis' entries (a value defined in a dominator
/// subtree is used outside it by phis only).
std::vector<llvm::PHINode *> exit_phis(const std::vector<llvm::BasicBlock *> &blocks) {
  llvm::DenseSet<llvm::BasicBlock *> inside(blocks.begin(), blocks.end());
  llvm::SmallPtrSet<llvm::PHINode *, 16> seen;
  std::vector<llvm::PHINode *> phis;
  for (llvm::BasicBlock *block : blocks) {
    for (llvm::BasicBlock *succ : llvm::successors(block)) {
      if (inside.count(succ) != 0) continue;
      for (llvm::PHINode &phi : succ->phis()) {
        if (seen.insert(&phi).second) phis.push_back(&phi);
      }
    }
  }
  return phis;
}

/// Whether the part made of `blocks` would take more than kMaxPartParameters
/// values and slots: then it takes them in one struct. A loop carrying 4,000
/// locals, each updated under an `if`, made a part of 8,000 parameters, and
/// NVPTX's instruction selection of its call dominated a 57 s compile (16 s
/// once they are packed, on a loaded machine).
bool passes_many_values(const std::vector<llvm::BasicBlock *> &blocks,
                        const llvm::CodeExtractorAnalysisCache &cache) {
  llvm::CodeExtractor probe(blocks, nullptr, false, nullptr, nullptr, nullptr, false, true, nullptr, "part");
  if (!probe.isEligible()) return false;
  llvm::SetVector<llvm::Value *> sinks, hoists, inputs, outputs;
  llvm::BasicBlock *exit = nullptr;
  probe.findAllocas(cache, sinks, hoists, exit);
  probe.findInputsOutputs(inputs, outputs, sinks);
  return inputs.size() + outputs.size() > kMaxPartParameters;
}

/// The parts' first blocks, chosen from the leaves up (`order`, the
/// dominator tree's post-order): a node heads a part once the blocks it
/// dominates, less the parts cut below it, reach kOutlineBlocks; the part
/// then counts as one block (its call) above.
std::vector<llvm::DomTreeNode *> choose_part_heads(const std::vector<llvm::DomTreeNode *> &order,
                                                   llvm::DominatorTree &dt) {
  llvm::DenseMap<llvm::DomTreeNode *, std::size_t> weight;
  llvm::DenseMap<llvm::DomTreeNode *, bool> returns;
  std::vector<llvm::DomTreeNode *> heads;
  for (llvm::DomTreeNode *node : order) {
    std::size_t w = 1;
    bool has_return = llvm::isa<llvm::ReturnInst>(node->getBlock()->getTerminator());
    for (llvm::DomTreeNode *child : node->children()) {
      w += weight[child];
      has_return = has_return || returns[child];
    }
    returns[node] = has_return;
    if (w >= kOutlineBlocks && !has_return && node != dt.getRootNode() && can_begin_part(*node->getBlock())) {
      heads.push_back(node);
      w = 1;
    }
    weight[node] = w;
  }
  return heads;
}

/// outline_huge_regions for one function.
void outline_regions_of(llvm::Function &f) {
  // Unreachable blocks (the lowering's dead ends after a return) would be
  // predecessors of a part from outside it.
  llvm::removeUnreachableBlocks(f);
  unify_returns(f);
  // One dominator tree (of 200,000 blocks for a 100,000-branch chain) for
  // the promotion and the cut.
  llvm::DominatorTree dt(f);
  promote_variables(f, dt);
  const std::vector<llvm::DomTreeNode *> order = dominator_post_order(dt);
  const std::vector<llvm::DomTreeNode *> heads = choose_part_heads(order, dt);
  llvm::DenseSet<llvm::DomTreeNode *> is_head(heads.begin(), heads.end());
  if (heads.empty()) return;
  // The part each block will be in: its nearest head (null: `f` itself).
  llvm::DenseMap<llvm::DomTreeNode *, llvm::DomTreeNode *> owner;
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    llvm::DomTreeNode *node = *it;
    owner[node] = is_head.count(node) != 0 ? node : node->getIDom() != nullptr ? owner[node->getIDom()] : nullptr;
  }
  std::vector<llvm::BasicBlock *> dominated_blocks;
  for (llvm::DomTreeNode *node : order) dominated_blocks.push_back(node->getBlock());
  auto region_of = [&](llvm::BasicBlock *block) -> llvm::BasicBlock * {
    llvm::DomTreeNode *head = owner.lookup(dt.getNode(block));
    return head != nullptr ? head->getBlock() : nullptr;
  };
  localize_inputs(dominated_blocks, region_of);
  // Cut from the leaves up, each part holding the calls of the parts below.
  // A phi after a part goes through a stack slot of the part (or `f`) that
  // holds the phi, which the parts below get as a pointer; a slot of the
  // part's own would be one more output pointer at each level of nesting.
  llvm::CodeExtractorAnalysisCache cache(f);
  llvm::DenseMap<llvm::BasicBlock *, llvm::BasicBlock *> cut;
  llvm::DenseMap<llvm::DomTreeNode *, std::vector<llvm::AllocaInst *>> slots;
  llvm::DenseSet<llvm::DomTreeNode *> failed;
  for (llvm::DomTreeNode *head : heads) {
    std::vector<llvm::BasicBlock *> blocks = part_blocks(head, cut);
    for (llvm::PHINode *phi : exit_phis(blocks)) {
      llvm::DomTreeNode *home = owner[dt.getNode(phi->getParent())];
      while (home != nullptr && failed.count(home) != 0) {
        home = home->getIDom() != nullptr ? owner[home->getIDom()] : nullptr;
      }
      llvm::BasicBlock *at = home != nullptr ? home->getBlock() : &f.getEntryBlock();
      llvm::AllocaInst *slot = llvm::DemotePHIToStack(phi, at->getFirstInsertionPt());
      if (home != nullptr) slots[home].push_back(slot);
      localize_slot(slot, home != nullptr ? home->getBlock() : nullptr, region_of);
    }
    llvm::CodeExtractor extractor(blocks, nullptr, passes_many_values(blocks, cache), nullptr, nullptr,
                                  nullptr, false, true, nullptr, "part");
    llvm::Function *part = extractor.isEligible() ? extractor.extractCodeRegion(cache) : nullptr;
    // Slots belong in a function's entry block: a slot elsewhere is
    // allocated each time its block runs.
    llvm::Instruction *slot_point =
        part != nullptr ? part->getEntryBlock().getTerminator() : &*f.getEntryBlock().getFirstInsertionPt();
    for (llvm::AllocaInst *slot : slots[head]) slot->moveBefore(slot_point);
    if (part == nullptr) {
      failed.insert(head);
      continue;
    }
    part->addFnAttr(llvm::Attribute::NoInline);
    part->addFnAttr(kHugeAttribute);
    part->addFnAttr(kPartAttribute);
    cut[head->getBlock()] = llvm::cast<llvm::Instruction>(part->user_back())->getParent();
  }
}

}  // namespace

void outline_huge_regions(llvm::Module &module) {
  std::vector<llvm::Function *> huge;
  for (llvm::Function &f : module) {
    if (!f.isDeclaration() && is_huge_function(f)) huge.push_back(&f);
  }
  for (llvm::Function *f : huge) {
    f->addFnAttr(kHugeAttribute);
    if (f->size() > kOutlineBlocks) {
      outline_regions_of(*f);
      continue;
    }
    // Smaller than a part (such as a part cut while lowering): nothing to
    // cut, but its variables are promoted all the same, as a cut function's
    // are. The quick tier runs no mem2reg, and ptxas took 2.5x as long on a
    // 3,000-branch chain whose parts kept their variables in local memory.
    llvm::DominatorTree dt(*f);
    promote_variables(*f, dt);
  }
}

}  // namespace ufjit::codegen
