// Constant arrays: a module constant `NAME = np.array([...], dtype=...)`
// (the Python package writes a module-level NumPy array so) is an array of
// read-only data, an ir::ArrayAlloc of MemorySpace::Constant: the GPU's
// constant memory, the CPU's read-only data. `cuda.const.array_like(NAME)`
// is that array, as Numba's copies a module array into constant memory.
// With `dtype='record(...)'` the elements are records, one tuple of field
// values each, stored as their bytes (ir/Type.h).
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

bool BodyTyper::append_constant(const Value &v, DType t, std::string &out) {
  const Value c = convert(v.is_weak() ? materialize(v) : v, t);
  std::optional<Expr> k = !c.ok ? std::nullopt : c.expr.as<Const>() ? std::optional<Expr>(c.expr)
                                                                     : fold_strong_constant(c.expr);
  if (!k || k->as<Const>() == nullptr) return false;
  append_bytes(*k->as<Const>(), t, out);
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
  if (const ast::StrLit *s = dtype_expr != nullptr ? dtype_expr->as<ast::StrLit>() : nullptr;
      s != nullptr && s->value.rfind("record(", 0) == 0) {
    return constant_records(call, *s);
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
    if (!append_constant(v, *dtype, data)) {
      error(call.args[0]->loc, "np.array(): an element of a constant array must be a constant number");
      return Value::error();
    }
  }
  if (data.size() > kMaxConstantArrayBytes) {
    error(call.loc, "a constant array of " + std::to_string(data.size()) + " bytes: at most " +
                        std::to_string(kMaxConstantArrayBytes) + " (the GPU's constant memory is 64 KiB)");
    return Value::error();
  }
  return Value::strong(ArrayAlloc::make_constant(*dtype, std::move(shape), std::move(data)));
}

Value BodyTyper::constant_records(const ast::Call &call, const ast::StrLit &dtype) {
  DiagnosticEngine parse_diags;
  std::size_t pos = 0;
  std::optional<frontend::RecordRef> record = frontend::parse_record_type(dtype.value, pos, dtype.content_loc,
                                                                          parse_diags);
  if (!record || pos != dtype.value.size()) {
    const bool parsed = parse_diags.diagnostics().empty();
    error(parsed ? dtype.loc : parse_diags.diagnostics()[0].loc,
          parsed ? "unexpected text after the record type in dtype=" : parse_diags.diagnostics()[0].message);
    return Value::error();
  }
  // The records' shape along the lists; each record is a tuple.
  std::vector<int64_t> shape;
  for (const ast::Expr *e = call.args[0].get(); const ast::List *l = e->as<ast::List>();) {
    shape.push_back(static_cast<int64_t>(l->elts.size()));
    if (l->elts.empty()) break;
    e = l->elts.front().get();
  }
  if (shape.empty()) {
    error(call.args[0]->loc, "a constant array of records is a list of tuples, one tuple of field values per record");
    return Value::error();
  }
  std::string data;
  if (!constant_record_items(*call.args[0], 0, shape, **record, data)) return Value::error();
  if (data.size() > kMaxConstantArrayBytes) {
    error(call.loc, "a constant array of " + std::to_string(data.size()) + " bytes: at most " +
                        std::to_string(kMaxConstantArrayBytes) + " (the GPU's constant memory is 64 KiB)");
    return Value::error();
  }
  shape.push_back((*record)->itemsize);
  return Value::strong(ArrayAlloc::make_constant(DType::UInt8, std::move(shape), std::move(data), *record));
}

bool BodyTyper::constant_record_items(const ast::Expr &e, std::size_t depth, const std::vector<int64_t> &shape,
                                      const frontend::RecordLayout &record, std::string &data) {
  if (depth < shape.size()) {
    const ast::List *list = e.as<ast::List>();
    if (list == nullptr || static_cast<int64_t>(list->elts.size()) != shape[depth]) {
      error(e.loc, "np.array(): the nested lists of records are not of one shape");
      return false;
    }
    for (const ast::ExprPtr &item : list->elts) {
      if (!constant_record_items(*item, depth + 1, shape, record, data)) return false;
    }
    return true;
  }
  const ast::Tuple *fields = e.as<ast::Tuple>();
  if (fields == nullptr || fields->elts.size() != record.fields.size()) {
    error(e.loc, "a record of a constant array is a tuple of its " + std::to_string(record.fields.size()) +
                     " field values");
    return false;
  }
  std::string bytes(static_cast<std::size_t>(record.itemsize), '\0');
  for (std::size_t k = 0; k < record.fields.size(); ++k) {
    const frontend::RecordField &field = record.fields[k];
    std::vector<Value> values;
    if (!array_literal_elements(*fields->elts[k], 0, field.shape, values)) return false;
    std::string field_bytes;
    for (const Value &v : values) {
      if (!append_constant(v, field.dtype, field_bytes)) {
        error(fields->elts[k]->loc, "np.array(): a field of a constant record must be a constant number");
        return false;
      }
    }
    bytes.replace(static_cast<std::size_t>(field.offset), field_bytes.size(), field_bytes);
  }
  data += bytes;
  return true;
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
