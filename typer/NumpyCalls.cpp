// np.* in a body (LANGUAGE.md section 6): NumPy's scalar ufuncs and
// constants, typed as NumPy 1.24 types them on scalars and built from the
// IR's operators and intrinsics, so that both targets share one definition.
//
// Typing: a Python number alone is its default dtype (np.sin(2) is float64);
// next to a typed operand it follows NEP 50 like an operator. The float
// functions give NumPy's loop type: bool/int8/uint8 -> float16,
// int16/uint16 -> float32, wider integers -> float64.
#include <cmath>

#include "support/InternalAssert.h"
#include "typer/Builtins.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

struct UnaryMath {
  const char *name;
  IntrinsicOp real;
  bool has_complex;
  IntrinsicOp complex;
};

// clang-format off
const UnaryMath kUnaryMath[] = {
    {"sin", IntrinsicOp::Sin, true, IntrinsicOp::CSin},
    {"cos", IntrinsicOp::Cos, true, IntrinsicOp::CCos},
    {"tan", IntrinsicOp::Tan, true, IntrinsicOp::CTan},
    {"arcsin", IntrinsicOp::Asin, true, IntrinsicOp::CAsin},
    {"arccos", IntrinsicOp::Acos, true, IntrinsicOp::CAcos},
    {"arctan", IntrinsicOp::Atan, true, IntrinsicOp::CAtan},
    {"sinh", IntrinsicOp::Sinh, true, IntrinsicOp::CSinh},
    {"cosh", IntrinsicOp::Cosh, true, IntrinsicOp::CCosh},
    {"tanh", IntrinsicOp::Tanh, true, IntrinsicOp::CTanh},
    {"arcsinh", IntrinsicOp::Asinh, true, IntrinsicOp::CAsinh},
    {"arccosh", IntrinsicOp::Acosh, true, IntrinsicOp::CAcosh},
    {"arctanh", IntrinsicOp::Atanh, true, IntrinsicOp::CAtanh},
    {"exp", IntrinsicOp::Exp, true, IntrinsicOp::CExp},
    {"log", IntrinsicOp::Log, true, IntrinsicOp::CLog},
    {"log10", IntrinsicOp::Log10, true, IntrinsicOp::CLog10},
    {"sqrt", IntrinsicOp::Sqrt, true, IntrinsicOp::CSqrt},
    {"exp2", IntrinsicOp::Exp2, false, IntrinsicOp::Exp2},
    {"expm1", IntrinsicOp::Expm1, false, IntrinsicOp::Expm1},
    {"log2", IntrinsicOp::Log2, false, IntrinsicOp::Log2},
    {"log1p", IntrinsicOp::Log1p, false, IntrinsicOp::Log1p},
    {"cbrt", IntrinsicOp::Cbrt, false, IntrinsicOp::Cbrt},
    {"floor", IntrinsicOp::Floor, false, IntrinsicOp::Floor},
    {"ceil", IntrinsicOp::Ceil, false, IntrinsicOp::Ceil},
    {"trunc", IntrinsicOp::Trunc, false, IntrinsicOp::Trunc},
    {"rint", IntrinsicOp::Rint, false, IntrinsicOp::Rint},
    {"fabs", IntrinsicOp::Fabs, false, IntrinsicOp::Fabs},
};

struct BinaryMath {
  const char *name;
  IntrinsicOp op;
};

const BinaryMath kBinaryMath[] = {
    {"arctan2", IntrinsicOp::Atan2},
    {"hypot", IntrinsicOp::Hypot},
    {"copysign", IntrinsicOp::Copysign},
    {"nextafter", IntrinsicOp::Nextafter},
    {"fmod", IntrinsicOp::Fmod},
};

struct Arith {
  const char *name;
  ast::BinaryOp op;
};

const Arith kArith[] = {
    {"add", ast::BinaryOp::Add},
    {"subtract", ast::BinaryOp::Sub},
    {"multiply", ast::BinaryOp::Mul},
    {"divide", ast::BinaryOp::Div},
    {"true_divide", ast::BinaryOp::Div},
    {"floor_divide", ast::BinaryOp::FloorDiv},
    {"remainder", ast::BinaryOp::Mod},
    {"mod", ast::BinaryOp::Mod},
    {"power", ast::BinaryOp::Pow},
    {"bitwise_and", ast::BinaryOp::BitAnd},
    {"bitwise_or", ast::BinaryOp::BitOr},
    {"bitwise_xor", ast::BinaryOp::BitXor},
    {"left_shift", ast::BinaryOp::LShift},
    {"right_shift", ast::BinaryOp::RShift},
};

struct Comparison {
  const char *name;
  ast::CmpOp op;
};

