// cuda.* device intrinsics in a body (LANGUAGE.md section 6): the ones of
// Numba's CUDA target that make sense in a ufunc, typed as Numba types them
// and built from IR nodes, so that the CPU target gives the GPU's results.
// Bit intrinsics lower in codegen/lower/LowerIntrinsics.cpp; cuda.fp16.* are the
// IR's float16 operations (computed in float32, rounded to half).
#include <cmath>

#include "typer/Builtins.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

const char *const kCudaFunctions[] = {"popc", "clz", "ffs", "brev", "fma", "cbrt", "selp"};

struct HalfUnary {
  const char *name;
  IntrinsicOp op;
};

// clang-format off
const HalfUnary kHalfUnary[] = {
    {"hsqrt", IntrinsicOp::Sqrt}, {"hexp", IntrinsicOp::Exp}, {"hexp2", IntrinsicOp::Exp2},
    {"hlog", IntrinsicOp::Log}, {"hlog2", IntrinsicOp::Log2}, {"hlog10", IntrinsicOp::Log10},
    {"hsin", IntrinsicOp::Sin}, {"hcos", IntrinsicOp::Cos}, {"hceil", IntrinsicOp::Ceil},
    {"hfloor", IntrinsicOp::Floor}, {"htrunc", IntrinsicOp::Trunc}, {"hrint", IntrinsicOp::Rint},
    {"habs", IntrinsicOp::Fabs},
};

struct HalfBinary {
  const char *name;
  ast::BinaryOp op;
};

const HalfBinary kHalfBinary[] = {
    {"hadd", ast::BinaryOp::Add}, {"hsub", ast::BinaryOp::Sub},
    {"hmul", ast::BinaryOp::Mul}, {"hdiv", ast::BinaryOp::Div},
};

struct HalfCompare {
  const char *name;
  CompareOpcode op;
};

// CUDA's __heq ... __hle are ordered: a NaN operand gives false (also __hne).
const HalfCompare kHalfCompare[] = {
    {"heq", CompareOpcode::Eq}, {"hgt", CompareOpcode::Gt}, {"hge", CompareOpcode::Ge},
    {"hlt", CompareOpcode::Lt}, {"hle", CompareOpcode::Le},
};

const char *const kHalfOther[] = {"hneg", "hfma", "hmax", "hmin", "hne", "hrcp", "hrsqrt", "hexp10"};
// clang-format on

}  // namespace

std::vector<std::string> cuda_names(bool fp16) {
  std::vector<std::string> names;
  if (!fp16) {
    for (const char *s : kCudaFunctions) names.push_back(s);
    return names;
  }
  for (const HalfUnary &f : kHalfUnary) names.push_back(f.name);
  for (const HalfBinary &f : kHalfBinary) names.push_back(f.name);
  for (const HalfCompare &f : kHalfCompare) names.push_back(f.name);
  for (const char *s : kHalfOther) names.push_back(s);
  return names;
}

