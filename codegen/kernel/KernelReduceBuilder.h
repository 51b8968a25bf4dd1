// The builder of the method entries (codegen/kernel/KernelReduce.h), shared by the
// CPU entries (KernelReduce.cpp) and the GPU ones (KernelReduceGpu.cpp).
// Internal to codegen.
//
// Loop-carried values live in allocas that SROA promotes, as in the strided
// elementwise entry, so the builder makes no phis by hand. A value that may
// not exist yet (a thread without elements, a function without identity) is
// a pair of slots (value, has): it is combined with branches, never with a
// select, so that the scalar function only ever sees real elements (a
// function that can raise must not raise on a placeholder).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "codegen/kernel/KernelEntry.h"
#include "codegen/kernel/KernelReduce.h"

namespace ufjit::codegen::method_detail {

inline constexpr unsigned kGlobalAddressSpace = 1;
inline constexpr unsigned kSharedAddressSpace = 3;

/// A value that may be absent: `value` is meaningful when `has` holds true.
struct MaybeSlot {
  llvm::AllocaInst *value = nullptr;
  llvm::AllocaInst *has = nullptr;
};

struct ScanState;  // KernelReduceScan.cpp

class MethodEntryBuilder : kernel_detail::EntryBuilderState {
 public:
  MethodEntryBuilder(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig, TargetKind kind)
      : EntryBuilderState(module, scalar, sig), kind_(kind) {}

  llvm::Function *build(MethodKernel method, const std::string &name);

 private:
  bool gpu() const { return kind_ == TargetKind::Cuda; }
  /// Declares the entry `name` (GPU: the parameters of params_ one by one;
  /// CPU: begin, end and a pointer to them) and starts its entry block.
  void create_function(const std::string &name);
  /// The entry's parameters into rows_, len_, ... by their roles in params_
  /// (the CPU's loaded).
  void read_params();
  /// The member a method parameter of `param`'s role goes into.
  llvm::Value *&param_slot(const KernelParam &param);
  llvm::Value *i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value *sreg(llvm::Intrinsic::ID id);
  llvm::Value *element_addr(llvm::Value *base, llvm::Value *index);
  llvm::Value *load(llvm::Value *base, llvm::Value *index);
  void store(llvm::Value *value, llvm::Value *base, llvm::Value *index);
  /// f(a, b), passing the entry's error flag when the function takes one.
  llvm::Value *combine(llvm::Value *a, llvm::Value *b);
  llvm::AllocaInst *slot(llvm::Type *type, const char *name);
  MaybeSlot maybe_slot(const char *name);
  /// slot = has ? f(slot, v) : v; has = true (with a branch).
  void fold_into(const MaybeSlot &acc, llvm::Value *v);
  /// if (cond) body(); leaves the builder after the join.
  template <typename Body>
  void emit_if(llvm::Value *cond, const char *name, Body body);
  /// The names of emit_if_else's blocks.
  struct IfElseNames {
    std::string then_block;
    std::string else_block;
    std::string join_block;
  };
  /// if (cond) then_body() else else_body(); leaves the builder after the join.
  template <typename Then, typename Else>
  void emit_if_else(llvm::Value *cond, const IfElseNames &names, Then then_body, Else else_body);
  /// Emits body() into `block`, then a branch to `join`.
  template <typename Body>
  void emit_block(llvm::BasicBlock *block, Body body, llvm::BasicBlock *join);
  /// while (cond()) body(); cond() is emitted in the loop's head block (a
  /// runtime loop whose counter lives in a slot the callers keep).
  template <typename Cond, typename Body>
  void emit_while(const char *name, Cond cond, Body body);
  /// if (use_vector) vector_path() else scalar_path(), where `use_vector` is
  /// emitted only when `vectors` (else only scalar_path(), unconditionally).
  template <typename Vector, typename Scalar>
  void emit_vector_or_scalar(bool vectors, llvm::Value *use_vector, const char *name, Vector vector_path,
                             Scalar scalar_path);
  void barrier();
  /// The launch bounds of a GPU entry (`.maxntid`, `.minnctapersm`).
  void mark_launch_bounds(llvm::Function &fn);
  /// An internal shared-memory array of `count` elements of `type`, and a
  /// pointer to its element 0.
  llvm::Value *shared_array(llvm::Type *type, int64_t count, const char *suffix);
  /// The [first, last) element range of segment `seg` (in elements of `in`).
  std::pair<llvm::Value *, llvm::Value *> segment_range(llvm::Value *seg);
  /// Elements per 16-byte vector load of the GPU reduce (1: scalar loads).
  int reduce_vector_lanes() const;
  /// Elements per thread of a GPU scan tile.
  int scan_items() const;

