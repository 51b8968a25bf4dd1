// Arrays of generalized ufuncs (LANGUAGE.md section 8): `a.shape[k]`,
// `len(a)`, element reads `a[i, j]` and writes to outputs. Indices become
// int64; negative ones wrap as in Python (i + a.shape[d]). Bounds are the
// business of code generation (the boundscheck option).
#include "frontend/InternalAssert.h"
#include "ir/TyperInternal.h"

namespace ufjit::ir::typer {

std::optional<std::vector<Expr>> BodyTyper::array_indices(const Value &array, const ast::Expr &index, bool stable) {
  std::vector<const ast::Expr *> parts;
  if (const ast::Tuple *t = index.as<ast::Tuple>()) {
    for (const ast::ExprPtr &e : t->elts) parts.push_back(e.get());
  } else {
    parts.push_back(&index);
  }
  int ndim = array.type.ndim();
  if (static_cast<int>(parts.size()) != ndim) {
    error(index.loc, "an array of type '" + array.type.str() + "' needs " + std::to_string(ndim) + " index" +
                         (ndim == 1 ? "" : "es") + ", got " + std::to_string(parts.size()) +
                         " (slices and partial indexing are not supported)");
    return std::nullopt;
  }
  std::vector<Expr> out;
  bool ok = true;
  for (std::size_t d = 0; d < parts.size(); ++d) {
    Value i = expr(*parts[d]);
    if (!i.ok) {
      ok = false;
      continue;
    }
    Expr dim = ArrayDim::make(array.expr, static_cast<int>(d));
    if (i.is_weak()) {
      if (i.weak != Weak::Int || !int_fits(DType::Int64, i.num.i)) {
        error(parts[d]->loc, "an array index must be an int64 integer");
        ok = false;
        continue;
      }
      Expr c = Const::make_int(DType::Int64, static_cast<int64_t>(i.num.i));
      out.push_back(i.num.i >= 0 ? c : Binary::make(BinaryOpcode::Add, dim, c));
      continue;
    }
    if (i.literal_tuple || !(i.type.is_int() || i.type.is_bool())) {
      error(parts[d]->loc, "array indices must be integers, not '" + i.type.str() + "'");
      ok = false;
      continue;
    }
    Value v = stabilize(convert(i, DType::Int64));
    Expr negative = Compare::make(CompareOpcode::Lt, v.expr, Const::make_int(DType::Int64, 0));
    Expr wrapped = Select::make(negative, Binary::make(BinaryOpcode::Add, v.expr, dim), v.expr);
    if (is_unsigned_int(i.type.dtype()) && dtype_size(i.type.dtype()) < 8) wrapped = v.expr;  // never negative
    out.push_back(stable ? stabilize(Value::strong(wrapped)).expr : wrapped);
  }
  if (!ok) return std::nullopt;
  return out;
}

void BodyTyper::array_store(const ast::Subscript &target, const Value &v, std::vector<Stmt> &out) {
  Value array = expr(*target.value);
  if (!array.ok) return;
  if (!array.type.is_array()) {
    error(target.loc, "cannot assign to an element of a value of type '" + array.type.str() +
                          "' (only output arrays of generalized ufuncs)");
    return;
  }
  const Var *var = array.expr.as<Var>();
  if (var == nullptr || output_params_.count(var->name) == 0) {
    error(target.value->loc, "cannot write to '" + ast::to_source(*target.value) +
                                 "': only output arrays (after '->' in the layout) can be written");
    return;
  }
  std::optional<std::vector<Expr>> indices = array_indices(array, *target.index, false);
  if (!indices || !v.ok) return;
  if (v.literal_tuple || (!v.is_weak() && !v.type.is_scalar())) {
    error(target.loc, "cannot store a value of type '" + v.type.str() + "' in an array of '" +
                          std::string(dtype_name(array.type.dtype())) + "'");
    return;
  }
  Value converted = convert(v, array.type.dtype());
  out.push_back(ArrayStore::make(array.expr, std::move(*indices), converted.expr));
}

void BodyTyper::array_aug_assign(const ast::AugAssign &s, const ast::Subscript &target, std::vector<Stmt> &out) {
  Value array = expr(*target.value);
  if (!array.ok) return;
  if (!array.type.is_array()) {
    error(target.loc, "cannot assign to an element of a value of type '" + array.type.str() + "'");
    return;
  }
  std::optional<std::vector<Expr>> indices = array_indices(array, *target.index, true);
  if (!indices) return;
  Value current = Value::strong(ArrayLoad::make(array.expr, *indices));
  Value rhs = expr(*s.value);
  Value v = binary(s.op, current, rhs, s.op_loc.valid() ? s.op_loc : s.loc);
  if (!v.ok) return;
  const Var *var = array.expr.as<Var>();
  if (var == nullptr || output_params_.count(var->name) == 0) {
    error(target.value->loc, "cannot write to '" + ast::to_source(*target.value) +
                                 "': only output arrays (after '->' in the layout) can be written");
    return;
  }
  Value converted = convert(v, array.type.dtype());
  std::vector<Stmt> stores = {ArrayStore::make(array.expr, std::move(*indices), converted.expr)};
  flush_pre(out);
  for (Stmt &st : stores) out.push_back(std::move(st));
}

}  // namespace ufjit::ir::typer
