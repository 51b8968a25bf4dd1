// Arrays of generalized ufuncs (LANGUAGE.md section 8): indexing with
// Python's negative indices, partial indexing and slices as views
// (ir::ArraySlice, no copy), element writes, fills (`out[:] = v`,
// `out[()] = v`, `out[i, :] = v`) and copies (`out[:] = row`, TyperRecords.cpp)
// to writable arrays, array locals that hold views, and `for x in a`. Indices become int64; a negative one wraps once
// (i + a.shape[d]); bounds are the business of code generation.
#include <limits>

#include "ir/IRVisitor.h"
#include "support/InternalAssert.h"
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

Expr i64(int64_t v) { return Const::make_int(DType::Int64, v); }
Expr add(Expr a, Expr b) { return Binary::make(BinaryOpcode::Add, std::move(a), std::move(b)); }
Expr sub(Expr a, Expr b) { return Binary::make(BinaryOpcode::Sub, std::move(a), std::move(b)); }
Expr less(Expr a, Expr b) { return Compare::make(CompareOpcode::Lt, std::move(a), std::move(b)); }
Expr min(const Expr &a, const Expr &b) { return Select::make(less(a, b), a, b); }
Expr max(const Expr &a, const Expr &b) { return Select::make(less(a, b), b, a); }
/// `values[i]` for a run-time `i` in range: a chain of selects.
Expr element_at(const std::vector<Expr> &values, const Expr &i) {
  Expr element = values.back();
  for (std::size_t k = values.size() - 1; k-- > 0;) {
    element = Select::make(Compare::make(CompareOpcode::Eq, i, i64(static_cast<int64_t>(k))), values[k], element);
  }
  return element;
}
bool is_zero(const Expr &e) {
  const Const *c = e.as<Const>();
  return c != nullptr && c->int_bits == 0;
}

/// Gives the array accesses without a line `line` (with_access_lines).
class AccessLines : public IRMutator {
 public:
  explicit AccessLines(int line) : line_(line) {}
  using IRMutator::visit;
  Expr visit(const ArrayLoad *op, const Expr &self) override {
    Expr e = IRMutator::visit(op, self);
    const ArrayLoad *load = e.as<ArrayLoad>();
    return load->line != 0 ? e : ArrayLoad::make(load->array, load->indices, line_);
  }
  Stmt visit(const ArrayStore *op, const Stmt &self) override {
    Stmt s = IRMutator::visit(op, self);
    const ArrayStore *store = s.as<ArrayStore>();
    return store->line != 0 ? s : ArrayStore::make(store->array, store->indices, store->value, line_);
  }

 private:
  int line_;
};

}  // namespace

Stmt with_access_lines(const Stmt &s, int line) { return AccessLines(line).mutate(s); }

std::optional<Expr> BodyTyper::array_index(const Value &array, int d, const ast::Expr &part, bool stable) {
  Value i = expr(part);
  if (!i.ok) return std::nullopt;
  return array_index(array, d, i, part, stable);
}

std::optional<Expr> BodyTyper::array_index(const Value &array, int d, const Value &i, const ast::Expr &part,
                                           bool stable) {
  Expr dim = ArrayDim::make(array.expr, d);
  if (i.is_weak()) {
    if (i.weak != Weak::Int || !int_fits(DType::Int64, i.num.i)) {
      error(part.loc, "an array index must be an int64 integer");
      return std::nullopt;
    }
    Expr c = i64(static_cast<int64_t>(i.num.i));
    Expr wrapped_constant = i.num.i >= 0 ? c : add(dim, c);
    return boundscheck_ ? bounds_checked(wrapped_constant, dim, part.loc) : wrapped_constant;
  }
  if (i.literal_tuple || !(i.type.is_int() || i.type.is_bool())) {
    error(part.loc, "array indices must be integers, not '" + i.type.str() + "'");
    return std::nullopt;
  }
  Value v = stabilize(convert(i, DType::Int64));
  Expr wrapped = v.expr;
  if (!is_unsigned_int(i.type.dtype()) || dtype_size(i.type.dtype()) == 8) {  // else never negative
    Expr negative = less(v.expr, i64(0));
    wrapped = Select::make(negative, add(v.expr, dim), v.expr);
  }
  if (boundscheck_) wrapped = bounds_checked(wrapped, dim, part.loc);
  return stable ? stabilize(Value::strong(wrapped)).expr : wrapped;
}

