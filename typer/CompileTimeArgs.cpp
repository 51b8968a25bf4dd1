// Compile-time arguments of helpers. Numba passes a function, a dtype or a
// literal to a device function as a type of its own (a dispatcher type, a
// NumberClass, Literal[int]) and specialises the callee on it; kernels in
// its own test suites write `binop(ary, idx, val)` with `binop` a parameter
// bound to `cuda.atomic.add`, and `cuda.shared.array(n, dtype)` with `n`
// and `dtype` parameters. Here such a parameter is bound when the helper is
// specialised (Binding): its name reads as what the caller wrote. The IR
// function does not take it.
#include <string>
#include <vector>

#include "frontend/Program.h"
#include "ir/IRPrinter.h"
#include "typer/Builtins.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

std::string constant_text(const Value &v) {
  if (v.literal_tuple) {
    std::string s = "(";
    for (const Value &e : v.elements) s += constant_text(e) + ",";
    return s + ")";
  }
  if (v.is_weak()) return std::string(v.weak == Weak::Int ? "i" : v.weak == Weak::Float ? "f" : "c") + v.num.str();
  return v.type.str() + " " + print(v.expr);
}

const Binding *BodyTyper::binding_of(const std::string &name) const {
  auto it = bindings_.find(name);
  return it == bindings_.end() ? nullptr : &it->second;
}

bool BodyTyper::mentions_constant_binding(const ast::Expr &e) const {
  if (const ast::Name *n = e.as<ast::Name>()) {
    const Binding *b = binding_of(n->id);
    return b != nullptr && b->constant.has_value();
  }
  if (const ast::UnaryOp *u = e.as<ast::UnaryOp>()) return mentions_constant_binding(*u->operand);
  if (const ast::BinOp *b = e.as<ast::BinOp>()) {
    return mentions_constant_binding(*b->left) || mentions_constant_binding(*b->right);
  }
  if (const ast::Subscript *s = e.as<ast::Subscript>()) return mentions_constant_binding(*s->value);
  if (const ast::BoolOp *b = e.as<ast::BoolOp>()) {
    for (const ast::ExprPtr &v : b->values) {
      if (mentions_constant_binding(*v)) return true;
    }
    return false;
  }
  if (const ast::Compare *c = e.as<ast::Compare>()) {
    if (mentions_constant_binding(*c->left)) return true;
    for (const ast::ExprPtr &v : c->comparators) {
      if (mentions_constant_binding(*v)) return true;
    }
  }
  return false;
}

const ast::Expr *BodyTyper::callable_reference(const ast::Expr &e) {
  if (const ast::Name *n = e.as<ast::Name>()) {
    if (const Binding *b = binding_of(n->id)) return b->reference;
    if (def_ != nullptr && is_variable(n->id)) return nullptr;
    if (scope_.constants.count(n->id) != 0) return nullptr;
    bool known = scope_.functions.count(n->id) != 0 || scope_.imports.count(n->id) != 0 ||
                 is_builtin_name(n->id) || dtype_from_name(n->id).has_value();
    for (const frontend::DeviceDecl &d : scope_.program->device_decls) known = known || d.name == n->id;
    if (!known) return nullptr;
  } else if (const ast::Attribute *a = e.as<ast::Attribute>()) {
    if (!module_of(*a->value)) return nullptr;
  } else {
    return nullptr;
  }
  // A name of the right kind that is not a value (math.pi and cuda.warpsize
  // are values; math.sin and cuda.atomic.add are not).
  const bool was_probing = probing_;
  const bool was_poisoned = poisoned_;
  probing_ = true;
  const Value v = expr(e);
  probing_ = was_probing;
  poisoned_ = was_poisoned;
  return v.ok ? nullptr : &e;
}

Value BodyTyper::typed_constant(const Value &v) {
  if (!v.ok || !v.literal_tuple) return v.is_weak() ? materialize(v) : v;
  std::vector<Value> elements;
  for (const Value &e : v.elements) elements.push_back(typed_constant(e));
  return Value::tuple_literal(std::move(elements));
}

Value BodyTyper::helper_call(const ast::FunctionDef &def, const ast::Call &call) {
  if (call.args.size() != def.params.size()) {
    return call_function(def, call_arguments(call), call);  // reports the count
  }
  Bindings references;
  std::vector<Value> args;
  for (std::size_t i = 0; i < call.args.size(); ++i) {
    if (const ast::Expr *ref = callable_reference(*call.args[i])) {
      references[def.params[i].name].reference = ref;
      args.push_back(Value());  // bound: never evaluated or passed
    } else {
      args.push_back(expr(*call.args[i]));
    }
  }
  Bindings with_constants = references;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (references.count(def.params[i].name) != 0 || !args[i].ok) continue;
    Value c = typed_constant(constant_value(args[i]));
    if (c.ok) with_constants[def.params[i].name].constant = c;
  }
  if (with_constants.size() == references.size()) return call_function(def, std::move(args), call, references);
  // Numba's literal retry: as run-time values first; if the helper does not
  // type so (a shared array's shape from a parameter), with the constants
  // bound. Both tries are muted; the one that types (else the first, whose
  // errors are the user's) is then made in this body's mode.
  auto muted_try = [&](const Bindings &bindings) {
    const Mode mode = mode_;
    const bool was_poisoned = poisoned_;
    mode_ = Mode::Infer;
    Value v = call_function(def, args, call, bindings);
    mode_ = mode;
    poisoned_ = was_poisoned;
    return v.ok;
  };
  if (!muted_try(references) && muted_try(with_constants)) {
    return call_function(def, std::move(args), call, with_constants);
  }
  return call_function(def, std::move(args), call, references);
}

}  // namespace ufjit::ir::typer
