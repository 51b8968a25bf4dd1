// Typing of expressions: names and their resolution (locals, parameters,
// module constants, imports, math modules), operators, conditionals, tuples.
// Calls are dispatched here and typed in Builtins.cpp.
#include <cctype>
#include <cmath>

#include "support/InternalAssert.h"
#include "typer/Builtins.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

/// The most elements a tuple literal may have.
constexpr std::size_t kMaxTupleElements = 1024;

Value BodyTyper::expr(const ast::Expr &e) {
  switch (e.kind) {
    case ast::ExprKind::IntLit: {
      const auto &lit = *e.as<ast::IntLit>();
      if (lit.overflow) {
        error(e.loc, "integer literal is too large (more than 64 bits)");
        return Value::error();
      }
      return Value::weak_num(PyNum::of_int(static_cast<Int128>(lit.value)));
    }
    case ast::ExprKind::FloatLit:
      return Value::weak_num(PyNum::of_float(e.as<ast::FloatLit>()->value));
    case ast::ExprKind::ImagLit:
      return Value::weak_num(PyNum::of_complex({0.0, e.as<ast::ImagLit>()->imag}));
    case ast::ExprKind::BoolLit:
      return make_bool_const(e.as<ast::BoolLit>()->value);
    case ast::ExprKind::NoneLit:
      error(e.loc, "'None' is not supported in a function body");
      return Value::error();
    case ast::ExprKind::StrLit:
      error(e.loc, "strings are not supported in a function body");
      return Value::error();
    case ast::ExprKind::List:
      error(e.loc, "lists are not supported in a function body; use a tuple");
      return Value::error();
    case ast::ExprKind::Name:
      return name_expr(*e.as<ast::Name>());
    case ast::ExprKind::Attribute:
      return attribute_expr(*e.as<ast::Attribute>());
    case ast::ExprKind::Call:
      return call_expr(*e.as<ast::Call>());
    case ast::ExprKind::BinOp:
      return binop_expr(*e.as<ast::BinOp>());
    case ast::ExprKind::UnaryOp:
      return unary_expr(*e.as<ast::UnaryOp>());
    case ast::ExprKind::BoolOp:
      return boolop_expr(*e.as<ast::BoolOp>());
    case ast::ExprKind::Compare:
      return compare_expr(*e.as<ast::Compare>());
    case ast::ExprKind::IfExp:
      return ifexp_expr(*e.as<ast::IfExp>());
    case ast::ExprKind::Subscript:
      return subscript_expr(*e.as<ast::Subscript>());
    case ast::ExprKind::Slice:
      error(e.loc, "a slice ('" + ast::to_source(e) + "') is only allowed as an array index, as in 'a[1:n]'");
      return Value::error();
    case ast::ExprKind::Tuple:
      return tuple_expr(*e.as<ast::Tuple>());
  }
  internal_error << "unhandled expression kind";
  return Value::error();
}

Value BodyTyper::tuple_expr(const ast::Tuple &e) {
  // LLVM's optimizer holds a lattice value per element of every
  // partial tuple it builds: O(n^2) memory, 2.8 GB and 34 s for 3,000
  // elements, killed for memory at 100,000 (1,000: 0.4 GB, 2.5 s).
  const std::size_t count = e.elts.size();
  if (count > kMaxTupleElements) {
    error(e.loc, "a tuple of " + std::to_string(count) + " elements; at most " +
                     std::to_string(kMaxTupleElements) +
                     " are supported (use an array argument of a @guvectorize function for more)");
    return Value::error();
  }
  std::vector<Value> els;
  bool ok = true;
  for (const ast::ExprPtr &x : e.elts) {
    els.push_back(expr(*x));
    ok = ok && els.back().ok;
  }
  if (!ok) return Value::error();
  int64_t scalars = 0;
  for (const Value &v : els) {
    if (v.type.is_void()) {
      error(e.loc, "a call that returns no value is used in a tuple");
      return Value::error();
    }
    scalars += scalar_slots(v.type, static_cast<int64_t>(kMaxTupleElements) + 1);
  }
  // Tuples of tuples hold all their scalars: `t = (t, t)` ten times
  // over is a tuple of 1,024 with no literal longer than two.
  if (scalars > static_cast<int64_t>(kMaxTupleElements)) {
    error(e.loc, "a tuple holding more than " + std::to_string(kMaxTupleElements) +
                     " values through its nested tuples; at most " + std::to_string(kMaxTupleElements) +
                     " are supported (use an array argument of a @guvectorize function for more)");
    return Value::error();
  }
  return Value::tuple_literal(std::move(els));
}

