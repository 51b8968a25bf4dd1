// Typing of operators: NEP 50 weak literals, NumPy promotion, Python's
// operator semantics (LANGUAGE.md section 3), and the explicit Casts the IR
// requires.
#include <cmath>
#include <utility>

#include "support/InternalAssert.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

std::string type_name(const Value &v) { return v.is_weak() ? weak_name(v.weak) : v.type.str(); }

/// What a Python binary operator becomes in the IR, and the verb of its
/// "cannot add 'a' and 'b'" error (null: "cannot apply 'op' to"). MatMul has
/// no IR opcode and is not listed.
struct BinaryOpInfo {
  ast::BinaryOp op;
  BinaryOpcode opcode;
  const char *verb;
};

constexpr BinaryOpInfo kBinaryOps[] = {
    {ast::BinaryOp::Add, BinaryOpcode::Add, "add"},
    {ast::BinaryOp::Sub, BinaryOpcode::Sub, "subtract"},
    {ast::BinaryOp::Mul, BinaryOpcode::Mul, "multiply"},
    {ast::BinaryOp::Div, BinaryOpcode::Div, "divide"},
    {ast::BinaryOp::FloorDiv, BinaryOpcode::FloorDiv, nullptr},
    {ast::BinaryOp::Mod, BinaryOpcode::Mod, nullptr},
    {ast::BinaryOp::Pow, BinaryOpcode::Pow, nullptr},
    {ast::BinaryOp::LShift, BinaryOpcode::Shl, nullptr},
    {ast::BinaryOp::RShift, BinaryOpcode::Shr, nullptr},
    {ast::BinaryOp::BitOr, BinaryOpcode::BitOr, nullptr},
    {ast::BinaryOp::BitXor, BinaryOpcode::BitXor, nullptr},
    {ast::BinaryOp::BitAnd, BinaryOpcode::BitAnd, nullptr},
};

const BinaryOpInfo *find_binary_op(ast::BinaryOp op) {
  for (const BinaryOpInfo &info : kBinaryOps) {
    if (info.op == op) return &info;
  }
  return nullptr;
}

std::string op_phrase(ast::BinaryOp op) {
  const BinaryOpInfo *info = find_binary_op(op);
  if (info != nullptr && info->verb != nullptr) return info->verb;
  return std::string("apply '") + ast::binary_op_spelling(op) + "' to";
}

BinaryOpcode opcode_of(ast::BinaryOp op) {
  const BinaryOpInfo *info = find_binary_op(op);
  if (info != nullptr) return info->opcode;
  internal_error << "no IR opcode for '" << ast::binary_op_spelling(op) << "'";
  return BinaryOpcode::Add;
}

/// The comparisons the IR has; `is`, `in` and their negations are typed
/// without one.
struct CompareOpInfo {
  ast::CmpOp op;
  CompareOpcode opcode;
};

constexpr CompareOpInfo kCompareOps[] = {
    {ast::CmpOp::Eq, CompareOpcode::Eq}, {ast::CmpOp::NotEq, CompareOpcode::Ne},
    {ast::CmpOp::Lt, CompareOpcode::Lt}, {ast::CmpOp::LtE, CompareOpcode::Le},
    {ast::CmpOp::Gt, CompareOpcode::Gt}, {ast::CmpOp::GtE, CompareOpcode::Ge},
};

CompareOpcode compare_opcode_of(ast::CmpOp op) {
  for (const CompareOpInfo &info : kCompareOps) {
    if (info.op == op) return info.opcode;
  }
  internal_error << "no IR opcode for '" << ast::cmp_op_spelling(op) << "'";
  return CompareOpcode::Eq;
}

bool is_exact_const(const Value &v, double x) {
  return v.is_weak() && v.weak != Weak::Complex && v.num.as_double() == x;
}

}  // namespace

void BodyTyper::error(const SourceLocation &loc, const std::string &message) {
  if (mode_ == Mode::Emit && !probing_) {
    real_diags_.error(loc, message);
  } else {
    muted_.error(loc, message);
  }
}

Value BodyTyper::make_bool_const(bool b) { return Value::strong(Const::make_bool(b)); }

Value BodyTyper::materialize(const Value &v) {
  if (!v.ok) return v;
  if (v.is_weak()) return convert(v, default_dtype(v.weak));
  if (v.literal_tuple) {
    std::vector<Expr> els;
    for (const Value &e : v.elements) {
      Value m = materialize(e);
      if (!m.ok) return Value::error();
      els.push_back(m.expr);
    }
    return Value::strong(MakeTuple::make(std::move(els)));
  }
  return v;
}

