// Whole-array reductions in gufunc bodies (LANGUAGE.md section 8): a.sum(),
// a.prod(), a.min(), a.max(), a.mean(), a.argmin(), a.argmax(), a.all(),
// a.any() and the np.* functions of the same names (np.amin, np.amax too),
// without axis arguments, as Numba has them in nopython code. Each call site
// gets an IR function of the module (one loop nest over the array in C
// order), so that a reduction is an expression like any call: pure, usable
// inside conditions, and raising (an empty min/max/argmin/argmax) through the
// raise flag at the call's location. Result types are NumPy's: sum and prod
// of small integers widen to int64/uint64 (bool to int64), mean of integers
// is float64 (float16 sums, products and means accumulate in float32), argmin/argmax give the flat
// int64 index of the first extreme (of the first NaN for floats), and
// min/max/argmin/argmax propagate NaN.
#include <functional>

#include "support/InternalAssert.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

const char *const kReductions[] = {"sum", "prod", "min", "max", "amin", "amax", "mean", "argmin", "argmax", "all",
                                   "any"};

Expr i64(int64_t v) { return Const::make_int(DType::Int64, v); }

/// NumPy's dtype of sum/prod over `d`.
DType accumulate_type(DType d) {
  if (d == DType::Bool) return DType::Int64;
  if (is_signed_int(d)) return DType::Int64;
  if (is_unsigned_int(d)) return DType::UInt64;
  return d;
}

/// The statements of one reduction function over `a` (parameter "a").
struct Builder {
  std::string op;
  Type array;
  DType element;
  std::vector<Variable> locals;
  std::vector<Stmt> body;

  Expr var(const std::string &name) const {
    for (const Variable &v : locals) {
      if (v.name == name) return Var::make(v.type, name);
    }
    internal_error << "reduction local " << name << " not declared";
    return Expr();
  }
  void local(const std::string &name, DType t, Expr init) {
    locals.push_back({name, Type::scalar(t)});
    body.push_back(Assign::make(name, std::move(init)));
  }
  /// `for i0 in range(a.shape[0]): for i1 ...: inner(element, flat index)`.
  Stmt loops(const std::function<Stmt(const Expr &, const Expr &)> &inner) {
    const Expr a = Var::make(array, "a");
    const int ndim = array.ndim();
    std::vector<Expr> indices;
    for (int d = 0; d < ndim; ++d) {
      locals.push_back({"i" + std::to_string(d), Type::scalar(DType::Int64)});
      indices.push_back(Var::make(Type::scalar(DType::Int64), "i" + std::to_string(d)));
    }
    // The flat C-order index: ((i0 * n1) + i1) * n2 + i2 ...
    Expr flat = ndim > 0 ? indices[0] : i64(0);
    for (int d = 1; d < ndim; ++d) {
      flat = Binary::make(BinaryOpcode::Add, Binary::make(BinaryOpcode::Mul, flat, ArrayDim::make(a, d)), indices[static_cast<std::size_t>(d)]);
    }
    Stmt s = inner(ArrayLoad::make(a, indices), flat);
    for (int d = ndim - 1; d >= 0; --d) {
      s = ForRange::make("i" + std::to_string(d), i64(0), ArrayDim::make(a, d), i64(1), s);
    }
    return s;
  }
  /// The number of elements of `a`, as int64.
  Expr element_count() const {
    Expr count = i64(1);
    for (int d = 0; d < array.ndim(); ++d) {
      count = Binary::make(BinaryOpcode::Mul, count, ArrayDim::make(Var::make(array, "a"), d));
    }
    return count;
  }

  // The bodies of the reductions; each returns the result's dtype.
  DType sum_prod_mean();
  DType all_any();
  DType extreme(const SourceLocation &loc);
};

Expr element_as(const Expr &x, DType from, DType to) { return from == to ? x : Cast::make(to, x); }

DType Builder::sum_prod_mean() {
  const DType e = element;
  DType acc = accumulate_type(e);
  if (op == "mean") acc = is_integer(e) || e == DType::Bool ? DType::Float64 : e;
  // float16 accumulates in float32, rounded to float16 once at the end, as
  // NumPy's half loops do (in float16, a sum of ones stops at 2048).
  if (e == DType::Float16) acc = DType::Float32;
  PyNum start = PyNum::of_int(op == "prod" ? 1 : 0);
  local("acc", acc, make_const(acc, start));
  BinaryOpcode combine = op == "prod" ? BinaryOpcode::Mul : BinaryOpcode::Add;
  body.push_back(loops([&](const Expr &x, const Expr &) {
    return Assign::make("acc", Binary::make(combine, var("acc"), element_as(x, e, acc)));
  }));
  Expr result = var("acc");
  if (op == "mean") {
    Expr count = element_count();
    Expr n = is_complex(acc) ? Cast::make(acc, Cast::make(DType::Float64, count)) : Cast::make(acc, count);
    result = Binary::make(BinaryOpcode::Div, result, n);
  }
  DType ret = e == DType::Float16 ? DType::Float16 : acc;
  body.push_back(Return::make(element_as(result, acc, ret)));
  return ret;
}

