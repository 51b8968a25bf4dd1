// Weak values (NEP 50) and Python-number folding: literals and module
// constants fold exactly as Python computes them, so `2 * math.pi` stays a
// weak float constant that adapts to a float32 operand.
#include <cmath>
#include <iterator>
#include <limits>
#include <tuple>

#include "support/InternalAssert.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

constexpr Int128 kInt64Min = std::numeric_limits<int64_t>::min();
constexpr Int128 kInt64Max = std::numeric_limits<int64_t>::max();
constexpr Int128 kUInt64Max = std::numeric_limits<uint64_t>::max();
// Spelled out: std::numeric_limits<__int128> is empty in strict ISO mode.
constexpr Int128 kInt128Min = static_cast<Int128>(static_cast<unsigned __int128>(1) << 127);

std::string int128_str(Int128 v) {
  if (v == 0) return "0";
  bool negative = v < 0;
  unsigned __int128 u = negative ? -static_cast<unsigned __int128>(v) : static_cast<unsigned __int128>(v);
  std::string s;
  while (u > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(u % 10)));
    u /= 10;
  }
  return negative ? "-" + s : s;
}

/// C-style double -> integer bits without undefined behaviour (saturating;
/// NaN gives 0), then wrapped to `t` by Const::make_uint.
uint64_t double_to_bits(DType t, double v) {
  if (std::isnan(v)) return 0;
  double r = std::trunc(v);
  if (is_unsigned_int(t)) {
    if (r <= 0.0) return 0;
    if (r >= 18446744073709551616.0) return std::numeric_limits<uint64_t>::max();
    return static_cast<uint64_t>(r);
  }
  if (r <= -9223372036854775808.0) return static_cast<uint64_t>(std::numeric_limits<int64_t>::min());
  if (r >= 9223372036854775808.0) return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  return static_cast<uint64_t>(static_cast<int64_t>(r));
}

/// Python's int / int: the exact quotient rounded once to a double (as
/// CPython's long_true_divide), not a / b of the two operands each rounded
/// to a double first, which rounds twice past 2**53. `b` is not 0.
double int_true_divide(Int128 a, Int128 b) {
  const bool negative = (a < 0) != (b < 0);
  if (a == 0) return negative ? -0.0 : 0.0;
  using U = unsigned __int128;
  const U ua = a < 0 ? -static_cast<U>(a) : static_cast<U>(a);
  const U ub = b < 0 ? -static_cast<U>(b) : static_cast<U>(b);
  auto bits = [](U v) {
    int n = 0;
    for (; v != 0; v >>= 1) ++n;
    return n;
  };
  // 57 bits of the quotient (53 kept, then guard bits), the rest folded
  // into a sticky lowest bit: the conversion to double then rounds to
  // nearest-even as the exact quotient would.
  constexpr int kBits = 57;
  U q = ua / ub;
  U r = ua % ub;  // r < ub <= 2**127, so 2r fits
  int exponent = 0;
  while (bits(q) < kBits) {
    r <<= 1;
    q <<= 1;
    if (r >= ub) {
      r -= ub;
      q |= 1;
    }
    --exponent;
  }
  bool sticky = r != 0;
  while (bits(q) > kBits) {
    sticky = sticky || (q & 1) != 0;
    q >>= 1;
    ++exponent;
  }
  const double magnitude =
      std::ldexp(static_cast<double>(static_cast<uint64_t>(q) | (sticky ? 1u : 0u)), exponent);
  return negative ? -magnitude : magnitude;
}

/// Python's complex product (_Py_c_prod), which NumPy and the generated code
/// compute the same way, in the operands' own precision. std::complex's
/// operator* recomputes infinities (C Annex G), which Python does not.
template <typename T>
std::complex<T> python_complex_product(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}

