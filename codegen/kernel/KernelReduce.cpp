// Method entries (codegen/kernel/KernelReduce.h): the builder's common parts, the
// CPU entries and the entry point. The GPU entries: KernelReduceGpu.cpp.
#include "codegen/kernel/KernelReduce.h"

#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/kernel/KernelReduceBuilder.h"
#include "support/EnumNames.h"
#include "support/InternalAssert.h"
#include "ufjit/errors.h"

namespace ufjit::codegen {

namespace method_detail {

using namespace kernel_detail;

llvm::Value *MethodEntryBuilder::sreg(llvm::Intrinsic::ID id) {
  return b_.CreateZExt(b_.CreateIntrinsic(id, {}, {}), b_.getInt64Ty());
}

llvm::Value *MethodEntryBuilder::element_addr(llvm::Value *base, llvm::Value *index) {
  return b_.CreateInBoundsGEP(element_storage_type(ctx_, dtype_), base, index);
}

llvm::Value *MethodEntryBuilder::load(llvm::Value *base, llvm::Value *index) {
  return load_element(b_, dtype_, element_addr(base, index), element_align(dtype_));
}

void MethodEntryBuilder::store(llvm::Value *value, llvm::Value *base, llvm::Value *index) {
  store_element(b_, dtype_, value, element_addr(base, index), element_align(dtype_));
}

llvm::Value *MethodEntryBuilder::combine(llvm::Value *a, llvm::Value *b) {
  return call_scalar(b_, scalar_, sig_, {a, b}, error_flag_);
}

llvm::AllocaInst *MethodEntryBuilder::slot(llvm::Type *type, const char *name) {
  llvm::IRBuilder<> entry(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  return entry.CreateAlloca(type, nullptr, name);
}

MaybeSlot MethodEntryBuilder::maybe_slot(const char *name) {
  MaybeSlot s;
  s.value = slot(element_value_type(ctx_, dtype_), name);
  s.has = slot(b_.getInt1Ty(), (std::string(name) + ".has").c_str());
  return s;
}

void MethodEntryBuilder::fold_into(const MaybeSlot &acc, llvm::Value *v) {
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  emit_if_else(
      b_.CreateLoad(b_.getInt1Ty(), acc.has), {"fold.both", "fold.first", "fold.join"},
      [&] { b_.CreateStore(combine(b_.CreateLoad(value_type, acc.value), v), acc.value); },
      [&] { b_.CreateStore(v, acc.value); });
  b_.CreateStore(b_.getTrue(), acc.has);
}

void MethodEntryBuilder::mark_launch_bounds(llvm::Function &fn) {
  // __launch_bounds__(kReduceBlock, kMethodBlocksPerSm): `.maxntid` and
  // `.minnctapersm`, so that ptxas keeps the registers under what
  // kMethodBlocksPerSm resident blocks allow (the float32 reduce took 33
  // registers, which left 6 blocks of 8 per SM).
  llvm::NamedMDNode *annotations = fn.getParent()->getOrInsertNamedMetadata("nvvm.annotations");
  auto add = [&](const char *key, int value) {
    llvm::Metadata *ops[] = {llvm::ValueAsMetadata::get(&fn), llvm::MDString::get(ctx_, key),
                             llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(value)))};
    annotations->addOperand(llvm::MDNode::get(ctx_, ops));
  };
  add("maxntidx", kReduceBlock);
  if (is_cheap_scalar_function(scalar_)) {
    add("minctasm", kMethodBlocksPerSm);  // an expensive function keeps its registers (no spills)
  }
}

void MethodEntryBuilder::barrier() { b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {}); }

