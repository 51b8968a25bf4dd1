// Element types, loads/stores and the scalar call shared by GPU and CPU
// entries (codegen/kernel/KernelEntry.h).
#include <utility>

#include "codegen/kernel/KernelEntry.h"
#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::kernel_detail {

std::size_t element_size(DType t) { return dtype_size(t); }

bool is_complex_dtype(DType t) { return dtype_kind(t) == 'c'; }

uint64_t element_align(DType t) { return is_complex_dtype(t) ? element_size(t) / 2 : element_size(t); }

llvm::Type *component_type(llvm::LLVMContext &ctx, DType t) {
  return storage_type(ctx, lower::component_dtype(t));
}

llvm::Type *element_storage_type(llvm::LLVMContext &ctx, DType t) { return storage_type(ctx, t); }

llvm::Type *element_value_type(llvm::LLVMContext &ctx, DType t) { return value_type(ctx, t); }

llvm::Value *storage_to_value(llvm::IRBuilder<> &b, DType t, llvm::Value *stored) {
  if (t == DType::Bool) {
    // Any nonzero byte is true, so a bool array written by other code that
    // is not strictly 0/1 still reads as NumPy would.
    return b.CreateICmpNE(stored, llvm::ConstantInt::get(stored->getType(), 0));
  }
  return stored;
}

llvm::Value *value_to_storage(llvm::IRBuilder<> &b, DType t, llvm::Value *value) {
  if (t == DType::Bool) {
    return b.CreateZExt(value, b.getInt8Ty());
  }
  return value;
}

llvm::Value *make_complex(llvm::IRBuilder<> &b, DType t, llvm::Value *re, llvm::Value *im) {
  llvm::Type *type = element_storage_type(b.getContext(), t);
  llvm::Value *v = llvm::PoisonValue::get(type);
  v = b.CreateInsertValue(v, re, {0});
  v = b.CreateInsertValue(v, im, {1});
  return v;
}

llvm::Value *load_element(llvm::IRBuilder<> &b, DType t, llvm::Value *addr, uint64_t align) {
  llvm::Type *component = component_type(b.getContext(), t);
  if (is_complex_dtype(t)) {
    uint64_t half = element_size(t) / 2;
    llvm::Value *im_addr = b.CreateConstInBoundsGEP1_64(component, addr, 1);
    llvm::Value *re = b.CreateAlignedLoad(component, addr, llvm::Align(align));
    llvm::Value *im = b.CreateAlignedLoad(component, im_addr, llvm::Align(std::min(align, half)));
    return make_complex(b, t, re, im);
  }
  llvm::Value *stored = b.CreateAlignedLoad(component, addr, llvm::Align(align));
  return storage_to_value(b, t, stored);
}

void store_element(llvm::IRBuilder<> &b, DType t, llvm::Value *value, llvm::Value *addr, uint64_t align) {
  llvm::Type *component = component_type(b.getContext(), t);
  if (is_complex_dtype(t)) {
    uint64_t half = element_size(t) / 2;
    llvm::Value *im_addr = b.CreateConstInBoundsGEP1_64(component, addr, 1);
    b.CreateAlignedStore(b.CreateExtractValue(value, {0}), addr, llvm::Align(align));
    b.CreateAlignedStore(b.CreateExtractValue(value, {1}), im_addr, llvm::Align(std::min(align, half)));
    return;
  }
  b.CreateAlignedStore(value_to_storage(b, t, value), addr, llvm::Align(align));
}

namespace {

constexpr int kCheapBodyLimit = 160;
constexpr int kExpensive = 1 << 20;

int body_cost(const llvm::Function &fn, int depth, int limit) {
  if (depth > 8) {
    return kExpensive;
  }
  int cost = 0;
  for (const llvm::BasicBlock &block : fn) {
    for (const llvm::Instruction &inst : block) {
      ++cost;
      const auto *call = llvm::dyn_cast<llvm::CallBase>(&inst);
      if (call == nullptr) {
        continue;
      }
      const llvm::Function *callee = call->getCalledFunction();
      if (callee != nullptr && callee->getName() == "__nvvm_reflect") {
        continue;  // folded to a constant by NVVMReflect
      }
      if (call->isInlineAsm()) {
        continue;  // one instruction (libdevice's rcp.approx, mad.lo.cc)
      }
      if (callee == nullptr || (callee->isDeclaration() && !callee->isIntrinsic())) {
        return kExpensive;  // unknown size once linked
      }
      if (!callee->isIntrinsic()) {
        cost += body_cost(*callee, depth + 1, limit);  // a helper, or libdevice once linked
      }
      if (cost > limit) {
        return cost;
      }
    }
  }
  return cost;
}

}  // namespace

int scalar_function_cost(const llvm::Function &fn, int limit) { return body_cost(fn, 0, limit); }

bool is_cheap_scalar_function(const llvm::Function &fn) { return body_cost(fn, 0, kCheapBodyLimit) <= kCheapBodyLimit; }

