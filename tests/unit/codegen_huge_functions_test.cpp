// Huge functions and blocks (codegen/HugeFunctions.h): split_huge_blocks cuts
// a huge block into bounded blocks of the same code, outline_huge_blocks moves
// it into bounded functions called in order, and the PTX of a kernel with a
// huge block is valid.
#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Verifier.h>

#include <map>
#include <string>

#include "codegen/Codegen.h"
#include "codegen/HugeFunctions.h"
#include "codegen/LLVMHeaders.h"
#include "codegen/lower/Lowering.h"
#include "support/Diagnostics.h"
#include "typer/Typer.h"
#include "tests/unit/generated_sources.h"

namespace ufjit::codegen {
namespace {

/// `double f(double)` in `module`, with an empty entry block.
llvm::Function *make_f64_function(llvm::Module &module) {
  llvm::Type *f64 = llvm::Type::getDoubleTy(module.getContext());
  auto *fn = llvm::Function::Create(llvm::FunctionType::get(f64, {f64}, false), llvm::GlobalValue::ExternalLinkage,
                                    "f", module);
  llvm::BasicBlock::Create(module.getContext(), "entry", fn);
  return fn;
}

TEST(HugeBlocks, SplitCutsAHugeBlockIntoBoundedBlocksInTheSameOrder) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::Function *fn = make_f64_function(module);
  llvm::IRBuilder<> b(&fn->getEntryBlock());
  llvm::Value *x = fn->getArg(0);
  llvm::Value *y = x;
  constexpr int kAdds = 50001;
  for (int i = 0; i < kAdds; ++i) y = b.CreateFAdd(y, x);
  b.CreateRet(y);
  ASSERT_TRUE(has_huge_block(module));

  split_huge_blocks(module);

  EXPECT_FALSE(has_huge_block(module));
  EXPECT_FALSE(llvm::verifyFunction(*fn, &llvm::errs()));
  std::size_t adds = 0;
  llvm::Value *previous = x;
  for (llvm::BasicBlock &block : *fn) {
    EXPECT_LE(block.size(), kSplitBlockInstructions + 1);  // + the branch
    for (llvm::Instruction &inst : block) {
      if (inst.getOpcode() != llvm::Instruction::FAdd) continue;
      ASSERT_EQ(inst.getOperand(0), previous) << "the chain was reordered at add " << adds;
      previous = &inst;
      ++adds;
    }
  }
  EXPECT_EQ(adds, static_cast<std::size_t>(kAdds));
  EXPECT_EQ(fn->size(), static_cast<std::size_t>(kAdds / kSplitBlockInstructions + 1));
}

TEST(HugeBlocks, OutlineMovesAHugeBlockIntoBoundedNoinlineFunctionsKeepingTheChain) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  llvm::Type *f64 = llvm::Type::getDoubleTy(context);
  llvm::Function *fn = make_f64_function(module);
  llvm::IRBuilder<> b(&fn->getEntryBlock());
  // As lowering emits a variable: a stack slot, loaded and stored per statement.
  llvm::Value *slot = b.CreateAlloca(f64, nullptr, "y");
  b.CreateStore(fn->getArg(0), slot);
  constexpr int kStatements = 20001;
  for (int i = 0; i < kStatements; ++i) {
    llvm::Value *y = b.CreateLoad(f64, slot);
    b.CreateStore(b.CreateFAdd(b.CreateFMul(y, fn->getArg(0)), llvm::ConstantFP::get(f64, i % 7 + 0.5)), slot);
  }
  b.CreateRet(b.CreateLoad(f64, slot));
  ASSERT_TRUE(has_huge_block(module));

  outline_huge_blocks(module);

