// Reduce and accumulate entries for both targets (codegen/KernelReduce.h).
//
// Loop-carried values live in allocas that SROA promotes, as in the strided
// elementwise entry, so the builder makes no phis by hand.
#include "codegen/KernelReduce.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include "frontend/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

namespace {

using namespace kernel_detail;

constexpr unsigned kGlobalAddressSpace = 1;
constexpr unsigned kSharedAddressSpace = 3;

class MethodEntryBuilder {
 public:
  MethodEntryBuilder(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig, TargetKind kind)
      : module_(module), ctx_(module.getContext()), scalar_(scalar), sig_(sig), kind_(kind), b_(ctx_) {}

  llvm::Function *build(MethodKernel method, const std::string &name);

 private:
  bool gpu() const { return kind_ == TargetKind::Cuda; }
  llvm::Value *i64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }
  llvm::Value *sreg(llvm::Intrinsic::ID id) { return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), b_.getInt64Ty()); }
  llvm::Value *element_addr(llvm::Value *base, llvm::Value *index) {
    return b_.CreateInBoundsGEP(element_storage_type(ctx_, dtype_), base, index);
  }
  llvm::Value *load(llvm::Value *base, llvm::Value *index) {
    return load_element(b_, dtype_, element_addr(base, index), element_align(dtype_));
  }
  void store(llvm::Value *value, llvm::Value *base, llvm::Value *index) {
    store_element(b_, dtype_, value, element_addr(base, index), element_align(dtype_));
  }
  llvm::Value *combine(llvm::Value *a, llvm::Value *b) { return call_scalar(b_, scalar_, sig_, {a, b}); }
  llvm::AllocaInst *slot(llvm::Type *type, const char *name) {
    llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
    return entry.CreateAlloca(type, nullptr, name);
  }
  /// if (cond) body(); leaves the builder after the join.
  template <typename Body>
  void emit_if(llvm::Value *cond, const char *name, Body body) {
    llvm::BasicBlock *then = llvm::BasicBlock::Create(ctx_, std::string(name) + ".then", fn_);
    llvm::BasicBlock *join = llvm::BasicBlock::Create(ctx_, std::string(name) + ".join", fn_);
    b_.CreateCondBr(cond, then, join);
    b_.SetInsertPoint(then);
    body();
    b_.CreateBr(join);
    b_.SetInsertPoint(join);
  }
  void barrier() { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

  /// The [first, last) element range of segment `seg` (in elements of `in`).
  std::pair<llvm::Value *, llvm::Value *> segment_range(llvm::Value *seg);
  void emit_reduce_gpu();
  void emit_reduce_cpu();
  /// Accumulates row `r`.
  void emit_accumulate_row(llvm::Value *r);

  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  llvm::Function &scalar_;
  const EntrySignature &sig_;
  TargetKind kind_;
  llvm::IRBuilder<> b_;
  DType dtype_ = DType::Float64;
  llvm::Function *fn_ = nullptr;
  llvm::Value *rows_ = nullptr;
  llvm::Value *len_ = nullptr;
  llvm::Value *chunks_ = nullptr;
  llvm::Value *chunk_len_ = nullptr;
  llvm::Value *in_ = nullptr;
  llvm::Value *out_ = nullptr;
  llvm::Value *begin_ = nullptr;  // CPU: the range of segments or rows
  llvm::Value *end_ = nullptr;
};

std::pair<llvm::Value *, llvm::Value *> MethodEntryBuilder::segment_range(llvm::Value *seg) {
  llvm::Value *row = b_.CreateUDiv(seg, chunks_, "row");
  llvm::Value *chunk = b_.CreateURem(seg, chunks_, "chunk");
  llvm::Value *row_start = b_.CreateMul(row, len_, "row.start", true, true);
  llvm::Value *col = b_.CreateMul(chunk, chunk_len_, "col", true, true);
  llvm::Value *col_end = b_.CreateAdd(col, chunk_len_, "col.end", true, true);
  llvm::Value *clamped = b_.CreateSelect(b_.CreateICmpULT(col_end, len_), col_end, len_);
  llvm::Value *first = b_.CreateAdd(row_start, col, "first", true, true);
  llvm::Value *last = b_.CreateAdd(row_start, clamped, "last", true, true);
  return {first, last};
}