llvm::Value *MethodEntryBuilder::shared_array(llvm::Type *type, int64_t count, const char *suffix) {
  auto *array_type = llvm::ArrayType::get(type, static_cast<uint64_t>(count));
  auto *array = new llvm::GlobalVariable(module_, array_type, false, llvm::GlobalValue::InternalLinkage,
                                         llvm::UndefValue::get(array_type), fn_->getName() + suffix, nullptr,
                                         llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
  array->setAlignment(llvm::Align(16));
  return b_.CreateConstInBoundsGEP2_64(array_type, array, 0, 0);
}

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

void MethodEntryBuilder::emit_reduce_cpu(bool masked) {
  llvm::Type *value_type = element_value_type(ctx_, dtype_);
  llvm::AllocaInst *acc = slot(value_type, "acc");
  emit_counted_loop(b_, begin_, end_, i64(1), "seg", [&](llvm::Value *seg) {
    auto [first, last] = segment_range(seg);
    // ReduceWhere: the first element of a row is always taken (the ABI).
    b_.CreateStore(load(in_, first), acc);
    llvm::Value *next = b_.CreateAdd(first, i64(1), "second", true, true);
    emit_counted_loop(b_, next, last, i64(1), "fold", [&](llvm::Value *i) {
      auto fold = [&] {
        llvm::Value *v = load(in_, i);
        b_.CreateStore(combine(b_.CreateLoad(value_type, acc), v), acc);
      };
      if (masked) {
        llvm::Value *take = b_.CreateLoad(b_.getInt8Ty(), b_.CreateInBoundsGEP(b_.getInt8Ty(), aux_, i));
        emit_if(b_.CreateICmpNE(take, b_.getInt8(0)), "take", fold);
      } else {
        fold();
      }
    });
    store(b_.CreateLoad(value_type, acc), out_, seg);
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

void MethodEntryBuilder::create_function(const std::string &name) {
  llvm::Type *i64t = b_.getInt64Ty();
  llvm::FunctionType *type = nullptr;
  if (gpu()) {
    llvm::Type *global_ptr = llvm::PointerType::get(ctx_, kGlobalAddressSpace);
    std::vector<llvm::Type *> params;
    for (const KernelParam &param : params_) {
      const bool pointer = param.role == ParamRole::Data || param.role == ParamRole::ErrorFlag;
      params.push_back(pointer ? global_ptr : i64t);
    }
    type = llvm::FunctionType::get(b_.getVoidTy(), params, false);
  } else {
    llvm::Type *ptr = llvm::PointerType::get(ctx_, 0);
    type = llvm::FunctionType::get(b_.getVoidTy(), {i64t, i64t, ptr}, false);
  }
  fn_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
}

llvm::Value *&MethodEntryBuilder::param_slot(const KernelParam &param) {
  switch (param.role) {
    case ParamRole::Rows:
      return rows_;
    case ParamRole::RowLength:
      return len_;
    case ParamRole::Chunks:
      return chunks_;
    case ParamRole::ChunkLength:
      return chunk_len_;
    case ParamRole::ErrorFlag:
      return error_flag_;
    case ParamRole::Data: {
      llvm::Value **operands[] = {&in_, &out_, &aux_, &out_has_};
      internal_assert(param.operand >= 0 && param.operand < 4) << "method operand " << param.operand;
      return *operands[param.operand];
    }
    default:
      internal_assert(false) << "a method entry has no parameter of kind " << param.kind_name();
      return rows_;
  }
}

void MethodEntryBuilder::read_params() {
  llvm::Type *i64t = b_.getInt64Ty();
  llvm::Type *generic = llvm::PointerType::get(ctx_, 0);
  llvm::Value *params = nullptr;
  if (!gpu()) {
    begin_ = fn_->getArg(0);
    end_ = fn_->getArg(1);
    params = fn_->getArg(2);
  }
  for (std::size_t k = 0; k < params_.size(); ++k) {
    const KernelParam &param = params_[k];
    const bool pointer = param.role == ParamRole::Data || param.role == ParamRole::ErrorFlag;
    const std::string name = param.name(spec_);
    llvm::Value *value = nullptr;
    if (gpu()) {
      value = fn_->getArg(static_cast<unsigned>(k));
      if (param.role == ParamRole::ErrorFlag) {
        value = b_.CreateAddrSpaceCast(value, generic, name);
      }
    } else {
      llvm::Value *at = b_.CreateAlignedLoad(generic, b_.CreateConstInBoundsGEP1_64(generic, params, k), llvm::Align(8));
      value = b_.CreateAlignedLoad(pointer ? generic : i64t, at, llvm::Align(8), name);
    }
    param_slot(param) = value;
  }
}

llvm::Function *MethodEntryBuilder::build(MethodKernel method, const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  if (sig_.args.size() != 2 || sig_.args[0] != sig_.ret || sig_.args[1] != sig_.ret) {
    throw Error("ufunc methods need a binary function whose inputs and result share a type");
  }
  dtype_ = sig_.ret;
  spec_ = make_method_spec(sig_, method == MethodKernel::ReduceWhere);
  params_ = kernel_params(spec_);
  create_function(name);
  read_params();
  switch (method) {
    case MethodKernel::Reduce:
    case MethodKernel::ReduceWhere:
      if (gpu()) {
        emit_reduce_gpu(method == MethodKernel::ReduceWhere);
      } else {
        emit_reduce_cpu(method == MethodKernel::ReduceWhere);
      }
      break;
    case MethodKernel::Accumulate:
    case MethodKernel::AccumulateRows:
      if (!gpu()) {
        // The CPU accumulates a row per iteration either way.
        emit_counted_loop(b_, begin_, end_, i64(1), "row", [&](llvm::Value *r) { emit_accumulate_row(r); });
      } else if (method == MethodKernel::Accumulate) {
        emit_scan_gpu();
      } else {
        emit_accumulate_rows_gpu();
      }
      break;
  }
  b_.CreateRetVoid();
  if (gpu()) {
    mark_ptx_kernel(*fn_);
    mark_launch_bounds(*fn_);
  }
  return fn_;
}

}  // namespace method_detail

std::string method_entry_name(const std::string &base_name, MethodKernel method) {
  static constexpr support::EnumName<MethodKernel> kSuffixes[] = {
      {MethodKernel::Reduce, "__reduce"},
      {MethodKernel::ReduceWhere, "__reduce_where"},
      {MethodKernel::Accumulate, "__accumulate"},
      {MethodKernel::AccumulateRows, "__accumulate_rows"},
  };
  const char *suffix = support::enum_name(method, kSuffixes, nullptr);
  internal_assert(suffix != nullptr) << "unknown method kernel";
  return base_name + suffix;
}

llvm::Function *build_method_entry(llvm::Module &module, llvm::Function &scalar, const EntrySignature &sig,
                                   MethodKernel method, TargetKind kind, const std::string &name) {
  method_detail::MethodEntryBuilder builder(module, scalar, sig, kind);
  return builder.build(method, name);
}

}  // namespace ufjit::codegen