  EXPECT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  EXPECT_FALSE(has_huge_block(module));
  std::size_t pieces = 0;
  std::size_t muls = 0;
  std::size_t adds = 0;
  for (llvm::Function &f : module) {
    if (f.isDeclaration()) continue;
    if (&f != fn) {
      ++pieces;
      EXPECT_TRUE(f.hasFnAttribute(llvm::Attribute::NoInline)) << f.getName().str();
      EXPECT_TRUE(f.hasInternalLinkage()) << f.getName().str();
    }
    for (llvm::BasicBlock &block : f) {
      EXPECT_LE(block.size(), kOutlineInstructions + 64) << f.getName().str();
      for (llvm::Instruction &inst : block) {
        muls += inst.getOpcode() == llvm::Instruction::FMul;
        adds += inst.getOpcode() == llvm::Instruction::FAdd;
        EXPECT_FALSE(llvm::isa<llvm::AllocaInst>(inst) && inst.getName() == "y") << "the variable was not promoted";
      }
    }
  }
  EXPECT_EQ(muls, static_cast<std::size_t>(kStatements));
  EXPECT_EQ(adds, static_cast<std::size_t>(kStatements));
  // 2 instructions a statement once promoted: 40,002 in pieces of 2,000, the first and last kept.
  EXPECT_GE(pieces, static_cast<std::size_t>(2 * kStatements / kOutlineInstructions - 2));
  // The pieces run in order: each call takes a value the previous call wrote
  // (CodeExtractor passes a piece's result out through a pointer).
  const llvm::CallInst *previous = nullptr;
  std::size_t calls = 0;
  for (llvm::Instruction &inst : llvm::instructions(*fn)) {
    auto *call = llvm::dyn_cast<llvm::CallInst>(&inst);
    if (call == nullptr || call->getCalledFunction()->isIntrinsic()) continue;  // lifetime markers
    if (previous != nullptr) {
      bool takes_previous = false;
      for (llvm::Value *arg : call->args()) {
        auto *load = llvm::dyn_cast<llvm::LoadInst>(arg);
        for (const llvm::Value *out : previous->args()) {
          takes_previous = takes_previous || (load != nullptr && load->getPointerOperand() == out);
        }
      }
      EXPECT_TRUE(takes_previous) << "piece call " << calls << " does not take the previous piece's result";
    }
    previous = call;
    ++calls;
  }
  EXPECT_EQ(calls, pieces);
}

/// `if x == 0: y = 1 / elif x == i: y = i + 1 / ... / else y = -1`, merged
/// in one phi: the IR of an elif chain of assignments before folding.
struct ElifChain {
  llvm::Function *fn = nullptr;
  llvm::BasicBlock *merge = nullptr;
  llvm::PHINode *y = nullptr;
  std::vector<llvm::BasicBlock *> tests;
};

ElifChain build_elif_chain(llvm::Module &module, int branches) {
  llvm::LLVMContext &context = module.getContext();
  llvm::Type *f64 = llvm::Type::getDoubleTy(context);
  ElifChain chain;
  chain.fn = make_f64_function(module);
  llvm::Function *fn = chain.fn;
  chain.merge = llvm::BasicBlock::Create(context, "merge", fn);
  llvm::IRBuilder<> b(&fn->getEntryBlock());
  std::vector<std::pair<double, llvm::BasicBlock *>> incoming;
  for (int i = 0; i < branches; ++i) {
    llvm::BasicBlock *assign = llvm::BasicBlock::Create(context, "assign" + std::to_string(i), fn);
    llvm::BasicBlock *next = llvm::BasicBlock::Create(context, "test" + std::to_string(i + 1), fn);
    chain.tests.push_back(b.GetInsertBlock());
    b.CreateCondBr(b.CreateFCmpOEQ(fn->getArg(0), llvm::ConstantFP::get(f64, i)), assign, next);
    llvm::BranchInst::Create(chain.merge, assign);
    incoming.push_back({i + 1.0, assign});
    b.SetInsertPoint(next);
  }
  b.CreateBr(chain.merge);
  incoming.push_back({-1.0, b.GetInsertBlock()});
  b.SetInsertPoint(chain.merge);
  chain.y = b.CreatePHI(f64, static_cast<unsigned>(incoming.size()), "y");
  for (auto &[value, block] : incoming) chain.y->addIncoming(llvm::ConstantFP::get(f64, value), block);
  b.CreateRet(chain.y);
  return chain;
}

