// Explicit kernel entries (codegen/kernel/KernelABI.h, kind Explicit): the
// kernel function of a @cuda.jit signature called once per thread.
//
// requires: a kernel function taking array views {ptr, shape[d], strides[d]}
// by value (codegen/lower/LowerTypes.cpp) and scalars in value types,
// returning void, then the error flag when its module can raise, then (CPU
// only) the thread's context; guarantees: on the GPU a ptx_kernel that calls
// it once (the launch's grid and block are the caller's); on the CPU either
// `void(begin, end, params)` running blocks [begin, end) with a loop over
// each block's threads (or, for a kernel split at its barriers, calling it
// once per block: codegen/lower/KernelRegions.h), or, for a kernel whose
// threads wait for each other on fibers, `void(ctx, params)` running one
// thread (codegen/kernel/CpuKernelContext.h).
#include "codegen/kernel/CpuKernelContext.h"
#include "codegen/kernel/KernelEntry.h"
#include "codegen/lower/Lowering.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

namespace {

using namespace kernel_detail;

enum class ExplicitEntry { Gpu, CpuBlocks, CpuSplitBlocks, CpuThread };

class ExplicitEntryBuilder {
 public:
  ExplicitEntryBuilder(llvm::Module &module, llvm::Function &kernel, const EntrySignature &sig, ExplicitEntry kind,
                       bool contiguous)
      : module_(module),
        ctx_(module.getContext()),
        kernel_(kernel),
        spec_(make_kernel_spec(sig, explicit_variant(contiguous))),
        params_(kernel_params(spec_)),
        kind_(kind),
        b_(ctx_) {}

  llvm::Function *build(const std::string &name, int64_t shared_bytes);

 private:
  void create_function(const std::string &name);
  /// The kernel's arguments: views of the arrays, the scalars' values.
  std::vector<llvm::Value *> kernel_arguments(const BoundParams &bound);
  void call_kernel(std::vector<llvm::Value *> args, llvm::Value *error_flag, llvm::Value *context);
  /// The CPU loop over blocks [begin, end) and their threads (the kernel's
  /// own, split at its barriers, for CpuSplitBlocks), in `context`.
  void emit_block_loops(const std::vector<llvm::Value *> &args, llvm::Value *error_flag, llvm::Value *context);
  llvm::Value *context_i32(llvm::Value *context, std::size_t offset);
  void store_context_i32(llvm::Value *context, std::size_t offset, llvm::Value *value);

  llvm::Module &module_;
  llvm::LLVMContext &ctx_;
  llvm::Function &kernel_;
  KernelSpec spec_;
  std::vector<KernelParam> params_;
  ExplicitEntry kind_;
  llvm::IRBuilder<> b_;
  llvm::Function *fn_ = nullptr;
};

void ExplicitEntryBuilder::create_function(const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  llvm::Type *ptr = b_.getPtrTy();
  llvm::FunctionType *type = nullptr;
  if (kind_ == ExplicitEntry::Gpu) {
    std::vector<llvm::Type *> types;
    for (const KernelParam &p : params_) types.push_back(gpu_param_type(ctx_, p));
    type = llvm::FunctionType::get(b_.getVoidTy(), types, false);
  } else if (kind_ == ExplicitEntry::CpuBlocks || kind_ == ExplicitEntry::CpuSplitBlocks) {
    type = llvm::FunctionType::get(b_.getVoidTy(), {b_.getInt64Ty(), b_.getInt64Ty(), ptr}, false);
  } else {
    type = llvm::FunctionType::get(b_.getVoidTy(), {ptr, ptr}, false);
  }
  fn_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
}

std::vector<llvm::Value *> ExplicitEntryBuilder::kernel_arguments(const BoundParams &bound) {
  std::vector<llvm::Value *> args;
  llvm::FunctionType *type = kernel_.getFunctionType();
  llvm::Type *i64 = b_.getInt64Ty();
  for (std::size_t k = 0; k < bound.operands.size(); ++k) {
    const EntryOperand &op = bound.operands[k];
    llvm::Type *want = type->getParamType(static_cast<unsigned>(k));
    if (op.is_scalar) {
      internal_assert(op.value->getType() == want) << "scalar parameter " << k << " of a kernel has another type";
      args.push_back(op.value);
      continue;
    }
    llvm::Value *generic = op.pointer;
    if (kind_ == ExplicitEntry::Gpu) generic = b_.CreateAddrSpaceCast(op.pointer, b_.getPtrTy(0));
    llvm::Value *view = llvm::PoisonValue::get(want);
    view = b_.CreateInsertValue(view, generic, {0});
    // Contiguous: C order's strides, from the innermost dimension outwards.
    const bool contiguous = spec_.variant.layout == Layout::Contiguous;
    llvm::Value *c_stride = b_.getInt64(element_size(op.dtype));
    for (int d = op.core_ndim - 1; d >= 0; --d) {
      const auto u = static_cast<unsigned>(d);
      llvm::Value *extent = b_.CreateAlignedLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, op.core_shape, u), llvm::Align(8));
      llvm::Value *stride = contiguous ? c_stride
                                       : b_.CreateAlignedLoad(i64, b_.CreateConstInBoundsGEP1_64(i64, op.core_strides, u),
                                                              llvm::Align(8));
      view = b_.CreateInsertValue(view, extent, {1, u});
      view = b_.CreateInsertValue(view, stride, {2, u});
      c_stride = b_.CreateMul(c_stride, extent);
    }
    args.push_back(view);
  }
  return args;
}