std::vector<llvm::Value *> with_error_flag(llvm::IRBuilder<> &b, const llvm::Function &fn,
                                           std::vector<llvm::Value *> args, llvm::Value *error_flag) {
  if (fn.arg_size() != args.size() + 1) {
    return args;
  }
  llvm::PointerType *generic = llvm::PointerType::get(b.getContext(), 0);
  if (error_flag == nullptr) {
    args.push_back(llvm::ConstantPointerNull::get(generic));
  } else {
    args.push_back(error_flag->getType() == generic ? error_flag : b.CreateAddrSpaceCast(error_flag, generic));
  }
  return args;
}

llvm::Value *call_scalar(llvm::IRBuilder<> &b, llvm::Function &scalar, const EntrySignature &sig,
                         const std::vector<llvm::Value *> &value_args, llvm::Value *error_flag) {
  const std::vector<llvm::Value *> args = with_error_flag(b, scalar, value_args, error_flag);
  llvm::FunctionType *type = scalar.getFunctionType();
  internal_assert(type->getNumParams() == args.size() && value_args.size() == sig.args.size())
      << "scalar function " << scalar.getName().str() << " takes " << type->getNumParams()
      << " parameters, the signature has " << sig.args.size();
  for (std::size_t k = 0; k < args.size(); ++k) {
    internal_assert(type->getParamType(static_cast<unsigned>(k)) == args[k]->getType())
        << "parameter " << k << " of " << scalar.getName().str() << " has an unexpected type";
  }
  internal_assert(type->getReturnType() == element_value_type(b.getContext(), sig.ret))
      << "return type of " << scalar.getName().str() << " does not match the signature";
  llvm::CallInst *call = b.CreateCall(&scalar, args);
  call->setCallingConv(scalar.getCallingConv());
  return call;
}

}  // namespace ufjit::codegen::kernel_detail

namespace ufjit::codegen::kernel_detail {

namespace {
constexpr unsigned kGlobalAddressSpace = 1;

bool is_dims_param(ParamRole role) {
  return role == ParamRole::Shape || role == ParamRole::Strides || role == ParamRole::CoreShape ||
         role == ParamRole::CoreStrides;
}
}  // namespace

llvm::Type *gpu_param_type(llvm::LLVMContext &ctx, const KernelParam &param) {
  switch (param.role) {
    case ParamRole::Count:
    case ParamRole::NDim:
      return llvm::Type::getInt64Ty(ctx);
    case ParamRole::Data:
    case ParamRole::Done:
    case ParamRole::ErrorFlag:
      return llvm::PointerType::get(ctx, kGlobalAddressSpace);
    case ParamRole::Value:
    case ParamRole::ValueImag:
      return component_type(ctx, param.dtype);
    default:
      return llvm::PointerType::get(ctx, 0);  // byval Dims
  }
}

void mark_gpu_param(llvm::Function &fn, unsigned index, const KernelParam &param) {
  llvm::LLVMContext &ctx = fn.getContext();
  if (is_dims_param(param.role)) {
    llvm::Type *dims_type = llvm::ArrayType::get(llvm::Type::getInt64Ty(ctx), kMaxDims);
    fn.addParamAttr(index, llvm::Attribute::getWithByValType(ctx, dims_type));
    fn.addParamAttr(index, llvm::Attribute::getWithAlignment(ctx, llvm::Align(8)));
    fn.addParamAttr(index, llvm::Attribute::NoCapture);
    fn.addParamAttr(index, llvm::Attribute::ReadOnly);
  } else if (param.role == ParamRole::Data || param.role == ParamRole::Done ||
             param.role == ParamRole::ErrorFlag) {
    fn.addParamAttr(index, llvm::Attribute::NoUndef);
  }
}

std::vector<llvm::Value *> load_inputs(llvm::IRBuilder<> &b, const std::vector<EntryOperand> &operands,
                                       const std::vector<llvm::Value *> &addresses) {
  std::vector<llvm::Value *> inputs;
  for (std::size_t k = 0; k + 1 < operands.size(); ++k) {
    const EntryOperand &op = operands[k];
    if (op.is_scalar) {
      inputs.push_back(op.value);
    } else {
      inputs.push_back(load_element(b, op.dtype, addresses[k], element_align(op.dtype)));
    }
  }
  return inputs;
}

llvm::FunctionType *cpu_entry_type(llvm::LLVMContext &ctx) {
  llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
  return llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {i64, i64, llvm::PointerType::get(ctx, 0)},
                                 false);
}

CpuEntryArgs cpu_entry_args(llvm::Function &fn) {
  CpuEntryArgs args{fn.getArg(0), fn.getArg(1), fn.getArg(2)};
  args.begin->setName("begin");
  args.end->setName("end");
  args.params->setName("params");
  return args;
}

