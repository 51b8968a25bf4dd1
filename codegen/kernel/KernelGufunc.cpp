// Gufunc entries (codegen/kernel/KernelEntry.h, KernelABI.h kind Gufunc): the core
// function of a @guvectorize signature called once per outer element.
//
// requires: a core function taking array views {ptr, shape[d], strides[d]}
// by value (codegen/lower/LowerTypes.cpp) and scalars in value types, returning
// void; guarantees: on the GPU a ptx_kernel with a grid-stride loop over the
// n outer elements (one thread each), on the CPU `void(begin, end, params)`
// over [begin, end). Both decompose the outer index into coordinates of the
// outer shape (C order) and add coordinate times outer stride to each
// operand's pointer; core shapes and strides are passed through unchanged.
// Outer indices use 64-bit arithmetic.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include "codegen/kernel/KernelEntry.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

namespace {

using namespace kernel_detail;

using GufuncOperand = EntryOperand;

/// The scalar function of EntryBuilderState is the gufunc's core function.
class GufuncEntryBuilder : EntryBuilderState {
 public:
  GufuncEntryBuilder(llvm::Module &module, llvm::Function &core, const EntrySignature &sig, bool gpu)
      : EntryBuilderState(module, core, sig),
        spec_(make_kernel_spec(sig, gufunc_variant())),
        params_(kernel_params(spec_)),
        gpu_(gpu) {}

  llvm::Function *build(const std::string &name);

 private:
  void create_function(const std::string &name);
  void bind_parameters();
  llvm::Value *load_dim(llvm::Value *dims, llvm::Value *d);
  /// One core call for outer index `i`.
  void emit_outer_element(llvm::Value *i);

  KernelSpec spec_;
  std::vector<KernelParam> params_;
  bool gpu_;
  llvm::Value *n_ = nullptr;
  llvm::Value *ndim_ = nullptr;
  llvm::Value *shape_ = nullptr;
  llvm::Value *begin_ = nullptr;  // CPU
  llvm::Value *end_ = nullptr;    // CPU
  llvm::Value *rem_slot_ = nullptr;
  std::vector<llvm::Value *> offset_slots_;
  std::vector<GufuncOperand> operands_;
  llvm::Value *error_flag_ = nullptr;  // KernelABI.h: only when the module can raise
};

void GufuncEntryBuilder::create_function(const std::string &name) {
  internal_assert(module_.getFunction(name) == nullptr) << "entry " << name << " defined twice";
  llvm::FunctionType *type = nullptr;
  if (gpu_) {
    std::vector<llvm::Type *> types;
    for (const KernelParam &p : params_) {
      types.push_back(gpu_param_type(ctx_, p));
    }
    type = llvm::FunctionType::get(b_.getVoidTy(), types, false);
  } else {
    type = cpu_entry_type(ctx_);
  }
  fn_ = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, name, module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  b_.SetInsertPoint(llvm::BasicBlock::Create(ctx_, "entry", fn_));
}

void GufuncEntryBuilder::bind_parameters() {
  llvm::Value *params = nullptr;
  if (!gpu_) {
    const CpuEntryArgs args = cpu_entry_args(*fn_);
    begin_ = args.begin;
    end_ = args.end;
    params = args.params;
  }
  BoundParams bound = bind_entry_params(b_, spec_, params_, [&](unsigned p) -> llvm::Value * {
    if (gpu_) {
      mark_gpu_param(*fn_, p, params_[p]);
      return fn_->getArg(p);
    }
    return load_cpu_param(b_, params, p, params_[p]);
  });
  n_ = bound.n;
  ndim_ = bound.ndim;
  shape_ = bound.shape;
  operands_ = std::move(bound.operands);
  error_flag_ = bound.error_flag;
}

llvm::Value *GufuncEntryBuilder::load_dim(llvm::Value *dims, llvm::Value *d) {
  llvm::Type *i64 = b_.getInt64Ty();
  return b_.CreateAlignedLoad(i64, b_.CreateInBoundsGEP(i64, dims, d), llvm::Align(8));
}

void GufuncEntryBuilder::emit_outer_element(llvm::Value *i) {
  llvm::Type *i64 = b_.getInt64Ty();
  llvm::Value *zero = b_.getInt64(0);
  llvm::Value *one = b_.getInt64(1);
  b_.CreateStore(i, rem_slot_);
  for (llvm::Value *slot : offset_slots_) {
    b_.CreateStore(zero, slot);
  }
  // Coordinates from the innermost outer dim outwards; ndim >= 1.
  emit_counted_loop(b_, zero, ndim_, one, "dim", [&](llvm::Value *j) {
    llvm::Value *d = b_.CreateSub(b_.CreateSub(ndim_, one), j);
    llvm::Value *extent = load_dim(shape_, d);
    llvm::Value *rem = b_.CreateLoad(i64, rem_slot_);
    llvm::Value *coord = b_.CreateURem(rem, extent, "coord");
    b_.CreateStore(b_.CreateUDiv(rem, extent), rem_slot_);
    for (std::size_t k = 0; k < operands_.size(); ++k) {
      llvm::Value *offset = b_.CreateLoad(i64, offset_slots_[k]);
      llvm::Value *stride = load_dim(operands_[k].strides, d);
      b_.CreateStore(b_.CreateAdd(offset, b_.CreateMul(coord, stride)), offset_slots_[k]);
    }
  });
  std::vector<llvm::Value *> args;
  llvm::FunctionType *core_type = scalar_.getFunctionType();
  const std::size_t flag_params = error_flag_ != nullptr ? 1 : 0;
  internal_assert(core_type->getNumParams() == operands_.size() + flag_params)
      << "core function " << scalar_.getName().str() << " takes " << core_type->getNumParams()
      << " parameters, the "
      << "gufunc signature has " << operands_.size();
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    const GufuncOperand &op = operands_[k];
    llvm::Value *offset = b_.CreateLoad(i64, offset_slots_[k]);
    llvm::Value *address = b_.CreateGEP(b_.getInt8Ty(), op.pointer, offset);
    llvm::Type *want = core_type->getParamType(static_cast<unsigned>(k));
    if (op.core_ndim == 0) {
      llvm::Value *value = load_element(b_, op.dtype, address, element_align(op.dtype));
      internal_assert(value->getType() == want) << "scalar parameter " << k << " of a gufunc core has another type";
      args.push_back(value);
      continue;
    }
    // The core function's view {generic pointer, shape[d], strides[d]}.
    llvm::Value *generic = gpu_ ? b_.CreateAddrSpaceCast(address, b_.getPtrTy(0)) : address;
    llvm::Value *view = llvm::PoisonValue::get(want);
    view = b_.CreateInsertValue(view, generic, {0});
    for (int d = 0; d < op.core_ndim; ++d) {
      const auto u = static_cast<unsigned>(d);
      view = b_.CreateInsertValue(view, load_dim(op.core_shape, b_.getInt64(u)), {1, u});
      view = b_.CreateInsertValue(view, load_dim(op.core_strides, b_.getInt64(u)), {2, u});
    }
    args.push_back(view);
  }
  args = with_error_flag(b_, scalar_, std::move(args), error_flag_);
  llvm::CallInst *call = b_.CreateCall(&scalar_, args);
  call->setCallingConv(scalar_.getCallingConv());
}