Value BodyTyper::convert(const Value &v, DType t) {
  if (!v.ok) return v;
  if (v.is_weak()) return Value::strong(make_const(t, v.num));
  internal_assert(v.type.is_scalar()) << "convert of " << v.type.str() << " to " << dtype_name(t);
  if (v.type.dtype() == t) return v;
  if (const Const *c = v.expr.as<Const>()) {
    // Fold conversions of constants (np.float32(2.5) in module constants).
    PyNum n;
    DType from = c->type.dtype();
    if (is_bool(from) || is_signed_int(from)) {
      n = PyNum::of_int(c->as_int64());
    } else if (is_unsigned_int(from)) {
      n = PyNum::of_int(static_cast<Int128>(c->int_bits));
    } else if (is_float(from)) {
      n = PyNum::of_float(c->float_value);
    } else {
      n = PyNum::of_complex(c->complex_value);
    }
    return Value::strong(make_const(t, n));
  }
  return Value::strong(Cast::make(t, v.expr));
}

Value BodyTyper::convert_to(const Value &v, const Type &t, const SourceLocation &loc, const std::string &what) {
  if (!v.ok) return v;
  if (t.is_scalar()) {
    if (v.literal_tuple || v.type.is_tuple()) {
      error(loc, "cannot convert '" + v.type.str() + "' to '" + t.str() + "' " + what);
      return Value::error();
    }
    if (v.type.is_void()) {
      error(loc, "a call that returns no value is used " + what);
      return Value::error();
    }
    return convert(v, t.dtype());
  }
  if (t.is_tuple()) {
    if (!v.type.is_tuple() || v.type.elements().size() != t.elements().size()) {
      error(loc, "cannot convert '" + v.type.str() + "' to '" + t.str() + "' " + what);
      return Value::error();
    }
    if (!v.literal_tuple && v.type == t) return v;
    std::vector<Expr> els;
    const MakeTuple *made = v.literal_tuple ? nullptr : v.expr.as<MakeTuple>();
    Value base = v.literal_tuple || made != nullptr ? v : stabilize(v);
    for (std::size_t i = 0; i < t.elements().size(); ++i) {
      Value e = v.literal_tuple ? v.elements[i]
                : made != nullptr ? Value::strong(made->elements[i])
                                  : Value::strong(TupleGet::make(base.expr, static_cast<int>(i)));
      Value c = convert_to(e, t.elements()[i], loc, what);
      if (!c.ok) return Value::error();
      els.push_back(c.expr);
    }
    return Value::strong(MakeTuple::make(std::move(els)));
  }
  if (t.is_array() && !v.literal_tuple && v.type == t) return v;  // a view (a device function's result)
  error(loc, "cannot convert '" + v.type.str() + "' to '" + t.str() + "' " + what);
  return Value::error();
}

Value BodyTyper::truth(const Value &v, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (v.is_weak()) return make_bool_const(!v.num.is_zero());
  if (v.literal_tuple || !v.type.is_scalar()) {
    error(loc, "a value of type '" + v.type.str() + "' cannot be used as a condition");
    return Value::error();
  }
  if (v.type.is_bool()) return v;
  if (v.type.is_complex()) {
    Expr zero = Const::make_complex(v.type.dtype(), {0.0, 0.0});
    return Value::strong(Compare::make(CompareOpcode::Ne, v.expr, zero));
  }
  return convert(v, DType::Bool);
}

bool BodyTyper::unify_operands(Value &a, Value &b, const SourceLocation &loc, const std::string &what) {
  if (!a.ok || !b.ok) return false;
  auto scalar_like = [](const Value &v) { return v.is_weak() || (!v.literal_tuple && v.type.is_scalar()); };
  if (!scalar_like(a) || !scalar_like(b)) {
    if (a.type.is_void() || b.type.is_void()) {
      error(loc, "a call that returns no value is used as an operand");
    } else {
      error(loc, "cannot " + what + " '" + type_name(a) + "' and '" + type_name(b) + "'");
    }
    return false;
  }
  DType d;
  if (a.is_weak() && b.is_weak()) {
    d = default_dtype(std::max(a.weak, b.weak));
  } else if (a.is_weak()) {
    d = promote(weak_adapt(a.num, b.type.dtype()), b.type.dtype());
  } else if (b.is_weak()) {
    d = promote(weak_adapt(b.num, a.type.dtype()), a.type.dtype());
  } else {
    d = promote(a.type.dtype(), b.type.dtype());
  }
  a = convert(a, d);
  b = convert(b, d);
  return a.ok && b.ok;
}

