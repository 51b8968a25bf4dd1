// Calls: Python builtins, dtype conversions, methods (.conjugate()) and
// helper functions. math/cmath calls are in MathCalls.cpp.
#include "typer/Builtins.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "support/InternalAssert.h"
#include "typer/LibraryCall.h"

namespace ufjit::ir::typer {

bool is_builtin_name(const std::string &name) {
  for (const char *b : kBuiltinNames) {
    if (name == b) return true;
  }
  return false;
}

SourceLocation callee_loc(const ast::Call &call) {
  if (const ast::Attribute *a = call.func->as<ast::Attribute>()) return a->attr_loc;
  return call.func->loc;
}

bool BodyTyper::check_arity(const std::string &qualified, std::size_t given, std::size_t wanted,
                            const SourceLocation &loc, const std::string &note) {
  if (given == wanted) return true;
  error(loc, qualified + "() takes " + std::to_string(wanted) + " argument" + (wanted == 1 ? "" : "s") + " (" +
                 std::to_string(given) + " given" + note + ")");
  return false;
}

namespace {

std::string plural(std::size_t n, const char *word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

/// An integral double as a weak int; nullopt when it is outside the 128-bit
/// range of weak ints (converting it would be undefined behaviour).
std::optional<PyNum> integral_to_weak_int(double integral) {
  const double limit = std::ldexp(1.0, 127);
  if (!(integral >= -limit && integral < limit)) return std::nullopt;
  return PyNum::of_int(static_cast<Int128>(integral));
}

bool is_real_scalar(const Value &v) {
  return v.is_weak() ? v.weak != Weak::Complex
                     : (!v.literal_tuple && v.type.is_scalar() && !v.type.is_complex());
}

/// Python's round(f, ndigits) of two constants.
double fold_round(double f, Int128 ndigits) {
  if (!std::isfinite(f) || ndigits > 330) return f;
  if (ndigits >= 0) {
    // Python rounds the exact decimal value (round(2.675, 2) == 2.67), as printf does.
    char buf[512];
    std::snprintf(buf, sizeof buf, "%.*f", static_cast<int>(ndigits), f);
    return std::strtod(buf, nullptr);
  }
  // Negated as a double: -ndigits overflows for the most negative weak int.
  double p = std::pow(10.0, -static_cast<double>(ndigits));
  // Python: every finite value rounds to a signed zero past 10**308.
  if (std::isinf(p)) return std::copysign(0.0, f);
  return std::nearbyint(f / p) * p;
}

}  // namespace

Value BodyTyper::call_function(const ast::FunctionDef &def, std::vector<Value> args, const ast::Call &call,
                                const Bindings &bindings) {
  SourceLocation loc = callee_loc(call);
  if (module_ == nullptr || def_ == nullptr) {
    error(loc, "a module constant cannot call function '" + def.name + "'");
    return Value::error();
  }
  if (args.size() != def.params.size()) {
    error(loc, "function '" + def.name + "' takes " + plural(def.params.size(), "argument") + " but " +
                   std::to_string(args.size()) + (args.size() == 1 ? " was" : " were") + " given");
    return Value::error();
  }
  // Explicit signatures (`@cuda.jit('float32(float32)', device=True)`): as
  // Numba's dispatcher, the first signature whose argument types equal the
  // call's, else the first of the right arity; arguments are converted to it.
  const frontend::Signature *chosen = nullptr;
  auto declared = scope_.program->helper_signatures.find(&def);
  if (declared != scope_.program->helper_signatures.end() && bindings.empty()) {
    for (const frontend::Signature &sig : declared->second) {
      if (sig.args.size() != args.size()) continue;
      bool exact = true;
      for (std::size_t i = 0; i < args.size(); ++i) {
        exact = exact && !args[i].is_weak() && !args[i].literal_tuple && args[i].type.is_scalar() &&
                args[i].type.dtype() == sig.args[i].dtype;
      }
      if (exact || chosen == nullptr) chosen = &sig;
      if (exact) break;
    }
    if (chosen == nullptr) {
      error(loc, "no signature of '" + def.name + "' takes " + plural(args.size(), "argument"));
      return Value::error();
    }
    for (std::size_t i = 0; i < args.size(); ++i) {
      args[i] = convert_to(args[i], Type::scalar(chosen->args[i].dtype), call.args[i]->loc,
                           "to the signature '" + chosen->str() + "' of '" + def.name + "'");
      if (!args[i].ok) return Value::error();
    }
  }
  std::vector<Expr> exprs;
  std::vector<Type> types;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (bindings.count(def.params[i].name) != 0) {
      types.emplace_back();  // bound: not an argument of the IR function
      continue;
    }
    Value a = materialize(args[i]);
    if (!a.ok) return Value::error();
    if (a.type.is_void()) {
      error(call.args[i]->loc, "a call that returns no value is used as an argument");
      return Value::error();
    }
    exprs.push_back(a.expr);
    types.push_back(a.type);
  }
  DiagnosticEngine &diags = mode_ == Mode::Emit ? real_diags_ : muted_;
  std::optional<ModuleTyper::Spec> spec = module_->specialise(def, types, bindings, loc, mode_ == Mode::Emit, diags);
  if (!spec) {
    poisoned_ = poisoned_ || mode_ == Mode::Emit;
    return Value::error();
  }
  Value v;
  v.ok = true;
  v.type = spec->ret;
  v.expr = Call::make(spec->ret, spec->ir_name, std::move(exprs));
  if (chosen != nullptr && !chosen->ret.is_void && spec->ret.is_scalar()) {
    return convert(v, chosen->ret.dtype);  // the declared return type
  }
  return v;
}

Value BodyTyper::call_dtype(DType t, std::vector<Value> args, const ast::Call &call, const std::string &spelled) {
  SourceLocation loc = callee_loc(call);
  if (args.size() != 1) {
    error(loc, "'" + spelled + "()' takes 1 argument (" + std::to_string(args.size()) + " given)");
    return Value::error();
  }
  const Value &v = args[0];
  if (!v.ok) return v;
  if (v.is_weak()) return Value::strong(make_const(t, v.num));
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(call.args[0]->loc, "cannot convert a value of type '" + v.type.str() + "' with '" + spelled + "()'");
    return Value::error();
  }
  return convert(v, t);
}

