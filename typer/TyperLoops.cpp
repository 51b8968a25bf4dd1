// Typing of loops: `while`, `for` over range(), loops with an `else:`
// block, and the flow of breaks out of them (LANGUAGE.md section 4). `for`
// over arrays and tuples is in TyperArrays.cpp.
#include "support/InternalAssert.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

void BodyTyper::while_stmt(const ast::While &s, std::vector<Stmt> &out) {
  Value cond = truth(expr(*s.test), s.test->loc);
  std::vector<Stmt> cond_pre;
  flush_pre(cond_pre);
  Flow entry = flow_;
  const Const *k = cond.ok ? cond.expr.as<Const>() : nullptr;
  bool forever = k != nullptr && k->int_bits != 0;
  bool never = k != nullptr && k->int_bits == 0;  // `while False:`: the body is dead
  ++loop_depth_;
  Flow unreachable;
  unreachable.reachable = false;
  break_flows_.push_back(unreachable);
  if (never) flow_.reachable = false;
  Stmt body = block(s.body);
  Flow breaks = break_flows_.back();
  last_breaks_ = breaks;
  break_flows_.pop_back();
  --loop_depth_;
  flow_ = forever ? breaks : join(entry, breaks);
  if (!cond.ok || never) return;
  if (cond_pre.empty()) {
    out.push_back(While::make(cond.expr, body));
    return;
  }
  // The condition needs temps: `while True: temps; if not cond: break; body`.
  std::vector<Stmt> stmts = std::move(cond_pre);
  stmts.push_back(If::make(Unary::make(UnaryOpcode::Not, cond.expr), Break::make()));
  stmts.push_back(body);
  out.push_back(While::make(Const::make_bool(true), Block::make(std::move(stmts))));
}

void BodyTyper::loop_stmt(const ast::Stmt &loop, std::vector<Stmt> &out) {
  const auto *w = loop.as<ast::While>();
  const ast::Body &orelse = w != nullptr ? w->orelse : loop.as<ast::For>()->orelse;
  auto loop_alone = [&] {
    if (w != nullptr) {
      while_stmt(*w, out);
    } else {
      for_stmt(*loop.as<ast::For>(), out);
    }
  };
  if (orelse.empty()) {
    loop_alone();
    return;
  }
  // `for/while ...: body else: rest`: a flag set by this loop's breaks, then
  // `if not flag: rest`. After the statement a variable is assigned when the
  // else path (entered as the loop is) and every break assigned it.
  const std::string flag = new_temp(Type::scalar(DType::Bool));
  flush_pre(out);
  out.push_back(Assign::make(flag, Const::make_bool(false)));
  Flow entry = flow_;
  else_flags_[loop_depth_ + 1] = flag;
  loop_alone();
  else_flags_.erase(loop_depth_ + 1);
  Flow breaks = last_breaks_;
  flow_ = entry;
  Stmt rest = block(orelse);
  flow_ = join(flow_, breaks);
  if (!breaks.reachable) {
    // No break leaves the loop, so the else block always runs after it. As
    // an If, the flag's other arm would be a path the typer knows is not
    // there: one that falls off the end when the else block returns.
    if (rest) out.push_back(rest);
    return;
  }
  out.push_back(If::make(Unary::make(UnaryOpcode::Not, Var::make(Type::scalar(DType::Bool), flag)), rest));
}

BodyTyper::Flow BodyTyper::enter_for_loop() {
  Flow entry = flow_;
  ++loop_depth_;
  Flow unreachable;
  unreachable.reachable = false;
  break_flows_.push_back(unreachable);
  return entry;
}

void BodyTyper::leave_for_loop(const Flow &entry) {
  last_breaks_ = break_flows_.back();
  break_flows_.pop_back();
  --loop_depth_;
  flow_ = entry;  // the body may run zero times
}

