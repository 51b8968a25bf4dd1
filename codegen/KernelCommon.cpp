// Element types, loads/stores and the scalar call shared by GPU and CPU
// entries (codegen/KernelEntry.h).
#include "codegen/KernelEntry.h"
#include "codegen/LowerInternal.h"
#include "frontend/InternalAssert.h"

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

int body_cost(const llvm::Function &fn, int depth) {
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
      if (callee == nullptr || (callee->isDeclaration() && !callee->isIntrinsic())) {
        return kExpensive;  // unknown size once linked
      }
      if (!callee->isIntrinsic()) {
        cost += body_cost(*callee, depth + 1);  // a helper, or libdevice once linked
      }
      if (cost > kCheapBodyLimit) {
        return cost;
      }
    }
  }
  return cost;
}

}  // namespace

int scalar_function_cost(const llvm::Function &fn) { return body_cost(fn, 0); }

bool is_cheap_scalar_function(const llvm::Function &fn) { return body_cost(fn, 0) <= kCheapBodyLimit; }

llvm::Value *call_scalar(llvm::IRBuilder<> &b, llvm::Function &scalar, const EntrySignature &sig,
                         const std::vector<llvm::Value *> &args) {
  llvm::FunctionType *type = scalar.getFunctionType();
  internal_assert(type->getNumParams() == args.size() && args.size() == sig.args.size())
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