void MethodEntryBuilder::emit_reduce_cpu() {
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  llvm::AllocaInst *acc = slot(value_type, "acc");
  emit_counted_loop(b_, begin_, end_, i64(1), "seg", [&](llvm::Value *seg) {
    auto [first, last] = segment_range(seg);
    b_.CreateStore(load(in_, first), acc);
    llvm::Value *next = b_.CreateAdd(first, i64(1), "second", true, true);
    emit_counted_loop(b_, next, last, i64(1), "fold", [&](llvm::Value *i) {
      llvm::Value *v = load(in_, i);
      b_.CreateStore(combine(b_.CreateLoad(value_type, acc), v), acc);
    });
    store(b_.CreateLoad(value_type, acc), out_, seg);
  });
}

void MethodEntryBuilder::emit_reduce_gpu() {
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  llvm::Type *storage = element_storage_type(ctx_, dtype_);
  auto *tree_type = llvm::ArrayType::get(storage, kReduceBlock);
  auto *tree = new llvm::GlobalVariable(module_, tree_type, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::UndefValue::get(tree_type), fn_->getName() + ".tree", nullptr,
                                        llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  tree->setAlignment(llvm::Align(16));
  llvm::Value *tree_base = b_.CreateConstInBoundsGEP2_64(tree_type, tree, 0, 0);
  llvm::Value *block = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
  llvm::Value *grid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
  llvm::Value *tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
  llvm::Value *segments = b_.CreateMul(rows_, chunks_, "segments", true, true);
  llvm::AllocaInst *acc = slot(value_type, "acc");
  llvm::AllocaInst *active = slot(b_.getInt64Ty(), "active");
  llvm::AllocaInst *step = slot(b_.getInt64Ty(), "step");
  // The segment loop is uniform in a block, so every barrier is reached by
  // every thread.
  emit_counted_loop(b_, block, segments, grid, "seg", [&](llvm::Value *seg) {
    auto [first, last] = segment_range(seg);
    llvm::Value *mine = b_.CreateAdd(first, tid, "mine", true, true);
    emit_if(b_.CreateICmpULT(mine, last), "has", [&] {
      b_.CreateStore(load(in_, mine), acc);
      llvm::Value *next = b_.CreateAdd(mine, i64(kReduceBlock), "mine.next", true, true);
      emit_counted_loop(b_, next, last, i64(kReduceBlock), "fold", [&](llvm::Value *i) {
        llvm::Value *v = load(in_, i);
        b_.CreateStore(combine(b_.CreateLoad(value_type, acc), v), acc);
      });
      store(b_.CreateLoad(value_type, acc), tree_base, tid);
    });
    // Threads [0, active) hold a value: a prefix, as elements are dealt out in order.
    llvm::Value *count = b_.CreateSub(last, first, "count", true, true);
    llvm::Value *full = i64(kReduceBlock);
    b_.CreateStore(b_.CreateSelect(b_.CreateICmpULT(count, full), count, full), active);
    b_.CreateStore(i64(kReduceBlock / 2), step);
    // for (s = 128; s > 0; s >>= 1) { barrier; if (tid < s && tid + s < active) t[tid] = f(t[tid], t[tid+s]);
    //                                  active = min(active, s); }
    llvm::BasicBlock *head = llvm::BasicBlock::Create(ctx_, "tree.head", fn_);
    llvm::BasicBlock *body = llvm::BasicBlock::Create(ctx_, "tree.body", fn_);
    llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx_, "tree.exit", fn_);
    b_.CreateBr(head);
    b_.SetInsertPoint(head);
    llvm::Value *s = b_.CreateLoad(b_.getInt64Ty(), step, "s");
    b_.CreateCondBr(b_.CreateICmpNE(s, i64(0)), body, exit);
    b_.SetInsertPoint(body);
    barrier();
    llvm::Value *act = b_.CreateLoad(b_.getInt64Ty(), active, "act");
    llvm::Value *partner = b_.CreateAdd(tid, s, "partner", true, true);
    llvm::Value *pairs = b_.CreateAnd(b_.CreateICmpULT(tid, s), b_.CreateICmpULT(partner, act));
    emit_if(pairs, "pair", [&] {
      llvm::Value *left = load(tree_base, tid);
      llvm::Value *right = load(tree_base, partner);
      store(combine(left, right), tree_base, tid);
    });
    b_.CreateStore(b_.CreateSelect(b_.CreateICmpULT(act, s), act, s), active);
    b_.CreateStore(b_.CreateLShr(s, i64(1)), step);
    b_.CreateBr(head);
    b_.SetInsertPoint(exit);
    emit_if(b_.CreateICmpEQ(tid, i64(0)), "write", [&] { store(load(tree_base, i64(0)), out_, seg); });
    barrier();  // the tree is reused by the block's next segment
  });
}

