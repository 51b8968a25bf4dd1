// cuda.* device intrinsics in a body (LANGUAGE.md section 6): the ones of
// Numba's CUDA target that make sense in a ufunc, typed as Numba types them
// and built from IR nodes, so that the CPU target gives the GPU's results.
// Bit intrinsics lower in codegen/lower/LowerIntrinsics.cpp; cuda.fp16.* are the
// IR's float16 operations (computed in float32, rounded to half).
#include <cmath>

#include "typer/Builtins.h"
#include "typer/LibraryCall.h"

namespace ufjit::ir::typer {

/// One cuda.* or cuda.fp16.* call; its handlers are named by the tables below.
class CudaCall : public LibraryCall {
 public:
  CudaCall(BodyTyper &typer, bool fp16, const std::string &name, std::vector<Value> args, const ast::Call &call)
      : LibraryCall(typer, name, (fp16 ? "cuda.fp16." : "cuda.") + name, std::move(args), call), fp16_(fp16) {}

  Value run();

  // cuda.*
  Value bits();
  Value float_function();
  Value selp();
  // cuda.fp16.*
  Value half_ne();
  Value half_neg();
  Value half_fma();
  Value half_minmax();
  Value half_reciprocal();
  Value half_rsqrt();
  Value half_exp10();

 private:
  /// "'cuda.foo' is not supported in a ufunc body" with a hint.
  Value not_supported();
  /// Argument `i` as an integer: weak ints at int64, as Numba types a Python int.
  Value int_arg(std::size_t i);
  /// The arguments as floats: float32 stays float32, everything else becomes
  /// float64 (all of one type); nullopt after an error.
  std::optional<DType> float_args();
  /// cuda.fp16.*: every argument converted to float16, as Numba's signatures
  /// (float16, ...) -> float16 convert them; false after an error.
  bool half_args();