llvm::Value *load_cpu_param(llvm::IRBuilder<> &b, llvm::Value *params, unsigned index, const KernelParam &param) {
  llvm::Type *ptr = b.getPtrTy();
  llvm::Value *slot = b.CreateConstInBoundsGEP1_64(ptr, params, index);
  llvm::Value *address = b.CreateAlignedLoad(ptr, slot, llvm::Align(8), "param" + std::to_string(index));
  switch (param.role) {
    case ParamRole::Count:
    case ParamRole::NDim:
      return b.CreateAlignedLoad(b.getInt64Ty(), address, llvm::Align(8));
    case ParamRole::Data:
    case ParamRole::Done:
    case ParamRole::ErrorFlag:
      return b.CreateAlignedLoad(ptr, address, llvm::Align(8));
    case ParamRole::Value:
    case ParamRole::ValueImag:
      return b.CreateAlignedLoad(component_type(b.getContext(), param.dtype), address,
                                 llvm::Align(element_align(param.dtype)));
    default:
      return address;  // a Dims
  }
}

namespace {

/// Where bind_entry_params keeps a parameter that is bound as it comes: in
/// BoundParams (launch-wide roles) or in its operand (array roles).
constexpr std::pair<ParamRole, llvm::Value *BoundParams::*> kBoundSlots[] = {
    {ParamRole::Count, &BoundParams::n},
    {ParamRole::NDim, &BoundParams::ndim},
    {ParamRole::Shape, &BoundParams::shape},
    {ParamRole::Done, &BoundParams::done},
};
constexpr std::pair<ParamRole, llvm::Value *EntryOperand::*> kOperandSlots[] = {
    {ParamRole::Data, &EntryOperand::pointer},
    {ParamRole::Strides, &EntryOperand::strides},
    {ParamRole::CoreShape, &EntryOperand::core_shape},
    {ParamRole::CoreStrides, &EntryOperand::core_strides},
};

template <typename Slot, std::size_t N>
Slot find_slot(const std::pair<ParamRole, Slot> (&slots)[N], ParamRole role) {
  for (const auto &[slot_role, slot] : slots) {
    if (slot_role == role) return slot;
  }
  return nullptr;
}

}  // namespace

BoundParams bind_entry_params(llvm::IRBuilder<> &b, const KernelSpec &spec, const std::vector<KernelParam> &params,
                              const std::function<llvm::Value *(unsigned)> &value_of) {
  BoundParams bound;
  bound.operands.resize(spec.operands.size());
  for (std::size_t k = 0; k < spec.operands.size(); ++k) {
    bound.operands[k].dtype = spec.operands[k].dtype;
    bound.operands[k].is_scalar = spec.operands[k].is_scalar;
    bound.operands[k].core_ndim = spec.operands[k].core_ndim;
  }
  llvm::Value *real_part = nullptr;
  for (unsigned p = 0; p < params.size(); ++p) {
    const KernelParam &param = params[p];
    llvm::Value *value = value_of(p);
    value->setName(param.name(spec));
    EntryOperand *op = param.operand >= 0 ? &bound.operands[static_cast<std::size_t>(param.operand)] : nullptr;
    if (llvm::Value *BoundParams::*slot = find_slot(kBoundSlots, param.role)) {
      bound.*slot = value;
      continue;
    }
    if (llvm::Value *EntryOperand::*slot = find_slot(kOperandSlots, param.role)) {
      op->*slot = value;
      continue;
    }
    switch (param.role) {
      case ParamRole::Value:
        if (is_complex_dtype(op->dtype)) {
          real_part = value;
        } else {
          op->value = storage_to_value(b, op->dtype, value);
        }
        break;
      case ParamRole::ValueImag:
        op->value = make_complex(b, op->dtype, real_part, value);
        break;
      case ParamRole::ErrorFlag: {
        llvm::PointerType *generic = llvm::PointerType::get(b.getContext(), 0);
        bound.error_flag = value->getType() == generic ? value : b.CreateAddrSpaceCast(value, generic);
        break;
      }
      default:
        break;
    }
  }
  return bound;
}

void mark_ptx_kernel(llvm::Function &fn, const LaunchHint &hint) {
  fn.setCallingConv(llvm::CallingConv::PTX_Kernel);
  llvm::LLVMContext &ctx = fn.getContext();
  llvm::Module &module = *fn.getParent();
  llvm::NamedMDNode *annotations = module.getOrInsertNamedMetadata("nvvm.annotations");
  llvm::Metadata *ops[] = {llvm::ValueAsMetadata::get(&fn), llvm::MDString::get(ctx, "kernel"),
                           llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), 1))};
  annotations->addOperand(llvm::MDNode::get(ctx, ops));
  // External, in the global address space, so that the PTX keeps it
  // (`.visible .global .b8`) and cuModuleGetGlobal finds it by name.
  auto *type = llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), launch_hint_bytes(hint));
  new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::ExternalLinkage,
                           llvm::ConstantAggregateZero::get(type), launch_hint_symbol(fn.getName().str()), nullptr,
                           llvm::GlobalValue::NotThreadLocal, 1);
}

}  // namespace ufjit::codegen::kernel_detail
