// Real math: library calls (libdevice on Cuda, the C library on Cpu), LLVM
// intrinsics where they are exact on both targets, float floor division and
// modulo with Python semantics, classification.
// requires: float32/float64 operands (float16 is widened here and rounded
// back after each operation); guarantees: the semantics of ir/IR.h.
#include <llvm/IR/IntrinsicsNVPTX.h>

#include <cmath>

#include "codegen/lower/LowerInternal.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

/// The library name of `base` for a float type: __nv_sinf / sinf / sin.
std::string libm_name(const ModuleState &ms, std::string_view base, DType type) {
  internal_assert(type == DType::Float32 || type == DType::Float64) << "libm call on " << dtype_name(type);
  std::string name;
  if (ms.target.kind == TargetKind::Cuda) {
    name = "__nv_";
  }
  name += base;
  if (type == DType::Float32) {
    name += "f";
  }
  return name;
}

/// Declares (once) a math library function. Pure functions get
/// memory(none): we treat the C library as not setting errno, as
/// -fno-math-errno does, so calls can be hoisted and vectorized.
llvm::FunctionCallee declare_libm(ModuleState &ms, const std::string &name, llvm::FunctionType *type,
                                  bool writes_argument) {
  llvm::FunctionCallee callee = ms.module.getOrInsertFunction(name, type);
  auto *f = llvm::dyn_cast<llvm::Function>(callee.getCallee());
  internal_assert(f != nullptr && f->getFunctionType() == type) << "math function " << name
                                                                << " already declared with another type";
  f->setDoesNotThrow();
  f->setWillReturn();
  if (writes_argument) {
    f->setOnlyAccessesArgMemory();
  } else {
    f->setDoesNotAccessMemory();
  }
  return callee;
}

llvm::Value *widen(Emitter &e, llvm::Value *v) {
  if (v->getType()->isHalfTy()) {
    return e.b.CreateFPExt(v, e.b.getFloatTy());
  }
  return v;
}

llvm::Value *narrow_to(Emitter &e, llvm::Value *v, DType type) {
  if (type == DType::Float16) {
    return e.b.CreateFPTrunc(v, e.b.getHalfTy());
  }
  return v;
}

/// nextafter on float16 values, done on the bits (computing it in float32
/// would step by a float32 ulp).
llvm::Value *half_nextafter(Emitter &e, llvm::Value *x, llvm::Value *y) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *i16 = b.getInt16Ty();
  llvm::Value *xf = widen(e, x);
  llvm::Value *yf = widen(e, y);
  llvm::Value *bits = b.CreateBitCast(x, i16);
  llvm::Value *zero = float_constant(b.getFloatTy(), 0.0);
  // Away from zero when x moves towards y's side beyond it: |x| grows iff (x < y) == (x > 0).
  llvm::Value *grow = b.CreateICmpEQ(b.CreateFCmpOLT(xf, yf), b.CreateFCmpOGT(xf, zero));
  llvm::Value *stepped = b.CreateSelect(grow, b.CreateAdd(bits, b.getInt16(1)), b.CreateSub(bits, b.getInt16(1)));
  // From zero: the smallest subnormal with y's sign.
  llvm::Value *y_sign = b.CreateAnd(b.CreateBitCast(y, i16), b.getInt16(0x8000));
  llvm::Value *from_zero = b.CreateOr(y_sign, b.getInt16(1));
  llvm::Value *result = b.CreateSelect(b.CreateFCmpOEQ(xf, zero), from_zero, stepped);
  result = b.CreateBitCast(result, b.getHalfTy());
  result = b.CreateSelect(b.CreateFCmpOEQ(xf, yf), y, result);
  llvm::Value *any_nan = b.CreateFCmpUNO(xf, yf);
  return b.CreateSelect(any_nan, b.CreateFAdd(x, y), result);
}