  bool fp16_;
};

namespace {

using CudaFn = CallHandler<CudaCall>;

// clang-format off
const CudaFn kCudaFunctions[] = {
    {"popc", 1, &CudaCall::bits}, {"clz", 1, &CudaCall::bits}, {"ffs", 1, &CudaCall::bits},
    {"brev", 1, &CudaCall::bits}, {"fma", 3, &CudaCall::float_function},
    {"cbrt", 1, &CudaCall::float_function}, {"selp", 3, &CudaCall::selp},
};

/// A cuda.fp16 function that is one operation of `Op` on float16 values.
template <typename Op>
struct HalfOp {
  const char *name;
  Op op;
};
using HalfUnary = HalfOp<IntrinsicOp>;
using HalfBinary = HalfOp<ast::BinaryOp>;
using HalfCompare = HalfOp<CompareOpcode>;

const HalfUnary kHalfUnary[] = {
    {"hsqrt", IntrinsicOp::Sqrt}, {"hexp", IntrinsicOp::Exp}, {"hexp2", IntrinsicOp::Exp2},
    {"hlog", IntrinsicOp::Log}, {"hlog2", IntrinsicOp::Log2}, {"hlog10", IntrinsicOp::Log10},
    {"hsin", IntrinsicOp::Sin}, {"hcos", IntrinsicOp::Cos}, {"hceil", IntrinsicOp::Ceil},
    {"hfloor", IntrinsicOp::Floor}, {"htrunc", IntrinsicOp::Trunc}, {"hrint", IntrinsicOp::Rint},
    {"habs", IntrinsicOp::Fabs},
};

const HalfBinary kHalfBinary[] = {
    {"hadd", ast::BinaryOp::Add}, {"hsub", ast::BinaryOp::Sub},
    {"hmul", ast::BinaryOp::Mul}, {"hdiv", ast::BinaryOp::Div},
};

// CUDA's __heq ... __hle are ordered: a NaN operand gives false (also __hne).
const HalfCompare kHalfCompare[] = {
    {"heq", CompareOpcode::Eq}, {"hgt", CompareOpcode::Gt}, {"hge", CompareOpcode::Ge},
    {"hlt", CompareOpcode::Lt}, {"hle", CompareOpcode::Le},
};

const CudaFn kHalfOther[] = {
    {"hneg", 1, &CudaCall::half_neg}, {"hfma", 3, &CudaCall::half_fma},
    {"hmax", 2, &CudaCall::half_minmax}, {"hmin", 2, &CudaCall::half_minmax},
    {"hne", 2, &CudaCall::half_ne}, {"hrcp", 1, &CudaCall::half_reciprocal},
    {"hrsqrt", 1, &CudaCall::half_rsqrt}, {"hexp10", 1, &CudaCall::half_exp10},
};
// clang-format on

bool is_real_number(const Value &v) {
  return v.is_weak() ? v.weak != Weak::Complex : (!v.literal_tuple && v.type.is_scalar() && !v.type.is_complex());
}

}  // namespace

std::vector<std::string> cuda_names(bool fp16) {
  std::vector<std::string> names;
  if (!fp16) {
    for (const CudaFn &f : kCudaFunctions) names.push_back(f.name);
    return names;
  }
  for (const HalfUnary &f : kHalfUnary) names.push_back(f.name);
  for (const HalfBinary &f : kHalfBinary) names.push_back(f.name);
  for (const HalfCompare &f : kHalfCompare) names.push_back(f.name);
  for (const CudaFn &f : kHalfOther) names.push_back(f.name);
  return names;
}

Value BodyTyper::call_cuda(const std::string &module, const std::string &name, std::vector<Value> args,
                           const ast::Call &call) {
  if (module == "numba.cuda") {
    if (std::optional<Value> v = call_kernel_function(module, name, args, call)) return *v;
  }
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  return CudaCall(*this, module == "numba.cuda.fp16", name, std::move(args), call).run();
}

Value CudaCall::run() {
  if (!fp16_) {
    const CudaFn *f = find_entry(kCudaFunctions, name_);
    if (f == nullptr) return not_supported();
    if (!want(f->arity)) return Value::error();
    return (this->*f->handler)();
  }
  const HalfUnary *unary = find_entry(kHalfUnary, name_);
  const HalfBinary *binary = find_entry(kHalfBinary, name_);
  const HalfCompare *compare = find_entry(kHalfCompare, name_);
  const CudaFn *other = find_entry(kHalfOther, name_);
  if (!unary && !binary && !compare && !other) return not_supported();
  if (!half_args()) return Value::error();
  std::size_t arity = other ? other->arity : unary ? 1 : 2;
  if (!want(arity)) return Value::error();
  if (unary) return t_.intrinsic(unary->op, Type::scalar(DType::Float16), args_);
  if (binary) return t_.binary(binary->op, args_[0], args_[1], loc_);
  if (compare) return Value::strong(Compare::make(compare->op, args_[0].expr, args_[1].expr));
  return (this->*other->handler)();
}

Value CudaCall::not_supported() {
  std::vector<std::string> names = cuda_names(fp16_);
  std::string message = "'" + qualified_ + "' is not supported in a ufunc body";
  std::string hint = closest_match(name_, names);
  if (!hint.empty()) message += "; did you mean '" + std::string(fp16_ ? "cuda.fp16." : "cuda.") + hint + "'?";
  t_.error(loc_, message);
  return Value::error();
}

Value CudaCall::int_arg(std::size_t i) {
  Value v = args_[i];
  if (v.is_weak() && v.weak == Weak::Int) return t_.materialize(v);
  if (v.is_weak() || v.literal_tuple || !v.type.is_int()) {
    t_.error(arg_loc(i), qualified_ + "() needs an integer, not '" +
                             (v.is_weak() ? std::string(weak_name(v.weak)) : v.type.str()) + "'");
    return Value::error();
  }
  return v;
}

std::optional<DType> CudaCall::float_args() {
  std::optional<DType> d;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    const Value &v = args_[i];
    if (!is_real_number(v)) {
      t_.error(arg_loc(i), qualified_ + "() needs real numbers, not '" + (v.is_weak() ? "complex" : v.type.str()) + "'");
      return std::nullopt;
    }
    if (!v.is_weak()) {
      DType t = v.type.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
      d = d && *d != t ? DType::Float64 : t;
    }
  }
  DType result = d.value_or(DType::Float64);
  for (Value &v : args_) v = t_.convert(v, result);
  return result;
}

