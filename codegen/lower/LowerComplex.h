// Private to the complex lowering (LowerComplex.cpp, LowerCmath.cpp): complex
// values as pairs of LLVM values, readable float formulas, and the helper
// functions emitted once per module and float type.
#pragma once

#include <cfloat>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "codegen/lower/LowerInternal.h"

namespace ufjit::codegen::lower {

struct Complex {
  llvm::Value *re;
  llvm::Value *im;
};

/// Readable float formulas on one component type.
struct Ops {
  Emitter &e;
  DType type;  // Float32 or Float64
  llvm::Type *t;

  Ops(Emitter &em, DType ty) : e(em), type(ty), t(value_type(em.ctx(), ty)) {}

  llvm::Value *c(double v) const { return float_constant(t, v); }
  llvm::Value *add(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFAdd(a, b); }
  llvm::Value *sub(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFSub(a, b); }
  llvm::Value *mul(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFMul(a, b); }
  llvm::Value *div(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFDiv(a, b); }
  llvm::Value *neg(llvm::Value *a) const { return e.b.CreateFNeg(a); }
  llvm::Value *lt(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpOLT(a, b); }
  llvm::Value *le(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpOLE(a, b); }
  llvm::Value *gt(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpOGT(a, b); }
  llvm::Value *ge(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpOGE(a, b); }
  llvm::Value *eq(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpOEQ(a, b); }
  llvm::Value *ne(llvm::Value *a, llvm::Value *b) const { return e.b.CreateFCmpUNE(a, b); }
  llvm::Value *both(llvm::Value *a, llvm::Value *b) const { return e.b.CreateAnd(a, b); }
  llvm::Value *either(llvm::Value *a, llvm::Value *b) const { return e.b.CreateOr(a, b); }
  llvm::Value *sel(llvm::Value *cond, llvm::Value *a, llvm::Value *b) const { return e.b.CreateSelect(cond, a, b); }
  llvm::Value *fabs(llvm::Value *a) const { return call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {a}); }
  llvm::Value *sqrt(llvm::Value *a) const { return call_llvm_intrinsic(e, llvm::Intrinsic::sqrt, {a}); }
  llvm::Value *floor(llvm::Value *a) const { return call_llvm_intrinsic(e, llvm::Intrinsic::floor, {a}); }
  llvm::Value *copysign(llvm::Value *a, llvm::Value *b) const {
    return call_llvm_intrinsic(e, llvm::Intrinsic::copysign, {a, b});
  }
  /// Whether a's sign bit is set, NaNs included, read from its bits: the
  /// special values of Annex G follow the sign of a NaN, which PTX's neg.f32
  /// (ptxas's FADD with a negated operand) does not keep.
  llvm::Value *sign_bit(llvm::Value *a) const {
    llvm::Type *bits = llvm::IntegerType::get(e.ctx(), t->getPrimitiveSizeInBits());
    return e.b.CreateICmpSLT(e.b.CreateBitCast(a, bits), llvm::ConstantInt::get(bits, 0));
  }
  /// -a with the sign bit flipped for a NaN too, on every target. LLVM's
  /// fneg means that, but NVPTX emits it as neg.f32/f64, whose NaN result the
  /// PTX ISA leaves unspecified (the H100 returns the NaN unchanged), and
  /// InstCombine turns an integer sign flip, or a select on the sign bit,
  /// back into fneg; so on the GPU the flip is an opaque xor of the bits.
  llvm::Value *neg_keeping_nan_sign(llvm::Value *a) const;
  llvm::Value *call(const char *base, llvm::ArrayRef<llvm::Value *> args) const {
    return call_libm(e, base, type, args);
  }
  Complex sel(llvm::Value *cond, Complex a, Complex b) const { return {sel(cond, a.re, b.re), sel(cond, a.im, b.im)}; }
  Complex mul(Complex a, Complex b) const {
    return {sub(mul(a.re, b.re), mul(a.im, b.im)), add(mul(a.re, b.im), mul(a.im, b.re))};
  }
  /// log(hypot(x/2, y/2)) + 2 log 2 == log|z| + log 2 without overflow.
  llvm::Value *log_half_hypot_plus(llvm::Value *x, llvm::Value *y, double add_ln2_times) const {
    llvm::Value *h = call("hypot", {mul(x, c(0.5)), mul(y, c(0.5))});
    return add(call("log", {h}), c(M_LN2 * add_ln2_times));
  }

  // The limits of CPython's cmathmodule.c for this float type.
  double max() const { return type == DType::Float32 ? FLT_MAX : DBL_MAX; }
  double min_normal() const { return type == DType::Float32 ? FLT_MIN : DBL_MIN; }
  int mant_dig() const { return type == DType::Float32 ? FLT_MANT_DIG : DBL_MANT_DIG; }
  double large() const { return max() / 4.0; }
  double sqrt_large() const { return std::sqrt(large()); }
  double log_large() const { return std::log(large()); }
  double sqrt_min() const { return std::sqrt(min_normal()); }
};

Complex unpack(Emitter &e, llvm::Value *z);
llvm::Value *pack(Emitter &e, Complex z);

/// The body of a complex helper: its arguments -> its result.
using Body = std::function<Complex(Ops &, const std::vector<Complex> &)>;

/// Calls (building it once per module) the helper `ufjit.<name>.<f32|f64>`
/// taking args.size() complex values and returning one.
llvm::Value *call_helper(Emitter &e, const std::string &name, DType component, llvm::ArrayRef<llvm::Value *> args,
                         const Body &body);
/// call_helper on unpacked values.
Complex call_complex(Ops &o, const std::string &name, const std::vector<Complex> &args, const Body &body);
/// `cond ? then_fn() : else_fn()` with a branch: only the chosen arm runs.
Complex branch(Ops &o, llvm::Value *cond, const std::function<Complex()> &then_fn,
               const std::function<Complex()> &else_fn);
/// CPython's _Py_c_quot (see LowerComplex.cpp).
Complex quot(Ops &o, const std::vector<Complex> &v);
/// C99 Annex G's value of cmath function `fn` ("cexp", "csinh", "ccosh",
/// "ctanh", "casinh", "catanh", "cacos", "cacosh") at z with a part that is
/// infinite or NaN (LowerCmathSpecial.cpp).
Complex special_values(Ops &o, const std::string &fn, Complex z);
/// `finite()` when both parts of z are finite, else special_values(fn, z).
Complex finite_or_special(Ops &o, const std::string &fn, Complex z, const std::function<Complex()> &finite);
/// The cmath functions CExp ... CAtanh of a complex value (LowerCmath.cpp).
llvm::Value *lower_cmath(Emitter &e, ir::IntrinsicOp op, DType component, llvm::Value *z);

}  // namespace ufjit::codegen::lower