TEST(HugeFunctions, FoldingEmptyBlocksOfAnElifChainKeepsEachValueOnItsBranch) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  constexpr int kBranches = 3000;  // 6,000 blocks: a huge function
  const ElifChain chain = build_elif_chain(module, kBranches);
  llvm::Function *fn = chain.fn;
  llvm::BasicBlock *merge = chain.merge;
  llvm::PHINode *y = chain.y;
  const std::vector<llvm::BasicBlock *> &tests = chain.tests;
  ASSERT_FALSE(llvm::verifyFunction(*fn, &llvm::errs()));
  ASSERT_TRUE(has_huge_function(module));

  fold_empty_blocks_of_huge_functions(module);

  EXPECT_FALSE(llvm::verifyFunction(*fn, &llvm::errs()));
  // Left: every test, the merge, and the last branch's assignment (its test
  // reaches the merge by two edges, the else one too: a phi takes one value
  // per predecessor, so neither is folded).
  EXPECT_EQ(fn->size(), static_cast<std::size_t>(kBranches + 3));
  ASSERT_EQ(y->getNumIncomingValues(), static_cast<unsigned>(kBranches + 1));
  for (unsigned k = 0; k < y->getNumIncomingValues(); ++k) {
    const double value = llvm::cast<llvm::ConstantFP>(y->getIncomingValue(k))->getValueAPF().convertToDouble();
    const std::string from = y->getIncomingBlock(k)->getName().str();
    if (value < 0) {
      EXPECT_EQ(from, "test" + std::to_string(kBranches)) << "the else value";
      continue;
    }
    const int branch = static_cast<int>(value) - 1;
    if (branch == kBranches - 1) {
      EXPECT_EQ(from, "assign" + std::to_string(branch)) << "the last branch's assignment stays";
      continue;
    }
    llvm::BasicBlock *test_block = tests[static_cast<std::size_t>(branch)];  // test0 is the entry
    EXPECT_EQ(y->getIncomingBlock(k), test_block) << "y = " << value << " comes from " << from;
    const auto *test = llvm::cast<llvm::BranchInst>(test_block->getTerminator());
    EXPECT_EQ(test->getSuccessor(0), merge) << "the true edge of test " << branch << " goes to the merge";
  }
}

// SelectionDAG finds each predecessor's value in a phi by scanning it:
// the phi of a huge elif chain goes through a stack slot instead, each
// predecessor storing its own value and the merge loading it.
TEST(HugeFunctions, DemotingAHugePhiStoresEachPredecessorsValueBeforeTheMerge) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const ElifChain chain = build_elif_chain(module, 3000);
  std::map<llvm::BasicBlock *, double> value_of;
  for (unsigned k = 0; k < chain.y->getNumIncomingValues(); ++k) {
    value_of[chain.y->getIncomingBlock(k)] =
        llvm::cast<llvm::ConstantFP>(chain.y->getIncomingValue(k))->getValueAPF().convertToDouble();
  }

  demote_huge_phis(module);

  EXPECT_FALSE(llvm::verifyFunction(*chain.fn, &llvm::errs()));
  EXPECT_TRUE(chain.merge->phis().empty()) << "the phi of 3,001 entries is still there";
  const auto *load = llvm::dyn_cast<llvm::LoadInst>(&chain.merge->front());
  ASSERT_NE(load, nullptr) << "the merge does not begin by loading the slot";
  const llvm::Value *slot = load->getPointerOperand();
  ASSERT_TRUE(llvm::isa<llvm::AllocaInst>(slot));
  for (auto &[block, value] : value_of) {
    const auto *store = llvm::dyn_cast<llvm::StoreInst>(block->getTerminator()->getPrevNode());
    ASSERT_NE(store, nullptr) << block->getName().str() << " stores nothing before its branch";
    EXPECT_EQ(store->getPointerOperand(), slot);
    EXPECT_EQ(llvm::cast<llvm::ConstantFP>(store->getValueOperand())->getValueAPF().convertToDouble(), value)
        << block->getName().str();
  }
}

// An elif chain of 6,000 branches (12,000 blocks) becomes a chain of noinline
// parts of about kOutlineBlocks blocks, each calling the next; the merge's
// phi goes through one stack slot of the function, which every part gets as
// a pointer (one per part, not one more per level of nesting).
TEST(HugeFunctions, OutliningAHugeElifChainLeavesBoundedPartsCallingEachOther) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const ElifChain chain = build_elif_chain(module, 6000);
  ASSERT_TRUE(has_huge_function(module));

  outline_huge_regions(module);

  ASSERT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  std::vector<llvm::Function *> parts;
  for (llvm::Function &f : module) {
    if (&f == chain.fn) continue;
    parts.push_back(&f);
    EXPECT_TRUE(f.hasFnAttribute(llvm::Attribute::NoInline)) << f.getName().str();
    EXPECT_TRUE(f.hasFnAttribute(kHugeAttribute)) << f.getName().str();
    EXPECT_TRUE(is_huge_function(f)) << "a part counts as huge for the pass skipping";
    EXPECT_LE(f.size(), kOutlineBlocks + 8) << f.getName().str();
    EXPECT_LE(f.arg_size(), 2u) << f.getName().str() << ": x and the merge's slot";
  }
  EXPECT_GE(parts.size(), 12000 / kOutlineBlocks - 1);
  EXPECT_LE(chain.fn->size(), kOutlineBlocks + 8);
  EXPECT_TRUE(chain.fn->hasFnAttribute(kHugeAttribute)) << "huge whatever size a pass leaves it";
  EXPECT_TRUE(chain.merge->phis().empty()) << "the merge reads its value from the slot";
  // Each part is called once: by the function or by the part above it.
  for (llvm::Function *part : parts) EXPECT_EQ(part->getNumUses(), 1u) << part->getName().str();
}