Expr BodyTyper::bounds_checked(const Expr &index, const Expr &dim, const SourceLocation &loc) {
  // Numba's boundscheck: an index still outside [0, dim) after one wrap
  // raises IndexError (as one unsigned comparison: a negative index is huge).
  internal_assert(module_ != nullptr) << "boundscheck outside a module";
  Expr i = stabilize(Value::strong(index)).expr;
  Expr outside = Compare::make(CompareOpcode::Ge, Cast::make(DType::UInt64, i), Cast::make(DType::UInt64, dim));
  return Select::make(outside, index_error_call(i, dim, loc), i);
}

Expr BodyTyper::index_error_call(const Expr &index, const Expr &dim, const SourceLocation &loc) {
  const ArrayDim *d = dim.as<ArrayDim>();
  if (!module_->checked() || d == nullptr) {
    return Call::make(Type::scalar(DType::Int64), module_->index_error_function(loc), {});
  }
  // The name a message gives the array: its variable's, through views.
  const Var *root = array_root(d->array).as<Var>();
  const std::string array = root != nullptr ? root->name : std::string("array");
  const std::string name = module_->checked_index_error_function(loc, array, d->dim);
  return Call::make(Type::scalar(DType::Int64), name, {index, dim});
}

std::optional<ArraySlice::Dim> BodyTyper::array_range(const Value &array, int d, const ast::Slice &slice) {
  // Python's slice.indices(n) with a constant step.
  int64_t step = 1;
  if (slice.step) {
    Value s = expr(*slice.step);
    if (!s.ok) return std::nullopt;
    if (!s.is_weak() || s.weak != Weak::Int || !int_fits(DType::Int64, s.num.i)) {
      error(slice.step->loc, "a slice step must be an integer constant");
      return std::nullopt;
    }
    if (s.num.i == 0) {
      error(slice.step->loc, "slice step cannot be zero");
      return std::nullopt;
    }
    step = static_cast<int64_t>(s.num.i);
  }
  Expr n = ArrayDim::make(array.expr, d);
  auto bound = [&](const ast::ExprPtr &part) -> std::optional<Expr> {
    Value v = expr(*part);
    if (!v.ok) return std::nullopt;
    bool integer = v.is_weak() ? v.weak == Weak::Int && int_fits(DType::Int64, v.num.i)
                               : !v.literal_tuple && (v.type.is_int() || v.type.is_bool());
    if (!integer) {
      error(part->loc, "slice indices must be integers, not '" + v.type.str() + "'");
      return std::nullopt;
    }
    Expr b = stabilize(convert(v, DType::Int64)).expr;
    // Negative counts from the end; then clamp to [0, n] (step > 0) or [-1, n-1].
    Expr low = step > 0 ? i64(0) : i64(-1);
    Expr high = step > 0 ? n : sub(n, i64(1));
    if (const Const *c = b.as<Const>()) {
      if (static_cast<int64_t>(c->int_bits) >= 0) return min(b, high);
      return max(add(b, n), low);
    }
    Expr from_end = max(add(b, n), low);
    return stabilize(Value::strong(Select::make(less(b, i64(0)), from_end, min(b, high)))).expr;
  };
  std::optional<Expr> lower = slice.lower ? bound(slice.lower) : (step > 0 ? i64(0) : sub(n, i64(1)));
  std::optional<Expr> upper = slice.upper ? bound(slice.upper) : (step > 0 ? n : i64(-1));
  if (!lower || !upper) return std::nullopt;
  ArraySlice::Dim dim;
  dim.start = *lower;
  dim.step = step;
  if (step == 1 && is_zero(*lower) && !slice.upper) {
    dim.length = n;  // `:` and `0:`
    return dim;
  }
  // The count of start, start+step, ... before the stop: ceil(span / |step|),
  // at least 0, as (span - 1) // |step| + 1, which cannot overflow: the
  // bounds are clamped to [-1, n], so |span| <= n + 1, whatever the step.
  // |INT64_MIN| is not an int64; INT64_MAX counts the same (one element at
  // most) for any array.
  Expr span = step > 0 ? sub(*upper, *lower) : sub(*lower, *upper);
  const int64_t magnitude = step > 0 ? step
                            : step == std::numeric_limits<int64_t>::min()
                                ? std::numeric_limits<int64_t>::max()
                                : -step;
  Expr count = span;
  if (magnitude != 1) {
    count = add(Binary::make(BinaryOpcode::FloorDiv, sub(span, i64(1)), i64(magnitude)), i64(1));
  }
  dim.length = max(count, i64(0));
  return dim;
}

