// Typing of statements and whole functions: local type inference to a fixed
// point, definite assignment, assignments, if, returns and raises (LANGUAGE.md
// sections 3-4); loops are in TyperLoops.cpp.
#include <algorithm>

#include "support/InternalAssert.h"
#include "ir/IRVisitor.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

constexpr int kMaxInferPasses = 64;

void collect_target_names(const ast::Expr &target, std::set<std::string> &out) {
  if (const ast::Name *n = target.as<ast::Name>()) {
    out.insert(n->id);
  } else if (const ast::Tuple *t = target.as<ast::Tuple>()) {
    for (const ast::ExprPtr &e : t->elts) collect_target_names(*e, out);
  }
}

/// Whether `e` holds an explicit kernel's atomic or Sync (ir/IR.h: never dropped).
bool has_effect(const Expr &e) {
  bool found = false;
  for_each_expr(Evaluate::make(e), [&](const Expr &x) {
    found = found || x.as<ArrayAtomic>() != nullptr || x.as<Sync>() != nullptr;
  });
  return found;
}

/// Whether `e` reads a variable named in `names`.
bool reads_any(const Expr &e, const std::set<std::string> &names) {
  bool found = false;
  for_each_expr(Evaluate::make(e), [&](const Expr &x) {
    const Var *v = x.as<Var>();
    found = found || (v != nullptr && names.count(v->name) != 0);
  });
  return found;
}

}  // namespace

Value type_only(const Type &t) {
  Value v;
  v.ok = true;
  v.type = t;
  return v;
}

int64_t scalar_slots(const Type &t, int64_t cap) {
  if (!t.is_tuple()) return 1;
  int64_t n = 0;
  for (const Type &e : t.elements()) {
    n += scalar_slots(e, cap - n);
    if (n >= cap) return cap;
  }
  return n;
}

BodyTyper::BodyTyper(const ProgramScope &scope, ModuleTyper *module, DiagnosticEngine &diags)
    : scope_(scope), module_(module), real_diags_(diags) {}

BodyTyper::Flow BodyTyper::join(const Flow &a, const Flow &b) {
  if (!a.reachable) return b;
  if (!b.reachable) return a;
  Flow r;
  r.assigned.resize(std::min(a.assigned.size(), b.assigned.size()));
  for (std::size_t w = 0; w < r.assigned.size(); ++w) r.assigned[w] = a.assigned[w] & b.assigned[w];
  return r;
}

uint32_t BodyTyper::variable_index(const std::string &name) {
  return variable_indices_.try_emplace(name, static_cast<uint32_t>(variable_indices_.size())).first->second;
}

void BodyTyper::mark_assigned(const std::string &name) {
  uint32_t i = variable_index(name);
  if (flow_.assigned.size() <= i / 64) flow_.assigned.resize(i / 64 + 1, 0);
  flow_.assigned[i / 64] |= uint64_t{1} << (i % 64);
}

bool BodyTyper::assigned_on_every_path(const std::string &name) {
  uint32_t i = variable_index(name);
  return i / 64 < flow_.assigned.size() && (flow_.assigned[i / 64] >> (i % 64) & 1) != 0;
}

// ---------------------------------------------------------------- variables

bool BodyTyper::is_variable(const std::string &name) const {
  return param_types_.count(name) != 0 || assigned_names_.count(name) != 0;
}

std::optional<Type> BodyTyper::variable_type(const std::string &name) const {
  if (mode_ == Mode::Emit) {
    auto it = resolved_.find(name);
    if (it == resolved_.end()) return std::nullopt;
    return it->second;
  }
  auto it = candidates_.find(name);
  if (it == candidates_.end()) return std::nullopt;
  return it->second.resolve();
}