TEST(HugeFunctions, AHugeFunctionSmallerThanAPartIsMarkedButNotCut) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const ElifChain chain = build_elif_chain(module, 1000);  // 2,000 blocks
  outline_huge_regions(module);
  EXPECT_EQ(std::distance(module.begin(), module.end()), 1);
  EXPECT_TRUE(chain.fn->hasFnAttribute(kHugeAttribute));
}

TEST(HugeFunctions, AFunctionOfFewBlocksIsLeftAlone) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const ElifChain chain = build_elif_chain(module, 300);  // 600 blocks
  outline_huge_regions(module);
  EXPECT_FALSE(chain.fn->hasFnAttribute(kHugeAttribute));
  EXPECT_FALSE(has_huge_function(module));
}

/// The PTX of `source`'s first ufunc, assembled by nvJitLink when it is
/// available (a skip otherwise).
void expect_ptx_assembles(const std::string &source) {
  auto file = std::make_shared<const SourceFile>("huge.ufn", source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  ASSERT_TRUE(program) << diags.render_all();
  const ir::Module &module = program->ufuncs.at(0).modules.at(0);
  EntryRequest request{&module, "k__test", {KernelVariant{Layout::Contiguous, true, 0}}};
  GpuOptions gpu;
  gpu.arch = "sm_90";
  const std::string ptx = emit_ptx({request}, gpu);
  ASSERT_NE(ptx.find(".entry k__test"), std::string::npos);
  if (!nvjitlink_available()) {
    GTEST_SKIP() << "nvJitLink not available: PTX not assembled";
  }
  EXPECT_FALSE(ptx_to_cubin(ptx, "sm_90").empty());
}

TEST(HugeBlocks, PtxOfAKernelWithAHugeBlockIsAcceptedByNvJitLink) {
  std::string source = "@vectorize(['float64(float64)'])\ndef k(x):\n    y = x\n";
  for (int i = 0; i < 12000; ++i) source += "    y = y * x + " + std::to_string(i % 7) + ".5\n";
  expect_ptx_assembles(source + "    return y\n");
}

/// An elif chain of `n` assignments in a ufunc, `decorator_options` added to
/// its @vectorize.
std::string elif_chain_source(int n, const std::string &decorator_options = "") {
  std::string source = "@vectorize(['float64(float64)']" + decorator_options +
                       ")\ndef k(x):\n    y = -1.0\n    if x == 0.0:\n        y = 1.0\n";
  for (int i = 1; i < n; ++i) {
    source += "    elif x == " + std::to_string(i) + ".0:\n        y = " + std::to_string(i + 1) + ".0\n";
  }
  return source + "    return y\n";
}

/// The functions lower_module makes of `source`'s first ufunc, by name.
std::map<std::string, llvm::Function *> lowered_functions(const std::string &source, llvm::Module &out) {
  auto file = std::make_shared<const SourceFile>("chain.ufn", source);
  DiagnosticEngine diags;
  std::optional<ir::TypedProgram> program = ir::compile_to_ir(file, diags);
  EXPECT_TRUE(program) << diags.render_all();
  std::map<std::string, llvm::Function *> functions;
  if (!program) return functions;
  const ir::Module &module = program->ufuncs.at(0).modules.at(0);
  LoweringTarget target;
  target.fastmath = module.options.fastmath;
  lower_module(module, out, "k.", target);
  for (llvm::Function &f : out) {
    if (!f.isDeclaration()) functions[f.getName().str()] = &f;
  }
  return functions;
}

TEST(HugeFunctions, ALongElifChainIsLoweredInBoundedNoinlineParts) {
  // 6,000 branches, 12,000 blocks: no function of more than kOutlineBlocks
  // blocks is ever built, so nothing is left for outline_huge_regions to cut.
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const std::map<std::string, llvm::Function *> functions =
      lowered_functions(elif_chain_source(6000), module);
  ASSERT_FALSE(llvm::verifyModule(module, &llvm::errs()));
  std::size_t parts = 0;
  for (const auto &[name, f] : functions) {
    EXPECT_LE(f->size(), kOutlineBlocks) << name;
    if (name.find(".part") == std::string::npos) continue;
    ++parts;
    EXPECT_TRUE(f->hasFnAttribute(llvm::Attribute::NoInline)) << name;
    EXPECT_TRUE(f->hasFnAttribute(kHugeAttribute)) << name;
    EXPECT_EQ(f->getNumUses(), 1u) << name << ": called once, in turn";
    EXPECT_EQ(f->arg_size(), 1u) << name << ": the frame of the chain's variables";
  }
  EXPECT_GE(parts, 12000 / kOutlineBlocks);
  const std::size_t functions_before = functions.size();
  outline_huge_regions(module);
  EXPECT_EQ(static_cast<std::size_t>(std::distance(module.begin(), module.end())), functions_before);
  // Each part's variables are promoted there, as a cut function's are: the
  // quick tier runs no mem2reg, and ptxas is slow on a part whose variables
  // stay in local memory.
  for (const auto &[name, f] : functions) {
    if (name.find(".part") == std::string::npos) continue;
    std::size_t slots = 0;
    for (const llvm::Instruction &inst : llvm::instructions(*f))
      slots += llvm::isa<llvm::AllocaInst>(inst) ? 1 : 0;
    EXPECT_EQ(slots, 0u) << name;
  }
}

TEST(HugeFunctions, APartsFrameHoldsOnlyTheVariablesNamedOutsideIt) {
  // Each branch's tuple assignment has a temporary of its own, named in that
  // branch only. Copied in and out of its part, the 500 temporaries of a
  // part met in one exit block as 500 phis of 500 entries: 21 MB of PTX
  // and minutes of ptxas. They need no copy: no value of one reaches the
  // part's entry or is read after it.
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const std::map<std::string, llvm::Function *> functions =
      lowered_functions(ufjit::testing::nested_loop_tuple_chain(1500), module);
  const llvm::AllocaInst *frame = nullptr;
  for (const llvm::Instruction &inst : llvm::instructions(*functions.at("k.k"))) {
    const auto *alloca = llvm::dyn_cast<llvm::AllocaInst>(&inst);
    if (alloca != nullptr && alloca->getName() == "chain.frame") frame = alloca;
  }
  ASSERT_NE(frame, nullptr) << "1,500 branches in a loop: lowered in parts";
  // The returned value, x, a, p and q (t is not named in the chain).
  EXPECT_LE(llvm::cast<llvm::StructType>(frame->getAllocatedType())->getNumElements(), 6u);
}

TEST(HugeFunctions, AnElifChainOfAFewThousandBlocksIsLoweredWhole) {
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const std::map<std::string, llvm::Function *> functions =
      lowered_functions(elif_chain_source(1000), module);
  EXPECT_EQ(functions.size(), 1u) << "2,000 blocks: within a part's size, no part cut";
}

TEST(HugeFunctions, PartsOfAFastmathChainCarryItsFastmathAttributes) {
  // Instruction selection reads approximate division and flushed denormals
  // from each function's own attributes.
  llvm::LLVMContext context;
  llvm::Module module("m", context);
  const std::map<std::string, llvm::Function *> functions =
      lowered_functions(elif_chain_source(6000, ", fastmath=True"), module);
  std::size_t parts = 0;
  for (const auto &[name, f] : functions) {
    if (name.find(".part") == std::string::npos) continue;
    ++parts;
    EXPECT_EQ(f->getFnAttribute("unsafe-fp-math").getValueAsString(), "true") << name;
  }
  EXPECT_GT(parts, 0u);
}

TEST(HugeFunctions, PtxOfAHugeElifChainIsAcceptedByNvJitLink) {
  // 2,600 branches: more than kHugeFunctionBlocks blocks, so the empty
  // assignment blocks are folded before code generation; lowered in parts.
  expect_ptx_assembles(elif_chain_source(2600));
}

}  // namespace
}  // namespace ufjit::codegen
