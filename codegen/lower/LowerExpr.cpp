// Expressions of one IR function.
// requires: a typed, verified IR expression; guarantees: its value in the
// value type of its IR type, only the chosen arm of Select/ShortCircuit
// evaluated.
#include "codegen/kernel/KernelCheck.h"
#include "codegen/lower/LowerFunction.h"
#include "support/InternalAssert.h"

namespace ufjit::codegen::lower {
namespace {

DType dtype_of(const ir::Expr &e) { return e.type().dtype(); }

/// Constants and variables: cheap and side-effect free, so both arms of a
/// Select or ShortCircuit may be evaluated and joined with a `select`.
bool is_trivial(const ir::Expr &e) { return e.as<ir::Const>() != nullptr || e.as<ir::Var>() != nullptr; }

}  // namespace

llvm::AllocaInst *FunctionLowerer::slot(const std::string &name) const {
  auto it = slots_.find(name);
  internal_assert(it != slots_.end()) << "unknown variable '" << name << "' in function " << fn_.name;
  return it->second;
}

llvm::Value *FunctionLowerer::emit_var(const ir::Var &v) {
  llvm::AllocaInst *a = slot(v.name);
  return builder_.CreateLoad(a->getAllocatedType(), a, v.name);
}

llvm::Value *FunctionLowerer::load_element_of_local_tuple(const ir::TupleGet &g) {
  // Loading the whole tuple to extract one element made each `t[j]` of a
  // tuple of k elements k loads once SROA split the aggregate: a loop that
  // shifts a 1,000-element tuple became a million loads, 18 s to PTX.
  std::vector<unsigned> path = {static_cast<unsigned>(g.index)};  // innermost last
  const ir::Expr *tuple = &g.tuple;
  while (const auto *outer = tuple->as<ir::TupleGet>()) {
    path.push_back(static_cast<unsigned>(outer->index));
    tuple = &outer->tuple;
  }
  const auto *local = tuple->as<ir::Var>();
  if (local == nullptr) return nullptr;
  llvm::AllocaInst *a = slot(local->name);
  std::vector<llvm::Value *> indices = {builder_.getInt32(0)};
  for (auto it = path.rbegin(); it != path.rend(); ++it) indices.push_back(builder_.getInt32(*it));
  llvm::Type *element = llvm::GetElementPtrInst::getIndexedType(a->getAllocatedType(), indices);
  internal_assert(element != nullptr) << "tuple element path of '" << local->name << "'";
  return builder_.CreateLoad(element, builder_.CreateInBoundsGEP(a->getAllocatedType(), a, indices));
}

llvm::Value *FunctionLowerer::choose(llvm::Value *cond, const ir::Expr &a, const ir::Expr &b) {
  if (is_trivial(a) && is_trivial(b)) {
    return builder_.CreateSelect(cond, emit(a), emit(b));
  }
  std::vector<llvm::Value *> joined = emit_if_else(
      emitter_, cond, [&] { return std::vector<llvm::Value *>{emit(a)}; },
      [&] { return std::vector<llvm::Value *>{emit(b)}; });
  return joined[0];
}

llvm::Value *FunctionLowerer::emit_select(const ir::Select &s) { return choose(emit(s.cond), s.a, s.b); }

llvm::Value *FunctionLowerer::emit_short_circuit(const ir::ShortCircuit &s) {
  llvm::Value *a = emit(s.a);
  llvm::Value *truthy = truth_value(emitter_, a, dtype_of(s.a));
  if (is_trivial(s.b)) {
    llvm::Value *b = emit(s.b);
    return s.op == ir::ShortCircuit::Op::And ? builder_.CreateSelect(truthy, b, a) : builder_.CreateSelect(truthy, a, b);
  }
  // `and`: a if falsy else b; `or`: a if truthy else b.
  bool b_when_truthy = s.op == ir::ShortCircuit::Op::And;
  std::vector<llvm::Value *> joined = emit_if_else(
      emitter_, truthy,
      [&] { return std::vector<llvm::Value *>{b_when_truthy ? emit(s.b) : a}; },
      [&] { return std::vector<llvm::Value *>{b_when_truthy ? a : emit(s.b)}; });
  return joined[0];
}

llvm::Value *FunctionLowerer::emit_call(const ir::Call &c) {
  auto it = ms_.functions.find(c.callee);
  internal_assert(it != ms_.functions.end()) << "call of unknown function '" << c.callee << "'";
  std::vector<llvm::Value *> args;
  for (const ir::Expr &arg : c.args) {
    args.push_back(emit(arg));
  }
  if (ms_.kernel_context && it->second->arg_size() == args.size() + 1 + (ms_.can_raise ? 1 : 0)) {
    // An IR function of a kernel's module on the CPU: the flag, then the context.
    if (ms_.can_raise) args.push_back(error_flag_);
    args.push_back(kernel_context_);
    llvm::Value *result = builder_.CreateCall(it->second, args);
    if (ms_.can_raise) emit_raise_check();
    return result;
  }
  if (ms_.can_raise && it->second->arg_size() == args.size() + 1) {
    // An IR function of this module (externs take no flag).
    args.push_back(error_flag_);
    llvm::Value *result = builder_.CreateCall(it->second, args);
    emit_raise_check();
    return result;
  }
  return builder_.CreateCall(it->second, args);
}

llvm::Value *FunctionLowerer::emit_intrinsic(const ir::Intrinsic &i) {
  using ir::IntrinsicOp;
  std::vector<llvm::Value *> args;
  for (const ir::Expr &arg : i.args) {
    args.push_back(emit(arg));
  }
  if (i.args.empty()) return emit_coordinate(i.op);  // the explicit kernels' (LowerKernel.cpp)
  DType arg_type = dtype_of(i.args[0]);
  switch (i.op) {
    case IntrinsicOp::MakeComplex:
      return make_complex(emitter_, args[0], args[1]);
    case IntrinsicOp::IAbs:
      if (is_signed_int(arg_type)) {
        return builder_.CreateIntrinsic(llvm::Intrinsic::abs, {args[0]->getType()}, {args[0], builder_.getFalse()});
      }
      return args[0];  // unsigned and bool: already non-negative
    case IntrinsicOp::Popc:
    case IntrinsicOp::Clz:
    case IntrinsicOp::Ffs:
    case IntrinsicOp::Brev:
      return lower_bit_intrinsic(emitter_, i.op, args[0]);
    case IntrinsicOp::Logaddexp:
    case IntrinsicOp::Logaddexp2:
    case IntrinsicOp::Spacing:
    case IntrinsicOp::Gcd:
    case IntrinsicOp::Lcm:
      return lower_numpy_intrinsic(emitter_, i.op, arg_type, args);
    case IntrinsicOp::IsNan:
    case IntrinsicOp::IsInf:
    case IntrinsicOp::IsFinite:
      if (is_integer(arg_type) || arg_type == DType::Bool) {
        return builder_.getInt1(i.op == IntrinsicOp::IsFinite);
      }
      break;
    default:
      break;
  }
  if (is_complex(arg_type)) {
    return lower_complex_intrinsic(emitter_, i.op, arg_type, args);
  }
  return lower_real_intrinsic(emitter_, i.op, arg_type, args);
}

llvm::Value *FunctionLowerer::emit_tuple(const ir::MakeTuple &t) {
  llvm::Value *tuple = llvm::UndefValue::get(value_type(ms_.ctx(), t.type));
  for (std::size_t k = 0; k < t.elements.size(); ++k) {
    tuple = builder_.CreateInsertValue(tuple, emit(t.elements[k]), {static_cast<unsigned>(k)});
  }
  return tuple;
}

llvm::Value *FunctionLowerer::element_address(const ir::Expr &array, const std::vector<ir::Expr> &indices) {
  llvm::Value *view = emit(array);
  llvm::Value *address = builder_.CreateExtractValue(view, {0});
  llvm::Value *offset = builder_.getInt64(0);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    llvm::Value *stride = builder_.CreateExtractValue(view, {2, static_cast<unsigned>(k)});
    llvm::Value *index = emit(indices[k]);
    offset = builder_.CreateAdd(offset, builder_.CreateMul(index, stride));
  }
  return builder_.CreateGEP(builder_.getInt8Ty(), address, offset);
}

