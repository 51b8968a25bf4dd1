// cuda.popc, cuda.clz, cuda.ffs and cuda.brev (LANGUAGE.md section 6) as LLVM
// bit intrinsics, so that the CPU and the GPU target compute the same values
// (NVPTX selects popc.b32/b64, clz.b32/b64 and brev.b32/b64 for them).
// requires: an integer argument of the intrinsic's IR type; guarantees: no
// poison (ctlz/cttz are asked for a defined result at zero).
#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {

llvm::Value *lower_bit_intrinsic(Emitter &e, ir::IntrinsicOp op, llvm::Value *x) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *t = x->getType();
  internal_assert(t->isIntegerTy()) << "bit intrinsic " << ir::intrinsic_name(op) << " of a non-integer";
  switch (op) {
    case ir::IntrinsicOp::Popc:
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, x);
    case ir::IntrinsicOp::Clz:
      // A zero argument gives the bit width (Numba: clz(int32 0) is 32).
      return b.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, x, b.getFalse());
    case ir::IntrinsicOp::Brev:
      return b.CreateUnaryIntrinsic(llvm::Intrinsic::bitreverse, x);
    case ir::IntrinsicOp::Ffs: {
      // CUDA's __ffs/__ffsll: the 1-based position of the lowest set bit, 0
      // for 0. cttz(0) is defined (the width) but replaced by the select.
      llvm::Value *zeros = b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, x, b.getFalse());
      llvm::Value *position = b.CreateAdd(zeros, llvm::ConstantInt::get(t, 1));
      llvm::Value *is_zero = b.CreateICmpEQ(x, llvm::ConstantInt::get(t, 0));
      llvm::Value *result = b.CreateSelect(is_zero, llvm::ConstantInt::get(t, 0), position);
      return b.CreateZExtOrTrunc(result, b.getInt32Ty());
    }
    default:
      break;
  }
  internal_error << "not a bit intrinsic: " << ir::intrinsic_name(op);
  return nullptr;
}

}  // namespace ufjit::codegen::lower