/// frexp(x) -> {mantissa, int32 exponent} through the library.
llvm::Value *lower_frexp(Emitter &e, llvm::Value *x, DType type) {
  DType ct = compute_dtype(type);
  llvm::Value *wide = widen(e, x);
  llvm::Type *i32 = e.b.getInt32Ty();
  llvm::Type *ptr = llvm::PointerType::get(e.ctx(), 0);
  llvm::FunctionType *fn_type = llvm::FunctionType::get(wide->getType(), {wide->getType(), ptr}, false);
  llvm::FunctionCallee callee = declare_libm(e.ms, libm_name(e.ms, "frexp", ct), fn_type, true);
  llvm::AllocaInst *slot = e.entry_alloca(i32, "frexp.exp");
  // Inputs whose exponent the libraries leave unspecified (inf, nan) give 0, as Python.
  e.b.CreateStore(e.b.getInt32(0), slot);
  llvm::Value *mantissa = e.b.CreateCall(callee, {wide, slot});
  llvm::Value *exponent = e.b.CreateLoad(i32, slot);
  exponent = e.b.CreateSelect(float_isfinite(e, wide), exponent, e.b.getInt32(0));
  llvm::Type *result_type = llvm::StructType::get(e.ctx(), {x->getType(), i32});
  llvm::Value *result = llvm::UndefValue::get(result_type);
  result = e.b.CreateInsertValue(result, narrow_to(e, mantissa, type), {0});
  return e.b.CreateInsertValue(result, exponent, {1});
}

/// modf(x) -> {fractional part, integral part}, both with x's sign, exactly
/// (trunc and a subtraction are exact; no library call needed).
llvm::Value *lower_modf(Emitter &e, llvm::Value *x, DType type) {
  llvm::Value *wide = widen(e, x);
  llvm::Value *integral = call_llvm_intrinsic(e, llvm::Intrinsic::trunc, {wide});
  llvm::Value *fraction = e.b.CreateFSub(wide, integral);
  llvm::Value *inf = float_constant(wide->getType(), INFINITY);
  llvm::Value *is_inf = e.b.CreateFCmpOEQ(call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {wide}), inf);
  fraction = e.b.CreateSelect(is_inf, float_constant(wide->getType(), 0.0), fraction);
  // The fraction carries x's sign (modf(-2.0) == (-0.0, -2.0)); NaN stays NaN.
  fraction = call_llvm_intrinsic(e, llvm::Intrinsic::copysign, {fraction, wide});
  llvm::Type *result_type = llvm::StructType::get(e.ctx(), {x->getType(), x->getType()});
  llvm::Value *result = llvm::UndefValue::get(result_type);
  result = e.b.CreateInsertValue(result, narrow_to(e, fraction, type), {0});
  return e.b.CreateInsertValue(result, narrow_to(e, integral, type), {1});
}

/// The library base name of an intrinsic computed by a call, or nullptr.
const char *libm_base(ir::IntrinsicOp op) {
  using ir::IntrinsicOp;
  struct Entry {
    IntrinsicOp op;
    const char *base;
  };
  static const Entry kTable[] = {
      {IntrinsicOp::Acos, "acos"},   {IntrinsicOp::Acosh, "acosh"},         {IntrinsicOp::Asin, "asin"},
      {IntrinsicOp::Asinh, "asinh"}, {IntrinsicOp::Atan, "atan"},           {IntrinsicOp::Atan2, "atan2"},
      {IntrinsicOp::Atanh, "atanh"}, {IntrinsicOp::Cbrt, "cbrt"},           {IntrinsicOp::Cos, "cos"},
      {IntrinsicOp::Cosh, "cosh"},   {IntrinsicOp::Erf, "erf"},             {IntrinsicOp::Erfc, "erfc"},
      {IntrinsicOp::Exp, "exp"},     {IntrinsicOp::Exp2, "exp2"},           {IntrinsicOp::Expm1, "expm1"},
      {IntrinsicOp::Fmod, "fmod"},   {IntrinsicOp::Gamma, "tgamma"},        {IntrinsicOp::Hypot, "hypot"},
      {IntrinsicOp::Lgamma, "lgamma"}, {IntrinsicOp::Log, "log"},           {IntrinsicOp::Log10, "log10"},
      {IntrinsicOp::Log1p, "log1p"}, {IntrinsicOp::Log2, "log2"},           {IntrinsicOp::Nextafter, "nextafter"},
      {IntrinsicOp::Pow, "pow"},     {IntrinsicOp::Remainder, "remainder"}, {IntrinsicOp::Sin, "sin"},
      {IntrinsicOp::Sinh, "sinh"},   {IntrinsicOp::Tan, "tan"},             {IntrinsicOp::Tanh, "tanh"},
  };
  for (const Entry &entry : kTable) {
    if (entry.op == op) {
      return entry.base;
    }
  }
  return nullptr;
}