Value BodyTyper::real_imag(const Value &v, bool imag, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (v.is_weak()) {
    if (v.weak == Weak::Complex) return Value::weak_num(PyNum::of_float(imag ? v.num.c.imag() : v.num.c.real()));
    if (!imag) return v;
    return Value::weak_num(v.weak == Weak::Int ? PyNum::of_int(0) : PyNum::of_float(0.0));
  }
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(loc, std::string("a value of type '") + v.type.str() + "' has no ." + (imag ? "imag" : "real"));
    return Value::error();
  }
  if (v.type.is_complex()) {
    DType part = v.type.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
    return intrinsic(imag ? IntrinsicOp::Imag : IntrinsicOp::Real, Type::scalar(part), {v});
  }
  if (!imag) return v;
  return Value::strong(make_const(v.type.dtype(), PyNum::of_int(0)));
}

Value BodyTyper::divmod_tuple(Value a, Value b, const SourceLocation &loc) {
  if (!a.is_weak() || !b.is_weak()) {
    a = stabilize(a);
    b = stabilize(b);
  }
  Value q = binary(ast::BinaryOp::FloorDiv, a, b, loc);
  Value r = binary(ast::BinaryOp::Mod, a, b, loc);
  if (!q.ok || !r.ok) return Value::error();
  return Value::tuple_literal({q, r});
}

Value BodyTyper::method_call(const ast::Attribute &callee, std::vector<Value> args, const ast::Call &call) {
  if (callee.attr == "bit_count") return bit_count(callee, std::move(args));
  if (is_array_reduction(callee.attr) && callee.attr != "amin" && callee.attr != "amax") {
    Value v = expr(*callee.value);
    if (!v.ok) return v;
    if (!v.is_weak() && v.type.is_array()) return array_reduction(callee.attr, v, args.size(), callee.attr_loc);
  }
  if (callee.attr != "conjugate") {
    if (callee.attr == "real" || callee.attr == "imag") {
      error(callee.attr_loc, "'." + callee.attr + "' is an attribute, not a method; write 'z." + callee.attr + "'");
    } else {
      error(callee.attr_loc, "method '." + callee.attr + "()' is not supported (only .conjugate() and .bit_count())");
    }
    return Value::error();
  }
  Value v = expr(*callee.value);
  if (!v.ok) return v;
  if (!args.empty()) {
    error(callee.attr_loc, "conjugate() takes no arguments (" + std::to_string(args.size()) + " given)");
    return Value::error();
  }
  if (v.is_weak()) return v.weak == Weak::Complex ? Value::weak_num(PyNum::of_complex(std::conj(v.num.c))) : v;
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(callee.attr_loc, "a value of type '" + v.type.str() + "' has no .conjugate()");
    return Value::error();
  }
  if (v.type.is_complex()) return intrinsic(IntrinsicOp::Conj, v.type, {v});
  return v;
}

