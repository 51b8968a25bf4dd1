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
#include "typer/NumpyCall.h"

namespace ufjit::ir::typer {

struct NumpyCall::UnaryMath {
  const char *name;
  IntrinsicOp real;
  bool has_complex;
  IntrinsicOp complex;
};

struct NumpyCall::BinaryMath {
  const char *name;
  IntrinsicOp op;
};

struct NumpyCall::Arith {
  const char *name;
  ast::BinaryOp op;
};

struct NumpyCall::Comparison {
  const char *name;
  ast::CmpOp op;
};

namespace {

// clang-format off
const NumpyCall::UnaryMath kUnaryMath[] = {
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

const NumpyCall::BinaryMath kBinaryMath[] = {
    {"arctan2", IntrinsicOp::Atan2},
    {"hypot", IntrinsicOp::Hypot},
    {"copysign", IntrinsicOp::Copysign},
    {"nextafter", IntrinsicOp::Nextafter},
    {"fmod", IntrinsicOp::Fmod},
};

const NumpyCall::Arith kArith[] = {
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

const NumpyCall::Comparison kComparisons[] = {
    {"greater", ast::CmpOp::Gt},    {"greater_equal", ast::CmpOp::GtE},
    {"less", ast::CmpOp::Lt},       {"less_equal", ast::CmpOp::LtE},
    {"equal", ast::CmpOp::Eq},      {"not_equal", ast::CmpOp::NotEq},
};

const char *const kConstants[] = {"pi", "e", "inf", "nan", "euler_gamma", "Inf", "Infinity",
                                  "PINF", "NINF", "NaN", "NAN"};
// clang-format on

}  // namespace

namespace {

/// How run() prepares the arguments before calling the handler.
enum class Operands : uint8_t { Two, One, Number };

struct OtherFn {
  const char *name;
  Operands operands;
  NumpyCall::Handler handler;
};

// clang-format off
const OtherFn kOtherFunctions[] = {
    {"maximum", Operands::Two, &NumpyCall::minmax},
    {"minimum", Operands::Two, &NumpyCall::minmax},
    {"fmax", Operands::Two, &NumpyCall::minmax},
    {"fmin", Operands::Two, &NumpyCall::minmax},
    {"negative", Operands::Number, &NumpyCall::negative},
    {"positive", Operands::Number, &NumpyCall::positive},
    {"absolute", Operands::Number, &NumpyCall::absolute},
    {"abs", Operands::Number, &NumpyCall::absolute},
    {"sign", Operands::Number, &NumpyCall::sign},
    {"square", Operands::Number, &NumpyCall::square},
    {"reciprocal", Operands::Number, &NumpyCall::reciprocal},
    {"conjugate", Operands::Number, &NumpyCall::conjugate},
    {"conj", Operands::Number, &NumpyCall::conjugate},
    {"logical_and", Operands::Two, &NumpyCall::logical},
    {"logical_or", Operands::Two, &NumpyCall::logical},
    {"logical_xor", Operands::Two, &NumpyCall::logical},
    {"logical_not", Operands::One, &NumpyCall::logical_not},
    {"isnan", Operands::One, &NumpyCall::classify},
    {"isinf", Operands::One, &NumpyCall::classify},
    {"isfinite", Operands::One, &NumpyCall::classify},
    {"signbit", Operands::Number, &NumpyCall::signbit},
    {"deg2rad", Operands::Number, &NumpyCall::degrees_radians},
    {"radians", Operands::Number, &NumpyCall::degrees_radians},
    {"rad2deg", Operands::Number, &NumpyCall::degrees_radians},
    {"degrees", Operands::Number, &NumpyCall::degrees_radians},
    {"real", Operands::Number, &NumpyCall::real_imag},
    {"imag", Operands::Number, &NumpyCall::real_imag},
    {"invert", Operands::Number, &NumpyCall::invert},
    {"bitwise_not", Operands::Number, &NumpyCall::invert},
    {"float_power", Operands::Two, &NumpyCall::float_power},
};
// clang-format on

bool is_complex_value(const Value &v) { return v.is_weak() ? v.weak == Weak::Complex : v.type.is_complex(); }

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
  for (const NumpyCall::UnaryMath &f : kUnaryMath) names.push_back(f.name);
  for (const NumpyCall::BinaryMath &f : kBinaryMath) names.push_back(f.name);
  for (const NumpyCall::Arith &f : kArith) names.push_back(f.name);
  for (const NumpyCall::Comparison &f : kComparisons) names.push_back(f.name);
  for (const OtherFn &f : kOtherFunctions) names.push_back(f.name);
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
  return NumpyCall(*this, name, std::move(args), call).run();
}

Value NumpyCall::run() {
  if (Handler h = composite_handler(name_)) return (this->*h)();
  if (const UnaryMath *f = find_entry(kUnaryMath, name_)) return unary_math(*f);
  if (const BinaryMath *f = find_entry(kBinaryMath, name_)) return binary_math(*f);
  if (const Arith *f = find_entry(kArith, name_)) return arith(*f);
  if (const Comparison *f = find_entry(kComparisons, name_)) return comparison(*f);
  const OtherFn *f = find_entry(kOtherFunctions, name_);
  internal_assert(f != nullptr) << "np." << name_ << " is listed but not typed";
  if (!want(f->operands == Operands::Two ? 2 : 1)) return Value::error();
  if (f->operands == Operands::Number && !take_number()) return x_;
  return (this->*f->handler)();
}

bool NumpyCall::take_number() {
  x_ = t_.numpy_operand(args_[0], name_, arg_loc(0));
  return x_.ok;
}

Value NumpyCall::unary_math(const UnaryMath &f) {
  if (!want(1) || !take_number()) return x_;
  const Value &x = x_;
  if (x.type.is_complex()) {
    if (f.has_complex) return t_.intrinsic(f.complex, x.type, {x});
    if (name_ == "exp2" || name_ == "log2" || name_ == "expm1" || name_ == "log1p" || name_ == "rint") {
      return t_.numpy_complex_unary(name_, x);
    }
    return not_for(x, "complex numbers");
  }
  // NumPy 2.1: floor, ceil and trunc of an integer (or bool) are the value itself.
  if ((name_ == "floor" || name_ == "ceil" || name_ == "trunc") && !x.type.is_float()) return x;
  DType d = numpy_float_type(x.type.dtype());
  return t_.intrinsic(f.real, Type::scalar(d), {t_.convert(x, d)});
}

Value NumpyCall::binary_math(const BinaryMath &f) {
  if (!want(2)) return Value::error();
  Value a = args_[0];
  Value b = args_[1];
  if (!two_operands(a, b)) return Value::error();
  if (a.type.is_complex()) return not_for(a, "complex numbers");
  if (name_ == "fmod" && (a.type.is_int() || a.type.is_bool())) return t_.integer_fmod(a, b);
  DType d = numpy_float_type(a.type.dtype());
  return t_.intrinsic(f.op, Type::scalar(d), {t_.convert(a, d), t_.convert(b, d)});
}

Value NumpyCall::arith(const Arith &f) {
  if (!want(2)) return Value::error();
  Value a = args_[0];
  Value b = args_[1];
  if (a.is_weak() && b.is_weak()) {
    a = t_.materialize(a);
    b = t_.materialize(b);
  }
  return t_.binary(f.op, a, b, loc_);
}

Value NumpyCall::comparison(const Comparison &f) {
  if (!want(2)) return Value::error();
  bool ordered = f.op != ast::CmpOp::Eq && f.op != ast::CmpOp::NotEq;
  if (ordered && (is_complex_value(args_[0]) || is_complex_value(args_[1]))) {
    Value a = args_[0];
    Value b = args_[1];
    if (!two_operands(a, b)) return Value::error();
    return t_.numpy_complex_order(f.op, a, b);
  }
  return t_.compare(f.op, args_[0], args_[1], loc_);
}

Value NumpyCall::minmax() {
  Value a = args_[0];
  Value b = args_[1];
  if (!two_operands(a, b)) return Value::error();
  if (a.type.is_complex()) return t_.numpy_complex_minmax(name_, a, b);
  a = t_.stabilize(a);
  b = t_.stabilize(b);
  bool is_max = name_ == "maximum" || name_ == "fmax";
  // NumPy picks the second operand on ties (np.maximum(-0.0, 0.0) is 0.0);
  // maximum/minimum propagate a NaN of either operand, fmax/fmin ignore one.
  Expr pick_a = Compare::make(is_max ? CompareOpcode::Gt : CompareOpcode::Lt, a.expr, b.expr);
  if (a.type.is_float()) {
    bool propagate = name_ == "maximum" || name_ == "minimum";
    Value nan = t_.intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {propagate ? a : b});
    pick_a = Binary::make(BinaryOpcode::BitOr, pick_a, nan.expr);
  }
  return Value::strong(Select::make(pick_a, a.expr, b.expr));
}

Value NumpyCall::logical() {
  Value a = t_.truth(args_[0], arg_loc(0));
  Value b = t_.truth(args_[1], arg_loc(1));
  if (!a.ok || !b.ok) return Value::error();
  BinaryOpcode op = name_ == "logical_and"  ? BinaryOpcode::BitAnd
                    : name_ == "logical_or" ? BinaryOpcode::BitOr
                                            : BinaryOpcode::BitXor;
  return t_.strong_binary(op, a, b);
}

Value NumpyCall::float_power() {
  Value a = args_[0];
  Value b = args_[1];
  if (!two_operands(a, b)) return Value::error();
  DType d = a.type.is_complex() ? DType::Complex128 : DType::Float64;
  return t_.binary(ast::BinaryOp::Pow, t_.convert(a, d), t_.convert(b, d), loc_);
}

Value NumpyCall::logical_not() { return t_.unary(ast::UnaryOpKind::Not, args_[0], loc_); }

Value NumpyCall::classify() { return t_.call_math("np", name_, std::move(args_), call_); }

Value NumpyCall::negative() {
  if (x_.type.is_bool()) return not_for(x_, "booleans");
  return t_.unary(ast::UnaryOpKind::USub, x_, loc_);
}

Value NumpyCall::positive() {
  if (x_.type.is_bool()) return not_for(x_, "booleans");
  return x_;
}

Value NumpyCall::invert() {
  if (x_.type.is_bool()) return Value::strong(Unary::make(UnaryOpcode::Not, x_.expr));
  return t_.unary(ast::UnaryOpKind::Invert, x_, loc_);
}

Value NumpyCall::absolute() {
  const Type &t = x_.type;
  if (t.is_bool()) return x_;
  if (t.is_int()) return is_unsigned_int(t.dtype()) ? x_ : t_.intrinsic(IntrinsicOp::IAbs, t, {x_});
  if (t.is_float()) return t_.intrinsic(IntrinsicOp::Fabs, t, {x_});
  DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
  return t_.intrinsic(IntrinsicOp::CAbs, Type::scalar(part), {x_});
}

Value NumpyCall::conjugate() { return x_.type.is_complex() ? t_.intrinsic(IntrinsicOp::Conj, x_.type, {x_}) : x_; }

Value NumpyCall::real_imag() { return t_.real_imag(x_, name_ == "imag", loc_); }

Value NumpyCall::square() {
  if (x_.type.is_bool()) return not_for(x_, "booleans");
  Value s = t_.stabilize(x_);
  return t_.strong_binary(BinaryOpcode::Mul, s, s);
}

Value NumpyCall::reciprocal() {
  const Type &t = x_.type;
  if (t.is_int()) {
    // NumPy's integer loop: 1.0 / x converted to the type (1 and -1 give
    // themselves, other values 0; 0 gives an unspecified value).
    Value one = Value::strong(Const::make_float(DType::Float64, 1.0));
    return t_.convert(t_.strong_binary(BinaryOpcode::Div, one, t_.convert(x_, DType::Float64)), t.dtype());
  }
  if (t.is_complex()) return t_.numpy_complex_unary(name_, x_);
  if (!t.is_float()) return not_for(x_, "booleans");
  return t_.strong_binary(BinaryOpcode::Div, Value::strong(Const::make_float(t.dtype(), 1.0)), x_);
}

Value NumpyCall::sign() {
  const Type &t = x_.type;
  if (t.is_bool()) return not_for(x_, "booleans");
  if (t.is_complex()) return t_.numpy_complex_unary(name_, x_);
  // NumPy: x > 0 ? 1 : (x < 0 ? -1 : (x == 0 ? 0 : x)), so a NaN stays NaN
  // and -0.0 gives 0.0.
  Value s = t_.stabilize(x_);
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

Value NumpyCall::signbit() {
  const Type &t = x_.type;
  if (t.is_complex()) return not_for(x_, "complex numbers");
  if (t.is_float()) {
    Value one = Value::strong(Const::make_float(t.dtype(), 1.0));
    Value sign = t_.intrinsic(IntrinsicOp::Copysign, t, {one, x_});
    return Value::strong(Compare::make(CompareOpcode::Lt, sign.expr, Const::make_float(t.dtype(), 0.0)));
  }
  if (t.is_bool() || is_unsigned_int(t.dtype())) return t_.make_bool_const(false);
  return Value::strong(Compare::make(CompareOpcode::Lt, x_.expr, make_const(t.dtype(), PyNum::of_int(0))));
}

Value NumpyCall::degrees_radians() {
  if (x_.type.is_complex()) return not_for(x_, "complex numbers");
  const double pi = 3.141592653589793;
  bool to_radians = name_ == "deg2rad" || name_ == "radians";
  double factor = to_radians ? pi / 180.0 : 180.0 / pi;
  Value xf = t_.convert(x_, numpy_float_type(x_.type.dtype()));
  return t_.binary(ast::BinaryOp::Mul, xf, Value::weak_num(PyNum::of_float(factor)), loc_);
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