/// The LLVM intrinsic of an exact operation that maps well on both targets
/// (llvm.sqrt is correctly rounded: sqrt.rn on NVPTX without fastmath).
llvm::Intrinsic::ID exact_intrinsic(ir::IntrinsicOp op) {
  using ir::IntrinsicOp;
  struct Entry {
    IntrinsicOp op;
    llvm::Intrinsic::ID id;
  };
  static const Entry kTable[] = {
      {IntrinsicOp::Ceil, llvm::Intrinsic::ceil},   {IntrinsicOp::Floor, llvm::Intrinsic::floor},
      {IntrinsicOp::Trunc, llvm::Intrinsic::trunc}, {IntrinsicOp::Rint, llvm::Intrinsic::rint},
      {IntrinsicOp::Fabs, llvm::Intrinsic::fabs},   {IntrinsicOp::Copysign, llvm::Intrinsic::copysign},
      {IntrinsicOp::Sqrt, llvm::Intrinsic::sqrt},   {IntrinsicOp::Fma, llvm::Intrinsic::fma},
  };
  for (const Entry &entry : kTable) {
    if (entry.op == op) {
      return entry.id;
    }
  }
  return llvm::Intrinsic::not_intrinsic;
}

/// CUDA's --use_fast_math on float32 (and float16, computed in float32) on
/// the GPU: the functions nvcc maps to its intrinsics (__sinf, __expf, ...)
/// become the hardware's approximate instructions (MUFU), FTZ as nvcc's
/// -ftz=true: sin.approx/cos.approx (sin, cos, tan), ex2.approx (exp, exp2,
/// pow), lg2.approx (log, log2, log10, pow), sqrt.approx. Their measured
/// accuracy is in docs/FASTMATH.md. nullptr: no fast form (the accurate
/// libdevice call stays; division and tanh are rewritten later, see
/// codegen/nvptx/NVPTXFastMath.cpp).
llvm::Value *lower_fast_float32(Emitter &e, ir::IntrinsicOp op, llvm::ArrayRef<llvm::Value *> args) {
  using ir::IntrinsicOp;
  llvm::IRBuilder<> &b = e.b;
  auto unary = [&](llvm::Intrinsic::ID id, llvm::Value *x) { return b.CreateIntrinsic(id, {}, {x}); };
  auto ex2 = [&](llvm::Value *x) { return unary(llvm::Intrinsic::nvvm_ex2_approx_ftz_f, x); };
  auto lg2 = [&](llvm::Value *x) { return unary(llvm::Intrinsic::nvvm_lg2_approx_ftz_f, x); };
  auto times = [&](llvm::Value *x, double c) { return b.CreateFMul(x, float_constant(b.getFloatTy(), c)); };
  switch (op) {
    case IntrinsicOp::Sin:
      return unary(llvm::Intrinsic::nvvm_sin_approx_ftz_f, args[0]);
    case IntrinsicOp::Cos:
      return unary(llvm::Intrinsic::nvvm_cos_approx_ftz_f, args[0]);
    case IntrinsicOp::Tan: {  // __tanf: __sinf(x) / __cosf(x), the division approximate
      llvm::Value *s = unary(llvm::Intrinsic::nvvm_sin_approx_ftz_f, args[0]);
      llvm::Value *c = unary(llvm::Intrinsic::nvvm_cos_approx_ftz_f, args[0]);
      return b.CreateIntrinsic(llvm::Intrinsic::nvvm_div_approx_ftz_f, {}, {s, c});
    }
    case IntrinsicOp::Exp:  // __expf: 2^(x log2(e))
      return ex2(times(args[0], M_LOG2E));
    case IntrinsicOp::Exp2:
      return ex2(args[0]);
    case IntrinsicOp::Log:  // __logf: log2(x) ln(2)
      return times(lg2(args[0]), M_LN2);
    case IntrinsicOp::Log2:
      return lg2(args[0]);
    case IntrinsicOp::Log10:
      return times(lg2(args[0]), M_LN2 / M_LN10);
    case IntrinsicOp::Pow:  // __powf: 2^(y log2(x))
      return ex2(b.CreateFMul(args[1], lg2(args[0])));
    case IntrinsicOp::Sqrt:
      return unary(llvm::Intrinsic::nvvm_sqrt_approx_ftz_f, args[0]);
    default:
      return nullptr;
  }
}

}  // namespace

