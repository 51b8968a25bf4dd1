// Constant arrays: a module constant `NAME = np.array([...], dtype=...)`
// (the Python package writes a module-level NumPy array so) is an array of
// read-only data, an ir::ArrayAlloc of MemorySpace::Constant: the GPU's
// constant memory, the CPU's read-only data. `cuda.const.array_like(NAME)`
// is that array, as Numba's copies a module array into constant memory.
#include <cstring>
#include <string>
#include <vector>

#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

/// The bytes of constant `c` of dtype `t`, as the target stores it (little-endian).
void append_bytes(const Const &c, DType t, std::string &out) {
  const std::size_t size = dtype_size(t);
  char bytes[16] = {};
  if (is_complex(t)) {
    if (t == DType::Complex64) {
      const float parts[2] = {static_cast<float>(c.complex_value.real()), static_cast<float>(c.complex_value.imag())};
      std::memcpy(bytes, parts, sizeof parts);
    } else {
      const double parts[2] = {c.complex_value.real(), c.complex_value.imag()};
      std::memcpy(bytes, parts, sizeof parts);
    }
  } else if (t == DType::Float32) {
    const float f = static_cast<float>(c.float_value);
    std::memcpy(bytes, &f, sizeof f);
  } else if (t == DType::Float64) {
    std::memcpy(bytes, &c.float_value, sizeof c.float_value);
  } else {
    std::memcpy(bytes, &c.int_bits, size);  // integers and bool: the low bytes (x86-64 and NVPTX are little-endian)
  }
  out.append(bytes, size);
}

}  // namespace

bool BodyTyper::is_array_literal_call(const ast::Expr &e) const {
  const ast::Call *call = e.as<ast::Call>();
  const ast::Attribute *callee = call != nullptr ? call->func->as<ast::Attribute>() : nullptr;
  if (callee == nullptr || callee->attr != "array") return false;
  std::optional<std::string> mod = module_of(*callee->value);
  return mod && *mod == "numpy";
}

namespace {

/// The elements of a list or tuple display, or nullptr for anything else.
const std::vector<ast::ExprPtr> *display_items(const ast::Expr &e) {
  if (const ast::List *l = e.as<ast::List>()) return &l->elts;
  if (const ast::Tuple *t = e.as<ast::Tuple>()) return &t->elts;
  return nullptr;
}

}  // namespace

bool BodyTyper::array_literal_elements(const ast::Expr &e, std::size_t depth, const std::vector<int64_t> &shape,
                                       std::vector<Value> &elements) {
  const std::vector<ast::ExprPtr> *items = display_items(e);
  if (depth == shape.size()) {
    Value v = items == nullptr ? constant_value(expr(e)) : Value::error();
    if (!v.ok || v.literal_tuple || (!v.is_weak() && !v.type.is_scalar())) {
      error(e.loc, items != nullptr ? "np.array(): the nested lists are not of one shape"
                                    : "np.array(): an element of a constant array must be a constant number");
      return false;
    }
    elements.push_back(v);
    return true;
  }
  if (items == nullptr || static_cast<int64_t>(items->size()) != shape[depth]) {
    error(e.loc, "np.array(): the nested lists are not of one shape");
    return false;
  }
  for (const ast::ExprPtr &item : *items) {
    if (!array_literal_elements(*item, depth + 1, shape, elements)) return false;
  }
  return true;
}

