// The GPU block-level scan of the Accumulate method entry
// (codegen/kernel/KernelReduce.h): one block per segment, tiles of kReduceBlock * K
// elements. Per tile: each thread loads its K consecutive elements (one
// vector load when the tile is whole and aligned), scans them, the block
// scans the threads' totals (Hillis-Steele in shared memory, barriers around
// each step), each thread combines its exclusive prefix (the segment's carry,
// then the totals of the threads before it) into its elements and stores
// them, and the tile's total joins the carry. Every combination happens in
// an order fixed by the sizes: deterministic.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <llvm/IR/InlineAsm.h>

#include "codegen/kernel/KernelReduceBuilder.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::method_detail {

using namespace kernel_detail;

namespace {

/// Loads `type` (8 or 16 bytes) from the global address `address` with one
/// `ld.global.v2/v4.b32`. Inline assembly, because the optimizer splits a
/// plain vector load whose lanes are only extracted back into scalar loads
/// and merges them with the guarded scalar path (the PTX then had a v2 and
/// two scalar loads); side effects keep it where it is.
llvm::Value *load_vector_asm(llvm::IRBuilder<> &b, llvm::Value *address, llvm::FixedVectorType *type) {
  llvm::LLVMContext &ctx = b.getContext();
  const uint64_t bytes = type->getPrimitiveSizeInBits().getFixedValue() / 8;
  const unsigned words = static_cast<unsigned>(bytes / 4);
  internal_assert(words == 2 || words == 4) << "vector load of " << bytes << " bytes";
  std::vector<llvm::Type *> results(words, b.getInt32Ty());
  auto *fn_type = llvm::FunctionType::get(llvm::StructType::get(ctx, results), {b.getInt64Ty()}, false);
  const std::string text = words == 4 ? "ld.global.v4.b32 {$0, $1, $2, $3}, [$4];" : "ld.global.v2.b32 {$0, $1}, [$2];";
  const std::string constraints = words == 4 ? "=r,=r,=r,=r,l" : "=r,=r,l";
  llvm::InlineAsm *asm_fn = llvm::InlineAsm::get(fn_type, text, constraints, /*hasSideEffects=*/true);
  llvm::Value *parts = b.CreateCall(asm_fn, {b.CreatePtrToInt(address, b.getInt64Ty())});
  llvm::Value *word_vector = llvm::PoisonValue::get(llvm::FixedVectorType::get(b.getInt32Ty(), words));
  for (unsigned k = 0; k < words; ++k) {
    word_vector = b.CreateInsertElement(word_vector, b.CreateExtractValue(parts, {k}), uint64_t{k});
  }
  return b.CreateBitCast(word_vector, type);
}

}  // namespace

/// What every tile of a GPU scan uses: its sizes, types, shared memory and
/// the thread's slots.
struct ScanState {
  int items = 1;             // elements per thread
  int64_t tile = 0;          // elements per tile
  int64_t vector_bytes = 0;  // of one thread's elements
  bool vectors = false;      // whole aligned tiles load and store vectors
  llvm::Type *value_type = nullptr;
  llvm::Type *storage = nullptr;
  llvm::FixedVectorType *vector_type = nullptr;
  llvm::Value *totals = nullptr;  // shared: the threads' totals
  llvm::Value *tid = nullptr;
  MaybeSlot carry;   // the segment's total so far
  MaybeSlot prefix;  // the thread's exclusive prefix
  std::vector<llvm::AllocaInst *> item;
  llvm::AllocaInst *own = nullptr;
  llvm::AllocaInst *left = nullptr;
  llvm::AllocaInst *distance = nullptr;
};

