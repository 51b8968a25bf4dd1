// CPU kernel entries (codegen/kernel/KernelEntry.h): `void(int64 begin, int64 end,
// void *const *params)` computing elements [begin, end) of the ABI of
// codegen/kernel/KernelABI.h.
//
// requires: a scalar function in value types; guarantees: the contiguous
// entry is one counted loop over [begin, end) with unit-stride accesses (the
// loop vectorizer widens it, adding run-time alias checks since the output
// may alias an input); the strided entry walks rows: it decomposes the first
// index of each row into coordinates once, then runs a counted loop over the
// innermost dimension with constant per-operand strides. A streaming_stores
// entry is the contiguous one with its output written past the cache
// (codegen/StreamingStores.h).
#include "codegen/kernel/KernelEntry.h"
#include "codegen/StreamingStores.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

namespace {

using namespace kernel_detail;

using CpuOperand = EntryOperand;

class CpuEntryBuilder : EntryBuilderState {
 public:
  CpuEntryBuilder(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                  const KernelVariant &variant)
      : EntryBuilderState(module, scalar, sig), variant_(variant) {}

  llvm::Function *build(const std::string &name);

 private:
  void bind_parameters();
  void emit_element(const std::vector<llvm::Value *> &addresses);
  void emit_contiguous();
  void emit_strided();
  void emit_coordinates(llvm::Value *innermost, llvm::Value *rem_slot, llvm::Value *inner_slot,
                        const std::vector<llvm::Value *> &offset_slots);
  llvm::Value *load_dim(llvm::Value *dims, llvm::Value *d);