std::optional<Value> BodyTyper::weak_read(const std::string &name) const {
  if (mode_ != Mode::Infer || !weak_reads_) return std::nullopt;
  auto it = candidates_.find(name);
  if (it == candidates_.end()) return std::nullopt;
  const Candidates &c = it->second;
  if (c.strong || c.conflict || c.empty()) return std::nullopt;
  read_weak_value_ = true;
  // Only the kind matters for typing; the value stands in for range checks.
  if (c.weak_complex) return Value::weak_num(PyNum::of_complex({1.0, 0.0}));
  if (c.weak_float) return Value::weak_num(PyNum::of_float(1.0));
  // The value of larger magnitude (compared unsigned: -int_min may not fit).
  auto magnitude = [](Int128 x) {
    return x < 0 ? -static_cast<unsigned __int128>(x) : static_cast<unsigned __int128>(x);
  };
  Int128 v = magnitude(c.int_min) > magnitude(c.int_max) ? c.int_min : c.int_max;
  return Value::weak_num(PyNum::of_int(v));
}

Value BodyTyper::constant_local(const Value &v) const {
  const Var *var = v.ok && !v.is_weak() ? v.expr.as<Var>() : nullptr;
  auto it = var != nullptr && def_ != nullptr && is_variable(var->name) ? candidates_.find(var->name) : candidates_.end();
  if (it == candidates_.end()) return v;
  const Candidates &c = it->second;
  const bool one_int = !c.strong && !c.conflict && c.weak_int && !c.weak_float && !c.weak_complex &&
                       c.int_min == c.int_max;
  return one_int ? Value::weak_num(PyNum::of_int(c.int_min)) : v;
}

std::string BodyTyper::ir_var_name(const std::string &name) const { return name; }

std::string BodyTyper::new_temp(const Type &t) {
  std::string name = "$t" + std::to_string(temp_counter_++);
  temps_.push_back({name, t});
  return name;
}

Value BodyTyper::stabilize(const Value &v) {
  if (!v.ok || v.is_weak()) return v;
  if (v.literal_tuple) {
    std::vector<Value> els;
    for (const Value &e : v.elements) els.push_back(stabilize(e));
    return Value::tuple_literal(std::move(els));
  }
  if (v.type.is_void() || v.expr.as<Var>() != nullptr || v.expr.as<Const>() != nullptr) return v;
  // Inside an operand that is evaluated only sometimes, or outside a body,
  // duplicate instead: the IR is pure, and hoisting could evaluate (load)
  // something the source does not.
  if (conditional_depth_ > 0 || def_ == nullptr) return v;
  std::string name = new_temp(v.type);
  pre_.push_back(Assign::make(name, v.expr));
  return Value::strong(Var::make(v.type, name));
}

void BodyTyper::collect_assigned_target(const ast::Expr &target) {
  if (const ast::Name *n = target.as<ast::Name>()) {
    if (assigned_names_.insert(n->id).second) assigned_order_.push_back(n->id);
  } else if (const ast::Tuple *t = target.as<ast::Tuple>()) {
    for (const ast::ExprPtr &e : t->elts) collect_assigned_target(*e);
  }
}

void BodyTyper::collect_assigned(const ast::Body &body) {
  for (const ast::StmtPtr &s : body) {
    switch (s->kind) {
      case ast::StmtKind::Assign:
        for (const ast::ExprPtr &t : s->as<ast::Assign>()->targets) collect_assigned_target(*t);
        break;
      case ast::StmtKind::AugAssign:
        collect_assigned_target(*s->as<ast::AugAssign>()->target);
        break;
      case ast::StmtKind::For: {
        const ast::For *f = s->as<ast::For>();
        collect_assigned_target(*f->target);
        collect_assigned(f->body);
        collect_assigned(f->orelse);
        break;
      }
      case ast::StmtKind::If:
        collect_assigned(s->as<ast::If>()->body);
        collect_assigned(s->as<ast::If>()->orelse);
        break;
      case ast::StmtKind::While:
        collect_assigned(s->as<ast::While>()->body);
        collect_assigned(s->as<ast::While>()->orelse);
        break;
      default:
        break;
    }
  }
}

// ---------------------------------------------------------------- functions

Value BodyTyper::type_constant(const ast::Expr &e) {
  mode_ = Mode::Emit;
  def_ = nullptr;
  if (is_array_literal_call(e)) return constant_array(*e.as<ast::Call>());
  const Value raw = expr(e);
  if (!raw.ok) return raw;  // reported already
  for (const Value &element : raw.elements) {
    if (!element.ok) return Value::error();  // reported already
  }
  Value v = constant_value(raw);
  if (v.ok) return v;
  error(e.loc, "a module constant must be a constant number or a tuple of them (literals, earlier constants, math "
               "functions of them, or a dtype conversion like np.float32(...))");
  return Value::error();
}