std::vector<std::string> BodyTyper::visible_names() const {
  std::vector<std::string> names;
  for (const std::string &p : param_names_) names.push_back(p);
  for (const std::string &a : assigned_names_) names.push_back(a);
  for (const auto &[name, v] : scope_.constants) names.push_back(name);
  for (const auto &[name, f] : scope_.functions) names.push_back(name);
  for (const auto &[name, what] : scope_.imports) names.push_back(name);
  for (const char *b : kBuiltinNames) names.push_back(b);
  return names;
}

Value BodyTyper::unknown_name(const std::string &name, const SourceLocation &loc, bool as_call) {
  std::string message = std::string(as_call ? "unknown function '" : "unknown name '") + name + "'";
  for (const std::string &n : math_module_names("math")) {
    if (n == name) {
      error(loc, message + "; did you mean 'math." + name + "'? (or write 'from math import " + name + "')");
      return Value::error();
    }
  }
  std::string hint = closest_match(name, visible_names());
  if (!hint.empty()) message += "; did you mean '" + hint + "'?";
  error(loc, message);
  return Value::error();
}

Value BodyTyper::name_expr(const ast::Name &e) {
  const std::string &id = e.id;
  if (def_ != nullptr && is_variable(id)) {
    if (mode_ == Mode::Emit && flow_.reachable && !assigned_on_every_path(id)) {
      error(e.loc, "variable '" + id + "' is used before it is assigned (on some path)");
      return Value::error();
    }
    worklist_.note_read(id);
    if (std::optional<Value> w = weak_read(id)) {
      worklist_.note_weak_read();
      return *w;
    }
    std::optional<Type> t = variable_type(id);
    if (!t) {
      poisoned_ = poisoned_ || mode_ == Mode::Emit;
      return Value::error();
    }
    return Value::strong(Var::make(*t, ir_var_name(id)));
  }
  if (const Binding *b = binding_of(id)) {
    if (b->constant) return *b->constant;
    error(e.loc, "'" + id + "' is given '" + ast::to_source(*b->reference) +
                     "' by the caller, a function or type; it can only be called");
    return Value::error();
  }
  auto c = scope_.constants.find(id);
  if (c != scope_.constants.end()) {
    poisoned_ = poisoned_ || (!c->second.ok && mode_ == Mode::Emit);
    return c->second;
  }
  auto imp = scope_.imports.find(id);
  if (imp != scope_.imports.end()) {
    const std::string &what = imp->second;
    std::size_t dot = what.find('.');
    std::string module = dot == std::string::npos ? what : what.substr(0, dot);
    if ((module == "math" || module == "cmath") && dot != std::string::npos) {
      return math_constant(module, what.substr(dot + 1), e.loc);
    }
    if (module == "numpy" && dot != std::string::npos) return numpy_constant(what.substr(dot + 1), e.loc);
    error(e.loc, "'" + id + "' (" + what + ") cannot be used as a value");
    return Value::error();
  }
  if (scope_.functions.count(id) != 0 || is_builtin_name(id) || dtype_from_name(id)) {
    error(e.loc, "'" + id + "' is a function; it can only be called");
    return Value::error();
  }
  if (id == "math" || id == "cmath") {
    error(e.loc, "module '" + id + "' cannot be used as a value");
    return Value::error();
  }
  return unknown_name(id, e.loc, false);
}