Value BodyTyper::constant_array(const ast::Call &call) {
  const ast::Expr *dtype_expr = call.args.size() > 1 ? call.args[1].get() : nullptr;
  for (const ast::Keyword &kw : call.keywords) {
    if (kw.name != "dtype" || dtype_expr != nullptr) {
      error(kw.loc, "a constant np.array() takes a nested list of numbers and dtype=, not '" + kw.name + "='");
      return Value::error();
    }
    dtype_expr = kw.value.get();
  }
  if (call.args.empty() || call.args.size() > 2 || !call.starred.empty()) {
    error(call.loc, "a constant array is np.array([...], dtype=...): a nested list of numbers and a dtype");
    return Value::error();
  }
  // The shape along the first elements; every list is then checked against it.
  std::vector<int64_t> shape;
  for (const ast::Expr *e = call.args[0].get(); const std::vector<ast::ExprPtr> *items = display_items(*e);) {
    shape.push_back(static_cast<int64_t>(items->size()));
    if (items->empty()) break;
    e = items->front().get();
  }
  if (shape.empty()) {
    error(call.args[0]->loc, "a constant array needs at least one dimension (a list)");
    return Value::error();
  }
  std::vector<Value> elements;
  if (!array_literal_elements(*call.args[0], 0, shape, elements)) return Value::error();
  std::optional<DType> dtype = dtype_expr != nullptr ? dtype_of_expression(*dtype_expr) : std::nullopt;
  if (dtype_expr != nullptr && !dtype) {
    error(dtype_expr->loc, "'" + ast::to_source(*dtype_expr) + "' is not a dtype (float32, np.int64, 'f8', ...)");
    return Value::error();
  }
  if (!dtype) {  // NumPy's: the widest kind among the elements
    Candidates c;
    for (const Value &v : elements) c.add(v);
    std::optional<Type> t = c.resolve();
    dtype = t && t->is_scalar() ? t->dtype() : DType::Float64;
  }
  if (*dtype == DType::Float16) {
    error(dtype_expr != nullptr ? dtype_expr->loc : call.loc, "a constant array of float16 is not supported");
    return Value::error();
  }
  std::string data;
  for (const Value &v : elements) {
    const Value c = convert(v.is_weak() ? materialize(v) : v, *dtype);
    std::optional<Expr> k = !c.ok ? std::nullopt : c.expr.as<Const>() ? std::optional<Expr>(c.expr)
                                                                       : fold_strong_constant(c.expr);
    if (!k || k->as<Const>() == nullptr) {
      error(call.args[0]->loc, "np.array(): an element of a constant array must be a constant number");
      return Value::error();
    }
    append_bytes(*k->as<Const>(), *dtype, data);
  }
  if (data.size() > kMaxConstantArrayBytes) {
    error(call.loc, "a constant array of " + std::to_string(data.size()) + " bytes: at most " +
                        std::to_string(kMaxConstantArrayBytes) + " (the GPU's constant memory is 64 KiB)");
    return Value::error();
  }
  return Value::strong(ArrayAlloc::make_constant(*dtype, std::move(shape), std::move(data)));
}

bool BodyTyper::holds_constant_array(const Expr &array) const {
  const Expr root = array_root(array);
  if (const ArrayAlloc *a = root.as<ArrayAlloc>()) return a->space == MemorySpace::Constant;
  const Var *var = root.as<Var>();
  return var != nullptr && constant_locals_.count(var->name) != 0;
}

Value BodyTyper::const_array_like(const std::string &name, std::vector<Value> args, const ast::Call &call) {
  if (name != "array_like") {
    error(callee_loc(call), "'cuda.const." + name + "' is not a function (cuda.const.array_like(ary))");
    return Value::error();
  }
  if (args.size() != 1) {
    error(callee_loc(call), "cuda.const.array_like() takes 1 argument, a module-level NumPy array");
    return Value::error();
  }
  if (!args[0].ok) return Value::error();
  const ArrayAlloc *a = args[0].type.is_array() ? args[0].expr.as<ArrayAlloc>() : nullptr;
  if (a == nullptr || a->space != MemorySpace::Constant) {
    error(call.args[0]->loc, "cuda.const.array_like() takes a module-level NumPy array (its data is copied into "
                             "constant memory when the kernel is compiled)");
    return Value::error();
  }
  return args[0];
}

}  // namespace ufjit::ir::typer