Value BodyTyper::constant_value(const Value &v) {
  if (!v.ok || v.is_weak()) return v;
  if (v.literal_tuple) {
    // `SHAPE = (TPB, TPB)`: a tuple of constants, each kept as it is (weak ones stay weak).
    std::vector<Value> elements;
    for (const Value &element : v.elements) {
      elements.push_back(constant_value(element));
      if (!elements.back().ok) return Value::error();
    }
    return Value::tuple_literal(std::move(elements));
  }
  if (v.expr.as<Const>() != nullptr) return v;
  if (std::optional<Expr> folded = fold_strong_constant(v.expr)) return Value::strong(*folded);
  return Value::error();
}

bool BodyTyper::run_pass(Mode mode, const ast::FunctionDef &def) {
  mode_ = mode;
  changed_ = false;
  read_weak_value_ = false;
  flow_ = Flow();
  for (const std::string &p : param_names_) mark_assigned(p);
  break_flows_.clear();
  loop_depth_ = 0;
  conditional_depth_ = 0;
  pre_.clear();
  elif_levels_.clear();  // keeps its capacity for the next pass
  temps_.clear();
  temp_counter_ = 0;
  if (mode == Mode::Infer) {
    return_candidates_ = Candidates();
    saw_bare_return_ = false;
    saw_value_return_ = false;
  }
  body_ = block(def.body);
  if (mode == Mode::Infer) retype_stale_statements();
  return changed_;
}

std::optional<Function> BodyTyper::type_function(const ast::FunctionDef &def, const std::string &ir_name,
                                                 const std::vector<Type> &param_types, std::optional<Type> fixed_ret,
                                                 bool is_ufunc, const Bindings &bindings) {
  internal_assert(param_types.size() == def.params.size()) << "type_function: parameter count";
  int errors_before = real_diags_.error_count();
  bindings_ = bindings;
  start_function(def, param_types, fixed_ret, is_ufunc);
  infer_types(def);
  resolve_types();
  poisoned_ = false;
  run_pass(Mode::Emit, def);
  check_returns(def);
  if (real_diags_.error_count() != errors_before || poisoned_ || !ret_ || !body_) return std::nullopt;
  return build_function(ir_name);
}

void BodyTyper::start_function(const ast::FunctionDef &def, const std::vector<Type> &param_types,
                               std::optional<Type> fixed_ret, bool is_ufunc) {
  def_ = &def;
  is_ufunc_ = is_ufunc;
  if (module_ != nullptr && is_ufunc) module_->set_entry(def);
  boundscheck_ = module_ != nullptr && module_->boundscheck(def);
  fixed_ret_ = fixed_ret;
  param_names_.clear();
  param_types_.clear();
  for (std::size_t i = 0; i < def.params.size(); ++i) {
    if (bindings_.count(def.params[i].name) != 0) continue;
    param_names_.push_back(def.params[i].name);
    param_types_[def.params[i].name] = param_types[i];
  }
  assigned_names_.clear();
  assigned_order_.clear();
  collect_assigned(def.body);
  for (const auto &[name, binding] : bindings_) {
    if (assigned_names_.count(name) == 0) continue;
    const std::string what = binding.reference != nullptr ? "'" + ast::to_source(*binding.reference) + "'"
                                                          : std::string("a constant");
    error(def.loc, "parameter '" + name + "' of '" + def.name + "' is given " + what +
                       " by its caller, which cannot be assigned in its body; assign to another name");
  }
  candidates_.clear();
  variable_indices_.clear();
  worklist_.reset();
  for (const std::string &p : param_names_) candidates_[p].add(type_only(param_types_.at(p)));
}