/// Python's complex division (Objects/complexobject.c, _Py_c_quot: Smith's
/// method), which the generated code also computes (codegen's `quot`);
/// std::complex's operator/ scales by powers of two and rounds otherwise.
/// The caller has ruled out a zero divisor.
template <typename T>
std::complex<T> python_complex_quotient(std::complex<T> a, std::complex<T> b) {
  if (std::fabs(b.real()) >= std::fabs(b.imag())) {
    const T ratio = b.imag() / b.real();
    const T denom = b.real() + b.imag() * ratio;
    return {(a.real() + a.imag() * ratio) / denom, (a.imag() - a.real() * ratio) / denom};
  }
  if (std::fabs(b.imag()) >= std::fabs(b.real())) {
    const T ratio = b.real() / b.imag();
    const T denom = b.real() * ratio + b.imag();
    return {(a.real() * ratio + a.imag()) / denom, (a.imag() * ratio - a.real()) / denom};
  }
  return {std::numeric_limits<T>::quiet_NaN(), std::numeric_limits<T>::quiet_NaN()};  // a NaN in b
}

/// Python's complex ** (complex_pow, c_powi, _Py_c_pow): an integral real
/// exponent up to 100 by repeated products, so that 1j ** 2 is exactly -1
/// and 0j ** 0 is 1; otherwise the polar form. std::pow's exp(y * log(x))
/// gives -1+1.2e-16j and nan there. The caller has ruled out 0 to a negative
/// or complex power.
std::complex<double> python_complex_pow(std::complex<double> x, std::complex<double> y) {
  const auto product = python_complex_product<double>;
  if (y.imag() == 0.0 && y.real() == std::floor(y.real()) && std::fabs(y.real()) <= 100.0) {
    const long n = static_cast<long>(y.real());
    std::complex<double> r(1.0, 0.0);
    std::complex<double> p = x;
    for (long mask = 1, m = n < 0 ? -n : n; mask > 0 && m >= mask; mask <<= 1) {
      if ((m & mask) != 0) r = product(r, p);
      p = product(p, p);
    }
    return n >= 0 ? r : python_complex_quotient<double>({1.0, 0.0}, r);
  }
  const double modulus = std::hypot(x.real(), x.imag());
  double length = std::pow(modulus, y.real());
  const double angle = std::atan2(x.imag(), x.real());
  double phase = angle * y.real();
  if (y.imag() != 0.0) {
    length /= std::exp(angle * y.imag());
    phase += y.imag() * std::log(modulus);
  }
  return {length * std::cos(phase), length * std::sin(phase)};
}

/// Python's float floor division and modulo (Objects/floatobject.c).
void float_divmod(double a, double b, double &floordiv, double &mod) {
  mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) {
      mod += b;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, b);
  }
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, a / b);
  }
}

/// What Python would raise where a weak int leaves the 128 bits we keep.
const char *const kIntOverflow = "integer constant overflows 128 bits";

/// a ** b of Python ints (a float for a negative b); nullopt with `error`
/// set when Python raises or the result overflows.
std::optional<PyNum> int_pow(Int128 a, Int128 b, std::string &error) {
  if (b < 0) {
    // Python: a float result, and zero to a negative power raises.
    if (a == 0) {
      error = "0.0 cannot be raised to a negative power";
      return std::nullopt;
    }
    return PyNum::of_float(std::pow(static_cast<double>(a), static_cast<double>(b)));
  }
  Int128 result = 1;
  Int128 base = a;
  Int128 e = b;
  bool overflow = false;
  while (e > 0 && !overflow) {
    if (e & 1) overflow = __builtin_mul_overflow(result, base, &result);
    e >>= 1;
    if (e > 0 && !overflow) overflow = __builtin_mul_overflow(base, base, &base);
  }
  if (!overflow) return PyNum::of_int(result);
  error = kIntOverflow;
  return std::nullopt;
}