void ExplicitEntryBuilder::call_kernel(std::vector<llvm::Value *> args, llvm::Value *error_flag, llvm::Value *context) {
  const std::size_t extra = (error_flag != nullptr ? 1 : 0) + (context != nullptr ? 1 : 0);
  internal_assert(kernel_.getFunctionType()->getNumParams() == args.size() + extra)
      << "kernel " << kernel_.getName().str() << " takes " << kernel_.getFunctionType()->getNumParams()
      << " parameters, its entry passes " << args.size() + extra;
  if (error_flag != nullptr) args.push_back(error_flag);
  if (context != nullptr) args.push_back(context);
  llvm::CallInst *call = b_.CreateCall(&kernel_, args);
  call->setCallingConv(kernel_.getCallingConv());
}

llvm::Value *ExplicitEntryBuilder::context_i32(llvm::Value *context, std::size_t offset) {
  llvm::LoadInst *load = b_.CreateAlignedLoad(
      b_.getInt32Ty(), b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), context, offset), llvm::Align(4));
  mark_context_field_range(*load, offset);
  return load;
}

void ExplicitEntryBuilder::store_context_i32(llvm::Value *context, std::size_t offset, llvm::Value *value) {
  b_.CreateAlignedStore(value, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), context, offset), llvm::Align(4));
}

void ExplicitEntryBuilder::emit_block_loops(const std::vector<llvm::Value *> &args, llvm::Value *error_flag,
                                            llvm::Value *context) {
  llvm::Type *i32 = b_.getInt32Ty();
  llvm::Type *i64 = b_.getInt64Ty();
  llvm::Value *grid_x = b_.CreateZExt(context_i32(context, kCtxGridDim), i64);
  llvm::Value *grid_y = b_.CreateZExt(context_i32(context, kCtxGridDim + 4), i64);
  llvm::Value *block_x = context_i32(context, kCtxBlockDim);
  llvm::Value *block_y = context_i32(context, kCtxBlockDim + 4);
  llvm::Value *block_z = context_i32(context, kCtxBlockDim + 8);
  llvm::Value *one32 = b_.getInt32(1);
  emit_counted_loop(b_, fn_->getArg(0), fn_->getArg(1), b_.getInt64(1), "block", [&](llvm::Value *block) {
    // The block's coordinates from its linear index, x fastest.
    llvm::Value *bx = b_.CreateURem(block, grid_x);
    llvm::Value *rest = b_.CreateUDiv(block, grid_x);
    llvm::Value *by = b_.CreateURem(rest, grid_y);
    llvm::Value *bz = b_.CreateUDiv(rest, grid_y);
    store_context_i32(context, kCtxBlockIdx, b_.CreateTrunc(bx, i32));
    store_context_i32(context, kCtxBlockIdx + 4, b_.CreateTrunc(by, i32));
    store_context_i32(context, kCtxBlockIdx + 8, b_.CreateTrunc(bz, i32));
    if (kind_ == ExplicitEntry::CpuSplitBlocks) {
      call_kernel(args, error_flag, context);
      return;
    }
    emit_counted_loop(b_, b_.getInt32(0), block_z, one32, "tz", [&](llvm::Value *tz) {
      store_context_i32(context, kCtxThreadIdx + 8, tz);
      emit_counted_loop(b_, b_.getInt32(0), block_y, one32, "ty", [&](llvm::Value *ty) {
        store_context_i32(context, kCtxThreadIdx + 4, ty);
        emit_counted_loop(b_, b_.getInt32(0), block_x, one32, "tx", [&](llvm::Value *tx) {
          store_context_i32(context, kCtxThreadIdx, tx);
          call_kernel(args, error_flag, context);
        });
      });
    });
  });
}

