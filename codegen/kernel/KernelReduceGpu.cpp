// GPU method entries (codegen/kernel/KernelReduce.h): the reduce with 16-byte loads
// and a shared-memory tree, the block-level scan, and the one-thread-per-row
// scan for many short rows.
#include <llvm/IR/CFG.h>
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/kernel/KernelReduceBuilder.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::method_detail {

using namespace kernel_detail;

namespace {

constexpr int kVectorBytes = 16;
constexpr int kMaxLanes = 8;

int log2_exact(int64_t v) {
  int k = 0;
  while ((int64_t{1} << k) < v) {
    ++k;
  }
  internal_assert((int64_t{1} << k) == v) << v << " is not a power of two";
  return k;
}

/// Marks the loop whose latch is `latch` as not to be unrolled.
void disable_unrolling(llvm::Instruction &latch) {
  llvm::LLVMContext &ctx = latch.getContext();
  llvm::Metadata *disable[] = {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")};
  llvm::TempMDTuple placeholder = llvm::MDNode::getTemporary(ctx, {});
  llvm::Metadata *ops[] = {placeholder.get(), llvm::MDNode::get(ctx, disable)};
  llvm::MDNode *loop = llvm::MDNode::getDistinct(ctx, ops);
  loop->replaceOperandWith(0, loop);
  latch.setMetadata(llvm::LLVMContext::MD_loop, loop);
}

}  // namespace

int MethodEntryBuilder::reduce_vector_lanes() const {
  if (is_complex_dtype(dtype_) || !is_cheap_scalar_function(scalar_)) {
    return 1;
  }
  return std::min<int>(kMaxLanes, kVectorBytes / static_cast<int>(element_size(dtype_)));
}

int MethodEntryBuilder::scan_items() const {
  if (!is_cheap_scalar_function(scalar_)) {
    return 1;
  }
  return std::max<int>(1, std::min<int>(kMaxLanes, kVectorBytes / static_cast<int>(element_size(dtype_))));
}

void MethodEntryBuilder::emit_vector_fold(const MaybeSlot &acc, llvm::Value *first, llvm::Value *last,
                                          llvm::Value *tid, int lanes) {
  const auto esize = static_cast<int64_t>(element_size(dtype_));
  const int64_t vector_bytes = esize * lanes;
  llvm::Type *storage = element_storage_type(ctx_, dtype_);
  auto *vector_type = llvm::FixedVectorType::get(storage, static_cast<unsigned>(lanes));
  auto fold_vector = [&](llvm::Value *vector) {
    fold_into(acc, storage_to_value(b_, dtype_, b_.CreateExtractElement(vector, uint64_t{0})));
    llvm::Type *value_type = element_value_type(ctx_, dtype_);
    for (int k = 1; k < lanes; ++k) {
      llvm::Value *x = storage_to_value(b_, dtype_, b_.CreateExtractElement(vector, static_cast<uint64_t>(k)));
      b_.CreateStore(combine(b_.CreateLoad(value_type, acc.value), x), acc.value);
    }
  };
  auto load_vector = [&](llvm::Value *base, llvm::Value *j) {
    return b_.CreateAlignedLoad(vector_type, b_.CreateInBoundsGEP(vector_type, base, j),
                                llvm::Align(static_cast<uint64_t>(vector_bytes)), "vec");
  };
  // head: the elements before the first vector-aligned address, one per thread
  llvm::Value *address = b_.CreatePtrToInt(element_addr(in_, first), b_.getInt64Ty());
  llvm::Value *misaligned = b_.CreateAnd(address, i64(vector_bytes - 1));
  llvm::Value *head_bytes = b_.CreateAnd(b_.CreateSub(i64(vector_bytes), misaligned), i64(vector_bytes - 1));
  llvm::Value *count = b_.CreateSub(last, first, "count", true, true);
  llvm::Value *head = b_.CreateLShr(head_bytes, i64(log2_exact(esize)));
  head = b_.CreateSelect(b_.CreateICmpULT(head, count), head, count, "head");
  emit_if(b_.CreateICmpULT(tid, head), "head", [&] {
    fold_into(acc, load(in_, b_.CreateAdd(first, tid, "", true, true)));
  });
  // body: vectors j = tid, tid + block, ...; two loads in flight per step
  llvm::Value *vfirst = b_.CreateAdd(first, head, "vfirst", true, true);
  llvm::Value *vbase = element_addr(in_, vfirst);
  llvm::Value *nvec = b_.CreateLShr(b_.CreateSub(last, vfirst, "", true, true), i64(log2_exact(lanes)), "nvec");
  llvm::Value *pair_end = b_.CreateSelect(b_.CreateICmpUGT(nvec, i64(kReduceBlock)),
                                          b_.CreateSub(nvec, i64(kReduceBlock)), i64(0), "pair.end");
  llvm::AllocaInst *next_j = slot(b_.getInt64Ty(), "next.j");
  b_.CreateStore(tid, next_j);
  llvm::BasicBlock *preheader = b_.GetInsertBlock();
  emit_counted_loop(b_, tid, pair_end, i64(2 * kReduceBlock), "pair", [&](llvm::Value *j) {
    llvm::Value *v0 = load_vector(vbase, j);
    llvm::Value *v1 = load_vector(vbase, b_.CreateAdd(j, i64(kReduceBlock), "", true, true));
    fold_vector(v0);
    fold_vector(v1);
    b_.CreateStore(b_.CreateAdd(j, i64(2 * kReduceBlock), "", true, true), next_j);
  });
  // Two vectors in flight are enough (2048 threads x 32 bytes per SM); the
  // unroller's four more kept 32 registers from sufficing (spills under the
  // launch bounds).
  for (llvm::BasicBlock *pred : llvm::predecessors(b_.GetInsertBlock())) {
    if (pred != preheader) {
      disable_unrolling(*pred->getTerminator());
    }
  }
  llvm::Value *j_rest = b_.CreateLoad(b_.getInt64Ty(), next_j, "j.rest");
  emit_if(b_.CreateICmpULT(j_rest, nvec), "rest", [&] { fold_vector(load_vector(vbase, j_rest)); });
  // tail: the elements after the last whole vector, one per thread
  llvm::Value *tail_first =
      b_.CreateAdd(vfirst, b_.CreateShl(nvec, i64(log2_exact(lanes))), "tail.first", true, true);
  llvm::Value *tail = b_.CreateSub(last, tail_first, "tail", true, true);
  emit_if(b_.CreateICmpULT(tid, tail), "tail", [&] {
    fold_into(acc, load(in_, b_.CreateAdd(tail_first, tid, "", true, true)));
  });
}

void MethodEntryBuilder::emit_thread_fold(const MaybeSlot &acc, llvm::Value *first, llvm::Value *last,
                                          llvm::Value *tid, bool masked) {
  auto scalar_loop = [&] {
    llvm::Value *mine = b_.CreateAdd(first, tid, "mine", true, true);
    emit_counted_loop(b_, mine, last, i64(kReduceBlock), "fold", [&](llvm::Value *i) {
      if (!masked) {
        fold_into(acc, load(in_, i));
        return;
      }
      llvm::Value *take = b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), aux_, i), "take");
      emit_if(b_.CreateICmpNE(take, b_.getInt8(0)), "take", [&] { fold_into(acc, load(in_, i)); });
    });
  };
  const int lanes = masked ? 1 : reduce_vector_lanes();
  if (lanes == 1) {
    scalar_loop();
    return;
  }
  // Vector loads need `in` aligned to its element (always so for arrays
  // the runtime allocates; a view of odd bytes takes the scalar loop).
  llvm::Value *address = b_.CreatePtrToInt(in_, b_.getInt64Ty());
  llvm::Value *aligned =
      b_.CreateICmpEQ(b_.CreateAnd(address, i64(static_cast<int64_t>(element_size(dtype_)) - 1)), i64(0));
  emit_vector_or_scalar(true, aligned, "fold", [&] { emit_vector_fold(acc, first, last, tid, lanes); }, scalar_loop);
}