Value BodyTyper::strong_binary(BinaryOpcode op, Value a, Value b) {
  if (!a.ok || !b.ok) return Value::error();
  return Value::strong(Binary::make(op, a.expr, b.expr));
}

Value BodyTyper::fold_weak_binary(ast::BinaryOp op, const Value &a, const Value &b, const SourceLocation &loc) {
  std::string message;
  std::optional<PyNum> r = fold_binary(op, a.num, b.num, message);
  if (!r) {
    error(loc, message + " in a constant expression");
    return Value::error();
  }
  return Value::weak_num(*r);
}

Value BodyTyper::binary(ast::BinaryOp op, Value a, Value b, const SourceLocation &loc) {
  if (!a.ok || !b.ok) return Value::error();
  if (a.is_weak() && b.is_weak()) return fold_weak_binary(op, a, b, loc);
  std::string phrase = op_phrase(op);
  std::string names = "'" + type_name(a) + "' and '" + type_name(b) + "'";
  if (op == ast::BinaryOp::MatMul) {
    error(loc, "the '@' operator is not supported");
    return Value::error();
  }
  if (op == ast::BinaryOp::Pow) return pow_op(a, b, loc);
  if (!unify_operands(a, b, loc, phrase)) return Value::error();
  const Type &t = a.type;
  switch (op) {
    case ast::BinaryOp::Add:
    case ast::BinaryOp::Sub:
    case ast::BinaryOp::Mul:
      if (t.is_bool()) {  // Python: True + True == 2
        a = convert(a, DType::Int64);
        b = convert(b, DType::Int64);
      }
      return strong_binary(opcode_of(op), a, b);
    case ast::BinaryOp::Div:
      if (t.is_bool() || t.is_int()) {
        a = convert(a, DType::Float64);
        b = convert(b, DType::Float64);
      }
      return strong_binary(BinaryOpcode::Div, a, b);
    case ast::BinaryOp::FloorDiv:
    case ast::BinaryOp::Mod:
      if (t.is_complex()) {
        error(loc, "cannot " + phrase + " " + names + ": complex numbers have no floor division or modulo");
        return Value::error();
      }
      if (t.is_bool()) {
        a = convert(a, DType::Int64);
        b = convert(b, DType::Int64);
      }
      return strong_binary(opcode_of(op), a, b);
    case ast::BinaryOp::BitAnd:
    case ast::BinaryOp::BitOr:
    case ast::BinaryOp::BitXor:
    case ast::BinaryOp::LShift:
    case ast::BinaryOp::RShift: {
      if (!t.is_int() && !t.is_bool()) {
        error(loc, "cannot " + phrase + " " + names + ": bitwise operators need integers or bools");
        return Value::error();
      }
      bool shift = op == ast::BinaryOp::LShift || op == ast::BinaryOp::RShift;
      if (shift && t.is_bool()) {  // Python: True << 1 == 2
        a = convert(a, DType::Int64);
        b = convert(b, DType::Int64);
      }
      return strong_binary(opcode_of(op), a, b);
    }
    default:
      break;
  }
  internal_error << "unhandled binary operator " << ast::binary_op_spelling(op);
  return Value::error();
}

Value BodyTyper::pow_op(Value a, Value b, const SourceLocation &loc) {
  bool square = is_exact_const(b, 2.0);
  bool root = b.is_weak() && b.weak == Weak::Float && b.num.f == 0.5;
  bool reciprocal = is_exact_const(b, -1.0);
  std::string names = "'" + type_name(a) + "' and '" + type_name(b) + "'";
  if (!unify_operands(a, b, loc, "raise")) return Value::error();
  const Type &t = a.type;
  if (t.is_bool()) {
    a = convert(a, DType::Int64);
    b = convert(b, DType::Int64);
    return strong_binary(BinaryOpcode::Pow, a, b);
  }
  if (t.is_int()) return strong_binary(BinaryOpcode::Pow, a, b);
  if (square && (t.is_float() || t.is_complex())) {
    Value s = stabilize(a);
    return strong_binary(BinaryOpcode::Mul, s, s);
  }
  if (t.is_float()) {
    if (root) {
      // pow(x, 0.5) is +0 at -0 and +inf at -inf (C, NumPy, Python); sqrt
      // gives -0 and NaN there. So fabs(sqrt(x)) and a select, as LLVM's
      // own rewrite of pow(x, 0.5) does.
      Value x = stabilize(a);
      Value root_of_x = intrinsic(IntrinsicOp::Fabs, t, {intrinsic(IntrinsicOp::Sqrt, t, {x})});
      Expr minus_inf = Compare::make(CompareOpcode::Eq, x.expr, Const::make_float(t.dtype(), -HUGE_VAL));
      return Value::strong(Select::make(minus_inf, Const::make_float(t.dtype(), HUGE_VAL), root_of_x.expr));
    }
    if (reciprocal) return strong_binary(BinaryOpcode::Div, Value::strong(Const::make_float(t.dtype(), 1.0)), a);
    return strong_binary(BinaryOpcode::Pow, a, b);
  }
  if (t.is_complex()) return intrinsic(IntrinsicOp::CPow, t, {a, b});
  error(loc, "cannot raise " + names);
  return Value::error();
}