std::optional<std::string> BodyTyper::module_of(const ast::Expr &e) const {
  if (const ast::Name *n = e.as<ast::Name>()) {
    if (def_ != nullptr && is_variable(n->id)) return std::nullopt;
    if (scope_.constants.count(n->id) != 0) return std::nullopt;
    auto imp = scope_.imports.find(n->id);
    if (imp != scope_.imports.end()) {
      const std::string &what = imp->second;
      if (what == "math" || what == "cmath" || what == "numpy" || what == "numba" || what == "numba.cuda" ||
          what == "numba.cuda.fp16") {
        return what;
      }
      if (what == "numba.types" || what == "numba.cuda.types" || what == "numba.core.types") {
        return std::string("numba.types");
      }
      return std::nullopt;
    }
    if (n->id == "math" || n->id == "cmath" || n->id == "numba") return n->id;
    if (n->id == "np" || n->id == "numpy") return std::string("numpy");
    if (n->id == "cuda") return std::string("numba.cuda");
    return std::nullopt;
  }
  if (const ast::Attribute *a = e.as<ast::Attribute>()) {
    std::optional<std::string> base = module_of(*a->value);
    if (base && *base == "numba" && a->attr == "cuda") return std::string("numba.cuda");
    if (base && *base == "numba.cuda" && a->attr == "fp16") return std::string("numba.cuda.fp16");
    if (base && *base == "numba.cuda" &&
        (a->attr == "atomic" || a->attr == "shared" || a->attr == "local" || a->attr == "const" ||
         is_cuda_coordinate_object(a->attr))) {
      return "numba.cuda." + a->attr;
    }
    if (base && (*base == "numba" || *base == "numba.cuda") && a->attr == "types") return std::string("numba.types");
    if (base && *base == "numba" && a->attr == "core") return std::string("numba.core");
    if (base && *base == "numba.core" && a->attr == "types") return std::string("numba.types");
  }
  return std::nullopt;
}

Value BodyTyper::attribute_expr(const ast::Attribute &e) {
  std::optional<std::string> mod = module_of(*e.value);
  if (mod) {
    if (*mod == "math" || *mod == "cmath") return math_constant(*mod, e.attr, e.attr_loc);
    if (*mod == "numpy") return numpy_constant(e.attr, e.attr_loc);
    if (*mod == "numba.cuda") return cuda_attribute(*mod, e.attr, e.attr_loc);
    if (mod->rfind("numba.cuda.", 0) == 0 && is_cuda_coordinate_object(mod->substr(11))) {
      return cuda_attribute(*mod, e.attr, e.attr_loc);
    }
    error(e.attr_loc, "'" + ast::to_source(e) + "' cannot be used as a value in a function body");
    return Value::error();
  }
  Value v = expr(*e.value);
  if (!v.ok) return v;
  if (v.type.is_record()) return record_attribute(v, e.attr, e.attr_loc);  // a field may be named `real`
  if (e.attr == "real" || e.attr == "imag") return real_imag(v, e.attr == "imag", e.attr_loc);
  if (v.type.is_array()) return array_attribute(v, e.attr, e.attr_loc);
  if (e.attr == "conjugate") {
    error(e.attr_loc, "method 'conjugate' must be called: write 'z.conjugate()'");
    return Value::error();
  }
  error(e.attr_loc, "attribute '" + e.attr + "' is not supported on a value of type '" + v.type.str() +
                        "' (only .real, .imag and .conjugate())");
  return Value::error();
}

Value BodyTyper::binop_expr(const ast::BinOp &e) {
  Value a = expr(*e.left);
  Value b = expr(*e.right);
  return binary(e.op, a, b, e.op_loc.valid() ? e.op_loc : e.loc);
}