void MethodEntryBuilder::emit_block_tree(const MaybeSlot &acc, llvm::Value *tid, llvm::Value *seg,
                                         bool report_has) {
  llvm::Type *storage = element_storage_type(ctx_, dtype_);
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  llvm::Type *i8 = b_.getInt8Ty();
  llvm::Value *tree = shared_array(storage, kReduceBlock, ".tree");
  llvm::Value *flags = shared_array(i8, kReduceBlock, ".has");
  auto flag_addr = [&](llvm::Value *k) { return b_.CreateInBoundsGEP(i8, flags, k); };
  llvm::Value *has = b_.CreateLoad(b_.getInt1Ty(), acc.has, "has");
  emit_if(has, "keep", [&] { store(b_.CreateLoad(value_type, acc.value), tree, tid); });
  b_.CreateStore(b_.CreateZExt(has, i8), flag_addr(tid));
  // for (s = 128; s > 0; s >>= 1) { barrier; if (tid < s && has[tid + s])
  //   t[tid] = has[tid] ? f(t[tid], t[tid + s]) : t[tid + s], has[tid] = 1; }
  llvm::AllocaInst *step = slot(b_.getInt64Ty(), "step");
  b_.CreateStore(i64(kReduceBlock / 2), step);
  llvm::Value *s = nullptr;
  auto more = [&] {
    s = b_.CreateLoad(b_.getInt64Ty(), step, "s");
    return b_.CreateICmpNE(s, i64(0));
  };
  emit_while("tree", more, [&] {
    barrier();
    llvm::Value *partner = b_.CreateAdd(tid, s, "partner", true, true);
    emit_if(b_.CreateICmpULT(tid, s), "lower", [&] {
      llvm::Value *right_has = b_.CreateICmpNE(b_.CreateLoad(i8, flag_addr(partner)), b_.getInt8(0));
      emit_if(right_has, "pair", [&] {
        llvm::Value *right = load(tree, partner);
        llvm::Value *left_has = b_.CreateICmpNE(b_.CreateLoad(i8, flag_addr(tid)), b_.getInt8(0));
        emit_if_else(
            left_has, {"pair.both", "pair.right", "pair.done"},
            [&] { store(combine(load(tree, tid), right), tree, tid); },
            [&] {
              store(right, tree, tid);
              b_.CreateStore(b_.getInt8(1), flag_addr(tid));
            });
      });
    });
    b_.CreateStore(b_.CreateLShr(s, i64(1)), step);
  });
  // Thread 0 wrote t[0] and has[0] last itself: no barrier before reading.
  llvm::Value *is_first = b_.CreateICmpEQ(tid, i64(0));
  llvm::Value *segment_has = b_.CreateLoad(i8, flag_addr(i64(0)), "segment.has");
  emit_if(b_.CreateAnd(is_first, b_.CreateICmpNE(segment_has, b_.getInt8(0))), "write",
          [&] { store(load(tree, i64(0)), out_, seg); });
  if (report_has) {
    emit_if(b_.CreateAnd(is_first, b_.CreateIsNotNull(out_has_)), "report", [&] {
      b_.CreateStore(segment_has, b_.CreateInBoundsGEP(i8, out_has_, seg));  // 0 or 1, as the flags are
    });
  }
  barrier();  // the tree is reused by the block's next segment
}

void MethodEntryBuilder::emit_reduce_gpu(bool masked) {
  llvm::Value *block = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *grid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *segments = b_.CreateMul(rows_, chunks_, "segments", true, true);
  const MaybeSlot acc = maybe_slot("acc");
  // The segment loop is uniform in a block, so every barrier is reached by
  // every thread.
  emit_counted_loop(b_, block, segments, grid, "seg", [&](llvm::Value *seg) {
    auto [first, last] = segment_range(seg);
    b_.CreateStore(b_.getFalse(), acc.has);
    emit_thread_fold(acc, first, last, tid, masked);
    emit_block_tree(acc, tid, seg, masked);
  });
}

void MethodEntryBuilder::emit_accumulate_rows_gpu() {
  llvm::Value *block = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *threads = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
  llvm::Value *tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *grid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *gid = b_.CreateAdd(b_.CreateMul(block, threads, "", true, true), tid, "gid", true, true);
  llvm::Value *stride = b_.CreateMul(threads, grid, "stride", true, true);
  emit_counted_loop(b_, gid, rows_, stride, "row", [&](llvm::Value *r) { emit_accumulate_row(r); });
}

}  // namespace ufjit::codegen::method_detail