Value BodyTyper::call_cuda(const std::string &module, const std::string &name, std::vector<Value> args,
                           const ast::Call &call) {
  SourceLocation loc = callee_loc(call);
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  const bool fp16 = module == "numba.cuda.fp16";
  const std::string qualified = (fp16 ? "cuda.fp16." : "cuda.") + name;
  std::vector<std::string> names = cuda_names(fp16);
  bool known = false;
  for (const std::string &n : names) known = known || n == name;
  if (!known) {
    std::string message = "'" + qualified + "' is not supported in a ufunc body";
    std::string hint = closest_match(name, names);
    if (!hint.empty()) message += "; did you mean '" + std::string(fp16 ? "cuda.fp16." : "cuda.") + hint + "'?";
    error(loc, message);
    return Value::error();
  }
  auto want = [&](std::size_t n) { return check_arity(qualified, args.size(), n, loc); };
  auto arg_loc = [&](std::size_t i) { return i < call.args.size() ? call.args[i]->loc : loc; };
  // An integer argument: weak ints at int64, as Numba types a Python int.
  auto int_arg = [&](std::size_t i) {
    Value v = args[i];
    if (v.is_weak() && v.weak == Weak::Int) return materialize(v);
    if (v.is_weak() || v.literal_tuple || !v.type.is_int()) {
      error(arg_loc(i), qualified + "() needs an integer, not '" +
                            (v.is_weak() ? std::string(weak_name(v.weak)) : v.type.str()) + "'");
      return Value::error();
    }
    return v;
  };
  // A float argument: float32 stays float32, everything else becomes float64.
  auto float_args = [&]() -> std::optional<DType> {
    std::optional<DType> d;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const Value &v = args[i];
      bool real = v.is_weak() ? v.weak != Weak::Complex : (!v.literal_tuple && v.type.is_scalar() && !v.type.is_complex());
      if (!real) {
        error(arg_loc(i), qualified + "() needs real numbers, not '" + (v.is_weak() ? "complex" : v.type.str()) + "'");
        return std::nullopt;
      }
      if (!v.is_weak()) {
        DType t = v.type.dtype() == DType::Float32 ? DType::Float32 : DType::Float64;
        d = d && *d != t ? DType::Float64 : t;
      }
    }
    DType result = d.value_or(DType::Float64);
    for (Value &v : args) v = convert(v, result);
    return result;
  };

  if (!fp16) {
    if (name == "popc" || name == "clz" || name == "brev" || name == "ffs") {
      if (!want(1)) return Value::error();
      Value x = int_arg(0);
      if (!x.ok) return x;
      if (name == "popc") return intrinsic(IntrinsicOp::Popc, x.type, {x});
      if (name == "clz") return intrinsic(IntrinsicOp::Clz, x.type, {x});
      if (name == "ffs") return intrinsic(IntrinsicOp::Ffs, Type::scalar(DType::UInt32), {x});
      // Numba's brev: uint32 -> uint32 and uint64 -> uint64 (narrower and
      // signed integers are converted first).
      DType d = dtype_size(x.type.dtype()) <= 4 ? DType::UInt32 : DType::UInt64;
      Value u = convert(x, d);
      return intrinsic(IntrinsicOp::Brev, u.type, {u});
    }
    if (name == "fma" || name == "cbrt") {
      if (!want(name == "fma" ? 3 : 1)) return Value::error();
      std::optional<DType> d = float_args();
      if (!d) return Value::error();
      return intrinsic(name == "fma" ? IntrinsicOp::Fma : IntrinsicOp::Cbrt, Type::scalar(*d), args);
    }
    // selp(cond, a, b): both operands are evaluated (they are pure here).
    if (!want(3)) return Value::error();
    return select(args[0], args[1], args[2], loc);
  }

  // cuda.fp16.*: every argument is converted to float16, as Numba's
  // signatures (float16, ...) -> float16 convert them.
  for (Value &v : args) {
    bool real = v.is_weak() ? v.weak != Weak::Complex : (!v.literal_tuple && v.type.is_scalar() && !v.type.is_complex());
    if (!real) {
      error(loc, qualified + "() needs real numbers, not '" + (v.is_weak() ? "complex" : v.type.str()) + "'");
      return Value::error();
    }
    v = convert(v, DType::Float16);
  }
  const Type half = Type::scalar(DType::Float16);
  for (const HalfUnary &f : kHalfUnary) {
    if (name != f.name) continue;
    if (!want(1)) return Value::error();
    return intrinsic(f.op, half, args);
  }
  for (const HalfBinary &f : kHalfBinary) {
    if (name != f.name) continue;
    if (!want(2)) return Value::error();
    return binary(f.op, args[0], args[1], loc);
  }
  for (const HalfCompare &f : kHalfCompare) {
    if (name != f.name) continue;
    if (!want(2)) return Value::error();
    return Value::strong(Compare::make(f.op, args[0].expr, args[1].expr));
  }
  if (name == "hne") {
    if (!want(2)) return Value::error();
    Value a = stabilize(args[0]);
    Value b = stabilize(args[1]);
    Expr lt = Compare::make(CompareOpcode::Lt, a.expr, b.expr);
    Expr gt = Compare::make(CompareOpcode::Gt, a.expr, b.expr);
    return Value::strong(Binary::make(BinaryOpcode::BitOr, lt, gt));
  }
  if (name == "hneg") {
    if (!want(1)) return Value::error();
    return unary(ast::UnaryOpKind::USub, args[0], loc);
  }
  if (name == "hfma") {
    if (!want(3)) return Value::error();
    return intrinsic(IntrinsicOp::Fma, half, args);
  }
  if (name == "hmax" || name == "hmin") {
    // __hmax/__hmin: a NaN operand gives the other operand.
    if (!want(2)) return Value::error();
    Value a = stabilize(args[0]);
    Value b = stabilize(args[1]);
    Expr pick_a = Compare::make(name == "hmax" ? CompareOpcode::Gt : CompareOpcode::Lt, a.expr, b.expr);
    Value b_nan = intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {b});
    pick_a = Binary::make(BinaryOpcode::BitOr, pick_a, b_nan.expr);
    return Value::strong(Select::make(pick_a, a.expr, b.expr));
  }
  if (!want(1)) return Value::error();
  Value one = Value::strong(Const::make_float(DType::Float16, 1.0));
  if (name == "hrcp") return strong_binary(BinaryOpcode::Div, one, args[0]);
  if (name == "hrsqrt") return strong_binary(BinaryOpcode::Div, one, intrinsic(IntrinsicOp::Sqrt, half, args));
  // hexp10
  Value ten = Value::strong(Const::make_float(DType::Float16, 10.0));
  return strong_binary(BinaryOpcode::Pow, ten, args[0]);
}

}  // namespace ufjit::ir::typer
