// math.* and cmath.* (LANGUAGE.md section 6). Integer arguments become
// float64 (complex128 for cmath) as in Python; weak literal arguments fold
// to weak constants, so `math.sqrt(2) * x32` stays float32.
#include <cmath>
#include <complex>

#include "support/InternalAssert.h"
#include "typer/Builtins.h"
#include "typer/LibraryCall.h"

namespace ufjit::ir::typer {

namespace {

using F1 = double (*)(double);
using F2 = double (*)(double, double);
using C1 = std::complex<double> (*)(const std::complex<double> &);

struct RealFn {
  const char *name;
  IntrinsicOp op;
  int arity;  // 1 or 2 (fma: 3, folded separately)
  F1 f1;
  F2 f2;
};

// clang-format off
const RealFn kRealFns[] = {
    {"acos", IntrinsicOp::Acos, 1, [](double x) { return std::acos(x); }, nullptr},
    {"acosh", IntrinsicOp::Acosh, 1, [](double x) { return std::acosh(x); }, nullptr},
    {"asin", IntrinsicOp::Asin, 1, [](double x) { return std::asin(x); }, nullptr},
    {"asinh", IntrinsicOp::Asinh, 1, [](double x) { return std::asinh(x); }, nullptr},
    {"atan", IntrinsicOp::Atan, 1, [](double x) { return std::atan(x); }, nullptr},
    {"atanh", IntrinsicOp::Atanh, 1, [](double x) { return std::atanh(x); }, nullptr},
    {"cbrt", IntrinsicOp::Cbrt, 1, [](double x) { return std::cbrt(x); }, nullptr},
    {"ceil", IntrinsicOp::Ceil, 1, [](double x) { return std::ceil(x); }, nullptr},
    {"cos", IntrinsicOp::Cos, 1, [](double x) { return std::cos(x); }, nullptr},
    {"cosh", IntrinsicOp::Cosh, 1, [](double x) { return std::cosh(x); }, nullptr},
    {"erf", IntrinsicOp::Erf, 1, [](double x) { return std::erf(x); }, nullptr},
    {"erfc", IntrinsicOp::Erfc, 1, [](double x) { return std::erfc(x); }, nullptr},
    {"exp", IntrinsicOp::Exp, 1, [](double x) { return std::exp(x); }, nullptr},
    {"exp2", IntrinsicOp::Exp2, 1, [](double x) { return std::exp2(x); }, nullptr},
    {"expm1", IntrinsicOp::Expm1, 1, [](double x) { return std::expm1(x); }, nullptr},
    {"fabs", IntrinsicOp::Fabs, 1, [](double x) { return std::fabs(x); }, nullptr},
    {"floor", IntrinsicOp::Floor, 1, [](double x) { return std::floor(x); }, nullptr},
    {"gamma", IntrinsicOp::Gamma, 1, [](double x) { return std::tgamma(x); }, nullptr},
    {"lgamma", IntrinsicOp::Lgamma, 1, [](double x) { return std::lgamma(x); }, nullptr},
    {"log10", IntrinsicOp::Log10, 1, [](double x) { return std::log10(x); }, nullptr},
    {"log1p", IntrinsicOp::Log1p, 1, [](double x) { return std::log1p(x); }, nullptr},
    {"log2", IntrinsicOp::Log2, 1, [](double x) { return std::log2(x); }, nullptr},
    {"sin", IntrinsicOp::Sin, 1, [](double x) { return std::sin(x); }, nullptr},
    {"sinh", IntrinsicOp::Sinh, 1, [](double x) { return std::sinh(x); }, nullptr},
    {"sqrt", IntrinsicOp::Sqrt, 1, [](double x) { return std::sqrt(x); }, nullptr},
    {"tan", IntrinsicOp::Tan, 1, [](double x) { return std::tan(x); }, nullptr},
    {"tanh", IntrinsicOp::Tanh, 1, [](double x) { return std::tanh(x); }, nullptr},
    {"trunc", IntrinsicOp::Trunc, 1, [](double x) { return std::trunc(x); }, nullptr},
    {"atan2", IntrinsicOp::Atan2, 2, nullptr, [](double x, double y) { return std::atan2(x, y); }},
    {"copysign", IntrinsicOp::Copysign, 2, nullptr, [](double x, double y) { return std::copysign(x, y); }},
    {"fmod", IntrinsicOp::Fmod, 2, nullptr, [](double x, double y) { return std::fmod(x, y); }},
    {"hypot", IntrinsicOp::Hypot, 2, nullptr, [](double x, double y) { return std::hypot(x, y); }},
    {"nextafter", IntrinsicOp::Nextafter, 2, nullptr, [](double x, double y) { return std::nextafter(x, y); }},
    {"pow", IntrinsicOp::Pow, 2, nullptr, [](double x, double y) { return std::pow(x, y); }},
    {"remainder", IntrinsicOp::Remainder, 2, nullptr, [](double x, double y) { return std::remainder(x, y); }},
};

struct ComplexFn {
  const char *name;
  IntrinsicOp op;
  C1 f;
};

const ComplexFn kComplexFns[] = {
    {"exp", IntrinsicOp::CExp, [](const std::complex<double> &z) { return std::exp(z); }},
    {"log10", IntrinsicOp::CLog10, [](const std::complex<double> &z) { return std::log10(z); }},
    {"sqrt", IntrinsicOp::CSqrt, [](const std::complex<double> &z) { return std::sqrt(z); }},
    {"sin", IntrinsicOp::CSin, [](const std::complex<double> &z) { return std::sin(z); }},
    {"cos", IntrinsicOp::CCos, [](const std::complex<double> &z) { return std::cos(z); }},
    {"tan", IntrinsicOp::CTan, [](const std::complex<double> &z) { return std::tan(z); }},
    {"asin", IntrinsicOp::CAsin, [](const std::complex<double> &z) { return std::asin(z); }},
    {"acos", IntrinsicOp::CAcos, [](const std::complex<double> &z) { return std::acos(z); }},
    {"atan", IntrinsicOp::CAtan, [](const std::complex<double> &z) { return std::atan(z); }},
    {"sinh", IntrinsicOp::CSinh, [](const std::complex<double> &z) { return std::sinh(z); }},
    {"cosh", IntrinsicOp::CCosh, [](const std::complex<double> &z) { return std::cosh(z); }},
    {"tanh", IntrinsicOp::CTanh, [](const std::complex<double> &z) { return std::tanh(z); }},
    {"asinh", IntrinsicOp::CAsinh, [](const std::complex<double> &z) { return std::asinh(z); }},
    {"acosh", IntrinsicOp::CAcosh, [](const std::complex<double> &z) { return std::acosh(z); }},
    {"atanh", IntrinsicOp::CAtanh, [](const std::complex<double> &z) { return std::atanh(z); }},
};
// clang-format on

const char *const kMathConstants[] = {"pi", "e", "tau", "inf", "nan"};
const char *const kCmathConstants[] = {"pi", "e", "tau", "inf", "nan", "infj", "nanj"};

DType complex_part(DType c) { return c == DType::Complex64 ? DType::Float32 : DType::Float64; }

}  // namespace

/// One math.*, cmath.* (or np.isnan/isinf/isfinite) call; its handlers are
/// named by the tables below.
class MathCall : public LibraryCall {
 public:
  MathCall(BodyTyper &typer, const std::string &module, const std::string &name, std::vector<Value> args,
           const ast::Call &call)
      : LibraryCall(typer, name, module + "." + name, std::move(args), call), module_(module) {}