void MethodEntryBuilder::emit_scan_gpu() {
  ScanState s;
  s.items = scan_items();
  s.tile = int64_t{kReduceBlock} * s.items;
  const auto esize = static_cast<int64_t>(element_size(dtype_));
  s.vector_bytes = esize * s.items;
  s.vectors = s.items > 1 && !is_complex_dtype(dtype_) && (s.vector_bytes == 8 || s.vector_bytes == 16);
  s.value_type = element_value_type(ctx_, dtype_);
  s.storage = element_storage_type(ctx_, dtype_);
  s.vector_type = llvm::FixedVectorType::get(s.storage, static_cast<unsigned>(s.items));
  s.totals = shared_array(s.storage, kReduceBlock, ".scan");
  llvm::Value *block = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *grid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  s.tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *segments = b_.CreateMul(rows_, chunks_, "segments", true, true);
  s.carry = maybe_slot("carry");
  s.prefix = maybe_slot("prefix");
  s.item.resize(static_cast<std::size_t>(s.items));
  for (auto &slot_k : s.item) {
    slot_k = slot(s.value_type, "item");
  }
  s.own = slot(s.value_type, "own");
  s.left = slot(s.value_type, "left");
  s.distance = slot(b_.getInt64Ty(), "d");

  // Segments are uniform in a block: every barrier is reached by every thread.
  emit_counted_loop(b_, block, segments, grid, "seg", [&](llvm::Value *seg) {
    auto [first, last] = segment_range(seg);
    b_.CreateStore(b_.getFalse(), s.carry.has);
    llvm::Value *chunk = b_.CreateURem(seg, chunks_, "chunk");
    emit_if(b_.CreateICmpNE(chunk, i64(0)), "carry.in", [&] {
      b_.CreateStore(load(aux_, b_.CreateSub(seg, i64(1))), s.carry.value);
      b_.CreateStore(b_.getTrue(), s.carry.has);
    });
    llvm::Value *aligned = b_.getFalse();
    if (s.vectors) {
      llvm::Value *in_address = b_.CreatePtrToInt(element_addr(in_, first), b_.getInt64Ty());
      llvm::Value *out_address = b_.CreatePtrToInt(element_addr(out_, first), b_.getInt64Ty());
      aligned = b_.CreateICmpEQ(b_.CreateAnd(b_.CreateOr(in_address, out_address), i64(s.vector_bytes - 1)),
                                i64(0), "aligned");
    }
    emit_counted_loop(b_, first, last, i64(s.tile), "tile",
                      [&](llvm::Value *tile_start) { emit_scan_tile(s, tile_start, last, aligned); });
  });
}