Value BodyTyper::unary_expr(const ast::UnaryOp &e) { return unary(e.op, expr(*e.operand), e.loc); }

Value BodyTyper::boolop_expr(const ast::BoolOp &e) {
  internal_assert(!e.values.empty()) << "empty BoolOp";
  ShortCircuit::Op op = e.op == ast::BoolOpKind::And ? ShortCircuit::Op::And : ShortCircuit::Op::Or;
  Value result = expr(*e.values[0]);
  for (std::size_t i = 1; i < e.values.size(); ++i) {
    ++conditional_depth_;
    Value next = expr(*e.values[i]);
    --conditional_depth_;
    if (!result.ok || !next.ok) return Value::error();
    if (result.is_weak() && next.is_weak()) {
      bool first_true = !result.num.is_zero();
      result = (op == ShortCircuit::Op::And) == first_true ? next : result;
      continue;
    }
    if (!result.is_weak() && !next.is_weak() && result.type.is_bool() && next.type.is_bool()) {
      if (const Const *k = result.expr.as<Const>()) {
        // `FLAG and x`, `OFF or ON`: a constant first operand decides, as
        // for weak operands, so that `if OFF or ON:` is a constant condition.
        if ((op == ShortCircuit::Op::And) == (k->int_bits != 0)) result = next;
        continue;
      }
      result = Value::strong(ShortCircuit::make(op, result.expr, next.expr));
      continue;
    }
    if (!unify_operands(result, next, e.loc, op == ShortCircuit::Op::And ? "combine with 'and'" : "combine with 'or'")) {
      return Value::error();
    }
    if (result.type.is_tuple()) {
      error(e.loc, "'and'/'or' on tuples is not supported");
      return Value::error();
    }
    result = Value::strong(ShortCircuit::make(op, result.expr, next.expr));
  }
  return result;
}

Value BodyTyper::compare_expr(const ast::Compare &e) {
  Value left = expr(*e.left);
  Value result;
  for (std::size_t i = 0; i < e.ops.size(); ++i) {
    if (i > 0) ++conditional_depth_;
    Value right = expr(*e.comparators[i]);
    if (i + 1 < e.ops.size()) right = stabilize(right);  // evaluated once, used twice
    if (i > 0) --conditional_depth_;
    SourceLocation loc = i < e.op_locs.size() && e.op_locs[i].valid() ? e.op_locs[i] : e.loc;
    Value c = compare(e.ops[i], left, right, loc);
    if (!c.ok) return Value::error();
    if (i == 0) {
      result = c;
    } else if (const Const *k = result.expr.as<Const>()) {
      result = k->int_bits != 0 ? c : result;
    } else {
      result = Value::strong(ShortCircuit::make(ShortCircuit::Op::And, result.expr, c.expr));
    }
    left = right;
  }
  return result;
}

Value BodyTyper::ifexp_expr(const ast::IfExp &e) {
  Value cond = expr(*e.test);
  ++conditional_depth_;
  Value a = expr(*e.body);
  Value b = expr(*e.orelse);
  --conditional_depth_;
  return select(cond, a, b, e.loc);
}

Value BodyTyper::subscript_expr(const ast::Subscript &e) {
  const ast::Attribute *shape = e.value->as<ast::Attribute>();
  if (shape != nullptr && shape->attr == "shape" && !module_of(*shape->value)) {
    Value array = expr(*shape->value);
    if (!array.ok) return array;
    if (!array.type.is_array()) {
      error(shape->attr_loc, "'.shape' is only supported on arrays, not on '" + array.type.str() + "'");
      return Value::error();
    }
    const int dims = array.type.ndim() - (array.type.is_record() ? 1 : 0);  // a record's bytes are no dimension
    std::optional<int> d = constant_index(*e.index, dims, "shape", "dimension", array.type);
    if (!d) return Value::error();
    return Value::strong(ArrayDim::make(array.expr, *d));
  }
  Value v = expr(*e.value);
  if (!v.ok) return v;
  if (v.type.is_array()) return array_subscript(v, *e.index, false);
  if (!v.literal_tuple && !v.type.is_tuple()) {
    error(e.loc, "cannot index a value of type '" + v.type.str() + "' (only tuples and arrays can be indexed)");
    return Value::error();
  }
  std::optional<int> i = constant_index(*e.index, static_cast<Int128>(v.type.elements().size()), "tuple",
                                        "tuple index", v.type);
  if (!i) return Value::error();
  if (v.literal_tuple) return v.elements[static_cast<std::size_t>(*i)];
  if (const MakeTuple *t = v.expr.as<MakeTuple>()) return Value::strong(t->elements[static_cast<std::size_t>(*i)]);
  return Value::strong(TupleGet::make(v.expr, *i));
}