void MethodEntryBuilder::emit_accumulate_row(llvm::Value *r) {
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  llvm::AllocaInst *acc = slot(value_type, "acc");
  llvm::Value *first = b_.CreateMul(r, len_, "first", true, true);
  llvm::Value *last = b_.CreateAdd(first, len_, "last", true, true);
  llvm::Value *v0 = load(in_, first);
  b_.CreateStore(v0, acc);
  store(v0, out_, first);
  llvm::Value *next = b_.CreateAdd(first, i64(1), "second", true, true);
  emit_counted_loop(b_, next, last, i64(1), "scan", [&](llvm::Value *i) {
    llvm::Value *v = load(in_, i);
    llvm::Value *sum = combine(b_.CreateLoad(value_type, acc), v);
    b_.CreateStore(sum, acc);
    store(sum, out_, i);
  });
}

llvm::Function *MethodEntryBuilder::build(MethodKernel method, const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  if (sig_.args.size() != 2 || sig_.args[0] != sig_.ret || sig_.args[1] != sig_.ret) {
    throw Error("ufunc methods need a binary function whose inputs and result share a type");
  }
  dtype_ = sig_.ret;
  llvm::Type *i64t = b_.getInt64Ty();
  llvm::FunctionType *type = nullptr;
  if (gpu()) {
    llvm::Type *global_ptr = llvm::PointerType::get(ctx_, kGlobalAddressSpace);
    type = llvm::FunctionType::get(b_.getVoidTy(), {i64t, i64t, i64t, i64t, global_ptr, global_ptr}, false);
  } else {
    llvm::Type *ptr = llvm::PointerType::get(ctx_, 0);
    type = llvm::FunctionType::get(b_.getVoidTy(), {i64t, i64t, ptr}, false);
  }
  fn_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  if (gpu()) {
    rows_ = fn_->getArg(0);
    len_ = fn_->getArg(1);
    chunks_ = fn_->getArg(2);
    chunk_len_ = fn_->getArg(3);
    in_ = fn_->getArg(4);
    out_ = fn_->getArg(5);
  } else {
    begin_ = fn_->getArg(0);
    end_ = fn_->getArg(1);
    llvm::Value *params = fn_->getArg(2);
    llvm::Type *ptr = llvm::PointerType::get(ctx_, 0);
    auto param = [&](int k) {
      return b_.CreateAlignedLoad(ptr, b_.CreateConstInBoundsGEP1_64(ptr, params, static_cast<uint64_t>(k)),
                                  llvm::Align(8));
    };
    rows_ = b_.CreateAlignedLoad(i64t, param(0), llvm::Align(8), "rows");
    len_ = b_.CreateAlignedLoad(i64t, param(1), llvm::Align(8), "len");
    chunks_ = b_.CreateAlignedLoad(i64t, param(2), llvm::Align(8), "chunks");
    chunk_len_ = b_.CreateAlignedLoad(i64t, param(3), llvm::Align(8), "chunk_len");
    in_ = b_.CreateAlignedLoad(ptr, param(4), llvm::Align(8), "in");
    out_ = b_.CreateAlignedLoad(ptr, param(5), llvm::Align(8), "out");
  }
  if (method == MethodKernel::Reduce) {
    if (gpu()) {
      emit_reduce_gpu();
    } else {
      emit_reduce_cpu();
    }
  } else if (gpu()) {
    llvm::Value *block = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x);
    llvm::Value *threads = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x);
    llvm::Value *tid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x);
    llvm::Value *grid = sreg(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x);
    llvm::Value *gid = b_.CreateAdd(b_.CreateMul(block, threads, "", true, true), tid, "gid", true, true);
    llvm::Value *stride = b_.CreateMul(threads, grid, "stride", true, true);
    emit_counted_loop(b_, gid, rows_, stride, "row", [&](llvm::Value *r) { emit_accumulate_row(r); });
  } else {
    emit_counted_loop(b_, begin_, end_, i64(1), "row", [&](llvm::Value *r) { emit_accumulate_row(r); });
  }
  b_.CreateRetVoid();
  if (gpu()) {
    mark_ptx_kernel(*fn_);
  }
  return fn_;
}

}  // namespace

std::string method_entry_name(const std::string &base_name, MethodKernel method) {
  return base_name + (method == MethodKernel::Reduce ? "__reduce" : "__accumulate");
}

llvm::Function *build_method_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                   MethodKernel method, TargetKind kind, const std::string &name) {
  MethodEntryBuilder builder(module, scalar, sig, kind);
  return builder.build(method, name);
}

}  // namespace ufjit::codegen