std::optional<PyNum> fold_int(ast::BinaryOp op, Int128 a, Int128 b, std::string &error) {
  Int128 r = 0;
  switch (op) {
    case ast::BinaryOp::Add:
      if (__builtin_add_overflow(a, b, &r)) break;
      return PyNum::of_int(r);
    case ast::BinaryOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) break;
      return PyNum::of_int(r);
    case ast::BinaryOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) break;
      return PyNum::of_int(r);
    case ast::BinaryOp::Div:
      if (b == 0) {
        error = "division by zero";
        return std::nullopt;
      }
      return PyNum::of_float(int_true_divide(a, b));
    case ast::BinaryOp::FloorDiv:
    case ast::BinaryOp::Mod: {
      if (b == 0) {
        error = "integer division or modulo by zero";
        return std::nullopt;
      }
      if (a == kInt128Min && b == -1) {
        // The one quotient that does not fit (a / b would be undefined).
        if (op == ast::BinaryOp::Mod) return PyNum::of_int(0);
        break;
      }
      Int128 q = a / b;
      Int128 m = a % b;
      if (m != 0 && ((m < 0) != (b < 0))) {
        q -= 1;
        m += b;
      }
      return PyNum::of_int(op == ast::BinaryOp::FloorDiv ? q : m);
    }
    case ast::BinaryOp::Pow:
      return int_pow(a, b, error);
    case ast::BinaryOp::LShift:
    case ast::BinaryOp::RShift:
      if (b < 0) {
        error = "negative shift count";
        return std::nullopt;
      }
      if (op == ast::BinaryOp::RShift) return PyNum::of_int(b >= 127 ? (a < 0 ? -1 : 0) : a >> static_cast<int>(b));
      if (a == 0) return PyNum::of_int(0);
      if (b >= 127) break;  // 1 << 127 itself does not fit
      if (__builtin_mul_overflow(a, static_cast<Int128>(1) << static_cast<int>(b), &r)) break;
      return PyNum::of_int(r);
    case ast::BinaryOp::BitAnd:
      return PyNum::of_int(a & b);
    case ast::BinaryOp::BitOr:
      return PyNum::of_int(a | b);
    case ast::BinaryOp::BitXor:
      return PyNum::of_int(a ^ b);
    case ast::BinaryOp::MatMul:
      error = "unsupported operand type(s) for @: 'int' and 'int'";
      return std::nullopt;
  }
  error = kIntOverflow;
  return std::nullopt;
}

/// What each weak kind is called in Python's messages and the dtype a
/// literal of it takes alone (NEP 50), indexed by Weak.
struct WeakInfo {
  const char *name;
  DType default_dtype;
};

constexpr WeakInfo kWeakInfo[] = {
    {"?", DType::Int64},  // None: a strong value, which has no default
    {"int", DType::Int64},
    {"float", DType::Float64},
    {"complex", DType::Complex128},
};
static_assert(std::size(kWeakInfo) == static_cast<std::size_t>(Weak::Complex) + 1);

}  // namespace

const char *weak_name(Weak k) {
  return kWeakInfo[static_cast<std::size_t>(k)].name;
}

// ----------------------------------------------------------------- PyNum

double PyNum::as_double() const {
  switch (kind) {
    case Weak::Int:
      return static_cast<double>(i);
    case Weak::Float:
      return f;
    default:
      return c.real();
  }
}

std::complex<double> PyNum::as_complex() const {
  return kind == Weak::Complex ? c : std::complex<double>(as_double(), 0.0);
}

bool PyNum::is_zero() const {
  switch (kind) {
    case Weak::Int:
      return i == 0;
    case Weak::Float:
      return f == 0.0;
    default:
      return c == std::complex<double>(0.0, 0.0);
  }
}

std::string PyNum::str() const {
  switch (kind) {
    case Weak::Int:
      return int128_str(i);
    case Weak::Float:
      return std::to_string(f);
    default:
      return "(" + std::to_string(c.real()) + "+" + std::to_string(c.imag()) + "j)";
  }
}

// ----------------------------------------------------------------- Value

Value Value::strong(Expr e) {
  Value v;
  if (!e) return v;
  v.ok = true;
  v.type = e.type();
  v.expr = std::move(e);
  return v;
}

Value Value::weak_num(PyNum n) {
  Value v;
  v.ok = true;
  v.weak = n.kind;
  v.num = n;
  v.type = Type::scalar(default_dtype(n.kind));
  return v;
}

Value Value::tuple_literal(std::vector<Value> elements) {
  Value v;
  std::vector<Type> types;
  for (const Value &e : elements) {
    if (!e.ok) return Value::error();
    types.push_back(e.type);
  }
  v.ok = true;
  v.literal_tuple = true;
  v.type = Type::tuple(std::move(types));
  v.elements = std::move(elements);
  return v;
}

// --------------------------------------------------------- NEP 50 helpers

DType default_dtype(Weak kind) {
  internal_assert(kind != Weak::None) << "default_dtype of a strong value";
  return kWeakInfo[static_cast<std::size_t>(kind)].default_dtype;
}