void BodyTyper::infer_types(const ast::FunctionDef &def) {
  // Phase 1 reads weak-only locals as weak values; phase 2 reads every local
  // as its resolved type (as Emit will), so the final types are consistent
  // with the IR: a local left with only weak values is int64/float64/complex128.
  int passes = 0;
  for (bool weak_reads : {true, false}) {
    // The second phase differs from the first only where a local is read as
    // a weak value: when the first phase's last pass (which changed nothing)
    // read none, a second-phase pass would repeat it exactly and change
    // nothing either. Skipping it saves a quarter of typing a function.
    if (!weak_reads && !read_weak_value_) {
      break;
    }
    weak_reads_ = weak_reads;
    if (!weak_reads) worklist_.forget_weak_readers();
    while (run_pass(Mode::Infer, def)) {
      ++passes;
      // A pass that changes something widens the type of a local, or of one
      // element of a tuple local, along a lattice of a few steps: a loop
      // that shifts a tuple of 100 elements by one place a pass widens one
      // element per pass.
      int64_t slots = static_cast<int64_t>(assigned_names_.size());
      for (const auto &[name, c] : candidates_) {
        if (c.strong) slots += scalar_slots(*c.strong, int64_t{1} << 24) - 1;
      }
      internal_assert(passes < kMaxInferPasses + 16 * slots)
          << "type inference of '" << def.name << "' does not converge";
    }
  }
  weak_reads_ = false;
}

void BodyTyper::resolve_types() {
  resolved_.clear();
  for (const auto &[name, c] : candidates_) {
    std::optional<Type> t = c.resolve();
    if (t) resolved_[name] = *t;
  }
  return_union_ = return_candidates_.resolve();
  if (fixed_ret_) {
    ret_ = fixed_ret_;
  } else if (saw_value_return_) {
    ret_ = return_union_;
  } else {
    ret_ = Type::void_type();
  }
}

void BodyTyper::check_returns(const ast::FunctionDef &def) {
  const SourceLocation &loc = def.name_loc.valid() ? def.name_loc : def.loc;
  if (saw_bare_return_ && saw_value_return_ && !is_ufunc_) {
    error(loc, "function '" + def.name + "' mixes 'return' with and without a value");
  }
  if (saw_value_return_ && !return_union_ && return_candidates_.conflict) {
    error(loc, "function '" + def.name + "' returns incompatible types: " + return_candidates_.conflict_message);
  }
  if (ret_ && !ret_->is_void() && flow_.reachable) {
    error(loc, "missing return: function '" + def.name + "' can reach its end without returning a value");
  }
}

Function BodyTyper::build_function(const std::string &ir_name) {
  Function f;
  f.name = ir_name;
  f.ret = *ret_;
  std::vector<Stmt> prelude;
  for (const std::string &p : param_names_) {
    const Type &declared = param_types_.at(p);
    auto it = resolved_.find(p);
    internal_assert(it != resolved_.end()) << "parameter '" << p << "' has no type";
    if (it->second == declared) {
      f.params.push_back({p, declared});
      continue;
    }
    // The body assigns the parameter values of another type: the parameter
    // arrives under another name and is converted into a local.
    std::string arg_name = "$arg_" + p;
    f.params.push_back({arg_name, declared});
    f.locals.push_back({p, it->second});
    prelude.push_back(Assign::make(p, convert(Value::strong(Var::make(declared, arg_name)), it->second.dtype()).expr));
  }
  for (const std::string &name : assigned_order_) {
    if (param_types_.count(name) != 0) continue;
    auto it = resolved_.find(name);
    if (it == resolved_.end()) continue;  // never assigned a value (only in unreachable code)
    f.locals.push_back({name, it->second});
  }
  for (const Variable &t : temps_) f.locals.push_back(t);
  if (prelude.empty()) {
    f.body = body_;
  } else {
    prelude.push_back(body_);
    f.body = Block::make(std::move(prelude));
  }
  return f;
}

// --------------------------------------------------------------- statements

void BodyTyper::flush_pre(std::vector<Stmt> &out) {
  for (Stmt &s : pre_) out.push_back(std::move(s));
  pre_.clear();
}

Stmt BodyTyper::block(const ast::Body &body) {
  std::vector<Stmt> out;
  for (const ast::StmtPtr &s : body) {
    if (!flow_.reachable) {
      // Unreachable code is typed (to report its errors) but not emitted.
      std::vector<Stmt> dropped;
      stmt(*s, dropped);
      continue;
    }
    stmt(*s, out);
  }
  return Block::make(std::move(out));
}