  Value run();

  // math.*
  Value real_function(const RealFn &f);
  Value fma();
  Value real_log();
  Value degrees_radians();
  Value frexp_modf();
  Value ldexp();
  // cmath.*
  Value complex_function(const ComplexFn &f);
  Value complex_log();
  Value phase_polar();
  Value rect();
  // both, and np.*
  Value classify();

 private:
  /// Real arguments of a math function: weak floats or strong floats of one
  /// type (nullopt after an error).
  std::optional<DType> real_args();
  /// "'math.pi' is a constant, not a function" or "unknown function".
  Value not_a_function();

  std::string module_;
};

namespace {

using MathHandler = Value (MathCall::*)();

struct SpecialFn {
  const char *name;
  MathHandler handler;
};

const SpecialFn kMathSpecial[] = {
    {"degrees", &MathCall::degrees_radians}, {"radians", &MathCall::degrees_radians},
    {"isnan", &MathCall::classify},          {"isinf", &MathCall::classify},
    {"isfinite", &MathCall::classify},       {"frexp", &MathCall::frexp_modf},
    {"modf", &MathCall::frexp_modf},         {"ldexp", &MathCall::ldexp},
    {"log", &MathCall::real_log},            {"fma", &MathCall::fma},
};

const SpecialFn kCmathSpecial[] = {
    {"log", &MathCall::complex_log}, {"phase", &MathCall::phase_polar}, {"polar", &MathCall::phase_polar},
    {"rect", &MathCall::rect},       {"isnan", &MathCall::classify},    {"isinf", &MathCall::classify},
    {"isfinite", &MathCall::classify},
};

}  // namespace

std::vector<std::string> math_module_names(const std::string &module) {
  std::vector<std::string> names;
  if (module == "math") {
    for (const RealFn &f : kRealFns) names.push_back(f.name);
    for (const SpecialFn &f : kMathSpecial) names.push_back(f.name);
    for (const char *s : kMathConstants) names.push_back(s);
  } else {
    for (const ComplexFn &f : kComplexFns) names.push_back(f.name);
    for (const SpecialFn &f : kCmathSpecial) names.push_back(f.name);
    for (const char *s : kCmathConstants) names.push_back(s);
  }
  return names;
}

Value BodyTyper::math_constant(const std::string &module, const std::string &name, const SourceLocation &loc) {
  const double pi = 3.141592653589793;
  if (name == "pi") return Value::weak_num(PyNum::of_float(pi));
  if (name == "e") return Value::weak_num(PyNum::of_float(2.718281828459045));
  if (name == "tau") return Value::weak_num(PyNum::of_float(6.283185307179586));
  if (name == "inf") return Value::weak_num(PyNum::of_float(INFINITY));
  if (name == "nan") return Value::weak_num(PyNum::of_float(NAN));
  if (module == "cmath" && name == "infj") return Value::weak_num(PyNum::of_complex({0.0, INFINITY}));
  if (module == "cmath" && name == "nanj") return Value::weak_num(PyNum::of_complex({0.0, NAN}));
  std::vector<std::string> names = math_module_names(module);
  for (const std::string &n : names) {
    if (n == name) {
      error(loc, "'" + module + "." + name + "' is a function; it can only be called");
      return Value::error();
    }
  }
  std::string message = "unknown name '" + module + "." + name + "'";
  std::string hint = closest_match(name, names);
  if (!hint.empty()) message += "; did you mean '" + module + "." + hint + "'?";
  error(loc, message);
  return Value::error();
}

Value BodyTyper::float_math_arg(const Value &v, const std::string &fn, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (v.is_weak()) {
    if (v.weak == Weak::Complex) {
      error(loc, "math." + fn + "() does not accept complex values; use cmath." + fn + "()");
      return Value::error();
    }
    return Value::weak_num(PyNum::of_float(v.num.as_double()));
  }
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(loc, "math." + fn + "() needs a number, not '" + v.type.str() + "'");
    return Value::error();
  }
  if (v.type.is_complex()) {
    error(loc, "math." + fn + "() does not accept complex values ('" + v.type.str() + "'); use cmath." + fn + "()");
    return Value::error();
  }
  if (v.type.is_float()) return v;
  return convert(v, DType::Float64);
}