llvm::Function *ExplicitEntryBuilder::build(const std::string &name, int64_t shared_bytes) {
  internal_assert(kernel_.getReturnType()->isVoidTy()) << "kernel " << kernel_.getName().str() << " returns a value";
  create_function(name);
  llvm::Value *params = kind_ == ExplicitEntry::CpuBlocks || kind_ == ExplicitEntry::CpuSplitBlocks ? fn_->getArg(2)
                        : kind_ == ExplicitEntry::CpuThread ? fn_->getArg(1)
                                                            : nullptr;
  BoundParams bound = bind_entry_params(b_, spec_, params_, [&](unsigned p) -> llvm::Value * {
    if (kind_ == ExplicitEntry::Gpu) {
      mark_gpu_param(*fn_, p, params_[p]);
      return fn_->getArg(p);
    }
    return load_cpu_param(b_, params, p, params_[p]);
  });
  std::vector<llvm::Value *> args = kernel_arguments(bound);
  if (kind_ == ExplicitEntry::Gpu) {
    call_kernel(std::move(args), bound.error_flag, nullptr);
    b_.CreateRetVoid();
    mark_ptx_kernel(*fn_);
    return fn_;
  }
  if (kind_ == ExplicitEntry::CpuThread) {
    call_kernel(std::move(args), bound.error_flag, fn_->getArg(0));
    b_.CreateRetVoid();
    return fn_;
  }
  // A private copy of the block's context, whose thread coordinates the
  // loops rewrite (it never escapes, so they stay in registers), and the
  // block's static shared memory.
  llvm::Value *block_template = b_.CreateAlignedLoad(
      b_.getPtrTy(), b_.CreateConstInBoundsGEP1_64(b_.getPtrTy(), params, params_.size()), llvm::Align(8));
  llvm::AllocaInst *context =
      b_.CreateAlloca(llvm::ArrayType::get(b_.getInt8Ty(), sizeof(CpuThreadContext)), nullptr, "thread.context");
  context->setAlignment(llvm::Align(8));
  b_.CreateMemCpy(context, llvm::Align(8), block_template, llvm::Align(8), sizeof(CpuThreadContext));
  if (shared_bytes > 0) {
    llvm::AllocaInst *shared = b_.CreateAlloca(
        llvm::ArrayType::get(b_.getInt8Ty(), static_cast<uint64_t>(shared_bytes)), nullptr, "block.shared");
    shared->setAlignment(llvm::Align(16));
    b_.CreateAlignedStore(shared, b_.CreateConstInBoundsGEP1_64(b_.getInt8Ty(), context, kCtxShared), llvm::Align(8));
  }
  emit_block_loops(args, bound.error_flag, context);
  b_.CreateRetVoid();
  return fn_;
}

}  // namespace

llvm::Function *build_gpu_explicit_entry(llvm::Module &module, llvm::Function &kernel, const EntrySignature &sig,
                                         const KernelVariant &variant, const std::string &name) {
  const bool contiguous = variant.layout == Layout::Contiguous;
  return ExplicitEntryBuilder(module, kernel, sig, ExplicitEntry::Gpu, contiguous).build(name, 0);
}

llvm::Function *build_cpu_explicit_entry(llvm::Module &module, llvm::Function &kernel, const EntrySignature &sig,
                                         const KernelVariant &variant, const std::string &name, int64_t shared_bytes,
                                         CpuBlockShape shape) {
  const ExplicitEntry kind = shape == CpuBlockShape::Fibers    ? ExplicitEntry::CpuThread
                             : shape == CpuBlockShape::Regions ? ExplicitEntry::CpuSplitBlocks
                                                               : ExplicitEntry::CpuBlocks;
  const bool contiguous = variant.layout == Layout::Contiguous;
  return ExplicitEntryBuilder(module, kernel, sig, kind, contiguous).build(name, shared_bytes);
}

}  // namespace ufjit::codegen
