// The ufunc methods (runtime/Methods.h) and their public members of Ufunc;
// the preparation steps: runtime/MethodsPrepare.h.
#include "runtime/Methods.h"

#include "runtime/Broadcast.h"
#include "runtime/Call.h"
#include "runtime/DevicePlacement.h"
#include "runtime/Dispatch.h"
#include "runtime/DynamicUfunc.h"
#include "runtime/KernelRunner.h"
#include "runtime/MethodsPrepare.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime {

using namespace methods;

namespace {

/// Which dimensions of an `ndim`-d operand `options` reduces. NumPy takes one
/// axis 0 (or -1) of a 0-d array as "reduce nothing".
std::vector<bool> reduced_axes(const MethodTarget &t, const ReduceOptions &options, int ndim) {
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), options.all_axes);
  const bool zero_d_axis = ndim == 0 && (options.axes.empty() || (options.axes.size() == 1 &&
                                                                  (options.axes[0] == 0 || options.axes[0] == -1)));
  if (options.all_axes || zero_d_axis) {
    return reduced;
  }
  const std::vector<int> axes = options.axes.empty() ? std::vector<int>{0} : options.axes;
  for (int axis : axes) {
    const auto k = static_cast<std::size_t>(normalize_axis(axis, ndim));
    if (reduced[k]) {
      throw ShapeError("duplicate value in 'axis' of '" + t.name + "'.reduce");
    }
    reduced[k] = true;
  }
  return reduced;
}

/// A reduction's operand seen as `rows` rows of `len` elements: the kept
/// axes, then the reduced ones (`order`), and the result's shape.
struct ReduceShape {
  std::vector<int> order;
  std::vector<int64_t> result_shape;
  int64_t rows = 1;
  int64_t len = 1;
  int reduced_count = 0;
};

ReduceShape reduce_shape(const ArrayView &a, const std::vector<bool> &reduced, bool keepdims) {
  ReduceShape r;
  const int ndim = a.ndim();
  for (int pass = 0; pass < 2; ++pass) {
    for (int d = 0; d < ndim; ++d) {
      if (reduced[static_cast<std::size_t>(d)] == (pass == 1)) {
        r.order.push_back(d);
      }
    }
  }
  for (int d = 0; d < ndim; ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (reduced[k]) {
      r.len *= a.shape[k];
      ++r.reduced_count;
      if (keepdims) {
        r.result_shape.push_back(1);
      }
    } else {
      r.rows *= a.shape[k];
      r.result_shape.push_back(a.shape[k]);
    }
  }
  return r;
}

/// The reduction's starting value: `initial=` converted to the loop's type
/// (it must fit it, as NEP 50 says), or none.
std::optional<HostValue> initial_value(const MethodTarget &t, const CompiledSignature &sig,
                                       const ReduceOptions &options) {
  if (!options.initial.has_value()) {
    return std::nullopt;
  }
  auto label = [&] { return "initial of '" + t.name + "'.reduce"; };
  check_operand_kind(options.initial->kind, label);
  if (options.initial->kind != Operand::Kind::Scalar) {
    throw InputError(label() + " must be a scalar");
  }
  check_scalar(options.initial->scalar, label);
  DispatchInput as_array;
  as_array.is_array = true;
  as_array.dtype = sig.ret;
  (void)resolve_signature(t.name, {sig}, {dispatch_input(*options.initial), as_array});
  HostValue initial;
  initial.bytes = convert_scalar(options.initial->scalar, sig.ret);
  return initial;
}

/// A view of `a` with the result's shape: every dimension is 1 or kept, so
/// the strides are never used to step.
ArrayView as_result_shaped(const ArrayView &a, const std::vector<int64_t> &result_shape) {
  ArrayView src = a;
  src.shape = result_shape;
  src.strides = ArrayView::c_strides(result_shape, dtype_size(a.dtype));
  return src;
}