Value BodyTyper::compare(ast::CmpOp op, Value a, Value b, const SourceLocation &loc) {
  if (!a.ok || !b.ok) return Value::error();
  if (op == ast::CmpOp::Is || op == ast::CmpOp::IsNot || op == ast::CmpOp::In || op == ast::CmpOp::NotIn) {
    error(loc, std::string("the '") + ast::cmp_op_spelling(op) + "' operator is not supported; compare values with == or !=");
    return Value::error();
  }
  bool complex_operand = (a.is_weak() ? a.weak == Weak::Complex : a.type.is_complex()) ||
                         (b.is_weak() ? b.weak == Weak::Complex : b.type.is_complex());
  bool ordered = op != ast::CmpOp::Eq && op != ast::CmpOp::NotEq;
  if (complex_operand && ordered) {
    error(loc, "cannot compare '" + type_name(a) + "' and '" + type_name(b) + "' with '" +
                   ast::cmp_op_spelling(op) + "': complex numbers are not ordered");
    return Value::error();
  }
  if (a.is_weak() && b.is_weak()) {
    std::optional<bool> r = fold_compare(op, a.num, b.num);
    if (!r) return Value::error();
    return make_bool_const(*r);
  }
  // A Python int beyond the other operand's integer type (2**63 against an
  // int64, -1 against a uint64) takes the int64 or uint64 type it fits, so
  // that the comparison below is exact, as in Python and NumPy 2, rather
  // than made through float64.
  for (auto [weak, other] : {std::pair<Value *, const Value *>{&a, &b}, {&b, &a}}) {
    if (weak->is_weak() && weak->weak == Weak::Int && !other->is_weak() && !other->literal_tuple &&
        other->type.is_int() && !int_fits(other->type.dtype(), weak->num.i)) {
      const DType fits = weak_adapt(weak->num, other->type.dtype());
      if (is_integer(fits)) *weak = Value::strong(make_const(fits, weak->num));
    }
  }
  if (std::optional<Value> exact = compare_signed_unsigned(op, a, b)) return *exact;
  if (!unify_operands(a, b, loc, "compare")) return Value::error();
  return Value::strong(Compare::make(compare_opcode_of(op), a.expr, b.expr));
}

std::optional<Value> BodyTyper::compare_signed_unsigned(ast::CmpOp op, const Value &a, const Value &b) {
  // NumPy >= 1.25 (and Python) compare a signed and an unsigned integer whose
  // common type is float64 (int64 and uint64) exactly, not through float64:
  // a negative signed value is below every unsigned one, otherwise both are
  // compared as uint64.
  auto strong_int = [](const Value &v) { return !v.is_weak() && !v.literal_tuple && v.type.is_int(); };
  if (!strong_int(a) || !strong_int(b)) return std::nullopt;
  bool a_signed = is_signed_int(a.type.dtype());
  if (a_signed == is_signed_int(b.type.dtype())) return std::nullopt;
  if (!is_float(promote(a.type.dtype(), b.type.dtype()))) return std::nullopt;
  Value s = stabilize(convert(a_signed ? a : b, DType::Int64));
  Value u = convert(a_signed ? b : a, DType::UInt64);
  Expr s_bits = Cast::make(DType::UInt64, s.expr);
  Expr as_unsigned = a_signed ? Compare::make(compare_opcode_of(op), s_bits, u.expr)
                              : Compare::make(compare_opcode_of(op), u.expr, s_bits);
  // With the signed operand negative: it is the smaller one.
  bool signed_less = op == ast::CmpOp::NotEq || (a_signed ? (op == ast::CmpOp::Lt || op == ast::CmpOp::LtE)
                                                          : (op == ast::CmpOp::Gt || op == ast::CmpOp::GtE));
  Expr negative = Compare::make(CompareOpcode::Lt, s.expr, Const::make_int(DType::Int64, 0));
  return Value::strong(Select::make(negative, make_bool_const(signed_less).expr, as_unsigned));
}