std::optional<std::vector<ArraySlice::Dim>> BodyTyper::index_dims(const Value &array, const ast::Expr &index,
                                                                   int ndim, bool stable, bool &ranges) {
  std::vector<const ast::Expr *> parts;
  if (const ast::Tuple *t = index.as<ast::Tuple>()) {
    for (const ast::ExprPtr &e : t->elts) parts.push_back(e.get());
  } else {
    parts.push_back(&index);
  }
  if (static_cast<int>(parts.size()) > ndim) {
    error(index.loc, "too many indices for an array of type '" + array.type.str() + "': it has " +
                         std::to_string(ndim) + " dimension" + (ndim == 1 ? "" : "s") + ", got " +
                         std::to_string(parts.size()) + " indices");
    return std::nullopt;
  }
  std::vector<ArraySlice::Dim> dims;
  bool ok = true;
  ranges = false;
  for (std::size_t d = 0; d < parts.size(); ++d) {
    if (const ast::Slice *s = parts[d]->as<ast::Slice>()) {
      std::optional<ArraySlice::Dim> r = array_range(array, static_cast<int>(d), *s);
      ok = ok && r.has_value();
      if (r) dims.push_back(*r);
      ranges = true;
      continue;
    }
    std::optional<Expr> i = array_index(array, static_cast<int>(d), *parts[d], stable);
    ok = ok && i.has_value();
    if (i) dims.push_back(ArraySlice::Dim{*i, Expr(), 1});
  }
  if (!ok) return std::nullopt;
  return dims;
}

Value BodyTyper::array_subscript(const Value &array, const ast::Expr &index, bool stable) {
  if (array.type.is_record()) return record_subscript(array, index, stable);
  const int ndim = array.type.ndim();
  bool ranges = false;
  std::optional<std::vector<ArraySlice::Dim>> picked = index_dims(array, index, ndim, stable, ranges);
  if (!picked) return Value::error();
  std::vector<ArraySlice::Dim> dims = std::move(*picked);
  if (dims.empty()) return array;  // `a[()]`: the whole array
  const bool any_range = ranges || static_cast<int>(dims.size()) < ndim;  // `a[i]` of a matrix: a row
  if (!any_range) {
    std::vector<Expr> indices;
    for (const ArraySlice::Dim &d : dims) indices.push_back(d.start);
    return Value::strong(ArrayLoad::make(array.expr, std::move(indices)));
  }
  for (int d = static_cast<int>(dims.size()); d < ndim; ++d) {
    dims.push_back(ArraySlice::Dim{i64(0), ArrayDim::make(array.expr, d), 1});
  }
  return Value::strong(ArraySlice::make(array.expr, std::move(dims)));
}