Value BodyTyper::bit_count(const ast::Attribute &callee, std::vector<Value> args) {
  Value v = expr(*callee.value);
  if (!v.ok) return v;
  if (!args.empty()) {
    error(callee.attr_loc, "bit_count() takes no arguments (" + std::to_string(args.size()) + " given)");
    return Value::error();
  }
  // Python's int.bit_count(): the ones in the magnitude, (-5).bit_count() == 2.
  if (v.is_weak() && v.weak == Weak::Int) {
    Int128 magnitude = v.num.i < 0 ? -v.num.i : v.num.i;
    int count = 0;
    for (auto bits = static_cast<unsigned __int128>(magnitude); bits != 0; bits &= bits - 1) ++count;
    return Value::weak_num(PyNum::of_int(count));
  }
  if (v.is_weak() || v.literal_tuple || !(v.type.is_int() || v.type.is_bool())) {
    error(callee.attr_loc, "a value of type '" + (v.is_weak() ? std::string(weak_name(v.weak)) : v.type.str()) +
                               "' has no .bit_count() (integers only)");
    return Value::error();
  }
  if (v.type.is_bool()) return convert(v, DType::Int64);
  // |INT_MIN| wraps to INT_MIN, whose one bit is the magnitude's one bit.
  Value magnitude = is_signed_int(v.type.dtype()) ? intrinsic(IntrinsicOp::IAbs, v.type, {v}) : v;
  return convert(intrinsic(IntrinsicOp::Popc, v.type, {magnitude}), DType::Int64);
}

Value BodyTyper::minmax(bool is_min, std::vector<Value> args, const ast::Call &call) {
  const char *name = is_min ? "min" : "max";
  SourceLocation loc = callee_loc(call);
  if (args.size() == 1 && args[0].ok && (args[0].literal_tuple || args[0].type.is_tuple())) {
    // max((a, b, c)): the elements of a tuple, as Numba takes them.
    Value t = stabilize(args[0]);
    std::vector<Value> elements = t.elements;
    if (!t.literal_tuple) {
      for (std::size_t k = 0; k < t.type.elements().size(); ++k) {
        elements.push_back(Value::strong(TupleGet::make(t.expr, static_cast<int>(k))));
      }
    }
    args = std::move(elements);
  }
  if (args.size() < 2) {
    error(loc, std::string(name) + "() needs at least 2 arguments, or a tuple of them (other iterables are not supported)");
    return Value::error();
  }
  Candidates c;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const Value &a = args[i];
    if (!a.ok) return Value::error();
    if (!is_real_scalar(a)) {
      error(i < call.args.size() ? call.args[i]->loc : loc, std::string(name) + "() cannot compare values of type '" +
                                   (a.is_weak() ? std::string("complex") : a.type.str()) + "'");
      return Value::error();
    }
    c.add(a);
  }
  std::optional<Type> t = c.resolve();
  if (!t) return Value::error();
  bool all_weak = true;
  for (const Value &a : args) all_weak = all_weak && a.is_weak();
  if (all_weak) {
    Value best = args[0];
    for (std::size_t i = 1; i < args.size(); ++i) {
      ast::CmpOp op = is_min ? ast::CmpOp::Lt : ast::CmpOp::Gt;
      std::optional<bool> better = fold_compare(op, args[i].num, best.num);
      if (better && *better) best = args[i];
    }
    return best;
  }
  Value best = stabilize(convert(args[0], t->dtype()));
  for (std::size_t i = 1; i < args.size(); ++i) {
    Value next = stabilize(convert(args[i], t->dtype()));
    if (!best.ok || !next.ok) return Value::error();
    CompareOpcode op = is_min ? CompareOpcode::Lt : CompareOpcode::Gt;
    Expr better = Compare::make(op, next.expr, best.expr);
    best = Value::strong(Select::make(better, next.expr, best.expr));
    if (i + 1 < args.size()) best = stabilize(best);
  }
  return best;
}