DType Builder::all_any() {
  const DType e = element;
  const bool all = op == "all";
  body.push_back(loops([&](const Expr &x, const Expr &) {
    Expr truth = e == DType::Bool ? x : Compare::make(CompareOpcode::Ne, x, make_const(e, PyNum::of_int(0)));
    if (is_complex(e)) truth = Compare::make(CompareOpcode::Ne, x, Const::make_complex(e, {0.0, 0.0}));
    Expr stop = all ? Unary::make(UnaryOpcode::Not, truth) : truth;
    return If::make(stop, Return::make(Const::make_bool(!all)));
  }));
  body.push_back(Return::make(Const::make_bool(all)));
  return DType::Bool;
}

// min/max/argmin/argmax: empty -> ValueError; the first extreme wins; a
// NaN is taken and kept (nothing compares above or below it).
DType Builder::extreme(const SourceLocation &loc) {
  const DType e = element;
  const bool is_max = op == "max" || op == "argmax";
  const bool arg = op == "argmin" || op == "argmax";
  const std::string file = loc.file != nullptr ? loc.file->name() : std::string("<source>");
  std::string message = arg ? "attempt to get " + op + " of an empty sequence"
                            : std::string("zero-size array to reduction operation ") + (is_max ? "maximum" : "minimum") +
                                  " which has no identity";
  body.push_back(If::make(Compare::make(CompareOpcode::Eq, element_count(), i64(0)),
                          Raise::make("ValueError", message, file, loc.line, loc.col)));
  std::vector<Expr> zeros(static_cast<std::size_t>(array.ndim()), i64(0));
  local("best", e, ArrayLoad::make(Var::make(array, "a"), zeros));
  local("at", DType::Int64, i64(0));
  body.push_back(loops([&](const Expr &x, const Expr &flat) {
    Expr better = Compare::make(is_max ? CompareOpcode::Gt : CompareOpcode::Lt, x, var("best"));
    if (is_float(e)) {
      // Take a NaN unless one is held already (then nothing is better).
      Expr x_nan = Intrinsic::make(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {x});
      Expr best_nan = Intrinsic::make(IntrinsicOp::IsNan, Type::scalar(DType::Bool), {var("best")});
      better = Binary::make(BinaryOpcode::BitOr, better,
                            Binary::make(BinaryOpcode::BitAnd, x_nan, Unary::make(UnaryOpcode::Not, best_nan)));
    }
    return If::make(better, Block::make({Assign::make("best", x), Assign::make("at", flat)}));
  }));
  body.push_back(Return::make(arg ? var("at") : var("best")));
  return arg ? DType::Int64 : e;
}

}  // namespace

bool is_array_reduction(const std::string &name) {
  for (const char *r : kReductions) {
    if (name == r) return true;
  }
  return false;
}

Value BodyTyper::array_reduction(const std::string &name, const Value &array, std::size_t nargs,
                                 const SourceLocation &loc) {
  const std::string op = name == "amin" ? "min" : name == "amax" ? "max" : name;
  if (!array.ok) return array;
  if (array.is_weak() || !array.type.is_array()) {
    error(loc, "'" + name + "' reduces an array, not '" + (array.is_weak() ? std::string(weak_name(array.weak)) : array.type.str()) + "'");
    return Value::error();
  }
  if (nargs != 0) {
    error(loc, "'" + name + "' of an array takes no arguments here; axis=, dtype= and out= are not supported (write the loop)");
    return Value::error();
  }
  const DType e = array.type.dtype();
  const bool ordered = op == "min" || op == "max" || op == "argmin" || op == "argmax";
  if (ordered && is_complex(e)) {
    error(loc, "'" + name + "' of a complex array is not supported");
    return Value::error();
  }
  if (module_ == nullptr) {
    error(loc, "'" + name + "' cannot be used here");
    return Value::error();
  }
  Builder b{op, array.type, e, {}, {}};
  DType ret = e;
  if (op == "sum" || op == "prod" || op == "mean") {
    ret = b.sum_prod_mean();
  } else if (op == "all" || op == "any") {
    ret = b.all_any();
  } else {
    ret = b.extreme(loc);
  }
  Function f;
  f.name = "__ufjit_" + op + "_" + std::to_string(loc.line) + "_" + std::to_string(loc.col) + "_" +
           ModuleTyper::mangle("", {array.type}).substr(2);
  f.params = {{"a", array.type}};
  f.locals = std::move(b.locals);
  f.ret = Type::scalar(ret);
  f.body = Block::make(std::move(b.body));
  std::string callee = module_->add_function(std::move(f));
  return Value::strong(Call::make(Type::scalar(ret), callee, {array.expr}));
}

}  // namespace ufjit::ir::typer