std::optional<Type> BodyTyper::range_type(const ast::Call &call, const ast::Name &fn, std::vector<Value> &args) {
  bool ok = true;
  Candidates c;
  for (const ast::ExprPtr &a : call.args) {
    Value v = expr(*a);
    if (v.ok) {
      bool integer =
          v.is_weak() ? v.weak == Weak::Int : (!v.literal_tuple && (v.type.is_int() || v.type.is_bool()));
      if (!integer) {
        error(a->loc,
              "range() arguments must be integers, not '" +
                  (v.is_weak() ? std::string(v.weak == Weak::Float ? "float" : "complex") : v.type.str()) +
                  "'");
        v = Value::error();
      }
    }
    ok = ok && v.ok;
    if (v.ok) c.add(v);
    args.push_back(v);
  }
  std::optional<Type> loop_type;
  if (ok) {
    loop_type = c.resolve();
    if (loop_type && !loop_type->is_int() && !loop_type->is_bool()) {
      error(fn.loc,
            "range() arguments have no common integer type (they unify to '" + loop_type->str() + "')");
      loop_type.reset();
    }
    // Numba's range types: the loop variable is at least an int32 (int8,
    // int16, uint8, uint16 and bool arguments; uint32 gives int64, uint64
    // stays), so that `i * 100` in `for i in range(n)` with an int8 n does
    // not wrap at 127 (Python's range yields Python ints).
    if (loop_type && loop_type->dtype() != DType::UInt64) {
      loop_type = Type::scalar(promote(loop_type->dtype(), DType::Int32));
    }
  }
  if (args.size() == 3 && args[2].ok && args[2].is_weak() && args[2].num.i == 0) {
    error(call.args[2]->loc, "range() step must not be zero");
    loop_type.reset();
  }
  return loop_type;
}

bool BodyTyper::names_builtin(const std::string &id) const {
  return !is_variable(id) && scope_.constants.count(id) == 0 && scope_.functions.count(id) == 0 &&
         binding_of(id) == nullptr;
}

void BodyTyper::for_stmt(const ast::For &s, std::vector<Stmt> &out) {
  const ast::Name *target = s.target->as<ast::Name>();
  const ast::Call *call = s.iter->as<ast::Call>();
  const ast::Name *fn = call != nullptr ? call->func->as<ast::Name>() : nullptr;
  bool is_range = fn != nullptr && fn->id == "range" && names_builtin("range");
  const bool iterator = fn != nullptr && (fn->id == "enumerate" || fn->id == "zip") && names_builtin(fn->id);
  if (iterator) {
    for_iterable(s, out);
    return;
  }
  if (!is_range) {
    if (!for_array(s, out))
      error(s.iter->loc, "a 'for' loop can only iterate over range(...), an array or a tuple");
    return;
  }
  if (target == nullptr) {
    error(s.target->loc, "the target of a 'for' loop must be a single name");
    return;
  }
  if (!call->keywords.empty() || call->args.empty() || call->args.size() > 3) {
    error(fn->loc,
          "range() takes 1 to 3 integer arguments (" + std::to_string(call->args.size()) + " given)");
    return;
  }
  std::vector<Value> args;
  std::optional<Type> loop_type = range_type(*call, *fn, args);
  std::vector<Value> bounds;
  if (loop_type) {
    DType d = loop_type->dtype();
    Value start = args.size() >= 2 ? args[0] : Value::weak_num(PyNum::of_int(0));
    Value stop = args.size() >= 2 ? args[1] : args[0];
    Value step = args.size() == 3 ? args[2] : Value::weak_num(PyNum::of_int(1));
    bounds = {convert(start, d), convert(stop, d), convert(step, d)};
  }
  flush_pre(out);

  // The loop variable: the name itself when its type is the range's type,
  // else a hidden induction variable converted into the name each iteration.
  const std::string &var = target->id;
  std::string induction = var;
  std::vector<Stmt> body_stmts;
  Flow entry = enter_for_loop();
  if (loop_type && mode_ == Mode::Infer) {
    add_candidate(var, type_only(*loop_type));
  } else if (loop_type) {
    std::optional<Type> var_type = variable_type(var);
    if (var_type && *var_type != *loop_type) {
      induction = new_temp(*loop_type);
      assign_name(var, Value::strong(Var::make(*loop_type, induction)), target->loc, body_stmts);
    }
  }
  mark_assigned(var);
  Stmt inner = block(s.body);
  leave_for_loop(entry);
  if (!loop_type) return;
  body_stmts.push_back(inner);
  out.push_back(ForRange::make(induction, bounds[0].expr, bounds[1].expr, bounds[2].expr,
                               Block::make(std::move(body_stmts))));
}

}  // namespace ufjit::ir::typer
