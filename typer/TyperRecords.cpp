// Records (NumPy structured dtypes) in kernels and device functions
// (LANGUAGE.md section 9). A record array is a uint8 array whose last
// dimension is each record's bytes (ir/Type.h), so a record is a view like
// any other: `a[i]` keeps the bytes, `r.x`, `r['x']` and `a[i].h[0]` read
// and write a field through a view of the field's dtype (ir::ArrayField).
// Storing an array into a view (`r['h'] = src`, `a[i] = a[j]`, which copies
// a record's bytes) is a loop over the view, with NumPy's broadcasting.
#include "typer/TyperInternal.h"

namespace ufjit::ir::typer {

namespace {

Expr i64(int64_t v) { return Const::make_int(DType::Int64, v); }

std::string field_names(const frontend::RecordLayout &layout) {
  std::string names;
  for (const frontend::RecordField &f : layout.fields) names += (names.empty() ? "'" : ", '") + f.name + "'";
  return names;
}

}  // namespace

Value BodyTyper::record_field(const Value &records, const std::string &name, const SourceLocation &loc) {
  const frontend::RecordLayout &layout = *records.type.record();
  const frontend::RecordField *field = layout.field(name);
  if (field == nullptr) {
    error(loc, "the record type has no field '" + name + "' (its fields: " + field_names(layout) + ")");
    return Value::error();
  }
  const int dims = records.type.ndim() - 1;
  const int kept = dims + std::max<int>(1, static_cast<int>(field->shape.size()));
  if (kept > frontend::kMaxArrayDims) {
    error(loc, "field '" + name + "' of this record array would be an array of " + std::to_string(kept) +
                   " dimensions; at most " + std::to_string(frontend::kMaxArrayDims) + " are supported");
    return Value::error();
  }
  Expr view = ArrayField::make(records.expr, field->dtype, field->offset, field->shape);
  if (!field->shape.empty()) return Value::strong(view);
  // A scalar field's view has one dimension of extent 1 in place of the
  // bytes: index it away (one record: the element itself).
  if (dims == 0) return Value::strong(ArrayLoad::make(view, {i64(0)}));
  std::vector<ArraySlice::Dim> slice;
  for (int d = 0; d < dims; ++d) slice.push_back(ArraySlice::Dim{i64(0), ArrayDim::make(view, d), 1});
  slice.push_back(ArraySlice::Dim{i64(0), Expr(), 1});
  return Value::strong(ArraySlice::make(view, std::move(slice)));
}

Value BodyTyper::record_subscript(const Value &records, const ast::Expr &index, bool stable) {
  if (const ast::StrLit *s = index.as<ast::StrLit>()) return record_field(records, s->value, s->content_loc);
  const int dims = records.type.ndim() - 1;
  if (dims == 0) {
    // One record: `r[k]` is its k-th field, as in Numba.
    const auto &fields = records.type.record()->fields;
    std::optional<int> k = constant_index(index, static_cast<Int128>(fields.size()), "record", "field", records.type);
    if (!k) return Value::error();
    return record_field(records, fields[static_cast<std::size_t>(*k)].name, index.loc);
  }
  bool ranges = false;
  std::optional<std::vector<ArraySlice::Dim>> picked = index_dims(records, index, dims, stable, ranges);
  if (!picked) return Value::error();
  std::vector<ArraySlice::Dim> slice = std::move(*picked);
  for (int d = static_cast<int>(slice.size()); d <= dims; ++d) {  // the rest, and the bytes
    slice.push_back(ArraySlice::Dim{i64(0), ArrayDim::make(records.expr, d), 1});
  }
  return Value::strong(ArraySlice::make(records.expr, std::move(slice)));
}

Value BodyTyper::record_attribute(const Value &records, const std::string &attr, const SourceLocation &loc) {
  const int dims = records.type.ndim() - 1;
  if (attr == "ndim") return Value::weak_num(PyNum::of_int(dims));
  if (attr == "shape") {
    std::vector<Value> extents;
    for (int d = 0; d < dims; ++d) extents.push_back(Value::strong(ArrayDim::make(records.expr, d)));
    return Value::tuple_literal(std::move(extents));
  }
  if (attr == "size") {
    Expr size = i64(1);
    for (int d = 0; d < dims; ++d) size = Binary::make(BinaryOpcode::Mul, size, ArrayDim::make(records.expr, d));
    return Value::strong(size);
  }
  return record_field(records, attr, loc);
}

void BodyTyper::attribute_store(const ast::Attribute &target, const Value &v, std::vector<Stmt> &out) {
  Value records = expr(*target.value);
  if (!records.ok) return;
  if (!records.type.is_record()) {
    error(target.loc, "cannot assign to '" + ast::to_source(target) + "': only the fields of a record can be " +
                          "assigned, and '" + ast::to_source(*target.value) + "' is of type '" + records.type.str() +
                          "'");
    return;
  }
  if (!array_writable(records.expr)) {
    error(target.value->loc, "cannot write to '" + ast::to_source(*target.value) + "': it is read-only");
    return;
  }
  Value place = record_field(records, target.attr, target.attr_loc);
  if (!place.ok || !v.ok) return;
  store_into(place, v, target.loc, out);
}

void BodyTyper::attribute_aug_assign(const ast::AugAssign &s, const ast::Attribute &target, std::vector<Stmt> &out) {
  Value records = expr(*target.value);
  if (!records.ok) return;
  if (!records.type.is_record()) {
    error(target.loc, "illegal target for augmented assignment: '" + ast::to_source(target) +
                          "' (only a record's fields can be assigned)");
    return;
  }
  std::string held = new_temp(records.type);
  flush_pre(out);
  out.push_back(Assign::make(held, records.expr));
  Value record = Value::strong(Var::make(records.type, held));
  Value place = record_field(record, target.attr, target.attr_loc);
  if (!place.ok) return;
  if (!place.type.is_scalar()) {
    error(target.loc, "augmented assignment to an array field ('" + ast::to_source(target) +
                          "') is not supported; write a loop");
    return;
  }
  Value v = binary(s.op, place, expr(*s.value), s.op_loc.valid() ? s.op_loc : s.loc);
  if (!v.ok) return;
  std::vector<Stmt> stores;
  store_into(place, v, target.loc, stores);
  flush_pre(out);
  for (Stmt &st : stores) out.push_back(std::move(st));
}

void BodyTyper::copy_array(const Value &place, const Value &source, const SourceLocation &loc,
                           std::vector<Stmt> &out) {
  const Type &to = place.type;
  const Type &from = source.type;
  if (to.is_record() != from.is_record() || !frontend::same_record(to.record(), from.record())) {
    error(loc, "cannot store a value of type '" + from.str() + "' in '" + to.str() + "'" +
                   (to.is_record() || from.is_record() ? ": the record types differ" : ""));
    return;
  }
  if (from.ndim() > to.ndim()) {
    error(loc, "cannot store an array of " + std::to_string(from.ndim()) + " dimensions in a view of " +
                   std::to_string(to.ndim()) + " ('" + from.str() + "' in '" + to.str() + "')");
    return;
  }
  // Both views once, then a shape check (NumPy's broadcasting: a source
  // extent equals the target's or is 1), then a loop nest over the target.
  std::string to_name = new_temp(to);
  std::string from_name = new_temp(from);
  out.push_back(Assign::make(to_name, place.expr));
  out.push_back(Assign::make(from_name, source.expr));
  const Expr to_view = Var::make(to, to_name);
  const Expr from_view = Var::make(from, from_name);
  const int lead = to.ndim() - from.ndim();
  const std::string file = loc.file != nullptr ? loc.file->name() : std::string("<source>");
  for (int d = 0; d < from.ndim(); ++d) {
    Expr extent = ArrayDim::make(from_view, d);
    Expr mismatch = ShortCircuit::make(ShortCircuit::Op::And,
                                       Compare::make(CompareOpcode::Ne, extent, ArrayDim::make(to_view, lead + d)),
                                       Compare::make(CompareOpcode::Ne, extent, i64(1)));
    out.push_back(If::make(mismatch, Raise::make("ValueError", "could not broadcast the stored array's shape into "
                                                               "the shape of the array it is stored in",
                                                 file, loc.line, loc.col)));
  }
  out.push_back(over_elements(to_view, [&](const std::vector<Expr> &indices) {
    std::vector<Expr> from_indices;  // an extent of 1 broadcasts
    for (int d = 0; d < from.ndim(); ++d) {
      Expr one = Compare::make(CompareOpcode::Eq, ArrayDim::make(from_view, d), i64(1));
      from_indices.push_back(Select::make(one, i64(0), indices[static_cast<std::size_t>(lead + d)]));
    }
    Value element = convert(Value::strong(ArrayLoad::make(from_view, from_indices)), to.dtype());
    return ArrayStore::make(to_view, indices, element.expr);
  }));
}

}  // namespace ufjit::ir::typer