llvm::Value *call_llvm_intrinsic(Emitter &e, llvm::Intrinsic::ID id, llvm::ArrayRef<llvm::Value *> args) {
  return e.b.CreateIntrinsic(id, {args[0]->getType()}, args);
}

llvm::Value *call_libm(Emitter &e, std::string_view base, DType type, llvm::ArrayRef<llvm::Value *> args) {
  std::vector<llvm::Type *> param_types;
  for (llvm::Value *arg : args) {
    param_types.push_back(arg->getType());
  }
  llvm::Type *ret = value_type(e.ctx(), type);
  llvm::FunctionType *fn_type = llvm::FunctionType::get(ret, param_types, false);
  llvm::FunctionCallee callee = declare_libm(e.ms, libm_name(e.ms, base, type), fn_type, false);
  return e.b.CreateCall(callee, args);
}

llvm::Value *float_isnan(Emitter &e, llvm::Value *x) { return e.b.CreateFCmpUNO(x, x); }

llvm::Value *float_isinf(Emitter &e, llvm::Value *x) {
  llvm::Value *magnitude = call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {x});
  return e.b.CreateFCmpOEQ(magnitude, float_constant(x->getType(), INFINITY));
}

llvm::Value *float_isfinite(Emitter &e, llvm::Value *x) {
  llvm::Value *magnitude = call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {x});
  return e.b.CreateFCmpOLT(magnitude, float_constant(x->getType(), INFINITY));
}

namespace {

/// float32 hypot on the GPU, computed in float64: the squares are exact
/// there, so the float32 result is the correctly rounded one but for a
/// double rounding (as glibc's hypotf computes it); libdevice's __nv_hypotf
/// is up to a few ulp off. An infinite argument gives +inf, a NaN other.
llvm::Value *float32_hypot_in_double(Emitter &e, llvm::Value *x, llvm::Value *y) {
  llvm::IRBuilder<> &b = e.b;
  llvm::Type *f64 = b.getDoubleTy();
  llvm::Value *dx = b.CreateFPExt(x, f64);
  llvm::Value *dy = b.CreateFPExt(y, f64);
  llvm::Value *sum = b.CreateFAdd(b.CreateFMul(dx, dx), b.CreateFMul(dy, dy));
  llvm::Value *root = b.CreateFPTrunc(call_llvm_intrinsic(e, llvm::Intrinsic::sqrt, {sum}), x->getType());
  llvm::Value *inf = float_constant(x->getType(), INFINITY);
  llvm::Value *any_inf = b.CreateOr(b.CreateFCmpOEQ(call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {x}), inf),
                                    b.CreateFCmpOEQ(call_llvm_intrinsic(e, llvm::Intrinsic::fabs, {y}), inf));
  return b.CreateSelect(any_inf, inf, root);
}

}  // namespace

llvm::Value *lower_real_intrinsic(Emitter &e, ir::IntrinsicOp op, DType type, llvm::ArrayRef<llvm::Value *> args) {
  using ir::IntrinsicOp;
  internal_assert(is_float(type)) << "real math intrinsic " << ir::intrinsic_name(op) << " on "
                                  << dtype_name(type);
  DType ct = compute_dtype(type);
  switch (op) {
    case IntrinsicOp::IsNan:
      return float_isnan(e, widen(e, args[0]));
    case IntrinsicOp::IsInf:
      return float_isinf(e, widen(e, args[0]));
    case IntrinsicOp::IsFinite:
      return float_isfinite(e, widen(e, args[0]));
    case IntrinsicOp::Frexp:
      return lower_frexp(e, args[0], type);
    case IntrinsicOp::Modf:
      return lower_modf(e, args[0], type);
    case IntrinsicOp::Nextafter:
      if (type == DType::Float16) {
        return half_nextafter(e, args[0], args[1]);
      }
      break;
    case IntrinsicOp::Ldexp: {
      llvm::Value *x = widen(e, args[0]);
      return narrow_to(e, call_libm(e, "ldexp", ct, {x, args[1]}), type);
    }
    default:
      break;
  }
  std::vector<llvm::Value *> wide_args;
  for (llvm::Value *arg : args) {
    wide_args.push_back(widen(e, arg));
  }
  if (e.ms.target.kind == TargetKind::Cuda && e.ms.target.fastmath && ct == DType::Float32) {
    if (llvm::Value *fast = lower_fast_float32(e, op, wide_args)) {
      return narrow_to(e, fast, type);
    }
  }
  if (e.ms.target.kind == TargetKind::Cuda && !e.ms.target.fastmath && ct == DType::Float32 &&
      op == IntrinsicOp::Hypot) {
    return narrow_to(e, float32_hypot_in_double(e, wide_args[0], wide_args[1]), type);
  }
  llvm::Intrinsic::ID id = exact_intrinsic(op);
  if (id != llvm::Intrinsic::not_intrinsic) {
    return narrow_to(e, call_llvm_intrinsic(e, id, wide_args), type);
  }
  const char *base = libm_base(op);
  internal_assert(base != nullptr) << "intrinsic " << ir::intrinsic_name(op) << " is not a real math function";
  return narrow_to(e, call_libm(e, base, ct, wide_args), type);
}