/// A reduction that combines nothing into `dst`: over zero elements (the
/// start value, or an error without one), or over no axis (a copy of `a`,
/// or f(initial, a) with an initial value).
void reduce_nothing(const MethodTarget &t, const CompiledSignature &sig, const ArrayView &a, const ReduceShape &shape,
                    const std::optional<HostValue> &initial, const ArrayView &dst) {
  const DType type = sig.ret;
  if (shape.len == 0) {  // some reduced axis is empty
    std::optional<HostValue> start = initial ? initial : identity_value(t, type);
    if (!start) {
      throw ShapeError("zero-size array to reduction operation '" + t.name + "' which has no identity (identity=" +
                       identity_name(t.identity) + "); pass an initial value");
    }
    fill(t, *start, type, dst);
    return;
  }
  const ArrayView src = as_result_shaped(a, shape.result_shape);
  if (initial) {
    Array cast_src;
    ArrayView typed = src;
    typed.data = const_cast<void *>(compute_input(t, src, type, cast_src));
    typed.dtype = type;
    typed.residence = compute_memory(t);
    typed.strides = ArrayView::c_strides(shape.result_shape, dtype_size(type));
    Array computed = allocate(t, type, shape.result_shape, compute_memory(t));
    (void)run_call(t.core, t.backend, t.name, {sig},
                   {Operand(initial->view(type)), Operand(typed), Operand(Out{computed.view()})}, nullptr);
    convert_into(t, computed.view(), dst);
  } else if (src.dtype == type) {
    convert_into(t, src, dst);
  } else {
    Array typed = allocate(t, type, shape.result_shape, compute_memory(t));
    convert_into(t, src, typed.view());  // a's value as the loop's type, then out's
    convert_into(t, typed.view(), dst);
  }
}

/// The reduction proper into `computed` (the result's shape, in the
/// backend's memory): rows of the reduced axes, with a where mask or an
/// initial value where given.
void reduce_rows(const MethodTarget &t, const CompiledSignature &sig, const ArrayView &a, const ReduceShape &shape,
                 const std::optional<ArrayView> &where, const std::optional<HostValue> &initial, Array &computed) {
  const bool in_order = t.identity == Identity::None;  // not declared reorderable
  if (where) {
    run_masked_reduce(t, sig, permute(a, shape.order), permute(*where, shape.order), shape.reduced_count,
                      initial ? *initial : *identity_value(t, sig.ret), computed);
    return;
  }
  if (initial && in_order && compute_memory(t) == Residence::Host) {
    // NumPy folds initial first, ((initial - a0) - a1) - ...: the masked
    // reduce's start column with every element taken. (The GPU's tree needs
    // an associative function, for which f(initial, fold(row)) is the same.)
    static const bool kTake = true;
    ArrayView every = permute(a, shape.order);
    every.data = const_cast<bool *>(&kTake);
    every.dtype = DType::Bool;
    every.residence = Residence::Host;
    every.strides.assign(every.shape.size(), 0);
    run_masked_reduce(t, sig, permute(a, shape.order), every, shape.reduced_count, *initial, computed);
    return;
  }
  Array input_copy;
  MethodLaunch launch;
  launch.signature = &sig;
  launch.method = codegen::MethodKernel::Reduce;
  launch.rows = shape.rows;
  launch.len = shape.len;
  launch.in = compute_input(t, permute(a, shape.order), sig.ret, input_copy);
  launch.out = computed.data();
  launch.in_order = in_order;
  t.backend.runner().run_method(launch);
  if (initial) {
    (void)run_call(t.core, t.backend, t.name, {sig},
                   {Operand(initial->view(sig.ret)), Operand(computed.view()), Operand(Out{computed.view()})},
                   nullptr);
  }
}

}  // namespace

