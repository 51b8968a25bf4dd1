// NumPy's scalar functions that are more than one library call
// (LANGUAGE.md section 6, `np.`): logaddexp, logaddexp2 and spacing on
// floats, gcd and lcm on integers, with NumPy's definitions (npy_math:
// npy_logaddexp, npy_spacing, npy_gcd) so that both targets agree with it.
// requires: float arguments of the result's type (float16 computed in
// float32 and rounded back) or integer arguments of the result's type;
// guarantees: no library call beyond exp/log1p/nextafter, no poison, no trap
// (gcd/lcm divide only by a non-zero divisor).
#include <cmath>

#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

constexpr double kLn2 = 0.693147180559945309417232121458176568;
constexpr double kLog2E = 1.442695040888963407359924681001892137;

llvm::Value *widen(Emitter &e, llvm::Value *v) {
  return v->getType()->isHalfTy() ? e.b.CreateFPExt(v, e.b.getFloatTy()) : v;
}

llvm::Value *narrow_to(Emitter &e, llvm::Value *v, DType type) {
  return type == DType::Float16 ? e.b.CreateFPTrunc(v, e.b.getHalfTy()) : v;
}

/// npy_logaddexp / npy_logaddexp2 on float32/float64 values: equal operands
/// (infinities of one sign included) give x + log(2); otherwise the larger
/// plus log1p(exp(-|x - y|)); a NaN difference is the result.
llvm::Value *logaddexp(Emitter &e, llvm::Value *x, llvm::Value *y, DType ct, bool base2) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *t = x->getType();
  llvm::Value *diff = b.CreateFSub(x, y);
  llvm::Value *minus_abs = b.CreateFNeg(call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {diff}));
  llvm::Value *term = nullptr;
  if (base2) {
    // log2(1 + 2**-|d|) = log1p(exp2(-|d|)) / ln(2)
    llvm::Value *power = call_libm(e, "exp2", ct, {minus_abs});
    term = b.CreateFMul(call_libm(e, "log1p", ct, {power}), float_constant(t, kLog2E));
  } else {
    term = call_libm(e, "log1p", ct, {call_libm(e, "exp", ct, {minus_abs})});
  }
  llvm::Value *larger = b.CreateSelect(b.CreateFCmpOGT(diff, float_constant(t, 0.0)), x, y);
  llvm::Value *result = b.CreateFAdd(larger, term);
  result = b.CreateSelect(float_isnan(e, diff), diff, result);
  llvm::Value *same = b.CreateFAdd(x, float_constant(t, base2 ? 1.0 : kLn2));
  return b.CreateSelect(b.CreateFCmpOEQ(x, y), same, result);
}

/// npy_spacing: the distance from x to the next value away from zero (a
/// positive one for either zero), NaN for infinities and NaN. NumPy's
/// float16 loop (npy_half_spacing) steps towards +inf instead, so that
/// spacing(float16(-1)) is +2**-11 where spacing(-1.0) is -2**-52.
llvm::Value *spacing(Emitter &e, llvm::Value *x, DType type) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *t = x->getType();
  llvm::Value *inf = float_constant(t, INFINITY);
  llvm::Value *away = type == DType::Float16 ? inf : call_llvm_intrinsic(e, llvm::Intrinsic::copysign, {inf, x});
  // nextafter steps by the ulp of `type` (float16 on its own bits).
  llvm::Value *next = lower_real_intrinsic(e, ir::IntrinsicOp::Nextafter, type, {x, away});
  llvm::Value *step = narrow_to(e, b.CreateFSub(widen(e, next), widen(e, x)), type);
  llvm::Value *zero = float_constant(t, 0.0);
  llvm::Value *tiny = lower_real_intrinsic(e, ir::IntrinsicOp::Nextafter, type, {zero, inf});
  step = b.CreateSelect(b.CreateFCmpOEQ(x, zero), tiny, step);
  llvm::Value *nan = float_constant(t, NAN);
  return b.CreateSelect(float_isfinite(e, widen(e, x)), step, nan);
}