Value BodyTyper::complex_math_arg(const Value &v, const std::string &fn, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (v.is_weak()) return Value::weak_num(PyNum::of_complex(v.num.as_complex()));
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(loc, "cmath." + fn + "() needs a number, not '" + v.type.str() + "'");
    return Value::error();
  }
  if (v.type.is_complex()) return v;
  return convert(v, DType::Complex128);
}


Value BodyTyper::call_math(const std::string &module, const std::string &name, std::vector<Value> args,
                           const ast::Call &call) {
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  return MathCall(*this, module, name, std::move(args), call).run();
}

Value MathCall::run() {
  if (module_ == "math") {
    if (const RealFn *f = find_entry(kRealFns, name_)) return real_function(*f);
    if (const SpecialFn *f = find_entry(kMathSpecial, name_)) return (this->*f->handler)();
  } else if (module_ == "cmath") {
    if (const ComplexFn *f = find_entry(kComplexFns, name_)) return complex_function(*f);
    if (const SpecialFn *f = find_entry(kCmathSpecial, name_)) return (this->*f->handler)();
  } else if (name_ == "isnan" || name_ == "isinf" || name_ == "isfinite") {
    return classify();  // np.isnan, ...
  }
  return not_a_function();
}

std::optional<DType> MathCall::real_args() {
  std::optional<DType> d;
  for (std::size_t i = 0; i < args_.size(); ++i) {
    args_[i] = t_.float_math_arg(args_[i], name_, arg_loc(i));
    if (!args_[i].ok) return std::nullopt;
    if (!args_[i].is_weak()) d = d ? promote(*d, args_[i].type.dtype()) : args_[i].type.dtype();
  }
  if (d) {
    for (Value &x : args_) x = t_.convert(x, *d);
  }
  return d ? d : std::optional<DType>(DType::Float64);
}