  const KernelVariant &variant_;
  llvm::Value *begin_ = nullptr;
  llvm::Value *end_ = nullptr;
  llvm::Value *params_ = nullptr;
  llvm::Value *ndim_ = nullptr;
  llvm::Value *shape_ = nullptr;
  std::vector<CpuOperand> operands_;  // inputs, then the output
  llvm::Value *error_flag_ = nullptr;  // KernelABI.h: only when the module can raise
};

llvm::Value *CpuEntryBuilder::load_dim(llvm::Value *dims, llvm::Value *d) {
  llvm::Type *i64 = b_.getInt64Ty();
  return b_.CreateAlignedLoad(i64, b_.CreateInBoundsGEP(i64, dims, d), llvm::Align(8));
}

void CpuEntryBuilder::bind_parameters() {
  const KernelSpec spec = make_kernel_spec(sig_, variant_);
  const std::vector<KernelParam> params = kernel_params(spec);
  // Parameter 0 (n) is loaded but unused: begin/end bound the work; so is
  // Done, which only a one-block GPU launch uses (KernelABI.h).
  BoundParams bound = bind_entry_params(
      b_, spec, params, [&](unsigned p) { return load_cpu_param(b_, params_, p, params[p]); });
  ndim_ = bound.ndim;
  shape_ = bound.shape;
  operands_ = std::move(bound.operands);
  error_flag_ = bound.error_flag;
}

void CpuEntryBuilder::emit_element(const std::vector<llvm::Value *> &addresses) {
  const std::vector<llvm::Value *> inputs = load_inputs(b_, operands_, addresses);
  llvm::Value *result = call_scalar(b_, scalar_, sig_, inputs, error_flag_);
  const CpuOperand &out = operands_.back();
  store_element(b_, out.dtype, result, addresses.back(), element_align(out.dtype));
}

void CpuEntryBuilder::emit_contiguous() {
  emit_counted_loop(b_, begin_, end_, b_.getInt64(1), "elem", [&](llvm::Value *i) {
    std::vector<llvm::Value *> addresses(operands_.size(), nullptr);
    for (std::size_t k = 0; k < operands_.size(); ++k) {
      if (!operands_[k].is_scalar) {
        llvm::Type *storage = element_storage_type(ctx_, operands_[k].dtype);
        addresses[k] = b_.CreateInBoundsGEP(storage, operands_[k].pointer, i);
      }
    }
    emit_element(addresses);
  });
}

// Coordinates of the element in rem_slot, innermost dimension first (ndim >=
// 1): the innermost coordinate goes to inner_slot, and each array operand's
// byte offset is added into its offset slot.
void CpuEntryBuilder::emit_coordinates(llvm::Value *innermost, llvm::Value *rem_slot, llvm::Value *inner_slot,
                                       const std::vector<llvm::Value *> &offset_slots) {
  llvm::Type *i64 = b_.getInt64Ty();
  llvm::Value *zero = b_.getInt64(0);
  llvm::Value *one = b_.getInt64(1);
  emit_counted_loop(b_, zero, ndim_, one, "dim", [&](llvm::Value *j) {
    llvm::Value *d = b_.CreateSub(innermost, j);
    llvm::Value *extent = load_dim(shape_, d);
    llvm::Value *rem = b_.CreateLoad(i64, rem_slot);
    llvm::Value *coord = b_.CreateURem(rem, extent, "coord");
    b_.CreateStore(b_.CreateUDiv(rem, extent), rem_slot);
    llvm::BasicBlock *first_bb = llvm::BasicBlock::Create(ctx_, "dim.inner", fn_);
    llvm::BasicBlock *rest_bb = llvm::BasicBlock::Create(ctx_, "dim.rest", fn_);
    b_.CreateCondBr(b_.CreateICmpEQ(j, zero), first_bb, rest_bb);
    b_.SetInsertPoint(first_bb);
    b_.CreateStore(coord, inner_slot);
    b_.CreateBr(rest_bb);
    b_.SetInsertPoint(rest_bb);
    for (std::size_t k = 0; k < operands_.size(); ++k) {
      if (offset_slots[k] == nullptr) {
        continue;
      }
      llvm::Value *s = load_dim(operands_[k].strides, d);
      llvm::Value *offset = b_.CreateLoad(i64, offset_slots[k]);
      b_.CreateStore(b_.CreateAdd(offset, b_.CreateMul(coord, s)), offset_slots[k]);
    }
  });
}

void CpuEntryBuilder::emit_strided() {
  llvm::Type *i64 = b_.getInt64Ty();
  llvm::Value *zero = b_.getInt64(0);
  llvm::Value *one = b_.getInt64(1);
  // Loop-carried values live in allocas that SROA promotes to registers.
  llvm::IRBuilder<> entry_builder(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  llvm::Value *i_slot = entry_builder.CreateAlloca(i64, nullptr, "i.slot");
  llvm::Value *rem_slot = entry_builder.CreateAlloca(i64, nullptr, "rem.slot");
  llvm::Value *inner_slot = entry_builder.CreateAlloca(i64, nullptr, "inner.slot");
  std::vector<llvm::Value *> offset_slots(operands_.size(), nullptr);
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    if (!operands_[k].is_scalar) {
      offset_slots[k] = entry_builder.CreateAlloca(i64, nullptr, "off.slot");
    }
  }
  llvm::Value *innermost = b_.CreateSub(ndim_, one, "innermost");
  llvm::Value *inner_extent = load_dim(shape_, innermost);
  std::vector<llvm::Value *> inner_strides(operands_.size(), nullptr);
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    if (offset_slots[k] != nullptr) {
      inner_strides[k] = load_dim(operands_[k].strides, innermost);
    }
  }
  b_.CreateStore(begin_, i_slot);
  llvm::BasicBlock *header = llvm::BasicBlock::Create(ctx_, "row.header", fn_);
  llvm::BasicBlock *row = llvm::BasicBlock::Create(ctx_, "row", fn_);
  llvm::BasicBlock *exit = llvm::BasicBlock::Create(ctx_, "row.exit", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::Value *i = b_.CreateLoad(i64, i_slot, "i");
  b_.CreateCondBr(b_.CreateICmpULT(i, end_), row, exit);

  b_.SetInsertPoint(row);
  b_.CreateStore(i, rem_slot);
  for (llvm::Value *slot : offset_slots) {
    if (slot != nullptr) {
      b_.CreateStore(zero, slot);
    }
  }
  emit_coordinates(innermost, rem_slot, inner_slot, offset_slots);
  // The rest of this row, clipped to end.
  llvm::Value *inner_coord = b_.CreateLoad(i64, inner_slot);
  llvm::Value *row_left = b_.CreateSub(inner_extent, inner_coord);
  llvm::Value *range_left = b_.CreateSub(end_, i);
  llvm::Value *count = b_.CreateSelect(b_.CreateICmpULT(row_left, range_left), row_left, range_left, "count");
  std::vector<llvm::Value *> row_bases(operands_.size(), nullptr);
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    if (offset_slots[k] != nullptr) {
      llvm::Value *offset = b_.CreateLoad(i64, offset_slots[k]);
      row_bases[k] = b_.CreateGEP(b_.getInt8Ty(), operands_[k].pointer, offset);
    }
  }
  emit_counted_loop(b_, zero, count, one, "inner", [&](llvm::Value *t) {
    std::vector<llvm::Value *> addresses(operands_.size(), nullptr);
    for (std::size_t k = 0; k < operands_.size(); ++k) {
      if (row_bases[k] != nullptr) {
        addresses[k] = b_.CreateGEP(b_.getInt8Ty(), row_bases[k], b_.CreateMul(t, inner_strides[k]));
      }
    }
    emit_element(addresses);
  });
  b_.CreateStore(b_.CreateAdd(i, count), i_slot);
  b_.CreateBr(header);

  b_.SetInsertPoint(exit);
}

llvm::Function *CpuEntryBuilder::build(const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  fn_ = llvm::Function::Create(cpu_entry_type(ctx_), llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  const CpuEntryArgs args = cpu_entry_args(*fn_);
  begin_ = args.begin;
  end_ = args.end;
  params_ = args.params;
  fn_->addParamAttr(2, llvm::Attribute::NoCapture);
  fn_->addParamAttr(2, llvm::Attribute::ReadOnly);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
  bind_parameters();
  if (variant_.streaming_stores) {
    internal_assert(variant_.layout == Layout::Contiguous) << "streaming stores in a strided entry";
    begin_streaming_output(b_, *fn_, operands_.back().pointer, begin_, dtype_size(operands_.back().dtype));
  }
  if (variant_.layout == Layout::Contiguous) {
    emit_contiguous();
  } else {
    emit_strided();
  }
  if (variant_.streaming_stores) {
    end_streaming_output(b_);
  }
  b_.CreateRetVoid();
  return fn_;
}

}  // namespace

llvm::Function *build_cpu_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                const KernelVariant &variant, const std::string &name) {
  CpuEntryBuilder builder(module, scalar, sig, variant);
  return builder.build(name);
}

}  // namespace ufjit::codegen