void BodyTyper::stmt(const ast::Stmt &s, std::vector<Stmt> &out) {
  const std::size_t first = out.size();
  stmt_unlocated(s, out);
  if (module_ == nullptr || !module_->checked()) return;
  // The statement's array accesses take its line; those of statements
  // nested in it were given theirs when typed.
  for (std::size_t k = first; k < out.size(); ++k) out[k] = with_access_lines(out[k], s.loc.line);
}

void BodyTyper::stmt_unlocated(const ast::Stmt &s, std::vector<Stmt> &out) {
  pre_.clear();
  if (mode_ != Mode::Infer || !InferWorklist::tracks(s)) {
    stmt_of_kind(s, out);
    return;
  }
  if (std::optional<bool> read_weak = worklist_.current(s)) {
    read_weak_value_ = read_weak_value_ || *read_weak;
    return;
  }
  worklist_.begin(s);
  stmt_of_kind(s, out);
  worklist_.end();
}

void BodyTyper::retype_stale_statements() {
  while (const ast::Stmt *s = worklist_.pop_stale()) {
    std::vector<Stmt> dropped;
    stmt(*s, dropped);
  }
  pre_.clear();
}

void BodyTyper::stmt_of_kind(const ast::Stmt &s, std::vector<Stmt> &out) {
  switch (s.kind) {
    case ast::StmtKind::ExprStmt: {
      const ast::Expr &e = *s.as<ast::ExprStmt>()->value;
      if (e.isa<ast::StrLit>()) return;  // a string statement is a comment
      if (print_stmt(e, out)) return;
      Value v = expr(e);
      flush_pre(out);
      // A call, an atomic or a barrier is kept for what it does; other values are dropped.
      if (v.ok && v.expr && (v.expr.as<Call>() != nullptr || has_effect(v.expr))) out.push_back(Evaluate::make(v.expr));
      return;
    }
    case ast::StmtKind::Assign:
      assign_stmt(*s.as<ast::Assign>(), out);
      return;
    case ast::StmtKind::AugAssign:
      aug_assign_stmt(*s.as<ast::AugAssign>(), out);
      return;
    case ast::StmtKind::If:
      if_stmt(*s.as<ast::If>(), out);
      return;
    case ast::StmtKind::While:
    case ast::StmtKind::For:
      loop_stmt(s, out);
      return;
    case ast::StmtKind::Break:
    case ast::StmtKind::Continue: {
      bool is_break = s.kind == ast::StmtKind::Break;
      if (loop_depth_ == 0) {
        error(s.loc, std::string("'") + (is_break ? "break" : "continue") + "' outside a loop");
        return;
      }
      if (is_break) {
        Flow &f = break_flows_.back();
        f = join(f, flow_);
        auto flag = else_flags_.find(loop_depth_);
        if (flag != else_flags_.end()) out.push_back(Assign::make(flag->second, Const::make_bool(true)));
        out.push_back(Break::make());
      } else {
        out.push_back(Continue::make());
      }
      flow_.reachable = false;
      return;
    }
    case ast::StmtKind::Return:
      return_stmt(*s.as<ast::Return>(), out);
      return;
    case ast::StmtKind::Pass:
      return;
    case ast::StmtKind::Raise:
      raise_stmt(*s.as<ast::Raise>(), out);
      return;
    case ast::StmtKind::FunctionDef:
      error(s.loc, "nested function definitions are not supported");
      return;
    case ast::StmtKind::Import:
    case ast::StmtKind::ImportFrom:
      error(s.loc, "imports inside a function are not supported; import at module level");
      return;
  }
}

void BodyTyper::add_candidate(const std::string &name, const Value &v) {
  if (!candidates_[name].add(v)) return;
  changed_ = true;
  worklist_.note_change(name);
}