Value MathCall::real_function(const RealFn &f) {
  if (!want(static_cast<std::size_t>(f.arity))) return Value::error();
  std::optional<DType> d = real_args();
  if (!d) return Value::error();
  if (all_weak(args_)) {
    double r = f.arity == 1 ? f.f1(args_[0].num.f) : f.f2(args_[0].num.f, args_[1].num.f);
    return Value::weak_num(PyNum::of_float(r));
  }
  return t_.intrinsic(f.op, Type::scalar(*d), args_);
}

Value MathCall::fma() {
  if (!want(3)) return Value::error();
  std::optional<DType> d = real_args();
  if (!d) return Value::error();
  if (all_weak(args_)) {
    return Value::weak_num(PyNum::of_float(std::fma(args_[0].num.f, args_[1].num.f, args_[2].num.f)));
  }
  return t_.intrinsic(IntrinsicOp::Fma, Type::scalar(*d), args_);
}

Value MathCall::real_log() {
  if (!want_one_or_two()) return Value::error();
  std::optional<DType> d = real_args();
  if (!d) return Value::error();
  if (all_weak(args_)) {
    double r = std::log(args_[0].num.f);
    if (args_.size() == 2) r /= std::log(args_[1].num.f);
    return Value::weak_num(PyNum::of_float(r));
  }
  Value l = t_.intrinsic(IntrinsicOp::Log, Type::scalar(*d), {args_[0]});
  if (args_.size() == 1) return l;
  return t_.strong_binary(BinaryOpcode::Div, l, t_.intrinsic(IntrinsicOp::Log, Type::scalar(*d), {args_[1]}));
}

Value MathCall::degrees_radians() {
  if (!want(1)) return Value::error();
  Value x = t_.float_math_arg(args_[0], name_, arg_loc(0));
  const double pi = 3.141592653589793;
  double factor = name_ == "degrees" ? 180.0 / pi : pi / 180.0;
  return t_.binary(ast::BinaryOp::Mul, x, Value::weak_num(PyNum::of_float(factor)), loc_);
}

Value MathCall::frexp_modf() {
  if (!want(1)) return Value::error();
  Value x = t_.float_math_arg(args_[0], name_, arg_loc(0));
  if (!x.ok) return x;
  bool frexp = name_ == "frexp";
  if (x.is_weak()) {
    if (frexp) {
      int e = 0;
      double m = std::frexp(x.num.f, &e);
      return Value::tuple_literal({Value::weak_num(PyNum::of_float(m)), Value::weak_num(PyNum::of_int(e))});
    }
    double ip = 0.0;
    double frac = std::modf(x.num.f, &ip);
    return Value::tuple_literal({Value::weak_num(PyNum::of_float(frac)), Value::weak_num(PyNum::of_float(ip))});
  }
  Type second = frexp ? Type::scalar(DType::Int32) : x.type;
  return t_.intrinsic(frexp ? IntrinsicOp::Frexp : IntrinsicOp::Modf, Type::tuple({x.type, second}), {x});
}

