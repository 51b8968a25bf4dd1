// np.* functions built from several IR operations (LANGUAGE.md section 6):
// logaddexp, logaddexp2, ldexp, frexp, modf, divmod, spacing, heaviside, gcd,
// lcm, bitwise_count, round/around/round_ with decimals, and the complex
// forms NumPy has of exp2, log2, expm1, log1p, rint, sign, maximum, minimum,
// fmax, fmin and the ordering comparisons. Definitions are NumPy's
// (npy_math, loops.c.src; sign as NumPy 2: z/|z|), typing as in
// NumpyCalls.cpp (NumPy's loop types, NEP 50 for Python numbers).
#include <cmath>

#include "support/InternalAssert.h"
#include "typer/Builtins.h"
#include "typer/NumpyCall.h"

namespace ufjit::ir::typer {

namespace {

struct NumpyFunction {
  const char *name;
  NumpyCall::Handler handler;
};

// clang-format off
const NumpyFunction kFunctions[] = {
    {"logaddexp", &NumpyCall::logaddexp}, {"logaddexp2", &NumpyCall::logaddexp},
    {"ldexp", &NumpyCall::ldexp}, {"frexp", &NumpyCall::float_parts}, {"modf", &NumpyCall::float_parts},
    {"divmod", &NumpyCall::integer_pair}, {"spacing", &NumpyCall::float_parts},
    {"heaviside", &NumpyCall::heaviside}, {"gcd", &NumpyCall::integer_pair}, {"lcm", &NumpyCall::integer_pair},
    {"round", &NumpyCall::round}, {"around", &NumpyCall::round}, {"round_", &NumpyCall::round},
    {"bitwise_count", &NumpyCall::bitwise_count}, {"sinc", &NumpyCall::scalar_function},
    {"angle", &NumpyCall::angle}, {"nan_to_num", &NumpyCall::scalar_function},
    {"isneginf", &NumpyCall::scalar_function}, {"isposinf", &NumpyCall::scalar_function},
    {"iscomplex", &NumpyCall::scalar_function}, {"isreal", &NumpyCall::scalar_function},
    {"iscomplexobj", &NumpyCall::scalar_function}, {"isrealobj", &NumpyCall::scalar_function},
};
// clang-format on

bool is_integer(const Value &v) {
  return v.is_weak() ? v.weak == Weak::Int : !v.literal_tuple && (v.type.is_int() || v.type.is_bool());
}

Expr cmp(CompareOpcode op, const Expr &a, const Expr &b) { return Compare::make(op, a, b); }
Expr both(const Expr &a, const Expr &b) { return Binary::make(BinaryOpcode::BitAnd, a, b); }
Expr either(const Expr &a, const Expr &b) { return Binary::make(BinaryOpcode::BitOr, a, b); }
Expr negate(const Expr &a) { return Unary::make(UnaryOpcode::Not, a); }

/// NumPy's power_of_ten (multiarray/calculation.c): exact up to 1e22, then
/// repeated multiplication by 10, as np.round computes its scale.
double numpy_power_of_ten(int64_t n) {
  static const double kSmall[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
  if (n < 9) return kSmall[n];
  double r = 1e9;
  for (int64_t k = 9; k < n && !std::isinf(r); ++k) r *= 10.0;
  return r;
}

}  // namespace

std::vector<std::string> numpy_function_names() {
  std::vector<std::string> names;
  for (const NumpyFunction &f : kFunctions) names.push_back(f.name);
  return names;
}

NumpyCall::Handler NumpyCall::composite_handler(const std::string &name) {
  const NumpyFunction *f = find_entry(kFunctions, name);
  return f != nullptr ? f->handler : nullptr;
}

bool BodyTyper::numpy_arity(const std::string &fn, std::size_t given, std::size_t wanted, const SourceLocation &loc) {
  return check_arity("np." + fn, given, wanted, loc, "; the out= and where= forms are not supported");
}

Value BodyTyper::numpy_unsupported(const std::string &fn, const Value &v, const std::string &what,
                                   const SourceLocation &loc) {
  error(loc, "np." + fn + "() is not supported for " + what + " ('" + v.type.str() + "')");
  return Value::error();
}

bool BodyTyper::numpy_operands(Value &a, Value &b, const std::string &fn, const SourceLocation &loc) {
  if (a.is_weak() && b.is_weak()) {
    a = materialize(a);
    b = materialize(b);
  }
  for (const Value *v : {&a, &b}) {
    if (!v->is_weak() && (v->literal_tuple || !v->type.is_scalar())) {
      error(loc, "np." + fn + "() needs numbers, not '" + v->type.str() + "'");
      return false;
    }
  }
  return unify_operands(a, b, loc, "apply np." + fn + "() to");
}

Value BodyTyper::ldexp_exponent(const Value &n) {
  // Exponents beyond +-100000 give 0 or inf as the clamped ones do (a
  // float64's exponents span about 2200), so int64 and uint64 exponents are
  // clamped into int32 instead of wrapping.
  const int64_t limit = 100000;
  if (n.is_weak()) {
    Int128 e = std::max<Int128>(-limit, std::min<Int128>(limit, n.num.i));
    return Value::strong(Const::make_int(DType::Int32, static_cast<int64_t>(e)));
  }
  DType t = n.type.dtype();
  if (t == DType::Bool || dtype_size(t) < 4 || t == DType::Int32) return convert(n, DType::Int32);
  DType wide = is_signed_int(t) ? DType::Int64 : DType::UInt64;
  Value v = stabilize(convert(n, wide));
  Expr high = make_const(wide, PyNum::of_int(limit));
  Expr clamped = Select::make(cmp(CompareOpcode::Gt, v.expr, high), high, v.expr);
  if (is_signed_int(t)) {
    Expr low = make_const(wide, PyNum::of_int(-limit));
    clamped = Select::make(cmp(CompareOpcode::Lt, v.expr, low), low, clamped);
  }
  return Value::strong(Cast::make(DType::Int32, clamped));
}

Value NumpyCall::round() {
  if (!want_one_or_two("; the out= form is not supported")) return Value::error();
  Value decimals = args_.size() == 2 ? args_[1] : Value::weak_num(PyNum::of_int(0));
  if (!is_integer(decimals)) {
    t_.error(arg_loc(1), qualified_ + "(): decimals must be an integer, not '" + decimals.type.str() + "'");
    return Value::error();
  }
  if (!take_number()) return x_;
  if (x_.type.is_bool()) return not_for(x_, "booleans");
  return t_.numpy_round(x_, decimals);
}

Value NumpyCall::angle() {
  if (!want_one_or_two()) return Value::error();
  bool deg = false;
  if (args_.size() == 2) {
    const Value &d = args_[1];
    const Const *c = d.is_weak() || !d.type.is_bool() ? nullptr : d.expr.as<Const>();
    if (c == nullptr) {
      t_.error(arg_loc(1), "np.angle(): deg must be the constant True or False");
      return Value::error();
    }
    deg = c->int_bits != 0;
  }
  if (!take_number()) return x_;
  return t_.numpy_angle(x_, deg);
}

Value NumpyCall::scalar_function() {
  if (!want(1) || !take_number()) return x_;
  return t_.numpy_scalar_function(name_, x_, arg_loc(0));
}

Value NumpyCall::float_parts() {
  if (!want(1) || !take_number()) return x_;
  if (x_.type.is_complex()) return not_for(x_, "complex numbers");
  DType d = numpy_float_type(x_.type.dtype());
  Value xf = t_.convert(x_, d);
  if (name_ == "spacing") return t_.intrinsic(IntrinsicOp::Spacing, Type::scalar(d), {xf});
  Type second = Type::scalar(name_ == "frexp" ? DType::Int32 : d);
  IntrinsicOp op = name_ == "frexp" ? IntrinsicOp::Frexp : IntrinsicOp::Modf;
  return t_.intrinsic(op, Type::tuple({Type::scalar(d), second}), {xf});
}

Value NumpyCall::bitwise_count() {
  if (!want(1) || !take_number()) return x_;
  if (x_.type.is_complex()) return not_for(x_, "complex numbers");
  // NumPy 2: the ones of the magnitude, as uint8.
  if (x_.type.is_float()) return not_for(x_, "floats");
  Value v = x_.type.is_bool() ? t_.convert(x_, DType::Int8) : x_;
  Value m = is_signed_int(v.type.dtype()) ? t_.intrinsic(IntrinsicOp::IAbs, v.type, {v}) : v;
  return t_.convert(t_.intrinsic(IntrinsicOp::Popc, v.type, {m}), DType::UInt8);
}

Value NumpyCall::ldexp() {
  if (!want(2) || !take_number()) return x_;
  if (x_.type.is_complex()) return not_for(x_, "complex numbers");
  if (!is_integer(args_[1])) {
    t_.error(arg_loc(1), "np.ldexp(): the exponent must be an integer, not '" + args_[1].type.str() + "'");
    return Value::error();
  }
  DType d = numpy_float_type(x_.type.dtype());
  return t_.intrinsic(IntrinsicOp::Ldexp, Type::scalar(d), {t_.convert(x_, d), t_.ldexp_exponent(args_[1])});
}

bool NumpyCall::real_pair(Value &a, Value &b) {
  if (!want(2)) return false;
  a = args_[0];
  b = args_[1];
  if (!two_operands(a, b)) return false;
  if (!a.type.is_complex()) return true;
  not_for(a, "complex numbers");
  return false;
}

Value NumpyCall::integer_pair() {
  Value a;
  Value b;
  if (!real_pair(a, b)) return Value::error();
  const DType t = a.type.dtype();
  if (name_ != "divmod" && is_float(t)) return not_for(a, "floats");
  if (t == DType::Bool) {  // NumPy's loops start at int8
    a = t_.convert(a, DType::Int8);
    b = t_.convert(b, DType::Int8);
  }
  if (name_ == "divmod") return t_.divmod_tuple(a, b, loc_);
  return t_.intrinsic(name_ == "gcd" ? IntrinsicOp::Gcd : IntrinsicOp::Lcm, a.type, {a, b});
}

Value NumpyCall::logaddexp() {
  Value a;
  Value b;
  if (!real_pair(a, b)) return Value::error();
  DType d = numpy_float_type(a.type.dtype());
  IntrinsicOp op = name_ == "logaddexp" ? IntrinsicOp::Logaddexp : IntrinsicOp::Logaddexp2;
  return t_.intrinsic(op, Type::scalar(d), {t_.convert(a, d), t_.convert(b, d)});
}

// heaviside(x, h0): 0 below zero, 1 above, h0 at either zero, NaN for NaN.
Value NumpyCall::heaviside() {
  Value a;
  Value b;
  if (!real_pair(a, b)) return Value::error();
  DType d = numpy_float_type(a.type.dtype());
  Value x = t_.stabilize(t_.convert(a, d));
  Value y = t_.stabilize(t_.convert(b, d));
  Expr zero = Const::make_float(d, 0.0);
  Expr one = Const::make_float(d, 1.0);
  Expr r = Select::make(cmp(CompareOpcode::Gt, x.expr, zero), one, y.expr);
  r = Select::make(cmp(CompareOpcode::Lt, x.expr, zero), zero, r);
  Value nan = t_.intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {x});
  return Value::strong(Select::make(nan.expr, x.expr, r));
}

Value BodyTyper::integer_fmod(Value a, Value b) {
  if (a.type.is_bool()) {
    a = convert(a, DType::Int8);
    b = convert(b, DType::Int8);
  }
  const DType t = a.type.dtype();
  a = stabilize(a);
  b = stabilize(b);
  // Python's floor remainder (0 for a zero divisor and for INT_MIN % -1),
  // moved to the dividend's sign when the signs differ.
  Value r = stabilize(strong_binary(BinaryOpcode::Mod, a, b));
  if (!is_signed_int(t)) return r;
  Expr zero = make_const(t, PyNum::of_int(0));
  Expr differ = Binary::make(BinaryOpcode::BitXor, cmp(CompareOpcode::Lt, r.expr, zero),
                             cmp(CompareOpcode::Lt, a.expr, zero));
  Expr adjust = both(cmp(CompareOpcode::Ne, r.expr, zero), differ);
  return Value::strong(Select::make(adjust, Binary::make(BinaryOpcode::Sub, r.expr, b.expr), r.expr));
}

Value BodyTyper::numpy_round(const Value &x, const Value &decimals) {
  const Type t = x.type;
  if (t.is_complex()) {
    DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
    Value z = stabilize(x);
    Value d = decimals.is_weak() ? decimals : stabilize(decimals);
    Value re = numpy_round(intrinsic(IntrinsicOp::Real, Type::scalar(part), {z}), d);
    Value im = numpy_round(intrinsic(IntrinsicOp::Imag, Type::scalar(part), {z}), d);
    return intrinsic(IntrinsicOp::MakeComplex, t, {re, im});
  }
  // NumPy (PyArray_Round): decimals >= 0: rint(x * f) / f, else rint(x / f) * f,
  // with f = 10**|decimals| in x's float type (NEP 50: the Python float f
  // takes x's type); integers are unchanged for decimals >= 0, and rounded in
  // float64 then converted back for decimals < 0.
  const bool integer = t.is_int();
  const DType ft = integer ? DType::Float64 : t.dtype();
  auto scaled = [&](const Value &xf, const Expr &f, bool up) {
    BinaryOpcode first = up ? BinaryOpcode::Mul : BinaryOpcode::Div;
    BinaryOpcode second = up ? BinaryOpcode::Div : BinaryOpcode::Mul;
    Value y = Value::strong(Binary::make(first, xf.expr, f));
    Value r = intrinsic(IntrinsicOp::Rint, Type::scalar(ft), {y});
    return Value::strong(Binary::make(second, r.expr, f));
  };
  if (decimals.is_weak()) {
    const Int128 n = decimals.num.i;
    if (n >= 0 && integer) return x;
    if (n == 0) return intrinsic(IntrinsicOp::Rint, t, {x});
    const int64_t magnitude = static_cast<int64_t>(std::min<Int128>(n >= 0 ? n : -n, 400));
    Expr f = Const::make_float(ft, numpy_power_of_ten(magnitude));
    Value r = scaled(stabilize(convert(x, ft)), f, n >= 0);
    return integer ? convert(r, t.dtype()) : r;
  }
  // Decimals known at run time: f = 10.0 ** |decimals| in float64, then in
  // x's type, as a product of 10**(2**k) for the bits of |decimals| (clamped
  // to 511: 10**309 is already inf). Exact up to 10**22, as NumPy's scale is,
  // on both targets (a library pow need not be); beyond, within an ulp of it.
  Value d = stabilize(convert(decimals, DType::Int64));
  Expr zero = Const::make_int(DType::Int64, 0);
  Expr non_negative = cmp(CompareOpcode::Ge, d.expr, zero);
  Expr abs_d = Select::make(non_negative, d.expr, Binary::make(BinaryOpcode::Sub, zero, d.expr));
  Expr limit = Const::make_int(DType::Int64, 511);
  Value e = stabilize(Value::strong(Select::make(cmp(CompareOpcode::Lt, abs_d, limit), abs_d, limit)));
  Expr power = Const::make_float(DType::Float64, 1.0);
  double ten_to_bit = 10.0;  // 10 ** (2 ** k)
  for (int k = 0; k < 9; ++k) {
    Expr bit = Binary::make(BinaryOpcode::BitAnd, e.expr, Const::make_int(DType::Int64, int64_t{1} << k));
    Expr factor = Select::make(cmp(CompareOpcode::Ne, bit, zero), Const::make_float(DType::Float64, ten_to_bit),
                               Const::make_float(DType::Float64, 1.0));
    power = Binary::make(BinaryOpcode::Mul, power, factor);
    ten_to_bit *= ten_to_bit;
  }
  Value f = stabilize(convert(Value::strong(power), ft));
  Value xf = stabilize(convert(x, ft));
  Value up = scaled(xf, f.expr, true);
  Value down = scaled(xf, f.expr, false);
  if (integer) {
    return Value::strong(Select::make(non_negative, x.expr, convert(down, t.dtype()).expr));
  }
  return Value::strong(Select::make(non_negative, up.expr, down.expr));
}

Value BodyTyper::numpy_complex_unary(const std::string &name, const Value &z) {
  const Type t = z.type;
  const DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
  const Type pt = Type::scalar(part);
  Value zs = stabilize(z);
  Value x = stabilize(intrinsic(IntrinsicOp::Real, pt, {zs}));
  Value y = stabilize(intrinsic(IntrinsicOp::Imag, pt, {zs}));
  auto constant = [&](double v) { return Value::strong(Const::make_float(part, v)); };
  auto mul = [&](const Value &a, const Value &b) { return strong_binary(BinaryOpcode::Mul, a, b); };
  auto make = [&](const Value &re, const Value &im) { return intrinsic(IntrinsicOp::MakeComplex, t, {re, im}); };
  const double ln2 = 0.693147180559945309417232121458176568;
  if (name == "exp2") {  // nc_exp2: exp(z ln 2)
    return intrinsic(IntrinsicOp::CExp, t, {make(mul(x, constant(ln2)), mul(y, constant(ln2)))});
  }
  if (name == "log2") {  // nc_log2: log(z) log2(e), both parts
    Value l = stabilize(intrinsic(IntrinsicOp::CLog, t, {zs}));
    Value log2e = constant(1.442695040888963407359924681001892137);
    return make(mul(intrinsic(IntrinsicOp::Real, pt, {l}), log2e), mul(intrinsic(IntrinsicOp::Imag, pt, {l}), log2e));
  }
  if (name == "expm1") {  // nc_expm1: expm1(x) cos(y) - 2 sin(y/2)**2 + i exp(x) sin(y)
    Value half_sin = stabilize(intrinsic(IntrinsicOp::Sin, pt, {mul(y, constant(0.5))}));
    Value re = strong_binary(BinaryOpcode::Sub,
                             mul(intrinsic(IntrinsicOp::Expm1, pt, {x}), intrinsic(IntrinsicOp::Cos, pt, {y})),
                             mul(constant(2.0), mul(half_sin, half_sin)));
    Value im = mul(intrinsic(IntrinsicOp::Exp, pt, {x}), intrinsic(IntrinsicOp::Sin, pt, {y}));
    return make(re, im);
  }
  if (name == "log1p") {  // nc_log1p: log|z + 1| + i atan2(y, x + 1)
    Value x1 = stabilize(strong_binary(BinaryOpcode::Add, x, constant(1.0)));
    Value re = intrinsic(IntrinsicOp::Log, pt, {intrinsic(IntrinsicOp::Hypot, pt, {x1, y})});
    return make(re, intrinsic(IntrinsicOp::Atan2, pt, {y, x1}));
  }
  if (name == "rint") {
    return make(intrinsic(IntrinsicOp::Rint, pt, {x}), intrinsic(IntrinsicOp::Rint, pt, {y}));
  }
  if (name == "reciprocal") {
    // NumPy's complex reciprocal loop (Smith's method on 1 / z, dividing by
    // the larger part): its zeros' signs and special values, as inf+1j ->
    // 0-0j, 0j -> nan+nanj, -0+1j -> -0-1j, which 1 / z as a complex
    // division gives otherwise.
    auto div = [&](const Value &a, const Value &b) { return strong_binary(BinaryOpcode::Div, a, b); };
    auto neg = [&](const Value &v) { return Value::strong(Unary::make(UnaryOpcode::Neg, v.expr)); };
    auto pick = [&](const Expr &c, const Value &a, const Value &b) {
      return Value::strong(Select::make(c, a.expr, b.expr));
    };
    Expr smaller_im = cmp(CompareOpcode::Le, intrinsic(IntrinsicOp::Fabs, pt, {y}).expr,
                          intrinsic(IntrinsicOp::Fabs, pt, {x}).expr);
    Value ratio = stabilize(pick(smaller_im, div(y, x), div(x, y)));
    Value denom = stabilize(pick(smaller_im, strong_binary(BinaryOpcode::Add, x, mul(y, ratio)),
                                 strong_binary(BinaryOpcode::Add, mul(x, ratio), y)));
    return make(pick(smaller_im, div(constant(1.0), denom), div(ratio, denom)),
                pick(smaller_im, div(neg(ratio), denom), div(constant(-1.0), denom)));
  }
  internal_assert(name == "sign") << "np." << name << " has no complex form";
  // NumPy 2: z / |z|; 0 for 0; NaN for a NaN part; for an infinite |z|, the
  // sign of the infinite part (NaN when both are infinite).
  Value magnitude = stabilize(intrinsic(IntrinsicOp::Hypot, pt, {x, y}));
  Value nan = constant(NAN);
  Value zero = constant(0.0);
  Value one = constant(1.0);
  auto is = [&](IntrinsicOp op, const Value &v) { return intrinsic(op, Type::scalar(DType::Bool), {v}).expr; };
  Expr x_inf = is(IntrinsicOp::IsInf, x);
  Expr y_inf = is(IntrinsicOp::IsInf, y);
  Value x_sign = intrinsic(IntrinsicOp::Copysign, pt, {one, x});
  Value y_sign = intrinsic(IntrinsicOp::Copysign, pt, {one, y});
  Expr inf_re = Select::make(x_inf, Select::make(y_inf, nan.expr, x_sign.expr), zero.expr);
  Expr inf_im = Select::make(x_inf, Select::make(y_inf, nan.expr, zero.expr), y_sign.expr);
  Expr finite_re = strong_binary(BinaryOpcode::Div, x, magnitude).expr;
  Expr finite_im = strong_binary(BinaryOpcode::Div, y, magnitude).expr;
  Expr is_zero = cmp(CompareOpcode::Eq, magnitude.expr, zero.expr);
  finite_re = Select::make(is_zero, zero.expr, finite_re);
  finite_im = Select::make(is_zero, zero.expr, finite_im);
  Expr infinite = is(IntrinsicOp::IsInf, magnitude);
  Expr any_nan = is(IntrinsicOp::IsNan, magnitude);
  Expr re = Select::make(any_nan, nan.expr, Select::make(infinite, inf_re, finite_re));
  Expr im = Select::make(any_nan, nan.expr, Select::make(infinite, inf_im, finite_im));
  return make(Value::strong(re), Value::strong(im));
}

Value BodyTyper::numpy_angle(const Value &z, bool deg) {
  // NumPy: arctan2(z.imag, z.real) (0 as the imaginary part of a real), in
  // degrees when deg; integers take arctan2's loop type (int8 -> float16).
  const Type t = z.type;
  DType part = t.is_complex() ? (t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64)
                              : numpy_float_type(t.dtype());
  const Type pt = Type::scalar(part);
  Value re;
  Value im;
  if (t.is_complex()) {
    Value zs = stabilize(z);
    re = intrinsic(IntrinsicOp::Real, pt, {zs});
    im = intrinsic(IntrinsicOp::Imag, pt, {zs});
  } else {
    re = convert(z, part);
    im = Value::strong(Const::make_float(part, 0.0));
  }
  Value a = intrinsic(IntrinsicOp::Atan2, pt, {im, re});
  if (!deg) return a;
  return strong_binary(BinaryOpcode::Mul, a, Value::strong(Const::make_float(part, 180.0 / 3.141592653589793)));
}

Value BodyTyper::numpy_scalar_function(const std::string &name, const Value &x, const SourceLocation &loc) {
  const Type t = x.type;
  const Type boolean = Type::scalar(DType::Bool);
  if (name == "iscomplexobj" || name == "isrealobj") return make_bool_const(t.is_complex() == (name == "iscomplexobj"));
  if (name == "iscomplex" || name == "isreal") {
    // The imaginary part is (not) zero; a real number has none.
    if (!t.is_complex()) return make_bool_const(name == "isreal");
    const DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
    Value im = intrinsic(IntrinsicOp::Imag, Type::scalar(part), {x});
    CompareOpcode op = name == "isreal" ? CompareOpcode::Eq : CompareOpcode::Ne;
    return Value::strong(cmp(op, im.expr, Const::make_float(part, 0.0)));
  }
  if (name == "isneginf" || name == "isposinf") {
    if (t.is_complex()) {
      error(loc, "np." + name + "() is not supported for complex numbers ('" + t.str() + "')");
      return Value::error();
    }
    if (!t.is_float()) return make_bool_const(false);
    Expr inf = Const::make_float(t.dtype(), name == "isposinf" ? INFINITY : -INFINITY);
    return Value::strong(cmp(CompareOpcode::Eq, x.expr, inf));
  }
  if (name == "nan_to_num") {
    // NaN -> 0, +-inf -> the type's largest finite values; per part of a complex.
    if (t.is_int() || t.is_bool()) return x;
    auto fix = [&](const Value &v) {
      const DType d = v.type.dtype();
      Value s = stabilize(v);
      const double big = d == DType::Float16 ? 65504.0 : d == DType::Float32 ? 3.4028234663852886e38 : 1.7976931348623157e308;
      Expr r = Select::make(cmp(CompareOpcode::Eq, s.expr, Const::make_float(d, INFINITY)), Const::make_float(d, big), s.expr);
      r = Select::make(cmp(CompareOpcode::Eq, s.expr, Const::make_float(d, -INFINITY)), Const::make_float(d, -big), r);
      Value nan = intrinsic(IntrinsicOp::IsNan, boolean, {s});
      return Value::strong(Select::make(nan.expr, Const::make_float(d, 0.0), r));
    };
    if (!t.is_complex()) return fix(x);
    const Type pt = Type::scalar(t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64);
    Value zs = stabilize(x);
    return intrinsic(IntrinsicOp::MakeComplex, t,
                     {fix(intrinsic(IntrinsicOp::Real, pt, {zs})), fix(intrinsic(IntrinsicOp::Imag, pt, {zs}))});
  }
  internal_assert(name == "sinc") << "np." << name << " is listed but not typed";
  // NumPy: y = pi * (x if x != 0 else 1e-20); sin(y) / y. Integers give
  // float64; float16 is computed in float32 (1e-20 is zero in float16).
  if (t.is_complex()) {
    Value zs = stabilize(x);
    Value zero = Value::strong(Const::make_complex(t.dtype(), {0.0, 0.0}));
    Value tiny = Value::strong(Const::make_complex(t.dtype(), {1e-20, 0.0}));
    Value pi = Value::strong(Const::make_complex(t.dtype(), {3.141592653589793, 0.0}));
    Value nonzero = Value::strong(Select::make(cmp(CompareOpcode::Eq, zs.expr, zero.expr), tiny.expr, zs.expr));
    Value y = stabilize(strong_binary(BinaryOpcode::Mul, pi, nonzero));
    return strong_binary(BinaryOpcode::Div, intrinsic(IntrinsicOp::CSin, t, {y}), y);
  }
  const DType out = t.is_float() ? t.dtype() : DType::Float64;
  const DType ct = out == DType::Float16 ? DType::Float32 : out;
  Value xs = stabilize(convert(x, ct));
  Expr nonzero = Select::make(cmp(CompareOpcode::Eq, xs.expr, Const::make_float(ct, 0.0)), Const::make_float(ct, 1e-20),
                              xs.expr);
  Value y = stabilize(Value::strong(Binary::make(BinaryOpcode::Mul, Const::make_float(ct, 3.141592653589793), nonzero)));
  Value r = strong_binary(BinaryOpcode::Div, intrinsic(IntrinsicOp::Sin, Type::scalar(ct), {y}), y);
  return convert(r, out);
}

Value BodyTyper::numpy_complex_order(ast::CmpOp op, const Value &a, const Value &b) {
  // NumPy's CLT/CLE/CGT/CGE (umath loops): lexicographic, and a NaN
  // imaginary part makes the real parts' strict comparison false.
  const DType part = a.type.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
  const Type pt = Type::scalar(part);
  Value as = stabilize(a);
  Value bs = stabilize(b);
  Value ar = stabilize(intrinsic(IntrinsicOp::Real, pt, {as}));
  Value ai = stabilize(intrinsic(IntrinsicOp::Imag, pt, {as}));
  Value br = stabilize(intrinsic(IntrinsicOp::Real, pt, {bs}));
  Value bi = stabilize(intrinsic(IntrinsicOp::Imag, pt, {bs}));
  const bool greater = op == ast::CmpOp::Gt || op == ast::CmpOp::GtE;
  const bool or_equal = op == ast::CmpOp::LtE || op == ast::CmpOp::GtE;
  CompareOpcode strict = greater ? CompareOpcode::Gt : CompareOpcode::Lt;
  CompareOpcode tie = greater ? (or_equal ? CompareOpcode::Ge : CompareOpcode::Gt)
                              : (or_equal ? CompareOpcode::Le : CompareOpcode::Lt);
  Expr no_nan_imag = negate(either(intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {ai}).expr,
                                   intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {bi}).expr));
  Expr by_real = both(cmp(strict, ar.expr, br.expr), no_nan_imag);
  Expr by_imag = both(cmp(CompareOpcode::Eq, ar.expr, br.expr), cmp(tie, ai.expr, bi.expr));
  return Value::strong(either(by_real, by_imag));
}

Value BodyTyper::numpy_complex_minmax(const std::string &name, const Value &a, const Value &b) {
  // maximum/minimum: a when CGE/CLE(a, b) or a has a NaN part, else b;
  // fmax/fmin: a when CGE/CLE(a, b) or b has a NaN part, else b.
  Value as = stabilize(a);
  Value bs = stabilize(b);
  bool is_max = name == "maximum" || name == "fmax";
  bool propagate = name == "maximum" || name == "minimum";
  Value order = numpy_complex_order(is_max ? ast::CmpOp::GtE : ast::CmpOp::LtE, as, bs);
  Value nan = intrinsic(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {propagate ? as : bs});
  return Value::strong(Select::make(either(order.expr, nan.expr), as.expr, bs.expr));
}

}  // namespace ufjit::ir::typer