const Comparison kComparisons[] = {
    {"greater", ast::CmpOp::Gt},    {"greater_equal", ast::CmpOp::GtE},
    {"less", ast::CmpOp::Lt},       {"less_equal", ast::CmpOp::LtE},
    {"equal", ast::CmpOp::Eq},      {"not_equal", ast::CmpOp::NotEq},
};

const char *const kOtherFunctions[] = {
    "maximum", "minimum", "fmax", "fmin", "negative", "positive", "absolute", "abs",
    "sign", "square", "reciprocal", "conjugate", "conj", "logical_and", "logical_or",
    "logical_xor", "logical_not", "isnan", "isinf", "isfinite", "signbit", "deg2rad",
    "radians", "rad2deg", "degrees", "real", "imag", "invert", "bitwise_not", "float_power",
};

const char *const kConstants[] = {"pi", "e", "inf", "nan", "euler_gamma", "Inf", "Infinity",
                                  "PINF", "NINF", "NaN", "NAN"};
// clang-format on

}  // namespace

DType numpy_float_type(DType d) {
  switch (d) {
    case DType::Bool:
    case DType::Int8:
    case DType::UInt8:
      return DType::Float16;
    case DType::Int16:
    case DType::UInt16:
      return DType::Float32;
    case DType::Int32:
    case DType::UInt32:
    case DType::Int64:
    case DType::UInt64:
      return DType::Float64;
    default:
      return d;
  }
}

std::vector<std::string> numpy_names() {
  std::vector<std::string> names;
  for (const UnaryMath &f : kUnaryMath) names.push_back(f.name);
  for (const BinaryMath &f : kBinaryMath) names.push_back(f.name);
  for (const Arith &f : kArith) names.push_back(f.name);
  for (const Comparison &f : kComparisons) names.push_back(f.name);
  for (const char *s : kOtherFunctions) names.push_back(s);
  for (const std::string &s : numpy_function_names()) names.push_back(s);
  for (const char *s : {"sum", "prod", "min", "max", "amin", "amax", "mean", "argmin", "argmax", "all", "any"}) {
    names.push_back(s);
  }
  for (const char *s : kConstants) names.push_back(s);
  return names;
}

Value BodyTyper::numpy_constant(const std::string &name, const SourceLocation &loc) {
  if (name == "pi" || name == "e") return math_constant("math", name, loc);
  if (name == "inf" || name == "Inf" || name == "Infinity" || name == "PINF") {
    return Value::weak_num(PyNum::of_float(INFINITY));
  }
  if (name == "NINF") return Value::weak_num(PyNum::of_float(-INFINITY));
  if (name == "nan" || name == "NaN" || name == "NAN") return Value::weak_num(PyNum::of_float(NAN));
  if (name == "euler_gamma") return Value::weak_num(PyNum::of_float(0.5772156649015329));
  if (dtype_from_name(name)) {
    error(loc, "'np." + name + "' is a type; call it to convert a value");
    return Value::error();
  }
  return unknown_numpy(name, loc, false);
}

Value BodyTyper::numpy_operand(const Value &v, const std::string &fn, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (v.is_weak()) return materialize(v);  // a Python number alone: int64, float64, complex128
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(loc, "np." + fn + "() needs a number, not '" + v.type.str() + "'");
    return Value::error();
  }
  return v;
}