bool int_fits(DType t, Int128 v) {
  if (is_bool(t)) return v == 0 || v == 1;
  internal_assert(is_integer(t)) << "int_fits on " << dtype_name(t);
  std::size_t bits = dtype_size(t) * 8;
  if (is_unsigned_int(t)) return v >= 0 && v <= (bits == 64 ? kUInt64Max : (static_cast<Int128>(1) << bits) - 1);
  Int128 lim = static_cast<Int128>(1) << (bits - 1);
  return v >= -lim && v < lim;
}

DType weak_adapt(const PyNum &n, DType other) {
  switch (n.kind) {
    case Weak::Int:
      if (is_integer(other) && int_fits(other, n.i)) return other;
      if (is_float(other) || is_complex(other)) return other;
      if (n.i >= kInt64Min && n.i <= kInt64Max) return DType::Int64;
      if (n.i >= 0 && n.i <= kUInt64Max) return DType::UInt64;
      return DType::Float64;
    case Weak::Float:
      if (is_float(other) || is_complex(other)) return other;
      return DType::Float64;
    case Weak::Complex:
      if (is_complex(other)) return other;
      if (other == DType::Float16 || other == DType::Float32) return DType::Complex64;
      return DType::Complex128;
    case Weak::None:
      break;
  }
  internal_error << "weak_adapt of a strong value";
  return other;
}

Expr make_const(DType t, const PyNum &n) {
  if (is_bool(t)) return Const::make_bool(!n.is_zero());
  if (is_integer(t)) {
    if (n.kind == Weak::Int) return Const::make_uint(t, static_cast<uint64_t>(n.i));
    return Const::make_uint(t, double_to_bits(t, n.as_double()));
  }
  if (is_float(t)) {
    if (n.kind == Weak::Int && n.i > kInt64Max) return Const::make_float(t, static_cast<double>(n.i));
    return Const::make_float(t, n.as_double());
  }
  return Const::make_complex(t, n.as_complex());
}

// ---------------------------------------------------------------- folding

std::optional<PyNum> fold_binary(ast::BinaryOp op, const PyNum &a, const PyNum &b, std::string &error) {
  Weak kind = std::max(a.kind, b.kind);
  bool bitwise = op == ast::BinaryOp::BitAnd || op == ast::BinaryOp::BitOr || op == ast::BinaryOp::BitXor ||
                 op == ast::BinaryOp::LShift || op == ast::BinaryOp::RShift || op == ast::BinaryOp::MatMul;
  if (kind == Weak::Int) return fold_int(op, a.i, b.i, error);
  if (bitwise) {
    error = std::string("unsupported operand type(s) for ") + ast::binary_op_spelling(op) + ": '" +
            weak_name(a.kind) + "' and '" + weak_name(b.kind) + "'";
    return std::nullopt;
  }
  if (kind == Weak::Float) {
    double x = a.as_double();
    double y = b.as_double();
    switch (op) {
      case ast::BinaryOp::Add:
        return PyNum::of_float(x + y);
      case ast::BinaryOp::Sub:
        return PyNum::of_float(x - y);
      case ast::BinaryOp::Mul:
        return PyNum::of_float(x * y);
      case ast::BinaryOp::Div:
        if (y == 0.0) {
          error = "float division by zero";
          return std::nullopt;
        }
        return PyNum::of_float(x / y);
      case ast::BinaryOp::FloorDiv:
      case ast::BinaryOp::Mod: {
        if (y == 0.0) {
          error = "float floor division or modulo by zero";
          return std::nullopt;
        }
        double q = 0.0;
        double m = 0.0;
        float_divmod(x, y, q, m);
        return PyNum::of_float(op == ast::BinaryOp::FloorDiv ? q : m);
      }
      case ast::BinaryOp::Pow:
        if (x == 0.0 && y < 0.0) {
          error = "0.0 cannot be raised to a negative power";
          return std::nullopt;
        }
        if (x < 0.0 && std::isfinite(y) && y != std::floor(y)) {
          return PyNum::of_complex(python_complex_pow({x, 0.0}, {y, 0.0}));
        }
        return PyNum::of_float(std::pow(x, y));
      default:
        break;
    }
  } else {
    std::complex<double> x = a.as_complex();
    std::complex<double> y = b.as_complex();
    switch (op) {
      case ast::BinaryOp::Add:
        return PyNum::of_complex(x + y);
      case ast::BinaryOp::Sub:
        return PyNum::of_complex(x - y);
      case ast::BinaryOp::Mul:
        return PyNum::of_complex(python_complex_product(x, y));
      case ast::BinaryOp::Div:
        if (y == std::complex<double>(0.0, 0.0)) {
          error = "complex division by zero";
          return std::nullopt;
        }
        return PyNum::of_complex(python_complex_quotient(x, y));
      case ast::BinaryOp::Pow:
        if (x == std::complex<double>(0.0, 0.0) && (y.real() < 0.0 || y.imag() != 0.0)) {
          error = "0.0 to a negative or complex power";
          return std::nullopt;
        }
        return PyNum::of_complex(python_complex_pow(x, y));
      default:
        error = "can't take floor or mod of complex number";
        return std::nullopt;
    }
  }
  error = "unsupported constant operation";
  return std::nullopt;
}

