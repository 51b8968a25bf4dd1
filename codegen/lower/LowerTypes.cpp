// Types and constants of the scalar lowering.
// requires: scalar dtypes / ir::Types; guarantees: the value and storage types
// documented in codegen/lower/Lowering.h.
#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen {

llvm::Type *value_type(llvm::LLVMContext &ctx, DType t) {
  if (is_bool(t)) {
    return llvm::Type::getInt1Ty(ctx);
  }
  // LLVM's integers have no sign: the operations say how to read them.
  if (is_integer(t)) {
    return llvm::Type::getIntNTy(ctx, static_cast<unsigned>(8 * dtype_size(t)));
  }
  switch (t) {
    case DType::Float16:
      return llvm::Type::getHalfTy(ctx);
    case DType::Float32:
      return llvm::Type::getFloatTy(ctx);
    case DType::Float64:
      return llvm::Type::getDoubleTy(ctx);
    case DType::Complex64:
    case DType::Complex128: {
      llvm::Type *part = value_type(ctx, lower::component_dtype(t));
      return llvm::StructType::get(ctx, {part, part});
    }
    default:
      break;
  }
  internal_error << "value_type: unknown dtype";
}

llvm::Type *storage_type(llvm::LLVMContext &ctx, DType t) {
  if (t == DType::Bool) {
    return llvm::Type::getInt8Ty(ctx);
  }
  return value_type(ctx, t);
}

llvm::Type *value_type(llvm::LLVMContext &ctx, const ir::Type &t) {
  switch (t.kind()) {
    case ir::Type::Kind::Void:
      return llvm::Type::getVoidTy(ctx);
    case ir::Type::Kind::Scalar:
      return value_type(ctx, t.dtype());
    case ir::Type::Kind::Tuple: {
      std::vector<llvm::Type *> elements;
      for (const ir::Type &element : t.elements()) {
        elements.push_back(value_type(ctx, element));
      }
      return llvm::StructType::get(ctx, elements);
    }
    case ir::Type::Kind::Array: {
      // An array view: {data pointer, shape[ndim] (int64), byte strides[ndim] (int64)}.
      llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
      llvm::Type *dims = llvm::ArrayType::get(i64, static_cast<uint64_t>(t.ndim()));
      return llvm::StructType::get(ctx, {llvm::PointerType::get(ctx, 0), dims, dims});
    }
  }
  internal_error << "value_type: unknown IR type kind";
}

namespace lower {

DType component_dtype(DType t) {
  if (t == DType::Complex64) {
    return DType::Float32;
  }
  if (t == DType::Complex128) {
    return DType::Float64;
  }
  return t;
}

DType compute_dtype(DType t) { return t == DType::Float16 ? DType::Float32 : t; }

llvm::Constant *float_constant(llvm::Type *type, double v) { return llvm::ConstantFP::get(type, v); }

llvm::Constant *lower_constant(llvm::LLVMContext &ctx, const ir::Const &c) {
  internal_assert(c.type.is_scalar()) << "constant of non-scalar type " << c.type.str();
  DType t = c.type.dtype();
  llvm::Type *type = value_type(ctx, t);
  if (t == DType::Bool) {
    return llvm::ConstantInt::get(type, c.int_bits != 0 ? 1 : 0);
  }
  if (is_integer(t)) {
    // int_bits holds the value extended to 64 bits; truncation keeps the low bits.
    return llvm::ConstantInt::get(type, c.int_bits, false);
  }
  if (is_float(t)) {
    return llvm::ConstantFP::get(type, c.float_value);
  }
  llvm::Type *component = value_type(ctx, component_dtype(t));
  llvm::Constant *re = llvm::ConstantFP::get(component, c.complex_value.real());
  llvm::Constant *im = llvm::ConstantFP::get(component, c.complex_value.imag());
  return llvm::ConstantStruct::get(llvm::cast<llvm::StructType>(type), {re, im});
}

llvm::BasicBlock *new_block(Emitter &e, const char *name) {
  return llvm::BasicBlock::Create(e.ctx(), name, e.b.GetInsertBlock()->getParent());
}

llvm::AllocaInst *Emitter::entry_alloca(llvm::Type *type, const char *name) {
  llvm::Function *f = b.GetInsertBlock()->getParent();
  llvm::BasicBlock &entry = f->getEntryBlock();
  llvm::IRBuilder<> entry_builder(&entry, entry.getFirstInsertionPt());
  return entry_builder.CreateAlloca(type, nullptr, name);
}

llvm::FastMathFlags ModuleState::fast_math_flags() const {
  llvm::FastMathFlags flags;
  if (target.fastmath) {
    // fastmath: contraction, approximate functions and reciprocals, and no
    // signed zeros. Deliberately NOT nnan/ninf: isnan/isinf must keep working
    // and NaN inputs must not become poison.
    flags.setAllowContract(true);
    flags.setApproxFunc(true);
    flags.setAllowReciprocal(true);
    flags.setNoSignedZeros(true);
  }
  return flags;
}

std::string ModuleState::helper_name(const std::string &what) const {
  return "ufjit." + what + (target.fastmath ? ".fast" : "");
}

llvm::Function *get_or_build_helper(ModuleState &ms, const std::string &name, llvm::FunctionType *type,
                                    const std::function<void(Emitter &, llvm::Function *)> &build) {
  if (llvm::Function *existing = ms.module.getFunction(name)) {
    internal_assert(existing->getFunctionType() == type) << "helper " << name << " declared with another type";
    return existing;
  }
  llvm::Function *f = llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, name, ms.module);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::BasicBlock *entry = llvm::BasicBlock::Create(ms.ctx(), "entry", f);
  llvm::IRBuilder<> builder(entry);
  builder.setFastMathFlags(ms.fast_math_flags());
  Emitter e{ms, builder};
  build(e, f);
  return f;
}

std::vector<llvm::Value *> emit_if_else(Emitter &e, llvm::Value *cond,
                                        const std::function<std::vector<llvm::Value *>()> &then_fn,
                                        const std::function<std::vector<llvm::Value *>()> &else_fn) {
  llvm::BasicBlock *then_block = new_block(e, "if.then");
  llvm::BasicBlock *else_block = new_block(e, "if.else");
  llvm::BasicBlock *join_block = new_block(e, "if.join");
  e.b.CreateCondBr(cond, then_block, else_block);

  e.b.SetInsertPoint(then_block);
  std::vector<llvm::Value *> then_values = then_fn();
  llvm::BasicBlock *then_end = e.b.GetInsertBlock();
  e.b.CreateBr(join_block);

  e.b.SetInsertPoint(else_block);
  std::vector<llvm::Value *> else_values = else_fn();
  llvm::BasicBlock *else_end = e.b.GetInsertBlock();
  e.b.CreateBr(join_block);

  internal_assert(then_values.size() == else_values.size()) << "emit_if_else: arms give different counts";
  e.b.SetInsertPoint(join_block);
  std::vector<llvm::Value *> joined;
  for (std::size_t i = 0; i < then_values.size(); ++i) {
    llvm::PHINode *phi = e.b.CreatePHI(then_values[i]->getType(), 2);
    phi->addIncoming(then_values[i], then_end);
    phi->addIncoming(else_values[i], else_end);
    joined.push_back(phi);
  }
  return joined;
}

}  // namespace lower
}  // namespace ufjit::codegen