  // CPU entries (KernelReduce.cpp).
  void emit_reduce_cpu(bool masked);
  /// Accumulates row `r` left to right.
  void emit_accumulate_row(llvm::Value *r);

  // GPU entries (KernelReduceGpu.cpp).
  void emit_reduce_gpu(bool masked);
  /// Folds the elements of [first, last) that thread `tid` owns into `acc`.
  void emit_thread_fold(const MaybeSlot &acc, llvm::Value *first, llvm::Value *last, llvm::Value *tid, bool masked);
  void emit_vector_fold(const MaybeSlot &acc, llvm::Value *first, llvm::Value *last, llvm::Value *tid, int lanes);
  /// The block's tree over the threads' (value, has) pairs; thread 0 stores
  /// the segment's value at out[seg] when it has one, and (`report_has`)
  /// whether it has one at out_has[seg] when out_has is not null.
  void emit_block_tree(const MaybeSlot &acc, llvm::Value *tid, llvm::Value *seg, bool report_has);
  void emit_accumulate_rows_gpu();
  void emit_scan_gpu();
  /// One tile of a segment's scan, from `tile_start` (before `last`);
  /// `aligned`: the segment's arrays allow vector loads and stores.
  void emit_scan_tile(const ScanState &s, llvm::Value *tile_start, llvm::Value *last, llvm::Value *aligned);
  /// The block's inclusive scan of the totals of threads [0, active).
  void emit_scan_block_totals(const ScanState &s, llvm::Value *active);

  TargetKind kind_;
  DType dtype_ = DType::Float64;
  KernelSpec spec_;                  // make_method_spec of the entry being built
  std::vector<KernelParam> params_;  // kernel_params(spec_): the entry's parameters
  llvm::Value *rows_ = nullptr;
  llvm::Value *len_ = nullptr;
  llvm::Value *chunks_ = nullptr;
  llvm::Value *chunk_len_ = nullptr;
  llvm::Value *in_ = nullptr;
  llvm::Value *out_ = nullptr;
  llvm::Value *aux_ = nullptr;
  llvm::Value *out_has_ = nullptr;  // ReduceWhere on the GPU: per segment, whether it took an element (may be null)
  llvm::Value *error_flag_ = nullptr;  // generic pointer, or null when the module cannot raise
  llvm::Value *begin_ = nullptr;       // CPU: the range of segments or rows
  llvm::Value *end_ = nullptr;
};

template <typename Body>
void MethodEntryBuilder::emit_block(llvm::BasicBlock *block, Body body, llvm::BasicBlock *join) {
  b_.SetInsertPoint(block);
  body();
  b_.CreateBr(join);
}

template <typename Body>
void MethodEntryBuilder::emit_if(llvm::Value *cond, const char *name, Body body) {
  llvm::BasicBlock *then = llvm::BasicBlock::Create(ctx_, std::string(name) + ".then", fn_);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx_, std::string(name) + ".join", fn_);
  b_.CreateCondBr(cond, then, join);
  emit_block(then, body, join);
  b_.SetInsertPoint(join);
}

template <typename Then, typename Else>
void MethodEntryBuilder::emit_if_else(llvm::Value *cond, const IfElseNames &names, Then then_body,
                                      Else else_body) {
  llvm::BasicBlock *then = llvm::BasicBlock::Create(ctx_, names.then_block, fn_);
  llvm::BasicBlock *other = llvm::BasicBlock::Create(ctx_, names.else_block, fn_);
  llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx_, names.join_block, fn_);
  b_.CreateCondBr(cond, then, other);
  emit_block(then, then_body, join);
  emit_block(other, else_body, join);
  b_.SetInsertPoint(join);
}

template <typename Cond, typename Body>
void MethodEntryBuilder::emit_while(const char *name, Cond cond, Body body) {
  llvm::BasicBlock *head = llvm::BasicBlock::Create(ctx_, std::string(name) + ".head", fn_);
  llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx_, std::string(name) + ".body", fn_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx_, std::string(name) + ".exit", fn_);
  b_.CreateBr(head);
  b_.SetInsertPoint(head);
  b_.CreateCondBr(cond(), loop, exit);
  b_.SetInsertPoint(loop);
  body();
  b_.CreateBr(head);
  b_.SetInsertPoint(exit);
}

template <typename Vector, typename Scalar>
void MethodEntryBuilder::emit_vector_or_scalar(bool vectors, llvm::Value *use_vector, const char *name,
                                               Vector vector_path, Scalar scalar_path) {
  if (!vectors) {
    scalar_path();
    return;
  }
  const std::string prefix(name);
  emit_if_else(use_vector, {prefix + ".vector", prefix + ".scalar", prefix + ".done"}, vector_path,
               scalar_path);
}

}  // namespace ufjit::codegen::method_detail