Array run_reduce(const MethodTarget &t, const Operand &a_operand, const ReduceOptions &options,
                 const std::optional<Out> &out) {
  const ArrayView &a = array_operand(t, a_operand, "reduce");
  const CompiledSignature &sig = method_signature(t, a.dtype, options.dtype, out, "reduce");
  const DType type = sig.ret;
  const ReduceShape shape = reduce_shape(a, reduced_axes(t, options, a.ndim()), options.keepdims);
  if (shape.reduced_count > 1 && t.identity == Identity::None) {
    throw DispatchError("reduction operation '" + t.name +
                        "' is not reorderable, so at most one axis may be specified (give it identity=0, 1 or "
                        "'reorderable')");
  }
  const std::optional<HostValue> initial = initial_value(t, sig, options);
  std::optional<ArrayView> where;
  if (options.where) {
    where = where_mask(t, *options.where, a.shape);
    if (!initial && !identity_value(t, type)) {
      throw InputError("reduction operation '" + t.name + "' does not have an identity, so to use a where mask one " +
                       "has to specify 'initial' (identity=" + identity_name(t.identity) + ")");
    }
  }
  check_out(t, out, shape.result_shape, "reduce");
  const Residence wanted = a.residence;
  if (shape.rows == 0) {
    return out ? Array() : allocate(t, type, shape.result_shape, wanted);
  }
  if (shape.len == 0 || (shape.reduced_count == 0 && !where)) {
    Array result = out ? Array() : allocate(t, type, shape.result_shape, wanted);
    reduce_nothing(t, sig, a, shape, initial, out ? out->view : result.view());
    return result;
  }
  Array computed = allocate(t, type, shape.result_shape, compute_memory(t));
  reduce_rows(t, sig, a, shape, where, initial, computed);
  const ArrayView computed_view = computed.view();
  return deliver(t, std::move(computed), computed_view, wanted, out);
}

Array run_accumulate(const MethodTarget &t, const Operand &a_operand, const AccumulateOptions &options,
                     const std::optional<Out> &out) {
  const ArrayView &a = array_operand(t, a_operand, "accumulate");
  const CompiledSignature &sig = method_signature(t, a.dtype, options.dtype, out, "accumulate");
  const DType type = sig.ret;
  const int ndim = a.ndim();
  if (ndim == 0) {
    throw ShapeError("'" + t.name + "'.accumulate needs an array of at least one dimension (NumPy: cannot " +
                     "accumulate on a scalar)");
  }
  const int axis = normalize_axis(options.axis, ndim);
  check_out(t, out, a.shape, "accumulate");
  const Residence wanted = a.residence;
  if (checked_size(a.shape) == 0) {
    return out ? Array() : allocate(t, type, a.shape, wanted);
  }
  std::vector<int> order;  // the other axes, then `axis`
  for (int d = 0; d < ndim; ++d) {
    if (d != axis) {
      order.push_back(d);
    }
  }
  order.push_back(axis);
  const ArrayView moved = permute(a, order);
  Array input_copy;
  const void *input = compute_input(t, moved, type, input_copy);
  Array computed = allocate(t, type, moved.shape, compute_memory(t));
  MethodLaunch launch;
  launch.signature = &sig;
  launch.method = codegen::MethodKernel::Accumulate;
  launch.len = a.shape[static_cast<std::size_t>(axis)];
  launch.rows = checked_size(a.shape) / launch.len;
  launch.in = input;
  launch.out = computed.data();
  t.backend.runner().run_method(launch);
  const ArrayView logical = unpermute(computed.view(), order);
  return deliver(t, std::move(computed), logical, wanted, out);
}

Array run_outer(const MethodTarget &t, const Operand &a, const Operand &b, const std::optional<Out> &out) {
  if (t.signatures.empty() || t.signatures.front().params.size() != 2) {
    throw DispatchError("outer product only supported for binary functions; '" + t.name + "' takes " +
                        std::to_string(t.signatures.empty() ? 0 : t.signatures.front().params.size()) + " inputs");
  }
  std::vector<Operand> operands = {a, b};
  if (a.kind == Operand::Kind::Array && b.kind == Operand::Kind::Array) {
    // a[..., None, None, ...]: one size-1 dim per dim of b, so that the call
    // broadcasts to a.shape + b.shape.
    validate_view(a.array, [&] { return "input 1 of '" + t.name + "'.outer"; });
    ArrayView expanded = a.array;
    for (int d = 0; d < b.array.ndim(); ++d) {
      expanded.shape.push_back(1);
      expanded.strides.push_back(0);
    }
    operands[0] = Operand(expanded);
  } else if (a.kind == Operand::Kind::Out || b.kind == Operand::Kind::Out) {
    throw InputError("'" + t.name + "'.outer takes out(...) as its third argument");
  }
  if (out) {
    operands.emplace_back(*out);
  }
  return run_call(t.core, t.backend, t.name, t.signatures, operands, nullptr);
}

}  // namespace ufjit::runtime