Value MathCall::ldexp() {
  if (!want(2)) return Value::error();
  Value x = t_.float_math_arg(args_[0], name_, arg_loc(0));
  Value n = args_[1];
  bool n_int = n.is_weak() ? n.weak == Weak::Int : (!n.literal_tuple && (n.type.is_int() || n.type.is_bool()));
  if (!n_int) {
    t_.error(arg_loc(1), "math.ldexp(): the exponent must be an integer");
    return Value::error();
  }
  if (!x.ok) return x;
  if (x.is_weak() && n.is_weak()) {
    Int128 e = std::max<Int128>(-100000, std::min<Int128>(100000, n.num.i));
    return Value::weak_num(PyNum::of_float(std::ldexp(x.num.f, static_cast<int>(e))));
  }
  if (x.is_weak()) x = t_.convert(x, DType::Float64);
  return t_.intrinsic(IntrinsicOp::Ldexp, x.type, {x, t_.ldexp_exponent(n)});
}

Value MathCall::complex_function(const ComplexFn &f) {
  if (!want(1)) return Value::error();
  Value z = t_.complex_math_arg(args_[0], name_, arg_loc(0));
  if (!z.ok) return z;
  if (z.is_weak()) return Value::weak_num(PyNum::of_complex(f.f(z.num.c)));
  return t_.intrinsic(f.op, z.type, {z});
}

Value MathCall::complex_log() {
  if (!want_one_or_two()) return Value::error();
  std::vector<Value> zs;
  for (std::size_t i = 0; i < args_.size(); ++i) zs.push_back(t_.complex_math_arg(args_[i], name_, arg_loc(i)));
  for (const Value &z : zs) {
    if (!z.ok) return z;
  }
  if (all_weak(zs)) {
    std::complex<double> r = std::log(zs[0].num.c);
    if (zs.size() == 2) r /= std::log(zs[1].num.c);
    return Value::weak_num(PyNum::of_complex(r));
  }
  if (zs.size() == 2 && !t_.unify_operands(zs[0], zs[1], loc_, "apply cmath.log() to")) return Value::error();
  if (zs[0].is_weak()) zs[0] = t_.convert(zs[0], DType::Complex128);
  Value l = t_.intrinsic(IntrinsicOp::CLog, zs[0].type, {zs[0]});
  if (zs.size() == 1) return l;
  return t_.strong_binary(BinaryOpcode::Div, l, t_.intrinsic(IntrinsicOp::CLog, zs[1].type, {zs[1]}));
}

Value MathCall::phase_polar() {
  if (!want(1)) return Value::error();
  Value z = t_.complex_math_arg(args_[0], name_, arg_loc(0));
  if (!z.ok) return z;
  if (z.is_weak()) {
    Value phase = Value::weak_num(PyNum::of_float(std::arg(z.num.c)));
    if (name_ == "phase") return phase;
    return Value::tuple_literal({Value::weak_num(PyNum::of_float(std::abs(z.num.c))), phase});
  }
  Type part = Type::scalar(complex_part(z.type.dtype()));
  if (name_ == "phase") return t_.intrinsic(IntrinsicOp::Phase, part, {z});
  Value zs = t_.stabilize(z);
  return Value::tuple_literal(
      {t_.intrinsic(IntrinsicOp::CAbs, part, {zs}), t_.intrinsic(IntrinsicOp::Phase, part, {zs})});
}