llvm::Function *GufuncEntryBuilder::build(const std::string &name) {
  internal_assert(scalar_.getReturnType()->isVoidTy())
      << "gufunc core " << scalar_.getName().str() << " returns a value";
  create_function(name);
  bind_parameters();
  llvm::Type *i64 = b_.getInt64Ty();
  llvm::IRBuilder<> entry_builder(&fn_->getEntryBlock(), fn_->getEntryBlock().begin());
  rem_slot_ = entry_builder.CreateAlloca(i64, nullptr, "rem.slot");
  for (std::size_t k = 0; k < operands_.size(); ++k) {
    offset_slots_.push_back(entry_builder.CreateAlloca(i64, nullptr, "off.slot"));
  }
  if (gpu_) {
    // One read per statement: the PTX must not depend on argument evaluation order.
    llvm::Value *block = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x, {}, {}), i64);
    llvm::Value *block_size = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_ntid_x, {}, {}), i64);
    llvm::Value *thread = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x, {}, {}), i64);
    llvm::Value *grid = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::nvvm_read_ptx_sreg_nctaid_x, {}, {}), i64);
    llvm::Value *gid = b_.CreateAdd(b_.CreateMul(block, block_size, "block.start", true, false), thread, "gid", true, false);
    llvm::Value *stride = b_.CreateMul(block_size, grid, "stride", true, false);
    emit_counted_loop(b_, gid, n_, stride, "outer", [&](llvm::Value *i) { emit_outer_element(i); });
  } else {
    emit_counted_loop(b_, begin_, end_, b_.getInt64(1), "outer", [&](llvm::Value *i) { emit_outer_element(i); });
  }
  b_.CreateRetVoid();
  if (gpu_) {
    mark_ptx_kernel(*fn_);
  }
  return fn_;
}

}  // namespace

llvm::Function *build_gpu_gufunc_entry(llvm::Module &module, llvm::Function &core, const EntrySignature &sig,
                                       const std::string &name) {
  return GufuncEntryBuilder(module, core, sig, true).build(name);
}

llvm::Function *build_cpu_gufunc_entry(llvm::Module &module, llvm::Function &core, const EntrySignature &sig,
                                       const std::string &name) {
  return GufuncEntryBuilder(module, core, sig, false).build(name);
}

}  // namespace ufjit::codegen