llvm::Value *FunctionLowerer::emit_array_slice(const ir::ArraySlice &s) {
  // The view: data moved to the first element (the sum of start * stride),
  // a kept dimension's extent its length and its stride times the step.
  llvm::Value *view = emit(s.array);
  llvm::Value *offset = builder_.getInt64(0);
  llvm::Value *result = llvm::UndefValue::get(value_type(ms_.ctx(), s.type));
  unsigned kept = 0;
  for (std::size_t k = 0; k < s.dims.size(); ++k) {
    const ir::ArraySlice::Dim &d = s.dims[k];
    llvm::Value *stride = builder_.CreateExtractValue(view, {2, static_cast<unsigned>(k)});
    offset = builder_.CreateAdd(offset, builder_.CreateMul(emit(d.start), stride));
    if (!d.length) continue;
    result = builder_.CreateInsertValue(result, emit(d.length), {1, kept});
    result = builder_.CreateInsertValue(result, builder_.CreateMul(stride, builder_.getInt64(d.step)), {2, kept});
    ++kept;
  }
  llvm::Value *data = builder_.CreateGEP(builder_.getInt8Ty(), builder_.CreateExtractValue(view, {0}), offset);
  return builder_.CreateInsertValue(result, data, {0});
}

llvm::Value *FunctionLowerer::emit_array_field(const ir::ArrayField &f) {
  // The record dimensions as they are; the bytes dimension replaced by the
  // field's subarray dimensions with C-order strides (or one of extent 1).
  llvm::Value *view = emit(f.array);
  llvm::Value *result = llvm::UndefValue::get(value_type(ms_.ctx(), f.type));
  const unsigned records = static_cast<unsigned>(f.array.type().ndim() - 1);
  for (unsigned k = 0; k < records; ++k) {
    result = builder_.CreateInsertValue(result, builder_.CreateExtractValue(view, {1, k}), {1, k});
    result = builder_.CreateInsertValue(result, builder_.CreateExtractValue(view, {2, k}), {2, k});
  }
  std::vector<int64_t> shape = f.shape.empty() ? std::vector<int64_t>{1} : f.shape;
  int64_t stride = f.shape.empty() ? 0 : static_cast<int64_t>(dtype_size(f.type.dtype()));
  for (std::size_t d = shape.size(); d-- > 0;) {
    const unsigned k = records + static_cast<unsigned>(d);
    result = builder_.CreateInsertValue(result, builder_.getInt64(static_cast<uint64_t>(shape[d])), {1, k});
    result = builder_.CreateInsertValue(result, builder_.getInt64(static_cast<uint64_t>(stride)), {2, k});
    stride *= shape[d];
  }
  llvm::Value *data =
      builder_.CreateGEP(builder_.getInt8Ty(), builder_.CreateExtractValue(view, {0}), builder_.getInt64(f.offset));
  return builder_.CreateInsertValue(result, data, {0});
}