std::optional<bool> fold_compare(ast::CmpOp op, const PyNum &a, const PyNum &b) {
  if (a.kind == Weak::Complex || b.kind == Weak::Complex) {
    if (op == ast::CmpOp::Eq) return a.as_complex() == b.as_complex();
    if (op == ast::CmpOp::NotEq) return a.as_complex() != b.as_complex();
    return std::nullopt;
  }
  auto compare = [op](auto x, auto y) -> std::optional<bool> {
    switch (op) {
      case ast::CmpOp::Eq:
        return x == y;
      case ast::CmpOp::NotEq:
        return x != y;
      case ast::CmpOp::Lt:
        return x < y;
      case ast::CmpOp::LtE:
        return x <= y;
      case ast::CmpOp::Gt:
        return x > y;
      case ast::CmpOp::GtE:
        return x >= y;
      default:
        return std::nullopt;
    }
  };
  if (a.kind == Weak::Int && b.kind == Weak::Int) return compare(a.i, b.i);
  return compare(a.as_double(), b.as_double());
}

// ----------------------------------------------------- strong constants

namespace {

PyNum const_num(const Const &c) {
  DType t = c.type.dtype();
  if (is_bool(t) || is_signed_int(t)) return PyNum::of_int(c.as_int64());
  if (is_unsigned_int(t)) return PyNum::of_int(static_cast<Int128>(c.int_bits));
  if (is_float(t)) return PyNum::of_float(c.float_value);
  return PyNum::of_complex(c.complex_value);
}

}  // namespace

std::optional<Expr> fold_strong_constant(const Expr &e) {
  if (e.as<Const>() != nullptr) return e;
  if (const Cast *c = e.as<Cast>()) {
    std::optional<Expr> v = fold_strong_constant(c->value);
    if (!v) return std::nullopt;
    return make_const(c->type.dtype(), const_num(*v->as<Const>()));
  }
  if (const Unary *u = e.as<Unary>()) {
    std::optional<Expr> v = fold_strong_constant(u->value);
    if (!v || u->op != UnaryOpcode::Neg) return std::nullopt;
    PyNum n = const_num(*v->as<Const>());
    DType t = u->type.dtype();
    if (n.kind == Weak::Int) return make_const(t, PyNum::of_int(-n.i));
    if (n.kind == Weak::Float) return make_const(t, PyNum::of_float(-n.f));
    return make_const(t, PyNum::of_complex(-n.c));
  }
  if (const Binary *b = e.as<Binary>()) {
    std::optional<Expr> x = fold_strong_constant(b->a);
    std::optional<Expr> y = fold_strong_constant(b->b);
    if (!x || !y) return std::nullopt;
    ast::BinaryOp op;
    switch (b->op) {
      case BinaryOpcode::Add:
        op = ast::BinaryOp::Add;
        break;
      case BinaryOpcode::Sub:
        op = ast::BinaryOp::Sub;
        break;
      case BinaryOpcode::Mul:
        op = ast::BinaryOp::Mul;
        break;
      case BinaryOpcode::Div:
        op = ast::BinaryOp::Div;
        break;
      default:
        return std::nullopt;
    }
    const PyNum lhs = const_num(*x->as<Const>());
    const PyNum rhs = const_num(*y->as<Const>());
    if (b->type.dtype() == DType::Complex64 && (op == ast::BinaryOp::Mul || op == ast::BinaryOp::Div)) {
      // Several roundings, each to float32, as NumPy and the generated code
      // compute: in double and rounded once, 1 ulp could differ.
      const std::complex<float> p(lhs.as_complex());
      const std::complex<float> q(rhs.as_complex());
      if (op == ast::BinaryOp::Div && q == std::complex<float>(0.0f, 0.0f)) return std::nullopt;
      const std::complex<float> r =
          op == ast::BinaryOp::Mul ? python_complex_product(p, q) : python_complex_quotient(p, q);
      return make_const(DType::Complex64, PyNum::of_complex(std::complex<double>(r)));
    }
    std::string error;
    std::optional<PyNum> r = fold_binary(op, lhs, rhs, error);
    if (!r) return std::nullopt;
    // One rounding to the result type: exact for + - * / of float16/32 done
    // in double, and for the parts of complex64 + and -.
    return make_const(b->type.dtype(), *r);
  }
  return std::nullopt;
}