std::optional<int> BodyTyper::constant_index(const ast::Expr &index, Int128 n, const std::string &kind,
                                             const std::string &item, const Type &of) {
  Value k = expr(index);
  if (!k.ok) return std::nullopt;
  if (!k.is_weak() || k.weak != Weak::Int) {
    error(index.loc, "a " + kind + " index must be an integer constant");
    return std::nullopt;
  }
  Int128 i = k.num.i < 0 ? k.num.i + n : k.num.i;
  if (i < 0 || i >= n) {
    error(index.loc, item + " " + k.num.str() + " is out of range for '" + of.str() + "'");
    return std::nullopt;
  }
  return static_cast<int>(i);
}

namespace {

/// A copy of a callee made of names and attributes (`f`, `cmath.rect`,
/// `cuda.fp16.hadd`, `z.conjugate`); nullptr for anything else.
ast::ExprPtr clone_callee(const ast::Expr &e) {
  if (const ast::Name *n = e.as<ast::Name>()) {
    auto copy = std::make_unique<ast::Name>(n->loc);
    copy->id = n->id;
    return copy;
  }
  if (const ast::Attribute *a = e.as<ast::Attribute>()) {
    ast::ExprPtr value = clone_callee(*a->value);
    if (!value) return nullptr;
    auto copy = std::make_unique<ast::Attribute>(a->loc);
    copy->value = std::move(value);
    copy->attr = a->attr;
    copy->attr_loc = a->attr_loc;
    return copy;
  }
  return nullptr;
}

}  // namespace

std::vector<Value> BodyTyper::call_arguments(const ast::Call &e) {
  if (pending_args_) {
    std::vector<Value> args = std::move(*pending_args_);
    pending_args_.reset();
    return args;
  }
  std::vector<Value> args;
  for (const ast::ExprPtr &a : e.args) args.push_back(expr(*a));
  return args;
}

Value BodyTyper::star_call(const ast::Call &e) {
  // `f(*t)`: each starred tuple becomes its elements. The call is then typed
  // as a call without stars whose arguments point at the starred expression.
  ast::ExprPtr callee = clone_callee(*e.func);
  if (!callee) {
    error(e.func->loc, "'" + ast::to_source(*e.func) + "' cannot be called with unpacked arguments ('*')");
    return Value::error();
  }
  ast::Call flat(e.loc);
  flat.func = std::move(callee);
  std::vector<Value> args;
  auto add = [&](Value v, const SourceLocation &loc) {
    args.push_back(std::move(v));
    flat.args.push_back(std::make_unique<ast::Name>(loc));  // a location only; never typed
  };
  for (std::size_t i = 0; i < e.args.size(); ++i) {
    Value v = expr(*e.args[i]);
    if (!v.ok) return Value::error();
    if (!e.is_starred(i)) {
      add(std::move(v), e.args[i]->loc);
      continue;
    }
    if (v.literal_tuple) {
      for (const Value &element : v.elements) add(element, e.args[i]->loc);
      continue;
    }
    if (v.is_weak() || !v.type.is_tuple()) {
      error(e.args[i]->loc, "only a tuple can be unpacked into arguments, not '" +
                                (v.is_weak() ? std::string(weak_name(v.weak)) : v.type.str()) + "'");
      return Value::error();
    }
    Value t = stabilize(v);
    const MakeTuple *made = t.expr.as<MakeTuple>();
    for (std::size_t k = 0; k < t.type.elements().size(); ++k) {
      Expr element = made != nullptr ? made->elements[k] : TupleGet::make(t.expr, static_cast<int>(k));
      add(Value::strong(element), e.args[i]->loc);
    }
  }
  pending_args_ = std::move(args);
  Value result = call_expr(flat);
  pending_args_.reset();  // not consumed when the call failed before typing its arguments
  return result;
}