llvm::Value *FunctionLowerer::emit(const ir::Expr &e) {
  switch (e->kind) {
    case ir::NodeKind::Const:
      return lower_constant(ms_.ctx(), *e.as<ir::Const>());
    case ir::NodeKind::Var:
      return emit_var(*e.as<ir::Var>());
    case ir::NodeKind::Cast: {
      const auto *c = e.as<ir::Cast>();
      return lower_cast(emitter_, emit(c->value), dtype_of(c->value), e.type().dtype());
    }
    case ir::NodeKind::Unary: {
      const auto *u = e.as<ir::Unary>();
      return lower_unary(emitter_, u->op, dtype_of(u->value), emit(u->value));
    }
    case ir::NodeKind::Binary: {
      const auto *b = e.as<ir::Binary>();
      llvm::Value *lhs = emit(b->a);
      llvm::Value *rhs = emit(b->b);
      return lower_binary(emitter_, b->op, dtype_of(b->a), lhs, rhs);
    }
    case ir::NodeKind::Compare: {
      const auto *c = e.as<ir::Compare>();
      llvm::Value *lhs = emit(c->a);
      llvm::Value *rhs = emit(c->b);
      return lower_compare(emitter_, c->op, dtype_of(c->a), lhs, rhs);
    }
    case ir::NodeKind::Select:
      return emit_select(*e.as<ir::Select>());
    case ir::NodeKind::ShortCircuit:
      return emit_short_circuit(*e.as<ir::ShortCircuit>());
    case ir::NodeKind::Call:
      return emit_call(*e.as<ir::Call>());
    case ir::NodeKind::Intrinsic:
      return emit_intrinsic(*e.as<ir::Intrinsic>());
    case ir::NodeKind::MakeTuple:
      return emit_tuple(*e.as<ir::MakeTuple>());
    case ir::NodeKind::TupleGet: {
      const auto *g = e.as<ir::TupleGet>();
      if (llvm::Value *element = load_element_of_local_tuple(*g)) return element;
      return builder_.CreateExtractValue(emit(g->tuple), {static_cast<unsigned>(g->index)});
    }
    case ir::NodeKind::ArrayLoad: {
      const auto *load = e.as<ir::ArrayLoad>();
      DType element = e.type().dtype();
      llvm::Value *address = element_address(load->array, load->indices);
      report_access(address, dtype_size(element), static_cast<int32_t>(CpuAccessKind::Read), load->line);
      llvm::Type *storage = storage_type(ms_.ctx(), element);
      auto align = llvm::Align(dtype_size(component_dtype(element)));
      llvm::Value *value = builder_.CreateAlignedLoad(storage, address, align);
      if (element == DType::Bool) {
        return builder_.CreateICmpNE(value, builder_.getInt8(0));
      }
      return value;
    }
    case ir::NodeKind::ArrayDim: {
      const auto *d = e.as<ir::ArrayDim>();
      return builder_.CreateExtractValue(emit(d->array), {1, static_cast<unsigned>(d->dim)});
    }
    case ir::NodeKind::ArraySlice:
      return emit_array_slice(*e.as<ir::ArraySlice>());
    case ir::NodeKind::ArrayField:
      return emit_array_field(*e.as<ir::ArrayField>());
    case ir::NodeKind::ArrayAlloc:
      return emit_array_alloc(*e.as<ir::ArrayAlloc>());
    case ir::NodeKind::ArrayAtomic:
      return emit_array_atomic(*e.as<ir::ArrayAtomic>());
    case ir::NodeKind::Sync:
      return emit_sync(*e.as<ir::Sync>());
    default:
      break;
  }
  internal_error << "cannot lower expression of kind " << ir::node_kind_name(e->kind);
}

}  // namespace ufjit::codegen::lower