/// The magnitude of an integer as the unsigned bits of its type (the most
/// negative value stays itself: its magnitude does not fit, as in NumPy).
llvm::Value *magnitude(Emitter &e, llvm::Value *v, bool is_signed) {
  if (!is_signed) {
    return v;
  }
  return e.b.CreateIntrinsic(llvm::Intrinsic::abs, {v->getType()}, {v, e.b.getFalse()});
}

/// gcd of two unsigned magnitudes by Euclid's algorithm, in a helper (a loop).
llvm::Value *unsigned_gcd(Emitter &e, llvm::Value *a, llvm::Value *b) {
  auto *t = llvm::cast<llvm::IntegerType>(a->getType());
  llvm::FunctionType *fn_type = llvm::FunctionType::get(t, {t, t}, false);
  std::string name = e.ms.helper_name("gcd.i" + std::to_string(t->getBitWidth()));
  llvm::Function *helper = get_or_build_helper(e.ms, name, fn_type, [t](Emitter &h, llvm::Function *f) {
    llvm::IRBuilder<> &b = h.b;
    llvm::BasicBlock *entry = b.GetInsertBlock();
    llvm::BasicBlock *loop = llvm::BasicBlock::Create(h.ctx(), "gcd.loop", f);
    llvm::BasicBlock *step = llvm::BasicBlock::Create(h.ctx(), "gcd.step", f);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(h.ctx(), "gcd.done", f);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    llvm::PHINode *x = b.CreatePHI(t, 2, "x");
    llvm::PHINode *y = b.CreatePHI(t, 2, "y");
    x->addIncoming(f->getArg(0), entry);
    y->addIncoming(f->getArg(1), entry);
    b.CreateCondBr(b.CreateICmpEQ(y, llvm::ConstantInt::get(t, 0)), done, step);
    b.SetInsertPoint(step);
    llvm::Value *rest = b.CreateURem(x, y);  // y != 0 here
    x->addIncoming(y, step);
    y->addIncoming(rest, step);
    b.CreateBr(loop);
    b.SetInsertPoint(done);
    b.CreateRet(x);
  });
  return e.b.CreateCall(helper, {a, b});
}

}  // namespace

llvm::Value *lower_numpy_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type, llvm::ArrayRef<llvm::Value *> args) {
  using ir::IntrinsicOp;
  switch (op) {
    case IntrinsicOp::Logaddexp:
    case IntrinsicOp::Logaddexp2: {
      internal_assert(is_float(type)) << ir::intrinsic_name(op) << " on " << dtype_name(type);
      DType ct = compute_dtype(type);
      llvm::Value *r = logaddexp(e, widen(e, args[0]), widen(e, args[1]), ct, op == IntrinsicOp::Logaddexp2);
      return narrow_to(e, r, type);
    }
    case IntrinsicOp::Spacing:
      internal_assert(is_float(type)) << "spacing on " << dtype_name(type);
      return spacing(e, args[0], type);
    case IntrinsicOp::Gcd:
    case IntrinsicOp::Lcm: {
      internal_assert(is_integer(type)) << ir::intrinsic_name(op) << " on " << dtype_name(type);
      bool is_signed = is_signed_int(type);
      llvm::Value *a = magnitude(e, args[0], is_signed);
      llvm::Value *b = magnitude(e, args[1], is_signed);
      llvm::Value *g = unsigned_gcd(e, a, b);
      if (op == IntrinsicOp::Gcd) {
        return g;
      }
      // lcm = |a| / gcd * |b|, wrapping; 0 when either is 0 (gcd 0 only then).
      llvm::Value *zero = llvm::ConstantInt::get(g->getType(), 0);
      llvm::Value *g_is_zero = e.b.CreateICmpEQ(g, zero);
      llvm::Value *divisor = e.b.CreateSelect(g_is_zero, llvm::ConstantInt::get(g->getType(), 1), g);
      llvm::Value *lcm = e.b.CreateMul(e.b.CreateUDiv(a, divisor), b);
      return e.b.CreateSelect(g_is_zero, zero, lcm);
    }
    default:
      break;
  }
  internal_error << "not a NumPy intrinsic: " << ir::intrinsic_name(op);
  return nullptr;
}

}  // namespace ufjit::codegen::lower