std::optional<std::string> BodyTyper::numpy_callee(const ast::Expr &callee) const {
  if (const ast::Name *n = callee.as<ast::Name>()) {
    auto imp = scope_.imports.find(n->id);
    if (imp == scope_.imports.end() || imp->second.rfind("numpy.", 0) != 0) return std::nullopt;
    return imp->second.substr(6);
  }
  if (const ast::Attribute *a = callee.as<ast::Attribute>()) {
    std::optional<std::string> mod = module_of(*a->value);
    if (mod && *mod == "numpy") return a->attr;
  }
  return std::nullopt;
}

Value BodyTyper::call_expr(const ast::Call &e) {
  if (const ast::Attribute *a = e.func->as<ast::Attribute>(); a != nullptr && a->attr == "array") {
    std::optional<std::string> mod = module_of(*a->value);
    if (mod && (*mod == "numba.cuda.shared" || *mod == "numba.cuda.local")) {
      return array_alloc(*mod == "numba.cuda.local" ? MemorySpace::Local : MemorySpace::Shared, e);
    }
  }
  if (e.keywords.size() == 1 && e.starred.empty() && e.args.size() == 1) {
    // np.round(x, decimals=2), np.angle(z, deg=True): the keyword arguments a body may pass.
    std::optional<std::string> np_name = numpy_callee(*e.func);
    const std::string &kw = e.keywords[0].name;
    bool round = np_name && (*np_name == "round" || *np_name == "around" || *np_name == "round_");
    if ((round && kw == "decimals") || (np_name && *np_name == "angle" && kw == "deg")) {
      std::vector<Value> args = {expr(*e.args[0]), expr(*e.keywords[0].value)};
      for (const Value &a : args) {
        if (!a.ok) return Value::error();
      }
      return call_numpy(*np_name, std::move(args), e);
    }
  }
  if (!e.keywords.empty()) {
    error(e.keywords[0].loc, "keyword arguments are not supported in calls ('" + e.keywords[0].name + "=')");
    return Value::error();
  }
  if (!e.starred.empty()) return star_call(e);
  return call_callee(*e.func, e);
}

Value BodyTyper::call_callee(const ast::Expr &callee, const ast::Call &e) {
  if (const ast::Name *n = callee.as<ast::Name>()) return name_call(*n, e);
  if (const ast::Attribute *a = callee.as<ast::Attribute>()) {
    std::optional<std::string> mod = module_of(*a->value);
    if (!mod) return method_call(*a, call_arguments(e), e);
    std::vector<Value> args = call_arguments(e);
    if (*mod == "math" || *mod == "cmath") return call_math(*mod, a->attr, std::move(args), e);
    if ((*mod == "numpy" || *mod == "numba" || *mod == "numba.types") && dtype_from_name(a->attr)) {
      return call_dtype(*dtype_from_name(a->attr), std::move(args), e, ast::to_source(callee));
    }
    if (*mod == "numpy") return call_numpy(a->attr, std::move(args), e);
    if (*mod == "numba.cuda" || *mod == "numba.cuda.fp16") return call_cuda(*mod, a->attr, std::move(args), e);
    if (*mod == "numba.cuda.atomic") return *call_kernel_function(*mod, a->attr, args, e);
    if (*mod == "numba.cuda.const") return const_array_like(a->attr, std::move(args), e);
    error(a->attr_loc, "'" + ast::to_source(callee) + "' cannot be called in a function body");
    return Value::error();
  }
  error(callee.loc, "cannot call '" + ast::to_source(callee) + "'");
  return Value::error();
}