Stmt BodyTyper::over_elements(const Expr &view, const std::function<Stmt(const std::vector<Expr> &)> &body) {
  const int ndim = view.type().ndim();
  std::vector<std::string> counters;
  std::vector<Expr> indices;
  for (int d = 0; d < ndim; ++d) {
    counters.push_back(new_temp(Type::scalar(DType::Int64)));
    indices.push_back(Var::make(Type::scalar(DType::Int64), counters.back()));
  }
  Stmt nest = body(indices);
  for (int d = ndim - 1; d >= 0; --d) {
    nest = ForRange::make(counters[static_cast<std::size_t>(d)], i64(0), ArrayDim::make(view, d), i64(1),
                          Block::make({nest}));
  }
  return nest;
}

Expr array_root(const Expr &array) {
  Expr root = array;
  while (true) {
    if (const ArraySlice *s = root.as<ArraySlice>()) {
      root = s->array;
    } else if (const ArrayField *f = root.as<ArrayField>()) {
      root = f->array;
    } else {
      return root;
    }
  }
}

bool BodyTyper::array_writable(const Expr &array) const {
  const Expr root = array_root(array);
  if (const ArrayAlloc *a = root.as<ArrayAlloc>()) return a->space != MemorySpace::Constant;
  const Var *var = root.as<Var>();
  if (in_kernel()) {
    // Kernels and their device functions write any array, as Numba's, but
    // for locals holding a constant array.
    auto it = var != nullptr ? writable_locals_.find(var->name) : writable_locals_.end();
    return it == writable_locals_.end() || it->second;
  }
  if (var == nullptr) return false;
  if (output_params_.count(var->name) != 0) return true;
  auto it = writable_locals_.find(var->name);
  return it != writable_locals_.end() && it->second;
}

void BodyTyper::note_array_local(const std::string &name, const Expr &value) {
  if (holds_constant_array(value)) constant_locals_.insert(name);
  bool writable = array_writable(value);
  auto [it, inserted] = writable_locals_.emplace(name, writable);
  if (!inserted) it->second = it->second && writable;
}

bool BodyTyper::check_writable(const ast::Subscript &target, const Value &array) {
  if (!array.type.is_array()) {
    error(target.loc, "cannot assign to an element of a value of type '" + array.type.str() +
                          "' (only output arrays of generalized ufuncs)");
    return false;
  }
  if (array_writable(array.expr)) return true;
  if (holds_constant_array(array.expr)) {
    error(target.value->loc, "cannot write to '" + ast::to_source(*target.value) +
                                 "': it is a constant array (a module-level NumPy array), which is read-only");
    return false;
  }
  error(target.value->loc, "cannot write to '" + ast::to_source(*target.value) +
                               "': only output arrays (after '->' in the layout) can be written, and inputs "
                               "named in writable_args=");
  return false;
}

void BodyTyper::array_store(const ast::Subscript &target, const Value &v, std::vector<Stmt> &out) {
  Value array = expr(*target.value);
  if (!array.ok) return;
  if (!check_writable(target, array)) return;
  Value place = array_subscript(array, *target.index, false);
  if (!place.ok || !v.ok) return;
  store_into(place, v, target.loc, out);
}

void BodyTyper::store_into(const Value &place, const Value &v, const SourceLocation &loc, std::vector<Stmt> &out) {
  if (place.type.is_array() && !v.literal_tuple && !v.is_weak() && v.type.is_array()) {
    copy_array(place, v, loc, out);
    return;
  }
  if (v.literal_tuple || (!v.is_weak() && !v.type.is_scalar()) || place.type.is_record()) {
    error(loc, "cannot store a value of type '" + v.type.str() + "' in " +
                   (place.type.is_record() ? "'" + place.type.str() + "'"
                                           : "an array of '" + std::string(dtype_name(place.type.dtype())) + "'"));
    return;
  }
  Value converted = convert(v, place.type.dtype());
  if (const ArrayLoad *load = place.expr.as<ArrayLoad>()) {
    out.push_back(ArrayStore::make(load->array, load->indices, converted.expr));
    return;
  }
  // A fill (`out[:] = v`, `out[()] = v`, `out[i, :] = v`): the value once,
  // then a loop nest over the view.
  Value value = stabilize(converted);
  std::string view = new_temp(place.type);
  out.push_back(Assign::make(view, place.expr));
  Expr view_var = Var::make(place.type, view);
  out.push_back(over_elements(view_var, [&](const std::vector<Expr> &indices) {
    return ArrayStore::make(view_var, indices, value.expr);
  }));
}