void MethodEntryBuilder::emit_scan_tile(const ScanState &s, llvm::Value *tile_start, llvm::Value *last,
                                        llvm::Value *aligned) {
  const int items = s.items;
  auto get = [&](int k) { return b_.CreateLoad(s.value_type, s.item[static_cast<std::size_t>(k)]); };
  auto set = [&](int k, llvm::Value *v) { b_.CreateStore(v, s.item[static_cast<std::size_t>(k)]); };
  llvm::Value *tid = s.tid;
  llvm::Value *base =
      b_.CreateAdd(tile_start, b_.CreateMul(tid, i64(items), "", true, true), "base", true, true);
  llvm::Value *remaining = b_.CreateSub(last, tile_start, "remaining", true, true);
  llvm::Value *whole = b_.CreateAnd(aligned, b_.CreateICmpUGE(remaining, i64(s.tile)), "whole");
  llvm::Value *left_over = b_.CreateSub(last, base);
  llvm::Value *count = b_.CreateSelect(
      b_.CreateICmpULT(base, last),
      b_.CreateSelect(b_.CreateICmpULT(left_over, i64(items)), left_over, i64(items)), i64(0), "count");
  auto guarded = [&](int k, const char *name, auto body) {
    emit_if(b_.CreateICmpULT(i64(k), count), name, body);
  };
  // ---- load
  emit_vector_or_scalar(
      s.vectors, whole, "load",
      [&] {
        llvm::Value *v = load_vector_asm(b_, element_addr(in_, base), s.vector_type);
        for (int k = 0; k < items; ++k) {
          set(k, storage_to_value(b_, dtype_, b_.CreateExtractElement(v, static_cast<uint64_t>(k))));
        }
      },
      [&] {
        for (int k = 0; k < items; ++k) {
          guarded(k, "load", [&] { set(k, load(in_, b_.CreateAdd(base, i64(k), "", true, true))); });
        }
      });
  // ---- the thread's own inclusive scan and total
  for (int k = 1; k < items; ++k) {
    guarded(k, "local", [&] { set(k, combine(get(k - 1), get(k))); });
  }
  llvm::Value *total = get(0);
  for (int k = 1; k < items; ++k) {
    total = b_.CreateSelect(b_.CreateICmpULT(i64(k), count), get(k), total);
  }
  llvm::Value *mine = b_.CreateICmpNE(count, i64(0), "mine");
  b_.CreateStore(total, s.own);
  emit_if(mine, "publish", [&] { store(total, s.totals, tid); });
  // Threads [0, active) hold elements.
  llvm::Value *wanted = b_.CreateUDiv(b_.CreateAdd(remaining, i64(items - 1)), i64(items));
  llvm::Value *active =
      b_.CreateSelect(b_.CreateICmpULT(wanted, i64(kReduceBlock)), wanted, i64(kReduceBlock), "active");
  emit_scan_block_totals(s, active);
  barrier();
  // ---- the thread's exclusive prefix: the carry, then the threads before it
  b_.CreateStore(b_.CreateLoad(b_.getInt1Ty(), s.carry.has), s.prefix.has);
  b_.CreateStore(b_.CreateLoad(s.value_type, s.carry.value), s.prefix.value);
  emit_if(b_.CreateAnd(mine, b_.CreateICmpNE(tid, i64(0))), "before",
          [&] { fold_into(s.prefix, load(s.totals, b_.CreateSub(tid, i64(1)))); });
  emit_if(b_.CreateLoad(b_.getInt1Ty(), s.prefix.has), "apply", [&] {
    for (int k = 0; k < items; ++k) {
      guarded(k, "apply", [&] { set(k, combine(b_.CreateLoad(s.value_type, s.prefix.value), get(k))); });
    }
  });
  // ---- store
  emit_vector_or_scalar(
      s.vectors, whole, "store",
      [&] {
        llvm::Value *v = llvm::PoisonValue::get(s.vector_type);
        for (int k = 0; k < items; ++k) {
          v = b_.CreateInsertElement(v, value_to_storage(b_, dtype_, get(k)), static_cast<uint64_t>(k));
        }
        b_.CreateAlignedStore(v, element_addr(out_, base),
                              llvm::Align(static_cast<uint64_t>(s.vector_bytes)));
      },
      [&] {
        for (int k = 0; k < items; ++k) {
          guarded(k, "store", [&] { store(get(k), out_, b_.CreateAdd(base, i64(k), "", true, true)); });
        }
      });
  // ---- the tile's total joins the carry (every thread, the same value)
  fold_into(s.carry, load(s.totals, b_.CreateSub(active, i64(1))));
  barrier();  // the totals are rewritten by the next tile
}

// Inclusive scan of the totals: for (d = 1; d < active; d <<= 1)
// { barrier; x = t[tid - d]; barrier; t[tid] = own = f(x, own) } for d <= tid < active
void MethodEntryBuilder::emit_scan_block_totals(const ScanState &s, llvm::Value *active) {
  llvm::Value *tid = s.tid;
  b_.CreateStore(i64(1), s.distance);
  llvm::Value *d = nullptr;
  auto more = [&] {
    d = b_.CreateLoad(b_.getInt64Ty(), s.distance, "d");
    return b_.CreateICmpULT(d, active);
  };
  emit_while("hs", more, [&] {
    llvm::Value *take = b_.CreateAnd(b_.CreateICmpUGE(tid, d), b_.CreateICmpULT(tid, active), "take");
    barrier();
    emit_if(take, "hs.read", [&] { b_.CreateStore(load(s.totals, b_.CreateSub(tid, d)), s.left); });
    barrier();
    emit_if(take, "hs.write", [&] {
      llvm::Value *sum = combine(b_.CreateLoad(s.value_type, s.left), b_.CreateLoad(s.value_type, s.own));
      b_.CreateStore(sum, s.own);
      store(sum, s.totals, tid);
    });
    b_.CreateStore(b_.CreateShl(d, i64(1)), s.distance);
  });
}

}  // namespace ufjit::codegen::method_detail