// ------------------------------------------------------------ unification

std::optional<Type> unify_types(const Type &a, const Type &b, std::string &message) {
  if (a.is_scalar() && b.is_scalar()) return Type::scalar(promote(a.dtype(), b.dtype()));
  if (a.is_tuple() && b.is_tuple()) {
    if (a.elements().size() != b.elements().size()) {
      message = "tuples of different lengths ('" + a.str() + "' and '" + b.str() + "')";
      return std::nullopt;
    }
    std::vector<Type> els;
    for (std::size_t i = 0; i < a.elements().size(); ++i) {
      std::optional<Type> e = unify_types(a.elements()[i], b.elements()[i], message);
      if (!e) return std::nullopt;
      els.push_back(*e);
    }
    return Type::tuple(std::move(els));
  }
  if (a == b) return a;
  message = "'" + a.str() + "' and '" + b.str() + "'";
  return std::nullopt;
}

bool Candidates::add(const Value &v) {
  // What "changed" means, compared field by field (the types with ==, which
  // tells apart exactly the types that print differently): no strings built
  // per assignment typed.
  const auto state = [this] { return std::make_tuple(resolve(), strong, weak_int, weak_float, weak_complex, conflict); };
  const auto before = state();
  add_value(v);
  return state() != before;
}

void Candidates::add_value(const Value &v) {
  if (!v.ok || conflict) return;
  if (v.is_weak()) {
    switch (v.weak) {
      case Weak::Int:
        if (!weak_int) {
          weak_int = true;
          int_min = v.num.i;
          int_max = v.num.i;
          return;
        }
        int_min = std::min(int_min, v.num.i);
        int_max = std::max(int_max, v.num.i);
        return;
      case Weak::Float:
        weak_float = true;
        return;
      case Weak::Complex:
        weak_complex = true;
        return;
      case Weak::None:
        break;
    }
    return;
  }
  if (!strong) {
    strong = v.type;
    return;
  }
  std::string message;
  std::optional<Type> u = unify_types(*strong, v.type, message);
  if (!u) {
    conflict = true;
    conflict_message = message;
    return;
  }
  strong = u;
}

std::optional<Type> Candidates::resolve() const {
  if (conflict || empty()) return std::nullopt;
  std::optional<Type> t = strong;
  if (t && t->is_tuple()) {
    if (weak_int || weak_float || weak_complex) return std::nullopt;
    return t;
  }
  auto adapt = [&t](const PyNum &n) {
    if (!t) {
      t = Type::scalar(default_dtype(n.kind));
      return;
    }
    DType d = t->dtype();
    t = Type::scalar(promote(weak_adapt(n, d), d));
  };
  if (weak_int) {
    adapt(PyNum::of_int(int_min));
    adapt(PyNum::of_int(int_max));
  }
  if (weak_float) adapt(PyNum::of_float(0.0));
  if (weak_complex) adapt(PyNum::of_complex({0.0, 0.0}));
  return t;
}

// ------------------------------------------------------- module constants

void evaluate_constants(ProgramScope &scope, DiagnosticEngine &diags) {
  for (const frontend::ConstantDecl &c : scope.program->constants) {
    if (c.value == nullptr) continue;
    BodyTyper typer(scope, nullptr, diags);
    // A failed constant is still bound (to an error value), so that its uses
    // stay silent instead of reporting unknown names.
    scope.constants[c.name] = typer.type_constant(*c.value);
  }
}

}  // namespace ufjit::ir::typer