void BodyTyper::array_aug_assign(const ast::AugAssign &s, const ast::Subscript &target, std::vector<Stmt> &out) {
  Value array = expr(*target.value);
  if (!array.ok) return;
  if (!array.type.is_array()) {
    error(target.loc, "cannot assign to an element of a value of type '" + array.type.str() + "'");
    return;
  }
  Value place = array_subscript(array, *target.index, true);
  if (!place.ok) return;
  const ArrayLoad *load = place.expr.as<ArrayLoad>();
  if (load == nullptr) {
    error(target.loc, "augmented assignment to a slice or a whole array ('" + ast::to_source(target) +
                          "') is not supported; write a loop");
    return;
  }
  Value rhs = expr(*s.value);
  Value v = binary(s.op, place, rhs, s.op_loc.valid() ? s.op_loc : s.loc);
  if (!v.ok) return;
  if (!check_writable(target, array)) return;
  Value converted = convert(v, array.type.dtype());
  Stmt store = ArrayStore::make(load->array, load->indices, converted.expr);
  flush_pre(out);
  out.push_back(std::move(store));
}

bool BodyTyper::for_array(const ast::For &s, std::vector<Stmt> &out) {
  Value array = expr(*s.iter);
  if (!array.ok) return true;
  if (array.literal_tuple || array.type.is_tuple()) return for_tuple(s, array, out);
  if (!array.type.is_array()) return false;
  const ast::Name *target = s.target->as<ast::Name>();
  if (target == nullptr) {
    error(s.target->loc, "the target of a 'for' loop over an array must be a single name");
    return true;
  }
  // for x in a:  ->  $a = a; for $i in range(a.shape[0]): x = $a[$i] (an element or a view)
  std::string held = new_temp(array.type);
  std::vector<Stmt> stmts;
  flush_pre(stmts);
  stmts.push_back(Assign::make(held, array.expr));
  note_array_local(held, array.expr);
  Expr held_var = Var::make(array.type, held);
  std::string counter = new_temp(Type::scalar(DType::Int64));
  Expr i = Var::make(Type::scalar(DType::Int64), counter);
  Value element;
  if (array.type.ndim() == 1) {
    element = Value::strong(ArrayLoad::make(held_var, {i}));
  } else {
    std::vector<ArraySlice::Dim> dims = {ArraySlice::Dim{i, Expr(), 1}};
    for (int d = 1; d < array.type.ndim(); ++d) dims.push_back(ArraySlice::Dim{i64(0), ArrayDim::make(held_var, d), 1});
    element = Value::strong(ArraySlice::make(held_var, std::move(dims)));
  }
  std::vector<Stmt> body_stmts;
  Flow entry = enter_for_loop();
  assign_name(target->id, element, target->loc, body_stmts);
  Stmt inner = block(s.body);
  leave_for_loop(entry);
  body_stmts.push_back(inner);
  for (Stmt &st : stmts) out.push_back(std::move(st));
  out.push_back(ForRange::make(counter, i64(0), ArrayDim::make(held_var, 0), i64(1), Block::make(std::move(body_stmts))));
  return true;
}