void BodyTyper::assign_name(const std::string &name, const Value &v, const SourceLocation &loc,
                            std::vector<Stmt> &out) {
  mark_assigned(name);
  if (!v.ok) return;
  if (v.type.is_void() && !v.literal_tuple) {
    error(loc, "a call that returns no value is assigned to '" + name + "'");
    return;
  }
  auto param = param_types_.find(name);
  if (param != param_types_.end() && param->second.is_array()) {
    error(loc, "cannot assign to array '" + name + "'; assign to its elements ('" + name + "[i] = ...')");
    return;
  }
  if (v.type.is_tuple()) {
    for (const Type &e : v.type.elements()) {
      if (e.is_array()) {
        error(loc, "a tuple holding an array ('" + e.str() + "') cannot be assigned to '" + name +
                       "'; assign the array to its own variable");
        return;
      }
    }
  }
  if (v.type.is_array() && !v.literal_tuple) note_array_local(name, v.expr);
  if (mode_ == Mode::Infer) {
    add_candidate(name, v.literal_tuple ? type_only(v.type) : v);
    return;
  }
  auto it = resolved_.find(name);
  if (it == resolved_.end()) {
    auto c = candidates_.find(name);
    std::string why = c != candidates_.end() && c->second.conflict ? c->second.conflict_message : "unknown type";
    error(loc, "variable '" + name + "' is assigned values of incompatible types: " + why);
    return;
  }
  if (it->second.is_array() || v.type.is_array()) {
    // A view: the same array type every time (no conversion between arrays).
    if (it->second != v.type) {
      error(loc, "variable '" + name + "' is assigned values of incompatible types: an array of type '" +
                     (v.type.is_array() ? v.type : it->second).str() + "' and other values");
      return;
    }
    out.push_back(Assign::make(ir_var_name(name), v.expr));
    return;
  }
  Value converted = convert_to(v, it->second, loc, "in the assignment to '" + name + "'");
  if (!converted.ok) return;
  out.push_back(Assign::make(name, converted.expr));
}

void BodyTyper::assign_to(const ast::Expr &target, const Value &v, const SourceLocation &loc,
                          std::vector<Stmt> &out) {
  if (const ast::Name *n = target.as<ast::Name>()) {
    assign_name(n->id, v, n->loc, out);
    return;
  }
  if (const ast::Tuple *t = target.as<ast::Tuple>()) {
    std::size_t n = t->elts.size();
    if (!v.ok) {
      for (const ast::ExprPtr &e : t->elts) assign_to(*e, v, loc, out);
      return;
    }
    if (!v.literal_tuple && !v.type.is_tuple()) {
      error(target.loc, "cannot unpack a value of type '" + v.type.str() + "' into " + std::to_string(n) + " variables");
      for (const ast::ExprPtr &e : t->elts) assign_to(*e, Value::error(), loc, out);
      return;
    }
    std::size_t m = v.type.elements().size();
    if (m != n) {
      error(target.loc, "cannot unpack a tuple of " + std::to_string(m) + " values into " + std::to_string(n) +
                            " variables");
      for (const ast::ExprPtr &e : t->elts) assign_to(*e, Value::error(), loc, out);
      return;
    }
    // Evaluate the whole right side before assigning any target (`a, b = b, a`).
    Value whole = stabilize(v);
    if (whole.literal_tuple) {
      std::set<std::string> targets;
      collect_target_names(target, targets);
      for (Value &e : whole.elements) {
        if (e.ok && !e.is_weak() && e.expr && reads_any(e.expr, targets)) {
          std::string name = new_temp(e.type);
          pre_.push_back(Assign::make(name, e.expr));
          e = Value::strong(Var::make(e.type, name));
        }
      }
    }
    for (std::size_t i = 0; i < n; ++i) {
      Value e = whole.literal_tuple ? whole.elements[i]
                                    : Value::strong(TupleGet::make(whole.expr, static_cast<int>(i)));
      assign_to(*t->elts[i], e, loc, out);
    }
    return;
  }
  if (const ast::Subscript *sub = target.as<ast::Subscript>()) {
    array_store(*sub, v, out);
    return;
  }
  if (const ast::Attribute *field = target.as<ast::Attribute>()) {
    attribute_store(*field, v, out);
    return;
  }
  error(target.loc, "cannot assign to '" + ast::to_source(target) + "'");
}