// CPython's float_floor_div / float_divmod (Objects/floatobject.c), with
// NumPy's answer for a zero divisor: a / b and fmod(a, b) (inf or nan).
namespace {

struct FloatDivMod {
  llvm::Value *div;
  llvm::Value *mod;
};

FloatDivMod float_divmod(Emitter &e, llvm::Value *a, llvm::Value *b, DType type) {
  llvm::IRBuilder<> &builder = e.b;
  llvm::Type *t = a->getType();
  llvm::Value *zero = float_constant(t, 0.0);
  llvm::Value *mod = call_libm(e, "fmod", type, {a, b});
  llvm::Value *div = builder.CreateFDiv(builder.CreateFSub(a, mod), b);
  // C truthiness: NaN is nonzero.
  llvm::Value *mod_nonzero = builder.CreateFCmpUNE(mod, zero);
  llvm::Value *signs_differ = builder.CreateICmpNE(builder.CreateFCmpOLT(b, zero), builder.CreateFCmpOLT(mod, zero));
  llvm::Value *adjust = builder.CreateAnd(mod_nonzero, signs_differ);
  llvm::Value *adjusted_mod = builder.CreateSelect(adjust, builder.CreateFAdd(mod, b), mod);
  llvm::Value *adjusted_div = builder.CreateSelect(adjust, builder.CreateFSub(div, float_constant(t, 1.0)), div);
  llvm::Value *signed_zero_mod = call_llvm_intrinsic(e, llvm::Intrinsic::copysign, {zero, b});
  llvm::Value *result_mod = builder.CreateSelect(mod_nonzero, adjusted_mod, signed_zero_mod);

  llvm::Value *floor_div = call_llvm_intrinsic(e, llvm::Intrinsic::floor, {adjusted_div});
  llvm::Value *round_up = builder.CreateFCmpOGT(builder.CreateFSub(adjusted_div, floor_div), float_constant(t, 0.5));
  floor_div = builder.CreateSelect(round_up, builder.CreateFAdd(floor_div, float_constant(t, 1.0)), floor_div);
  llvm::Value *quotient = builder.CreateFDiv(a, b);
  llvm::Value *signed_zero_div = call_llvm_intrinsic(e, llvm::Intrinsic::copysign, {zero, quotient});
  llvm::Value *div_nonzero = builder.CreateFCmpUNE(adjusted_div, zero);
  llvm::Value *result_div = builder.CreateSelect(div_nonzero, floor_div, signed_zero_div);

  llvm::Value *b_zero = builder.CreateFCmpOEQ(b, zero);
  result_div = builder.CreateSelect(b_zero, quotient, result_div);
  result_mod = builder.CreateSelect(b_zero, mod, result_mod);
  return {result_div, result_mod};
}

}  // namespace

llvm::Value *float_floor_div(Emitter &e, llvm::Value *a, llvm::Value *b, DType type) {
  return float_divmod(e, a, b, type).div;
}

llvm::Value *float_mod(Emitter &e, llvm::Value *a, llvm::Value *b, DType type) {
  return float_divmod(e, a, b, type).mod;
}

}  // namespace ufjit::codegen::lower
