// requires: an entry marked by begin_streaming_output, optimized;
// guarantees: its aligned vector stores to the output are non-temporal.
#include "codegen/StreamingStores.h"

#include "codegen/kernel/KernelABI.h"

#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/Transforms/Scalar/AlignmentFromAssumptions.h>

namespace ufjit::codegen {

namespace {

constexpr const char *kStreamingAttribute = "ufjit-streaming-output";

/// The output pointer named by the entry's alignment assumption, or null.
llvm::Value *assumed_output(llvm::Function &fn) {
  for (llvm::Instruction &inst : fn.getEntryBlock()) {
    auto *assume = llvm::dyn_cast<llvm::AssumeInst>(&inst);
    if (assume == nullptr) {
      continue;
    }
    for (unsigned k = 0; k < assume->getNumOperandBundles(); ++k) {
      llvm::OperandBundleUse bundle = assume->getOperandBundleAt(k);
      if (bundle.getTagName() == "align" && !bundle.Inputs.empty()) {
        return bundle.Inputs[0].get();
      }
    }
  }
  return nullptr;
}

}  // namespace

void begin_streaming_output(llvm::IRBuilder<> &b, llvm::Function &entry, llvm::Value *output, llvm::Value *begin,
                            std::size_t element_size) {
  // (output - offset) is aligned, with offset = -begin * element_size: the
  // form AlignmentFromAssumptions follows to every address computed from
  // `output`, as the vectorized loop's are.
  llvm::Value *offset = b.CreateNeg(b.CreateMul(begin, b.getInt64(element_size)), "stream.offset");
  b.CreateAlignmentAssumption(entry.getParent()->getDataLayout(), output, kStreamingAlign, offset);
  entry.addFnAttr(kStreamingAttribute);
}

void end_streaming_output(llvm::IRBuilder<> &b) { b.CreateIntrinsic(llvm::Intrinsic::x86_sse_sfence, {}, {}); }

llvm::PreservedAnalyses StreamingStoresPass::run(llvm::Function &fn, llvm::FunctionAnalysisManager &analyses) {
  if (!fn.hasFnAttribute(kStreamingAttribute)) {
    return llvm::PreservedAnalyses::all();
  }
  llvm::AlignmentFromAssumptionsPass().run(fn, analyses);
  llvm::Value *output = assumed_output(fn);
  if (output == nullptr) {
    return llvm::PreservedAnalyses::none();
  }
  const llvm::DataLayout &layout = fn.getParent()->getDataLayout();
  llvm::MDNode *nontemporal =
      llvm::MDNode::get(fn.getContext(), {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(
                                              llvm::Type::getInt32Ty(fn.getContext()), 1))});
  for (llvm::BasicBlock &block : fn) {
    for (llvm::Instruction &inst : block) {
      auto *store = llvm::dyn_cast<llvm::StoreInst>(&inst);
      if (store == nullptr || !store->getValueOperand()->getType()->isVectorTy()) {
        continue;
      }
      const uint64_t bytes = layout.getTypeStoreSize(store->getValueOperand()->getType()).getFixedValue();
      if (store->getAlign().value() >= bytes && llvm::getUnderlyingObject(store->getPointerOperand()) == output) {
        store->setMetadata(llvm::LLVMContext::MD_nontemporal, nontemporal);
      }
    }
  }
  return llvm::PreservedAnalyses::none();
}

}  // namespace ufjit::codegen