bool BodyTyper::iterable_of(const ast::Expr &e, Iterable &it, std::vector<Stmt> &held) {
  const ast::Call *call = e.as<ast::Call>();
  const ast::Name *fn = call != nullptr ? call->func->as<ast::Name>() : nullptr;
  if (fn != nullptr && (fn->id == "enumerate" || fn->id == "zip") && names_builtin(fn->id)) {
    const bool enumerate = fn->id == "enumerate";
    if (!call->keywords.empty() || call->args.empty() || (enumerate && call->args.size() > 2)) {
      error(fn->loc, enumerate ? "enumerate() takes an array or a tuple and an optional start"
                               : "zip() takes arrays and tuples");
      return false;
    }
    it.kind = enumerate ? Iterable::Kind::Enumerate : Iterable::Kind::Zip;
    const std::size_t sequences = enumerate ? 1 : call->args.size();
    for (std::size_t k = 0; k < sequences; ++k) {
      it.parts.emplace_back();
      if (!iterable_of(*call->args[k], it.parts.back(), held)) return false;
    }
    it.start = i64(0);
    if (enumerate && call->args.size() == 2) {
      Value start = expr(*call->args[1]);
      if (!start.ok) return false;
      if (!start.is_weak() && !start.type.is_int()) {
        error(call->args[1]->loc, "enumerate()'s start must be an integer");
        return false;
      }
      it.start = convert(start, DType::Int64).expr;
    }
    return true;
  }
  Value array = expr(e);
  if (!array.ok) return false;
  if (array.literal_tuple || array.type.is_tuple()) {
    std::optional<std::vector<Expr>> values = tuple_loop_values(array, e.loc);
    if (!values) return false;
    flush_pre(held);
    it.kind = Iterable::Kind::Tuple;
    it.values = std::move(*values);
    return true;
  }
  if (!array.type.is_array()) {
    error(e.loc, std::string("enumerate() and zip() iterate over arrays and tuples, not '") + array.type.str() + "'");
    return false;
  }
  // Held in a temp before the loop: evaluated once, as Python's iterator.
  std::string name = new_temp(array.type);
  flush_pre(held);
  held.push_back(Assign::make(name, array.expr));
  note_array_local(name, array.expr);
  it.array = Var::make(array.type, name);
  return true;
}

Expr BodyTyper::iterable_length(const Iterable &it) {
  if (it.kind == Iterable::Kind::Array) return ArrayDim::make(it.array, 0);
  if (it.kind == Iterable::Kind::Tuple) return i64(static_cast<int64_t>(it.values.size()));
  Expr n = iterable_length(it.parts.front());
  for (std::size_t k = 1; k < it.parts.size(); ++k) {  // zip stops at the shortest
    Expr m = iterable_length(it.parts[k]);
    n = Select::make(less(m, n), m, n);
  }
  return n;
}

Value BodyTyper::iterable_element(const Iterable &it, const Expr &i) {
  if (it.kind == Iterable::Kind::Array) {
    const int ndim = it.array.type().ndim();
    if (ndim == 1) return Value::strong(ArrayLoad::make(it.array, {i}));
    std::vector<ArraySlice::Dim> dims = {ArraySlice::Dim{i, Expr(), 1}};
    for (int d = 1; d < ndim; ++d) dims.push_back(ArraySlice::Dim{i64(0), ArrayDim::make(it.array, d), 1});
    return Value::strong(ArraySlice::make(it.array, std::move(dims)));
  }
  if (it.kind == Iterable::Kind::Tuple) return Value::strong(element_at(it.values, i));
  std::vector<Value> elements;
  if (it.kind == Iterable::Kind::Enumerate) elements.push_back(Value::strong(add(i, it.start)));
  for (const Iterable &part : it.parts) elements.push_back(iterable_element(part, i));
  return Value::tuple_literal(std::move(elements));
}

void BodyTyper::for_iterable(const ast::For &s, std::vector<Stmt> &out) {
  // for i, (a, b) in enumerate(zip(x, y)):  ->  $x = x; $y = y;
  // for $i in range(min(len($x), len($y))): i, (a, b) = $i, ($x[$i], $y[$i])
  Iterable it;
  std::vector<Stmt> held;
  const bool ok = iterable_of(*s.iter, it, held);
  std::string counter = new_temp(Type::scalar(DType::Int64));
  Expr i = Var::make(Type::scalar(DType::Int64), counter);
  std::vector<Stmt> body_stmts;
  Flow entry = enter_for_loop();
  std::vector<Stmt> assigns;
  assign_to(*s.target, ok ? iterable_element(it, i) : Value::error(), s.target->loc, assigns);
  flush_pre(body_stmts);  // the elements, held before any target is assigned
  for (Stmt &st : assigns) body_stmts.push_back(std::move(st));
  Stmt inner = block(s.body);
  leave_for_loop(entry);
  if (!ok) return;
  body_stmts.push_back(inner);
  for (Stmt &st : held) out.push_back(std::move(st));
  out.push_back(ForRange::make(counter, i64(0), iterable_length(it), i64(1), Block::make(std::move(body_stmts))));
}