Value BodyTyper::round_builtin(std::vector<Value> args, const ast::Call &call) {
  SourceLocation loc = callee_loc(call);
  if (args.empty() || args.size() > 2) {
    error(loc, "round() takes 1 or 2 arguments (" + std::to_string(args.size()) + " given)");
    return Value::error();
  }
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  Value x = args[0];
  if (!is_real_scalar(x)) {
    error(call.args[0]->loc, "round() cannot round a value of type '" +
                                 (x.is_weak() ? std::string("complex") : x.type.str()) + "'");
    return Value::error();
  }
  if (args.size() == 1) {
    if (x.is_weak()) {
      if (x.weak == Weak::Int) return x;
      double f = x.num.f;
      if (!std::isfinite(f)) {
        error(call.args[0]->loc, "cannot round a non-finite constant to an integer");
        return Value::error();
      }
      std::optional<PyNum> rounded = integral_to_weak_int(std::nearbyint(f));
      if (!rounded) {
        error(call.args[0]->loc, "integer constant overflows 128 bits in a constant expression");
        return Value::error();
      }
      return Value::weak_num(*rounded);
    }
    if (!x.type.is_float()) return convert(x, DType::Int64);
    Value r = intrinsic(IntrinsicOp::Rint, x.type, {x});
    return convert(r, DType::Int64);
  }
  Value n = args[1];
  bool n_int = n.is_weak() ? n.weak == Weak::Int : (!n.literal_tuple && (n.type.is_int() || n.type.is_bool()));
  if (!n_int) {
    error(call.args[1]->loc, "round(): ndigits must be an integer");
    return Value::error();
  }
  if (x.is_weak() && x.weak == Weak::Int) x = Value::weak_num(PyNum::of_float(static_cast<double>(x.num.i)));
  if (!x.is_weak() && !x.type.is_float()) x = convert(x, DType::Float64);
  if (x.is_weak() && n.is_weak()) return Value::weak_num(PyNum::of_float(fold_round(x.num.f, n.num.i)));
  if (x.is_weak()) x = convert(x, DType::Float64);
  return round_ndigits(x, n);
}