bool CudaCall::half_args() {
  for (Value &v : args_) {
    if (!is_real_number(v)) {
      t_.error(loc_, qualified_ + "() needs real numbers, not '" + (v.is_weak() ? "complex" : v.type.str()) + "'");
      return false;
    }
    v = t_.convert(v, DType::Float16);
  }
  return true;
}

Value CudaCall::bits() {
  Value x = int_arg(0);
  if (!x.ok) return x;
  if (name_ == "popc") return t_.intrinsic(IntrinsicOp::Popc, x.type, {x});
  if (name_ == "clz") return t_.intrinsic(IntrinsicOp::Clz, x.type, {x});
  if (name_ == "ffs") return t_.intrinsic(IntrinsicOp::Ffs, Type::scalar(DType::UInt32), {x});
  // Numba's brev: uint32 -> uint32 and uint64 -> uint64 (narrower and
  // signed integers are converted first).
  DType d = dtype_size(x.type.dtype()) <= 4 ? DType::UInt32 : DType::UInt64;
  Value u = t_.convert(x, d);
  return t_.intrinsic(IntrinsicOp::Brev, u.type, {u});
}

Value CudaCall::float_function() {
  std::optional<DType> d = float_args();
  if (!d) return Value::error();
  return t_.intrinsic(name_ == "fma" ? IntrinsicOp::Fma : IntrinsicOp::Cbrt, Type::scalar(*d), args_);
}

// selp(cond, a, b): both operands are evaluated (they are pure here).
Value CudaCall::selp() { return t_.select(args_[0], args_[1], args_[2], loc_); }

Value CudaCall::half_ne() {
  Value a = t_.stabilize(args_[0]);
  Value b = t_.stabilize(args_[1]);
  Expr lt = Compare::make(CompareOpcode::Lt, a.expr, b.expr);
  Expr gt = Compare::make(CompareOpcode::Gt, a.expr, b.expr);
  return Value::strong(Binary::make(BinaryOpcode::BitOr, lt, gt));
}

Value CudaCall::half_neg() { return t_.unary(ast::UnaryOpKind::USub, args_[0], loc_); }

Value CudaCall::half_fma() { return t_.intrinsic(IntrinsicOp::Fma, Type::scalar(DType::Float16), args_); }

// __hmax/__hmin: a NaN operand gives the other operand.
Value CudaCall::half_minmax() {
  Value a = t_.stabilize(args_[0]);
  Value b = t_.stabilize(args_[1]);
  Expr pick_a = Compare::make(name_ == "hmax" ? CompareOpcode::Gt : CompareOpcode::Lt, a.expr, b.expr);
  Value b_nan = t_.intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {b});
  pick_a = Binary::make(BinaryOpcode::BitOr, pick_a, b_nan.expr);
  return Value::strong(Select::make(pick_a, a.expr, b.expr));
}

Value CudaCall::half_reciprocal() {
  Value one = Value::strong(Const::make_float(DType::Float16, 1.0));
  return t_.strong_binary(BinaryOpcode::Div, one, args_[0]);
}

Value CudaCall::half_rsqrt() {
  Value one = Value::strong(Const::make_float(DType::Float16, 1.0));
  return t_.strong_binary(BinaryOpcode::Div, one, t_.intrinsic(IntrinsicOp::Sqrt, Type::scalar(DType::Float16), args_));
}

Value CudaCall::half_exp10() {
  Value ten = Value::strong(Const::make_float(DType::Float16, 10.0));
  return t_.strong_binary(BinaryOpcode::Pow, ten, args_[0]);
}

}  // namespace ufjit::ir::typer
