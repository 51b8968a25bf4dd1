// Calls of CUDA C++ functions (ir::ExternFunction, from declare_device):
// each extern becomes an external declaration of its C symbol and, for
// Numba's device ABI, an internal wrapper that passes a slot for the result
// and reads it back, so that ir::Call lowers the same way for every callee.
//
// requires: a module whose Calls name functions or externs; guarantees:
// ms.functions maps every extern name to an LLVM function taking and
// returning value types. The CPU target has no CUDA C++: a module with
// externs is an error there that names the function and its file.
#include "codegen/CAbi.h"
#include "codegen/lower/LowerInternal.h"
#include "ufjit/errors.h"

namespace ufjit::codegen::lower {
namespace {

/// The external declaration of `ext`'s C symbol (shared by every module
/// lowered into one llvm::Module; two declarations must agree).
llvm::Function *declare_symbol(ModuleState &ms, const ir::ExternFunction &ext) {
  llvm::LLVMContext &ctx = ms.ctx();
  const bool numba = ext.abi == ir::ExternFunction::Abi::Numba;
  std::vector<llvm::Type *> params;
  if (numba) {
    params.push_back(llvm::PointerType::get(ctx, 0));
  }
  for (const ir::Type &t : ext.params) {
    params.push_back(value_type(ctx, t));
  }
  llvm::Type *ret = numba ? llvm::Type::getInt32Ty(ctx) : value_type(ctx, ext.ret);
  llvm::FunctionType *type = llvm::FunctionType::get(ret, params, false);
  if (llvm::Function *existing = ms.module.getFunction(ext.name)) {
    if (existing->getFunctionType() != type) {
      throw Error("CUDA C++ function '" + ext.name + "' is declared with two different signatures in one module");
    }
    return existing;
  }
  llvm::Function *f = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, ext.name, ms.module);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  const unsigned first = numba ? 1 : 0;
  for (std::size_t k = 0; k < ext.params.size(); ++k) {
    llvm::Attribute::AttrKind ext_kind = c_abi_llvm_extension(ext.params[k].dtype());
    if (ext_kind != llvm::Attribute::None) {
      f->addParamAttr(static_cast<unsigned>(first + k), ext_kind);
    }
  }
  if (!numba && c_abi_llvm_extension(ext.ret.dtype()) != llvm::Attribute::None) {
    f->addRetAttr(c_abi_llvm_extension(ext.ret.dtype()));
  }
  return f;
}

/// `ret name(params)` in value types around a Numba-ABI symbol.
llvm::Function *numba_wrapper(ModuleState &ms, const ir::ExternFunction &ext, llvm::Function *symbol) {
  llvm::LLVMContext &ctx = ms.ctx();
  std::vector<llvm::Type *> params;
  for (const ir::Type &t : ext.params) {
    params.push_back(value_type(ctx, t));
  }
  llvm::FunctionType *type = llvm::FunctionType::get(value_type(ctx, ext.ret), params, false);
  llvm::Function *f =
      llvm::Function::Create(type, llvm::GlobalValue::InternalLinkage, ms.prefix + ext.name + ".numba", ms.module);
  f->addFnAttr(llvm::Attribute::AlwaysInline);
  f->addFnAttr(llvm::Attribute::NoUnwind);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
  llvm::Type *stored = storage_type(ctx, ext.ret.dtype());
  llvm::Value *slot = b.CreateAlloca(stored);
  std::vector<llvm::Value *> args = {slot};
  for (llvm::Argument &a : f->args()) {
    args.push_back(&a);
  }
  // The status is Numba's exception flag; device functions written for
  // ufuncs return 0, and a ufunc has no exception to raise: it is ignored.
  b.CreateCall(symbol, args);
  llvm::Value *value = b.CreateLoad(stored, slot);
  if (value->getType() != value_type(ctx, ext.ret)) {
    value = b.CreateICmpNE(value, llvm::ConstantInt::get(stored, 0));  // bool: i8 -> i1
  }
  b.CreateRet(value);
  return f;
}

}  // namespace

void declare_externs(const ir::Module &module, ModuleState &ms) {
  for (const ir::ExternFunction &ext : module.externs) {
    if (ms.target.kind != TargetKind::Cuda) {
      std::string files;
      for (const ir::LinkFile &f : module.link_files) {
        files += (files.empty() ? "" : ", ") + f.spelled;
      }
      DiagnosticMessage d;
      d.file = ext.decl_file;
      d.line = ext.decl_line;
      d.column = ext.decl_col;
      d.severity = "error";
      d.message = "'" + module.name + "' calls CUDA C++ function '" + ext.name + "' (declare_device" +
                  (files.empty() ? "" : ", from " + files) + "), which only the CUDA target can run";
      d.rendered = d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": error: " + d.message +
                   "\n";
      throw CompileError(d.rendered, {d});
    }
    for (const ir::Type &t : ext.params) {
      if (c_type(t.dtype()).empty()) {
        throw Error("CUDA C++ function '" + ext.name + "' takes " + t.str() + ", which its ABI cannot carry");
      }
    }
    if (c_type(ext.ret.dtype()).empty()) {
      throw Error("CUDA C++ function '" + ext.name + "' returns " + ext.ret.str() + ", which its ABI cannot carry");
    }
    llvm::Function *symbol = declare_symbol(ms, ext);
    ms.functions[ext.name] =
        ext.abi == ir::ExternFunction::Abi::Numba ? numba_wrapper(ms, ext, symbol) : symbol;
  }
}

}  // namespace ufjit::codegen::lower

namespace ufjit::codegen {

llvm::Attribute::AttrKind c_abi_llvm_extension(DType t) {
  switch (c_abi_extension(t)) {
    case CExtension::Zero:
      return llvm::Attribute::ZExt;
    case CExtension::Sign:
      return llvm::Attribute::SExt;
    case CExtension::None:
      break;
  }
  return llvm::Attribute::None;
}

}  // namespace ufjit::codegen