Value BodyTyper::name_call(const ast::Name &n, const ast::Call &e) {
  const std::string &id = n.id;
  if (const Binding *b = binding_of(id)) {
    if (b->reference != nullptr) return call_callee(*b->reference, e);
    error(n.loc, "'" + id + "' is given a constant by the caller, not a function");
    return Value::error();
  }
  if (def_ != nullptr && is_variable(id)) {
    error(n.loc, "'" + id + "' is a variable, not a function");
    return Value::error();
  }
  if (scope_.constants.count(id) != 0) {
    error(n.loc, "'" + id + "' is a module constant, not a function");
    return Value::error();
  }
  if (id == "range") {
    error(n.loc, "range() can only be used as the iterable of a 'for' loop");
    return Value::error();
  }
  if (id == "float" && !pending_args_ && e.args.size() == 1 && e.args[0]->isa<ast::StrLit>()) {
    return float_of_string(*e.args[0]->as<ast::StrLit>());
  }
  auto f = scope_.functions.find(id);
  if (f != scope_.functions.end() && !pending_args_) return helper_call(*f->second, e);
  std::vector<Value> args = call_arguments(e);
  if (f != scope_.functions.end()) return call_function(*f->second, std::move(args), e);
  auto imp = scope_.imports.find(id);
  if (imp != scope_.imports.end()) return imported_call(n, imp->second, std::move(args), e);
  if (is_builtin_name(id)) return call_builtin(id, std::move(args), e);
  for (const frontend::DeviceDecl &d : scope_.program->device_decls) {
    if (d.name == id) return call_extern(d, std::move(args), e);
  }
  if (std::optional<DType> t = dtype_from_name(id)) return call_dtype(*t, std::move(args), e, id);
  return unknown_name(id, n.loc, true);
}

Value BodyTyper::imported_call(const ast::Name &n, const std::string &what, std::vector<Value> args,
                                const ast::Call &e) {
  std::size_t dot = what.rfind('.');
  std::string module = dot == std::string::npos ? what : what.substr(0, dot);
  std::string name = dot == std::string::npos ? what : what.substr(dot + 1);
  if (module == "math" || module == "cmath") return call_math(module, name, std::move(args), e);
  if (module == "numba.cuda" || module == "numba.cuda.fp16") return call_cuda(module, name, std::move(args), e);
  if ((module == "numpy" || module == "numba" || module == "numba.types" || module == "numba.cuda.types" ||
       module == "numba.core.types") &&
      dtype_from_name(name)) {
    return call_dtype(*dtype_from_name(name), std::move(args), e, n.id);
  }
  if (module == "numpy" && dot != std::string::npos) return call_numpy(name, std::move(args), e);
  error(n.loc, "'" + n.id + "' (" + what + ") cannot be called in a function body");
  return Value::error();
}

Value BodyTyper::float_of_string(const ast::StrLit &lit) {
  // float("inf"), float("-inf"), float("nan"): the one use of a string in a body.
  std::string text = lit.value;
  for (char &ch : text) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  double sign = 1.0;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    sign = text[0] == '-' ? -1.0 : 1.0;
    text = text.substr(1);
  }
  if (text == "inf" || text == "infinity") return Value::weak_num(PyNum::of_float(sign * INFINITY));
  if (text == "nan") return Value::weak_num(PyNum::of_float(std::copysign(NAN, sign)));
  error(lit.loc, "float() of a string supports only 'inf', '-inf' and 'nan'");
  return Value::error();
}

}  // namespace ufjit::ir::typer