bool BodyTyper::for_tuple(const ast::For &s, const Value &tuple, std::vector<Stmt> &out) {
  // for x in (a, b, c): the elements, brought to one type and held in temps,
  // then `for $i in range(3): x = a if $i == 0 else (b if $i == 1 else c)`.
  const ast::Name *target = s.target->as<ast::Name>();
  if (target == nullptr) {
    error(s.target->loc, "the target of a 'for' loop over a tuple must be a single name");
    return true;
  }
  std::optional<std::vector<Expr>> values = tuple_loop_values(tuple, s.iter->loc);
  if (!values) return true;
  std::vector<Stmt> stmts;
  flush_pre(stmts);
  std::string counter = new_temp(Type::scalar(DType::Int64));
  Expr i = Var::make(Type::scalar(DType::Int64), counter);
  std::vector<Stmt> body_stmts;
  Flow entry = enter_for_loop();
  assign_name(target->id, Value::strong(element_at(*values, i)), target->loc, body_stmts);
  Stmt inner = block(s.body);
  leave_for_loop(entry);
  body_stmts.push_back(inner);
  for (Stmt &st : stmts) out.push_back(std::move(st));
  out.push_back(ForRange::make(counter, i64(0), i64(static_cast<int64_t>(values->size())), i64(1),
                               Block::make(std::move(body_stmts))));
  return true;
}

std::optional<std::vector<Expr>> BodyTyper::tuple_loop_values(const Value &tuple, const SourceLocation &loc) {
  Value held = stabilize(tuple);
  std::vector<Value> elements = held.elements;
  if (!held.literal_tuple) {
    for (std::size_t k = 0; k < held.type.elements().size(); ++k) {
      elements.push_back(Value::strong(TupleGet::make(held.expr, static_cast<int>(k))));
    }
  }
  Candidates c;
  for (const Value &e : elements) {
    if (!e.ok) return std::nullopt;
    if (e.literal_tuple || !(e.is_weak() || e.type.is_scalar())) {
      error(loc, "a loop over a tuple needs numbers, not '" + e.type.str() + "'");
      return std::nullopt;
    }
    c.add(e);
  }
  std::optional<Type> t = c.resolve();
  if (elements.empty() || !t) {
    error(loc, elements.empty() ? "a loop over an empty tuple" : "the elements of this tuple have no common type");
    return std::nullopt;
  }
  std::vector<Expr> values;
  for (const Value &e : elements) values.push_back(stabilize(convert(e, t->dtype())).expr);
  return values;
}

Value BodyTyper::array_attribute(const Value &array, const std::string &attr, const SourceLocation &loc) {
  if (array.type.is_record()) return record_attribute(array, attr, loc);
  int ndim = array.type.ndim();
  if (attr == "shape") {
    std::vector<Value> dims;
    for (int d = 0; d < ndim; ++d) dims.push_back(Value::strong(ArrayDim::make(array.expr, d)));
    return Value::tuple_literal(std::move(dims));
  }
  if (attr == "ndim") return Value::weak_num(PyNum::of_int(ndim));
  if (attr == "size") {
    Expr size = ArrayDim::make(array.expr, 0);
    for (int d = 1; d < ndim; ++d) size = Binary::make(BinaryOpcode::Mul, size, ArrayDim::make(array.expr, d));
    return Value::strong(size);
  }
  error(loc, "attribute '" + attr + "' is not supported on an array of type '" + array.type.str() +
                 "' (only .shape, .size and .ndim)");
  return Value::error();
}

}  // namespace ufjit::ir::typer