namespace ufjit {

namespace {

void check_state(const std::shared_ptr<UfuncState> &state) {
  if (!state) {
    throw InputError("this Ufunc is empty (default-constructed or moved from)");
  }
  if (state->generalized) {
    throw DispatchError("'" + state->name + "' is a generalized ufunc (@guvectorize); it has no reduce, accumulate or outer");
  }
}

/// The signatures a method runs with: the ufunc's, or for a dynamic ufunc
/// the one compiled for (a, b) (runtime/DynamicUfunc.h).
runtime::SignatureList method_signatures(UfuncState &state, const Operand &a, const Operand &b) {
  if (!state.dynamic) {
    return runtime::call_signatures(state, {});
  }
  std::size_t chosen = 0;
  runtime::SignatureList all = runtime::signatures_for(state, runtime::dynamic_argument_dtypes({&a, &b}), chosen);
  return std::make_shared<const std::vector<runtime::CompiledSignature>>(1, (*all)[chosen]);
}

/// What a dynamic ufunc compiles for: `a`, or with `dtype=` an array of
/// that dtype (NumPy's loop of the dtype).
Operand with_dtype(const Operand &a, const std::optional<DType> &dtype) {
  if (!dtype || a.kind != Operand::Kind::Array) {
    return a;
  }
  Operand typed = a;
  typed.array.dtype = *dtype;
  return typed;
}

/// The target of a method on `a` (and `where`, `out`): the device of
/// `out`, else of `a`, when they are on a device (runtime/DevicePlacement.h).
runtime::MethodTarget method_target(UfuncState &state, const runtime::SignatureList &signatures,
                                    const Operand &a, const std::optional<Out> &out, const ArrayView *where,
                                    const char *method) {
  runtime::Backend &requested = state.core->backend(state.core->target_for(state.decorator_target));
  const ArrayView *a_view = a.kind == Operand::Kind::Scalar ? nullptr : &a.array;
  const ArrayView *views[] = {a_view, where, out ? &out->view : nullptr};
  if (runtime::all_on_device_of(requested, views)) {
    return runtime::MethodTarget{*state.core, requested, state.name, *signatures, state.identity};
  }
  runtime::DeviceOperands placed;
  placed.views.assign(std::begin(views), std::end(views));
  placed.written = {false, false, true};
  placed.label = [&](std::size_t i) {
    static constexpr const char *kWords[] = {"the array", "where=", "out"};
    return std::string(kWords[i]) + " of '" + state.name + "'." + method;
  };
  runtime::Backend &backend = *runtime::place_on_device(*state.core, requested, placed, nullptr).backend;
  return runtime::MethodTarget{*state.core, backend, state.name, *signatures, state.identity};
}

}  // namespace

Identity Ufunc::identity() const {
  if (!state_) {
    throw InputError("this Ufunc is empty (default-constructed or moved from)");
  }
  return state_->identity;
}

Array Ufunc::reduce(const Operand &a, const ReduceOptions &options, const std::optional<Out> &out) const {
  check_state(state_);
  const Operand typed = with_dtype(a, options.dtype);
  const runtime::SignatureList signatures = method_signatures(*state_, typed, typed);
  const ArrayView *where = options.where ? &*options.where : nullptr;
  return runtime::run_reduce(method_target(*state_, signatures, a, out, where, "reduce"), a, options, out);
}

Array Ufunc::accumulate(const Operand &a, const AccumulateOptions &options, const std::optional<Out> &out) const {
  check_state(state_);
  const Operand typed = with_dtype(a, options.dtype);
  const runtime::SignatureList signatures = method_signatures(*state_, typed, typed);
  return runtime::run_accumulate(method_target(*state_, signatures, a, out, nullptr, "accumulate"), a,
                                 options, out);
}

Array Ufunc::outer(const Operand &a, const Operand &b, const std::optional<Out> &out) const {
  check_state(state_);
  const runtime::SignatureList signatures = method_signatures(*state_, a, b);
  // One ordinary call, placed as calls are.
  return runtime::run_outer(method_target(*state_, signatures, Operand(0), std::nullopt, nullptr, "outer"), a,
                            b, out);
}

}  // namespace ufjit