Value BodyTyper::round_ndigits(const Value &x, Value n) {
  // Numba's round_ndigits (numba/cpython/numbers.py), which this follows on
  // both targets: computed in float64 with 10**n split at 22 digits so that
  // the scale itself does not overflow; a product that overflows returns x
  // unchanged; the rounding itself is rint in x's own type (Numba's
  // _round_intrinsic is typed on the argument); the result has x's type.
  DType t = x.type.dtype();
  const DType f64 = DType::Float64;
  const Type f64_type = Type::scalar(f64);
  if (n.is_weak()) {
    // Past +-1000 digits every scale is 0 or inf already; clamping keeps the
    // constant inside int64.
    n = Value::weak_num(PyNum::of_int(std::max<Int128>(-1000, std::min<Int128>(1000, n.num.i))));
  }
  Value ns = stabilize(convert(n, DType::Int64));
  Value xs = stabilize(convert(x, f64));
  auto int_const = [&](int64_t v) { return Value::strong(Const::make_int(DType::Int64, v)); };
  auto f64_const = [&](double v) { return Value::strong(Const::make_float(f64, v)); };
  auto cmp = [&](CompareOpcode op, const Value &a, const Value &b) {
    return Value::strong(Compare::make(op, a.expr, b.expr));
  };
  auto pick = [&](const Value &c, const Value &a, const Value &b) {
    return Value::strong(Select::make(c.expr, a.expr, b.expr));
  };
  auto rint_in_type = [&](const Value &v) {
    return convert(intrinsic(IntrinsicOp::Rint, x.type, {convert(v, t)}), f64);
  };
  Value nonneg = stabilize(cmp(CompareOpcode::Ge, ns, int_const(0)));
  Value big = stabilize(cmp(CompareOpcode::Gt, ns, int_const(22)));
  Value digits = pick(nonneg, pick(big, strong_binary(BinaryOpcode::Sub, ns, int_const(22)), ns),
                      Value::strong(Unary::make(UnaryOpcode::Neg, ns.expr)));
  // 10**k exactly for k <= 22 (every such power is a double; libdevice's pow
  // need not be exact), as integer powers 10**min(k, 18) * 10**(k - 18).
  Value k = stabilize(digits);
  Value low = pick(cmp(CompareOpcode::Lt, k, int_const(18)), k, int_const(18));
  Value high = pick(cmp(CompareOpcode::Gt, k, int_const(18)), strong_binary(BinaryOpcode::Sub, k, int_const(18)), int_const(0));
  Value exact = strong_binary(BinaryOpcode::Mul, convert(strong_binary(BinaryOpcode::Pow, int_const(10), low), f64),
                              convert(strong_binary(BinaryOpcode::Pow, int_const(10), high), f64));
  Value pow1 = stabilize(pick(cmp(CompareOpcode::Le, k, int_const(22)), exact,
                              strong_binary(BinaryOpcode::Pow, f64_const(10.0), convert(k, f64))));
  Value pow2 = stabilize(pick(big, f64_const(1e22), f64_const(1.0)));
  Value y = stabilize(pick(nonneg, strong_binary(BinaryOpcode::Mul, strong_binary(BinaryOpcode::Mul, xs, pow1), pow2),
                           strong_binary(BinaryOpcode::Div, xs, pow1)));
  Value z = stabilize(rint_in_type(y));
  Value half_way = cmp(CompareOpcode::Eq, intrinsic(IntrinsicOp::Fabs, f64_type, {strong_binary(BinaryOpcode::Sub, y, z)}),
                       f64_const(0.5));
  Value even = strong_binary(BinaryOpcode::Mul, f64_const(2.0), rint_in_type(strong_binary(BinaryOpcode::Div, y, f64_const(2.0))));
  z = stabilize(pick(half_way, even, z));
  Value scaled_back = pick(nonneg, strong_binary(BinaryOpcode::Div, strong_binary(BinaryOpcode::Div, z, pow2), pow1),
                           strong_binary(BinaryOpcode::Mul, z, pow1));
  Value keep_x = Value::strong(Binary::make(BinaryOpcode::BitOr,
                                            Unary::make(UnaryOpcode::Not, intrinsic(IntrinsicOp::IsFinite, Type::scalar(DType::Bool), {xs}).expr),
                                            Binary::make(BinaryOpcode::BitAnd, nonneg.expr,
                                                         intrinsic(IntrinsicOp::IsInf, Type::scalar(DType::Bool), {y}).expr)));
  return convert(pick(keep_x, xs, scaled_back), t);
}

/// One call of a Python builtin; its handlers are named by the table below.
class BuiltinCall : public LibraryCall {
 public:
  BuiltinCall(BodyTyper &typer, const std::string &name, std::vector<Value> args, const ast::Call &call)
      : LibraryCall(typer, name, name, std::move(args), call) {}

  Value run();

  Value minmax() { return t_.minmax(name_ == "min", std::move(args_), call_); }
  Value round() { return t_.round_builtin(std::move(args_), call_); }
  Value pow();
  Value divmod();
  Value abs();
  Value len();
  Value to_bool();
  Value int_float();
  Value complex();

 private:
  /// abs() of a Python number, folded.
  Value weak_abs(const Value &v);
  /// int() or float() of a Python number, folded.
  Value weak_int_float(const Value &v);
};

namespace {

struct BuiltinFn {
  const char *name;
  Value (BuiltinCall::*handler)();
};

const BuiltinFn kBuiltinFns[] = {
    {"min", &BuiltinCall::minmax}, {"max", &BuiltinCall::minmax},   {"round", &BuiltinCall::round},
    {"pow", &BuiltinCall::pow},    {"divmod", &BuiltinCall::divmod}, {"abs", &BuiltinCall::abs},
    {"len", &BuiltinCall::len},    {"bool", &BuiltinCall::to_bool},  {"int", &BuiltinCall::int_float},
    {"float", &BuiltinCall::int_float}, {"complex", &BuiltinCall::complex},
};

}  // namespace

Value BodyTyper::call_builtin(const std::string &name, std::vector<Value> args, const ast::Call &call) {
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
  }
  return BuiltinCall(*this, name, std::move(args), call).run();
}

Value BuiltinCall::run() {
  if (const BuiltinFn *f = find_entry(kBuiltinFns, name_)) return (this->*f->handler)();
  t_.error(loc_, name_ + "() is not supported in a function body");
  return Value::error();
}