Value MathCall::rect() {
  if (!want(2)) return Value::error();
  Value r = t_.float_math_arg(args_[0], name_, arg_loc(0));
  Value phi = t_.float_math_arg(args_[1], name_, arg_loc(1));
  if (!r.ok || !phi.ok) return Value::error();
  if (r.is_weak() && phi.is_weak()) {
    return Value::weak_num(PyNum::of_complex({r.num.f * std::cos(phi.num.f), r.num.f * std::sin(phi.num.f)}));
  }
  Value rs = t_.stabilize(t_.convert(r, DType::Float64));
  Value ps = t_.stabilize(t_.convert(phi, DType::Float64));
  Type f64 = Type::scalar(DType::Float64);
  Expr zero = Const::make_float(DType::Float64, 0.0);
  Type boolean = Type::scalar(DType::Bool);
  Expr r_inf = t_.intrinsic(IntrinsicOp::IsInf, boolean, {rs}).expr;
  // Numba's rect at infinities: r * cos(phi) and r * sin(phi),
  // except that an infinite r keeps a zero part zero with the sign of their
  // quotient (rect(inf, 0) is inf + 0j), and a non-finite phi gives +0 for
  // r == 0 and r + phi j for an infinite r.
  auto part = [&](IntrinsicOp op) {
    Value v = t_.stabilize(t_.intrinsic(op, f64, {ps}));
    Expr product = t_.strong_binary(BinaryOpcode::Mul, v, rs).expr;
    Expr quotient = t_.strong_binary(BinaryOpcode::Div, v, rs).expr;
    return Select::make(Compare::make(CompareOpcode::Eq, v.expr, zero),
                        Select::make(r_inf, quotient, product), product);
  };
  Expr phi_finite = t_.intrinsic(IntrinsicOp::IsFinite, boolean, {ps}).expr;
  Expr r_zero = Compare::make(CompareOpcode::Eq, rs.expr, zero);
  Expr abs_r = t_.intrinsic(IntrinsicOp::Fabs, f64, {rs}).expr;
  Expr cos_part = part(IntrinsicOp::Cos);
  Expr sin_part = part(IntrinsicOp::Sin);
  Expr re =
      Select::make(phi_finite, cos_part, Select::make(r_zero, abs_r, Select::make(r_inf, rs.expr, cos_part)));
  Expr im =
      Select::make(phi_finite, sin_part, Select::make(r_zero, zero, Select::make(r_inf, ps.expr, sin_part)));
  return t_.intrinsic(IntrinsicOp::MakeComplex, Type::scalar(DType::Complex128),
                      {Value::strong(re), Value::strong(im)});
}

Value MathCall::classify() {
  if (!want(1)) return Value::error();
  const Value &v = args_[0];
  if (v.literal_tuple || (!v.is_weak() && !v.type.is_scalar())) {
    t_.error(arg_loc(0), qualified_ + "() needs a number, not '" + v.type.str() + "'");
    return Value::error();
  }
  bool complex = v.is_weak() ? v.weak == Weak::Complex : v.type.is_complex();
  if (complex && module_ == "math") {
    t_.error(arg_loc(0), "math." + name_ + "() does not accept complex values; use cmath." + name_ + "()");
    return Value::error();
  }
  if (v.is_weak()) {
    std::complex<double> c = v.num.as_complex();
    if (name_ == "isnan") return t_.make_bool_const(std::isnan(c.real()) || std::isnan(c.imag()));
    if (name_ == "isinf") return t_.make_bool_const(std::isinf(c.real()) || std::isinf(c.imag()));
    return t_.make_bool_const(std::isfinite(c.real()) && std::isfinite(c.imag()));
  }
  if (v.type.is_int() || v.type.is_bool()) return t_.make_bool_const(name_ == "isfinite");
  IntrinsicOp op = name_ == "isnan"   ? IntrinsicOp::IsNan
                   : name_ == "isinf" ? IntrinsicOp::IsInf
                                      : IntrinsicOp::IsFinite;
  return t_.intrinsic(op, Type::scalar(DType::Bool), {v});
}

Value MathCall::not_a_function() {
  std::vector<std::string> names = math_module_names(module_);
  for (const std::string &n : names) {
    if (n == name_) {
      t_.error(loc_, "'" + qualified_ + "' is a constant, not a function");
      return Value::error();
    }
  }
  std::string message = "unknown function '" + qualified_ + "'";
  std::string hint = closest_match(name_, names);
  if (!hint.empty()) message += "; did you mean '" + module_ + "." + hint + "'?";
  t_.error(loc_, message);
  return Value::error();
}

}  // namespace ufjit::ir::typer