Value BodyTyper::unary(ast::UnaryOpKind op, Value v, const SourceLocation &loc) {
  if (!v.ok) return v;
  if (op == ast::UnaryOpKind::Not) {
    Value t = truth(v, loc);
    if (!t.ok) return t;
    if (const Const *c = t.expr.as<Const>()) return make_bool_const(c->int_bits == 0);
    return Value::strong(Unary::make(UnaryOpcode::Not, t.expr));
  }
  if (v.literal_tuple || !(v.is_weak() || v.type.is_scalar())) {
    error(loc, "bad operand type for unary operator: '" + v.type.str() + "'");
    return Value::error();
  }
  if (v.is_weak()) {
    switch (op) {
      case ast::UnaryOpKind::UAdd:
        return v;
      case ast::UnaryOpKind::USub:
        if (v.weak == Weak::Int) {
          Int128 negated = 0;
          if (__builtin_sub_overflow(static_cast<Int128>(0), v.num.i, &negated)) {
            error(loc, "integer constant overflows 128 bits in a constant expression");
            return Value::error();
          }
          return Value::weak_num(PyNum::of_int(negated));
        }
        if (v.weak == Weak::Float) return Value::weak_num(PyNum::of_float(-v.num.f));
        return Value::weak_num(PyNum::of_complex(-v.num.c));
      case ast::UnaryOpKind::Invert:
        if (v.weak == Weak::Int) return Value::weak_num(PyNum::of_int(~v.num.i));
        error(loc, std::string("bad operand type for unary ~: '") + weak_name(v.weak) + "'");
        return Value::error();
      default:
        break;
    }
  }
  const Type &t = v.type;
  switch (op) {
    case ast::UnaryOpKind::UAdd:
      return t.is_bool() ? convert(v, DType::Int64) : v;
    case ast::UnaryOpKind::USub:
      if (t.is_bool()) v = convert(v, DType::Int64);
      return Value::strong(Unary::make(UnaryOpcode::Neg, v.expr));
    case ast::UnaryOpKind::Invert:
      if (!t.is_int() && !t.is_bool()) {
        error(loc, "bad operand type for unary ~: '" + t.str() + "'");
        return Value::error();
      }
      return Value::strong(Unary::make(UnaryOpcode::Invert, v.expr));
    default:
      break;
  }
  internal_error << "unhandled unary operator";
  return Value::error();
}

Value BodyTyper::select(Value cond, Value a, Value b, const SourceLocation &loc) {
  cond = truth(cond, loc);
  if (!cond.ok || !a.ok || !b.ok) return Value::error();
  if (const Const *c = cond.expr.as<Const>()) return c->int_bits != 0 ? a : b;
  bool tuple = a.literal_tuple || b.literal_tuple || a.type.is_tuple() || b.type.is_tuple();
  if (tuple) {
    Value ma = materialize(a);
    Value mb = materialize(b);
    if (!ma.ok || !mb.ok) return Value::error();
    std::string message;
    std::optional<Type> t = unify_types(ma.type, mb.type, message);
    if (!t) {
      error(loc, "the arms of a conditional expression have incompatible types: " + message);
      return Value::error();
    }
    ++conditional_depth_;  // the arms' conversions must not be hoisted out of them
    ma = convert_to(ma, *t, loc, "in a conditional expression");
    mb = convert_to(mb, *t, loc, "in a conditional expression");
    --conditional_depth_;
    if (!ma.ok || !mb.ok) return Value::error();
    return Value::strong(Select::make(cond.expr, ma.expr, mb.expr));
  }
  if (!unify_operands(a, b, loc, "choose between")) return Value::error();
  return Value::strong(Select::make(cond.expr, a.expr, b.expr));
}

Value BodyTyper::intrinsic(IntrinsicOp op, Type result, std::vector<Value> args) {
  std::vector<Expr> exprs;
  for (const Value &a : args) {
    if (!a.ok) return Value::error();
    internal_assert(!a.is_weak()) << "intrinsic " << intrinsic_name(op) << " with a weak argument";
    exprs.push_back(a.expr);
  }
  return Value::strong(Intrinsic::make(op, std::move(result), std::move(exprs)));
}

}  // namespace ufjit::ir::typer