Value BuiltinCall::pow() {
  if (args_.size() == 3) {
    t_.error(loc_, "pow() with a modulus (3 arguments) is not supported");
    return Value::error();
  }
  if (!want(2)) return Value::error();
  return t_.binary(ast::BinaryOp::Pow, args_[0], args_[1], loc_);
}

Value BuiltinCall::divmod() {
  if (!want(2)) return Value::error();
  Value a = args_[0];
  Value b = args_[1];
  if (!a.is_weak() || !b.is_weak()) {
    if (!t_.unify_operands(a, b, loc_, "apply divmod() to")) return Value::error();
  }
  return t_.divmod_tuple(a, b, loc_);
}

Value BuiltinCall::weak_abs(const Value &v) {
  if (v.weak == Weak::Int) {
    Int128 magnitude = v.num.i;
    if (v.num.i < 0 && __builtin_sub_overflow(static_cast<Int128>(0), v.num.i, &magnitude)) {
      t_.error(call_.args[0]->loc, "integer constant overflows 128 bits in a constant expression");
      return Value::error();
    }
    return Value::weak_num(PyNum::of_int(magnitude));
  }
  if (v.weak == Weak::Float) return Value::weak_num(PyNum::of_float(std::fabs(v.num.f)));
  return Value::weak_num(PyNum::of_float(std::abs(v.num.c)));
}

Value BuiltinCall::abs() {
  if (!want(1)) return Value::error();
  const Value &v = args_[0];
  if (v.is_weak()) return weak_abs(v);
  if (v.literal_tuple || !v.type.is_scalar()) {
    t_.error(call_.args[0]->loc, "bad operand type for abs(): '" + v.type.str() + "'");
    return Value::error();
  }
  const Type &t = v.type;
  if (t.is_bool()) return t_.convert(v, DType::Int64);
  if (t.is_int()) return is_unsigned_int(t.dtype()) ? v : t_.intrinsic(IntrinsicOp::IAbs, t, {v});
  if (t.is_float()) return t_.intrinsic(IntrinsicOp::Fabs, t, {v});
  DType part = t.dtype() == DType::Complex64 ? DType::Float32 : DType::Float64;
  return t_.intrinsic(IntrinsicOp::CAbs, Type::scalar(part), {v});
}

Value BuiltinCall::len() {
  if (!want(1)) return Value::error();
  const Value &v = args_[0];
  if (v.type.is_array()) return Value::strong(ArrayDim::make(v.expr, 0));
  if (v.literal_tuple || v.type.is_tuple()) {
    return Value::weak_num(PyNum::of_int(static_cast<Int128>(v.type.elements().size())));
  }
  t_.error(call_.args[0]->loc, "len() needs an array or a tuple, not '" +
                                   (v.is_weak() ? std::string("a number") : v.type.str()) + "'");
  return Value::error();
}

Value BuiltinCall::to_bool() {
  if (args_.empty()) return t_.make_bool_const(false);
  if (!want(1)) return Value::error();
  return t_.truth(args_[0], call_.args[0]->loc);
}

Value BuiltinCall::weak_int_float(const Value &v) {
  if (name_ == "float") return Value::weak_num(PyNum::of_float(v.num.as_double()));
  if (v.weak == Weak::Int) return v;
  if (!std::isfinite(v.num.f)) {
    t_.error(call_.args[0]->loc, "cannot convert a non-finite constant to an integer");
    return Value::error();
  }
  std::optional<PyNum> truncated = integral_to_weak_int(std::trunc(v.num.f));
  if (!truncated) {
    t_.error(call_.args[0]->loc, "integer constant overflows 128 bits in a constant expression");
    return Value::error();
  }
  return Value::weak_num(*truncated);
}

Value BuiltinCall::int_float() {
  bool to_int = name_ == "int";
  if (args_.empty()) return Value::weak_num(to_int ? PyNum::of_int(0) : PyNum::of_float(0.0));
  if (!want(1)) return Value::error();
  const Value &v = args_[0];
  bool complex = v.is_weak() ? v.weak == Weak::Complex : v.type.is_complex();
  if (complex || v.literal_tuple || (!v.is_weak() && !v.type.is_scalar())) {
    t_.error(call_.args[0]->loc, name_ + "() cannot convert a value of type '" +
                                     (v.is_weak() ? std::string("complex") : v.type.str()) + "'");
    return Value::error();
  }
  if (v.is_weak()) return weak_int_float(v);
  return t_.convert(v, to_int ? DType::Int64 : DType::Float64);
}