void BodyTyper::assign_stmt(const ast::Assign &s, std::vector<Stmt> &out) {
  Value v = expr(*s.value);
  if (s.targets.size() > 1) v = stabilize(v);
  std::vector<Stmt> assigns;
  for (const ast::ExprPtr &t : s.targets) assign_to(*t, v, s.loc, assigns);
  flush_pre(out);
  for (Stmt &a : assigns) out.push_back(std::move(a));
}

void BodyTyper::aug_assign_stmt(const ast::AugAssign &s, std::vector<Stmt> &out) {
  const ast::Name *n = s.target->as<ast::Name>();
  if (n == nullptr) {
    if (const ast::Subscript *sub = s.target->as<ast::Subscript>()) {
      array_aug_assign(s, *sub, out);
    } else if (const ast::Attribute *field = s.target->as<ast::Attribute>()) {
      attribute_aug_assign(s, *field, out);
    } else {
      error(s.target->loc, "illegal target for augmented assignment: '" + ast::to_source(*s.target) + "'");
    }
    return;
  }
  Value current = name_expr(*n);
  Value rhs = expr(*s.value);
  Value v = binary(s.op, current, rhs, s.op_loc.valid() ? s.op_loc : s.loc);
  std::vector<Stmt> assigns;
  assign_name(n->id, v, n->loc, assigns);
  flush_pre(out);
  for (Stmt &a : assigns) out.push_back(std::move(a));
}

void BodyTyper::if_stmt(const ast::If &first, std::vector<Stmt> &out) {
  // An elif chain (an orelse that is one If) is typed in a loop, its Ifs
  // built from the innermost out: recursing per elif, 100,000 branches went
  // 100,000 calls deep, and the frontend took 15x as long for 10x the
  // branches. Each level is typed exactly as the If it stands for would be.
  // The levels live on elif_levels_ from `base` up (a branch's body may
  // type chains of its own above them), so they are held by index.
  const std::size_t base = elif_levels_.size();
  const ast::If *s = &first;
  bool else_pruned = false;
  for (;;) {
    const std::size_t k = elif_levels_.size();
    elif_levels_.emplace_back();
    elif_levels_[k].reachable = flow_.reachable;
    Value cond = truth(expr(*s->test), s->test->loc);
    flush_pre(elif_levels_[k].stmts);
    // A constant condition (`if True:`, `if DEBUG:`, `elif not FLAG:`) takes
    // one branch: the other is typed as unreachable code (its errors are
    // reported, its statements are not emitted) and no If is emitted, so that
    // the verifier and the lowering see exactly the paths the typer saw.
    const Const *constant = cond.ok ? cond.expr.as<Const>() : nullptr;
    const bool then_dead = constant != nullptr && constant->int_bits == 0;
    const bool else_dead = constant != nullptr && constant->int_bits != 0;
    // Numba prunes a branch that a literal argument makes dead before typing
    // (`if neg_idx:` in a helper given False): it is not typed at all.
    const bool pruned = constant != nullptr && mentions_constant_binding(*s->test);
    const Flow entry = flow_;
    if (then_dead) flow_.reachable = false;
    Stmt then_body = then_dead && pruned ? Block::make({}) : block(s->body);
    ElifLevel &level = elif_levels_[k];
    level.cond = cond.ok ? cond.expr : Expr();
    level.constant = constant;
    level.then_dead = then_dead;
    level.else_dead = else_dead;
    level.then_body = std::move(then_body);
    level.after_then = std::move(flow_);
    flow_ = entry;
    if (else_dead) flow_.reachable = false;
    if (else_dead && pruned) {
      else_pruned = true;
      break;
    }
    if (s->orelse.size() != 1 || s->orelse.front()->kind != ast::StmtKind::If) {
      break;
    }
    pre_.clear();  // as stmt() does before the elif
    s = s->orelse.front()->as<ast::If>();
  }
  Stmt else_body = s->orelse.empty() || else_pruned ? Stmt() : block(s->orelse);
  for (std::size_t k = elif_levels_.size(); k-- > base;) {
    ElifLevel &level = elif_levels_[k];
    const Flow after_else = flow_;
    if (level.constant != nullptr) {
      flow_ = level.else_dead ? level.after_then : after_else;
      Stmt taken = level.else_dead ? level.then_body : else_body;
      if (taken) level.stmts.push_back(taken);
    } else {
      flow_ = join(level.after_then, after_else);
      if (level.cond) level.stmts.push_back(If::make(level.cond, level.then_body, else_body));
    }
    if (k == base) {
      for (Stmt &stmt : level.stmts) out.push_back(std::move(stmt));
    } else {
      // The parent's orelse block: dropped when typed as unreachable code.
      else_body = Block::make(level.reachable ? std::move(level.stmts) : std::vector<Stmt>{});
    }
    elif_levels_.pop_back();
  }
}