Value BodyTyper::call_numpy(const std::string &name, std::vector<Value> args, const ast::Call &call) {
  SourceLocation loc = callee_loc(call);
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  if (is_array_reduction(name)) {
    if (args.empty()) {
      error(loc, "np." + name + "() takes an array (0 arguments given)");
      return Value::error();
    }
    return array_reduction(name, args[0], args.size() - 1, loc);
  }
  std::vector<std::string> names = numpy_names();
  bool known_function = false;
  for (const std::string &n : names) known_function = known_function || n == name;
  for (const char *c : kConstants) known_function = known_function && name != c;
  if (!known_function) return unknown_numpy(name, loc, true);
  std::vector<std::string> composite = numpy_function_names();
  for (const std::string &n : composite) {
    if (n == name) return numpy_function(name, std::move(args), call);
  }
  auto want = [&](std::size_t n) { return numpy_arity(name, args.size(), n, loc); };
  auto arg_loc = [&](std::size_t i) { return i < call.args.size() ? call.args[i]->loc : loc; };
  auto not_for = [&](const Value &v, const std::string &what) { return numpy_unsupported(name, v, what, arg_loc(0)); };
  // Two operands brought to one dtype as NumPy's binary ufuncs do (NEP 50).
  auto two_operands = [&](Value &a, Value &b) { return numpy_operands(a, b, name, loc); };

  for (const UnaryMath &f : kUnaryMath) {
    if (name != f.name) continue;
    if (!want(1)) return Value::error();
    Value x = numpy_operand(args[0], name, arg_loc(0));
    if (!x.ok) return x;
    if (x.type.is_complex()) {
      if (f.has_complex) return intrinsic(f.complex, x.type, {x});
      if (name == "exp2" || name == "log2" || name == "expm1" || name == "log1p" || name == "rint") {
        return numpy_complex_unary(name, x);
      }
      return not_for(x, "complex numbers");
    }
    // NumPy 2.1: floor, ceil and trunc of an integer (or bool) are the value itself.
    if ((name == "floor" || name == "ceil" || name == "trunc") && !x.type.is_float()) return x;
    DType d = numpy_float_type(x.type.dtype());
    return intrinsic(f.real, Type::scalar(d), {convert(x, d)});
  }
  for (const BinaryMath &f : kBinaryMath) {
    if (name != f.name) continue;
    if (!want(2)) return Value::error();
    Value a = args[0];
    Value b = args[1];
    if (!two_operands(a, b)) return Value::error();
    if (a.type.is_complex()) return not_for(a, "complex numbers");
    if (name == "fmod" && (a.type.is_int() || a.type.is_bool())) return integer_fmod(a, b);
    DType d = numpy_float_type(a.type.dtype());
    return intrinsic(f.op, Type::scalar(d), {convert(a, d), convert(b, d)});
  }
  for (const Arith &f : kArith) {
    if (name != f.name) continue;
    if (!want(2)) return Value::error();
    Value a = args[0];
    Value b = args[1];
    if (a.is_weak() && b.is_weak()) {
      a = materialize(a);
      b = materialize(b);
    }
    return binary(f.op, a, b, loc);
  }
  for (const Comparison &f : kComparisons) {
    if (name != f.name) continue;
    if (!want(2)) return Value::error();
    auto is_complex = [](const Value &v) { return v.is_weak() ? v.weak == Weak::Complex : v.type.is_complex(); };
    bool ordered = f.op != ast::CmpOp::Eq && f.op != ast::CmpOp::NotEq;
    if (ordered && (is_complex(args[0]) || is_complex(args[1]))) {
      Value a = args[0];
      Value b = args[1];
      if (!two_operands(a, b)) return Value::error();
      return numpy_complex_order(f.op, a, b);
    }
    return compare(f.op, args[0], args[1], loc);
  }

  if (name == "maximum" || name == "minimum" || name == "fmax" || name == "fmin") {
    if (!want(2)) return Value::error();
    Value a = args[0];
    Value b = args[1];
    if (!two_operands(a, b)) return Value::error();
    if (a.type.is_complex()) return numpy_complex_minmax(name, a, b);
    a = stabilize(a);
    b = stabilize(b);
    bool is_max = name == "maximum" || name == "fmax";
    // NumPy picks the second operand on ties (np.maximum(-0.0, 0.0) is 0.0);
    // maximum/minimum propagate a NaN of either operand, fmax/fmin ignore one.
    Expr pick_a = Compare::make(is_max ? CompareOpcode::Gt : CompareOpcode::Lt, a.expr, b.expr);
    if (a.type.is_float()) {
      bool propagate = name == "maximum" || name == "minimum";
      Value nan = intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {propagate ? a : b});
      pick_a = Binary::make(BinaryOpcode::BitOr, pick_a, nan.expr);
    }
    return Value::strong(Select::make(pick_a, a.expr, b.expr));
  }
  if (name == "logical_and" || name == "logical_or" || name == "logical_xor") {
    if (!want(2)) return Value::error();
    Value a = truth(args[0], arg_loc(0));
    Value b = truth(args[1], arg_loc(1));
    if (!a.ok || !b.ok) return Value::error();
    BinaryOpcode op = name == "logical_and" ? BinaryOpcode::BitAnd
                      : name == "logical_or" ? BinaryOpcode::BitOr
                                             : BinaryOpcode::BitXor;
    return strong_binary(op, a, b);
  }
  if (name == "float_power") {
    if (!want(2)) return Value::error();
    Value a = args[0];
    Value b = args[1];
    if (!two_operands(a, b)) return Value::error();
    DType d = a.type.is_complex() ? DType::Complex128 : DType::Float64;
    return binary(ast::BinaryOp::Pow, convert(a, d), convert(b, d), loc);
  }

  // One operand from here on.
  if (!want(1)) return Value::error();
  if (name == "logical_not") return unary(ast::UnaryOpKind::Not, args[0], loc);
  if (name == "isnan" || name == "isinf" || name == "isfinite") return call_math("np", name, std::move(args), call);
  Value x = numpy_operand(args[0], name, arg_loc(0));
  if (!x.ok) return x;
  const Type t = x.type;
  if (name == "negative") {
    if (t.is_bool()) return not_for(x, "booleans");
    return unary(ast::UnaryOpKind::USub, x, loc);
  }
  if (name == "positive") {
    if (t.is_bool()) return not_for(x, "booleans");
    return x;
  }
  if (name == "invert" || name == "bitwise_not") {
    if (t.is_bool()) return Value::strong(Unary::make(UnaryOpcode::Not, x.expr));
    return unary(ast::UnaryOpKind::Invert, x, loc);
  }
  if (name == "absolute" || name == "abs") {
    if (t.is_bool()) return x;
    if (t.is_int()) return is_unsigned_int(t.dtype()) ? x : intrinsic(IntrinsicOp::IAbs, t, {x});
    if (t.is_float()) return intrinsic(IntrinsicOp::Fabs, t, {x});
    DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
    return intrinsic(IntrinsicOp::CAbs, Type::scalar(part), {x});
  }
  if (name == "conjugate" || name == "conj") {
    return t.is_complex() ? intrinsic(IntrinsicOp::Conj, t, {x}) : x;
  }
  if (name == "real" || name == "imag") return real_imag(x, name == "imag", loc);
  if (name == "square") {
    if (t.is_bool()) return not_for(x, "booleans");
    Value s = stabilize(x);
    return strong_binary(BinaryOpcode::Mul, s, s);
  }
  if (name == "reciprocal") {
    if (t.is_int()) {
      // NumPy's integer loop: 1.0 / x converted to the type (1 and -1 give
      // themselves, other values 0; 0 gives an unspecified value).
      Value one = Value::strong(Const::make_float(DType::Float64, 1.0));
      return convert(strong_binary(BinaryOpcode::Div, one, convert(x, DType::Float64)), t.dtype());
    }
    if (t.is_complex()) return numpy_complex_unary(name, x);
    if (!t.is_float()) return not_for(x, "booleans");
    return strong_binary(BinaryOpcode::Div, Value::strong(Const::make_float(t.dtype(), 1.0)), x);
  }
  if (name == "sign") {
    if (t.is_bool()) return not_for(x, "booleans");
    if (t.is_complex()) return numpy_complex_unary(name, x);
    // NumPy: x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x)), so a NaN stays NaN
    // and -0.0 gives 0.0.
    Value s = stabilize(x);
    Expr zero = make_const(t.dtype(), PyNum::of_int(0));
    Expr one = make_const(t.dtype(), PyNum::of_int(1));
    Expr minus_one = make_const(t.dtype(), PyNum::of_int(-1));
    Expr rest = zero;
    if (t.is_float()) rest = Select::make(Compare::make(CompareOpcode::Eq, s.expr, zero), zero, s.expr);
    if (is_signed_int(t.dtype()) || t.is_float()) {
      rest = Select::make(Compare::make(CompareOpcode::Lt, s.expr, zero), minus_one, rest);
    }
    return Value::strong(Select::make(Compare::make(CompareOpcode::Gt, s.expr, zero), one, rest));
  }
  if (name == "signbit") {
    if (t.is_complex()) return not_for(x, "complex numbers");
    if (t.is_float()) {
      Value one = Value::strong(Const::make_float(t.dtype(), 1.0));
      Value sign = intrinsic(IntrinsicOp::Copysign, t, {one, x});
      return Value::strong(Compare::make(CompareOpcode::Lt, sign.expr, Const::make_float(t.dtype(), 0.0)));
    }
    if (t.is_bool() || is_unsigned_int(t.dtype())) return make_bool_const(false);
    return Value::strong(Compare::make(CompareOpcode::Lt, x.expr, make_const(t.dtype(), PyNum::of_int(0))));
  }
  if (name == "deg2rad" || name == "radians" || name == "rad2deg" || name == "degrees") {
    if (t.is_complex()) return not_for(x, "complex numbers");
    const double pi = 3.141592653589793;
    bool to_radians = name == "deg2rad" || name == "radians";
    double factor = to_radians ? pi / 180.0 : 180.0 / pi;
    Value xf = convert(x, numpy_float_type(t.dtype()));
    return binary(ast::BinaryOp::Mul, xf, Value::weak_num(PyNum::of_float(factor)), loc);
  }

  internal_error << "np." << name << " is listed but not typed";
  return Value::error();
}

Value BodyTyper::unknown_numpy(const std::string &name, const SourceLocation &loc, bool as_call) {
  std::vector<std::string> names = numpy_names();
  for (const std::string &n : names) {
    if (n != name) continue;
    error(loc, "'np." + name + (as_call ? "' is a constant, not a function" : "' is a function; it can only be called"));
    return Value::error();
  }
  std::string message = "'np." + name + "' is not supported in a kernel body";
  std::string hint = closest_match(name, names);
  if (!hint.empty()) message += "; did you mean 'np." + hint + "'?";
  error(loc, message);
  return Value::error();
}

}  // namespace ufjit::ir::typer
