// Non-temporal output stores for CPU entries of the streaming_stores variant
// (codegen/kernel/KernelABI.h).
//
// A binary operation over arrays larger than the cache reads two lines and
// writes one per line of output; an ordinary store first reads the output
// line into the cache (read for ownership), so one in four transfers is
// wasted. x86's non-temporal stores write whole lines past the cache, but
// only from aligned vector registers, and LLVM's loop vectorizer gives up on
// a loop whose scalar store is marked non-temporal (no vector type may store
// non-temporally at the scalar's alignment). So the entry states the
// alignment that the runtime guarantees (begin_streaming_output), the loop is
// vectorized as usual, and after the optimizer mark_streaming_stores derives
// each vector store's alignment from that statement and marks the aligned
// ones non-temporal. The remainder loop keeps ordinary stores.
#pragma once

#include <cstddef>

#include "codegen/LLVMHeaders.h"

namespace ufjit::codegen {

/// In the entry block of `entry`, after its parameters are bound: states
/// that element `begin` of `output` (elements of `element_size` bytes) is
/// aligned to kStreamingAlign, and marks `entry` for mark_streaming_stores.
void begin_streaming_output(llvm::IRBuilder<> &b, llvm::Function &entry, llvm::Value *output, llvm::Value *begin,
                            std::size_t element_size);

/// Before the entry returns: the store fence that orders its non-temporal
/// stores before whatever the caller does next (a worker thread signalling
/// that its range is done).
void end_streaming_output(llvm::IRBuilder<> &b);

/// The function pass added after the optimizer on x86-64: in each entry
/// marked by begin_streaming_output, vector stores to the output aligned to
/// their own size become non-temporal.
struct StreamingStoresPass : llvm::PassInfoMixin<StreamingStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &fn, llvm::FunctionAnalysisManager &analyses);
};

}  // namespace ufjit::codegen