void BodyTyper::return_stmt(const ast::Return &s, std::vector<Stmt> &out) {
  if (!s.value) {
    if (is_ufunc_ && !is_gufunc_) {
      error(s.loc, "a ufunc must return a value ('return' without a value)");
    } else {
      saw_bare_return_ = true;
    }
    if (mode_ == Mode::Emit && ret_ && ret_->is_void() && !(is_ufunc_ && !is_gufunc_)) {
      out.push_back(Return::make(Expr()));
    }
    flow_.reachable = false;
    return;
  }
  if (is_gufunc_) {
    error(s.value->loc, is_kernel_ ? "a kernel returns no value: it writes its results to its arrays (use "
                                     "@cuda.jit(device=True) for a function that returns one)"
                                   : "a generalized ufunc returns no value: it writes its results to its output arrays");
    flow_.reachable = false;
    return;
  }
  Value v = expr(*s.value);
  flush_pre(out);
  flow_.reachable = false;
  if (mode_ == Mode::Infer) saw_value_return_ = true;  // even if it failed: not a void function
  if (!v.ok) return;
  if (v.type.is_void() && !v.literal_tuple) {
    error(s.value->loc, "a call that returns no value is returned");
    return;
  }
  if (mode_ == Mode::Infer) {
    saw_value_return_ = true;
    return_candidates_.add(v.literal_tuple ? type_only(v.type) : v);
    return;
  }
  if (!ret_ || ret_->is_void() || !return_union_) return;  // reported in type_function
  if (fixed_ret_) {
    if (!return_union_->is_scalar() || v.literal_tuple || !v.type.is_scalar()) {
      error(s.value->loc, "a ufunc must return a scalar, not '" + v.type.str() + "'");
      return;
    }
    Value u = convert(v, return_union_->dtype());
    Value r = convert(u, fixed_ret_->dtype());
    if (r.ok) out.push_back(Return::make(r.expr));
    return;
  }
  Value r = convert_to(v, *ret_, s.value->loc, "in a return");
  if (r.ok) out.push_back(Return::make(r.expr));
}

/// `raise Name`, `raise Name()` or `raise Name("message")`: the exception
/// is named, not evaluated (a kernel has no exception objects), so its class
/// is any identifier and its message a string literal.
void BodyTyper::raise_stmt(const ast::Raise &s, std::vector<Stmt> &out) {
  flow_.reachable = false;
  if (!s.exc) {
    error(s.loc, "a bare 'raise' (re-raise) is not supported in a kernel; raise an exception such as "
                 "ValueError(\"message\")");
    return;
  }
  const ast::Expr *cls = s.exc.get();
  std::string message;
  if (const auto *call = s.exc->as<ast::Call>()) {
    cls = call->func.get();
    if (!call->keywords.empty() || !call->starred.empty() || call->args.size() > 1) {
      error(call->loc, "a raise in a kernel takes at most one argument, a string literal message");
      return;
    }
    if (call->args.size() == 1) {
      const auto *lit = call->args[0]->as<ast::StrLit>();
      if (lit == nullptr) {
        error(call->args[0]->loc, "the message of a raise in a kernel must be a string literal");
        return;
      }
      message = lit->value;
    }
  }
  const auto *name = cls->as<ast::Name>();
  if (name == nullptr) {
    error(cls->loc, "a raise in a kernel names an exception class: raise ValueError(\"message\")");
    return;
  }
  if (mode_ != Mode::Emit) return;
  const std::string file = s.loc.file != nullptr ? s.loc.file->name() : std::string("<source>");
  out.push_back(Raise::make(name->id, message, file, s.loc.line, s.loc.col));
}

}  // namespace ufjit::ir::typer
