// print() (ir::Print; LANGUAGE.md section 9). The typer has built the
// printf format; here it becomes a constant string and the arguments are
// passed as printf expects them: on the CPU to the C library's variadic
// printf, on the GPU packed into a buffer of 8-byte slots for vprintf(format,
// buffer), CUDA's device printf, as Numba does. A bool prints as True or
// False (a `%s` given one of two constant strings).
#include "codegen/lower/LowerFunction.h"

namespace ufjit::codegen::lower {

namespace {

/// The bytes of `text` and its NUL, as constant_array_data wants them.
std::string c_string(const std::string &text) { return text + std::string(1, '\0'); }

}  // namespace

void FunctionLowerer::emit_print(const ir::Print &p) {
  std::vector<llvm::Value *> values;
  for (const ir::Expr &a : p.args) {
    llvm::Value *v = emit(a);
    if (a.type().dtype() == DType::Bool) {
      v = builder_.CreateSelect(v, constant_array_data(c_string("True")), constant_array_data(c_string("False")));
    }
    values.push_back(v);
  }
  llvm::Value *format = constant_array_data(c_string(p.format));
  llvm::Type *ptr = llvm::PointerType::get(ms_.ctx(), 0);
  if (ms_.target.kind == TargetKind::Cpu) {
    llvm::FunctionCallee printf_fn =
        ms_.module.getOrInsertFunction("printf", llvm::FunctionType::get(builder_.getInt32Ty(), {ptr}, true));
    std::vector<llvm::Value *> args = {format};
    args.insert(args.end(), values.begin(), values.end());
    builder_.CreateCall(printf_fn, args);
    return;
  }
  llvm::FunctionCallee vprintf =
      ms_.module.getOrInsertFunction("vprintf", llvm::FunctionType::get(builder_.getInt32Ty(), {ptr, ptr}, false));
  llvm::Value *buffer = llvm::ConstantPointerNull::get(llvm::cast<llvm::PointerType>(ptr));
  if (!values.empty()) {
    // Every argument is 8 bytes (int64, double or a pointer): one slot each.
    llvm::Type *slots = llvm::ArrayType::get(builder_.getInt64Ty(), values.size());
    llvm::BasicBlock &first = builder_.GetInsertBlock()->getParent()->getEntryBlock();
    llvm::IRBuilder<> entry(&first, first.begin());
    llvm::AllocaInst *slot_array = entry.CreateAlloca(slots, nullptr, "print.args");
    slot_array->setAlignment(llvm::Align(8));
    for (std::size_t k = 0; k < values.size(); ++k) {
      llvm::Value *at = builder_.CreateConstInBoundsGEP2_32(slots, slot_array, 0, static_cast<unsigned>(k));
      builder_.CreateAlignedStore(values[k], at, llvm::Align(8));
    }
    buffer = builder_.CreateAddrSpaceCast(slot_array, ptr);
  }
  builder_.CreateCall(vprintf, {format, buffer});
}

}  // namespace ufjit::codegen::lower