Value BuiltinCall::complex() {
  if (!want_one_or_two()) return Value::error();
  if (args_.size() == 1) {
    const Value &v = args_[0];
    if (v.is_weak()) return Value::weak_num(PyNum::of_complex(v.num.as_complex()));
    if (v.literal_tuple || !v.type.is_scalar()) {
      t_.error(call_.args[0]->loc, "complex() cannot convert a value of type '" + v.type.str() + "'");
      return Value::error();
    }
    return t_.convert(v, DType::Complex128);
  }
  for (std::size_t i = 0; i < 2; ++i) {
    if (!is_real_scalar(args_[i])) {
      t_.error(call_.args[i]->loc, "complex(re, im) needs real arguments");
      return Value::error();
    }
  }
  if (args_[0].is_weak() && args_[1].is_weak()) {
    return Value::weak_num(PyNum::of_complex({args_[0].num.as_double(), args_[1].num.as_double()}));
  }
  Value re = t_.convert(args_[0], DType::Float64);
  Value im = t_.convert(args_[1], DType::Float64);
  return t_.intrinsic(IntrinsicOp::MakeComplex, Type::scalar(DType::Complex128), {re, im});
}

}  // namespace ufjit::ir::typer

namespace ufjit::ir::typer {

namespace {

/// The most values CUDA's printf takes (Numba prints the raw format beyond).
constexpr std::size_t kMaxPrintValues = 32;

std::string escape_percent(const std::string &text) {
  std::string out;
  for (char c : text) out += c == '%' ? std::string("%%") : std::string(1, c);
  return out;
}

}  // namespace

bool BodyTyper::print_stmt(const ast::Expr &e, std::vector<Stmt> &out) {
  const ast::Call *call = e.as<ast::Call>();
  const ast::Name *callee = call != nullptr ? call->func->as<ast::Name>() : nullptr;
  if (callee == nullptr || callee->id != "print" || !names_builtin("print")) return false;
  if (!call->keywords.empty() || !call->starred.empty()) {
    error(call->loc, "print() takes values to print only (no sep=, end=, file= or *args)");
    return true;
  }
  std::vector<std::string> pieces;
  std::vector<Expr> values;
  for (const ast::ExprPtr &arg : call->args) {
    if (const ast::StrLit *s = arg->as<ast::StrLit>()) {
      pieces.push_back(escape_percent(s->value));
      continue;
    }
    Value v = expr(*arg);
    if (!v.ok) continue;
    if (v.literal_tuple || (!v.is_weak() && !v.type.is_scalar())) {
      error(arg->loc, "print() prints numbers, bools and string literals, not a value of type '" + v.type.str() + "'");
      continue;
    }
    const DType t = v.is_weak() ? default_dtype(v.weak) : v.type.dtype();
    if (is_complex(t)) {  // as Python: (1+2j)
      pieces.push_back("(%f%+fj)");
      values.push_back(convert(real_imag(v, false, arg->loc), DType::Float64).expr);
      values.push_back(convert(real_imag(v, true, arg->loc), DType::Float64).expr);
      continue;
    }
    const DType as = is_bool(t) ? DType::Bool : is_unsigned_int(t) ? DType::UInt64 : is_integer(t) ? DType::Int64
                                                                                                   : DType::Float64;
    pieces.push_back(as == DType::Bool ? "%s" : as == DType::UInt64 ? "%llu" : as == DType::Int64 ? "%lld" : "%f");
    values.push_back(convert(v, as).expr);
  }
  std::string format;
  for (const std::string &p : pieces) format += (format.empty() ? "" : " ") + p;
  format += "\n";
  if (values.size() > kMaxPrintValues) {
    if (mode_ == Mode::Emit && !probing_) {
      real_diags_.warning(call->loc, "CUDA print() cannot print more than 32 items. The raw format string will be "
                                     "emitted by the kernel instead.");
    }
    format = escape_percent(format);
    values.clear();
  }
  flush_pre(out);
  out.push_back(Print::make(std::move(format), std::move(values)));
  return true;
}

}  // namespace ufjit::ir::typer
