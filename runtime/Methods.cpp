// The ufunc methods (runtime/Methods.h) and their public members of Ufunc.
#include "runtime/Methods.h"

#include <algorithm>
#include <array>

#include "runtime/Broadcast.h"
#include "runtime/Call.h"
#include "runtime/Dispatch.h"
#include "runtime/DynamicUfunc.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime {

namespace {

/// A one-element host value of `dtype` that run_call reads as a scalar.
struct HostValue {
  alignas(16) std::array<uint8_t, 16> bytes{};
  ArrayView view(DType dtype) {
    ArrayView v;
    v.data = bytes.data();
    v.dtype = dtype;
    return v;
  }
};

const ArrayView &array_operand(const MethodTarget &t, const Operand &a, const char *method) {
  if (a.kind != Operand::Kind::Array) {
    throw InputError("'" + t.name + "'." + method + " takes an array, not a scalar or out(...)");
  }
  validate_view(a.array, [&] { return "the array of '" + t.name + "'." + method; });
  if (t.backend.kind() == TargetKind::Cpu && a.array.residence == Residence::Device) {
    throw InputError("the CPU target cannot use device memory: the array of '" + t.name + "'." + method + " (" +
                     a.array.describe() + ") is on the device; copy it with Runtime::to_host or call on the CUDA target");
  }
  return a.array;
}

/// The (T, T) -> T signature that dispatch picks for two arrays of `dtype`.
const CompiledSignature &binary_signature(const MethodTarget &t, DType dtype, const char *method) {
  if (t.signatures.empty() || t.signatures.front().params.size() != 2) {
    throw DispatchError(std::string(method) + " only supported for binary functions; '" + t.name + "' takes " +
                        std::to_string(t.signatures.empty() ? 0 : t.signatures.front().params.size()) + " inputs");
  }
  DispatchInput in;
  in.is_array = true;
  in.dtype = dtype;
  const CompiledSignature &sig = t.signatures.at(resolve_signature(t.name, t.signatures, {in, in}));
  if (sig.params[0] != sig.ret || sig.params[1] != sig.ret) {
    throw DispatchError("'" + t.name + "'." + method + " needs a signature whose inputs and result share a type; " +
                        "dispatch on " + std::string(dtype_name(dtype)) + " chose " + sig.signature);
  }
  return sig;
}

/// The axis `axis` of an array of `ndim` dims, negative counting from the end.
int normalize_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw ShapeError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                     std::to_string(ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

/// `v` with dims in the order `order` (shape[i] = v.shape[order[i]]).
ArrayView permute(const ArrayView &v, const std::vector<int> &order) {
  ArrayView p = v;
  for (std::size_t i = 0; i < order.size(); ++i) {
    p.shape[i] = v.shape[static_cast<std::size_t>(order[i])];
    p.strides[i] = v.strides[static_cast<std::size_t>(order[i])];
  }
  return p;
}

Residence compute_memory(const MethodTarget &t) {
  return t.backend.kind() == TargetKind::Cpu ? Residence::Host : Residence::Device;
}

Array allocate(const MethodTarget &t, DType dtype, const std::vector<int64_t> &shape, Residence where) {
  return where == Residence::Host ? allocate_host(dtype, shape) : t.backend.device_empty(dtype, shape);
}

/// dst = src converted to dst's dtype (same shape, any memory and strides).
void convert_into(const MethodTarget &t, const ArrayView &src, const ArrayView &dst) {
  if (src.residence == Residence::Host && dst.residence == Residence::Host && src.dtype == dst.dtype) {
    copy_host_strided(src, dst);
    return;
  }
  const CompiledSignature &cast = t.core.cast_signature(src.dtype, dst.dtype);
  (void)run_call(t.core, t.backend, cast.ufunc_name, {cast}, {Operand(src), Operand(Out{dst})}, nullptr);
}

/// `v` as a C-contiguous array of `dtype` in the backend's memory: `v`
/// itself when it is one, else a converted copy kept in `keep`.
const void *compute_input(const MethodTarget &t, const ArrayView &v, DType dtype, Array &keep) {
  if (v.residence == compute_memory(t) && v.dtype == dtype && v.is_c_contiguous()) {
    return v.data;
  }
  keep = allocate(t, dtype, v.shape, compute_memory(t));
  convert_into(t, v, keep.view());
  return keep.data();
}

/// The result array: `computed` (in the backend's memory) moved where the
/// caller wants it: into `out`, or to the host for a host operand.
Array deliver(const MethodTarget &t, Array computed, const ArrayView &computed_view, Residence wanted,
              const std::optional<Out> &out) {
  if (out) {
    convert_into(t, computed_view, out->view);
    return Array();
  }
  if (computed_view.residence != wanted) {
    return t.backend.to_host(computed_view);
  }
  return Array(computed_view, computed.holder());
}

void check_out(const MethodTarget &t, const std::optional<Out> &out, const std::vector<int64_t> &shape, DType dtype,
               const char *method) {
  if (!out) {
    return;
  }
  validate_view(out->view, [&] { return "out of '" + t.name + "'." + method; });
  if (t.backend.kind() == TargetKind::Cpu && out->view.residence == Residence::Device) {
    throw InputError("the CPU target cannot use device memory: out of '" + t.name + "'." + method + " (" +
                     out->view.describe() + ") is on the device");
  }
  if (out->view.shape != shape) {
    throw ShapeError("out(...) of '" + t.name + "'." + method + " has shape " + format_shape(out->view.shape) +
                     " but the result has shape " + format_shape(shape));
  }
  if (out->view.dtype != dtype) {
    throw DispatchError("out(...) of '" + t.name + "'." + method + " has dtype " +
                        std::string(dtype_name(out->view.dtype)) + " but the result is " +
                        std::string(dtype_name(dtype)));
  }
}

std::string identity_name(Identity identity) {
  return identity == Identity::Reorderable ? "'reorderable'" : "None";
}

}  // namespace

void Backend::run_method(const MethodLaunch & /*launch*/) {
  throw InternalError("this target does not implement ufunc methods");
}

Array run_reduce(const MethodTarget &t, const Operand &a_operand, const ReduceOptions &options,
                 const std::optional<Out> &out) {
  // ---- 1. operand, signature, axes
  const ArrayView &a = array_operand(t, a_operand, "reduce");
  const CompiledSignature &sig = binary_signature(t, a.dtype, "reduce");
  const DType type = sig.ret;
  const int ndim = a.ndim();
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), options.all_axes);
  // NumPy takes one axis 0 (or -1) of a 0-d array as "reduce nothing".
  const bool zero_d_axis = ndim == 0 && (options.axes.empty() || (options.axes.size() == 1 &&
                                                                  (options.axes[0] == 0 || options.axes[0] == -1)));
  if (!options.all_axes && !zero_d_axis) {
    const std::vector<int> axes = options.axes.empty() ? std::vector<int>{0} : options.axes;
    for (int axis : axes) {
      const auto k = static_cast<std::size_t>(normalize_axis(axis, ndim));
      if (reduced[k]) {
        throw ShapeError("duplicate value in 'axis' of '" + t.name + "'.reduce");
      }
      reduced[k] = true;
    }
  }
  std::vector<int> order;  // kept axes, then reduced ones
  std::vector<int64_t> result_shape;
  int64_t rows = 1;
  int64_t len = 1;
  int reduced_count = 0;
  for (int pass = 0; pass < 2; ++pass) {
    for (int d = 0; d < ndim; ++d) {
      const auto k = static_cast<std::size_t>(d);
      if (reduced[k] == (pass == 1)) {
        order.push_back(d);
      }
    }
  }
  for (int d = 0; d < ndim; ++d) {
    const auto k = static_cast<std::size_t>(d);
    if (reduced[k]) {
      len *= a.shape[k];
      ++reduced_count;
      if (options.keepdims) {
        result_shape.push_back(1);
      }
    } else {
      rows *= a.shape[k];
      result_shape.push_back(a.shape[k]);
    }
  }
  if (reduced_count > 1 && t.identity == Identity::None) {
    throw DispatchError("reduction operation '" + t.name +
                        "' is not reorderable, so at most one axis may be specified (give it identity=0, 1 or "
                        "'reorderable')");
  }

  // ---- 2. initial value, `out`, the empty reduction
  HostValue initial;
  const bool has_initial = options.initial.has_value();
  if (has_initial) {
    if (options.initial->kind != Operand::Kind::Scalar) {
      throw InputError("initial of '" + t.name + "'.reduce must be a scalar");
    }
    DispatchInput as_array;
    as_array.is_array = true;
    as_array.dtype = type;
    (void)resolve_signature(t.name, {sig}, {dispatch_input(*options.initial), as_array});  // fits T (NEP 50)
    initial.bytes = convert_scalar(options.initial->scalar, type);
  }
  check_out(t, out, result_shape, type, "reduce");
  const Residence wanted = a.residence;
  if (rows == 0) {
    return out ? Array() : allocate(t, type, result_shape, wanted);
  }
  if (len == 0 || reduced_count == 0) {
    HostValue fill = initial;
    if (reduced_count == 0) {
      // No axis reduced (a 0-d array, or axis=None of 0-d): f(initial, a) or a copy.
    } else if (!has_initial) {
      if (t.identity != Identity::Zero && t.identity != Identity::One) {
        throw ShapeError("zero-size array to reduction operation '" + t.name + "' which has no identity (identity=" +
                         identity_name(t.identity) + "); pass an initial value");
      }
      Scalar one_or_zero;
      one_or_zero.dtype = DType::Int64;
      one_or_zero.value.i = t.identity == Identity::One ? 1 : 0;
      fill.bytes = convert_scalar(one_or_zero, type);
    }
    Array result = out ? Array() : allocate(t, type, result_shape, wanted);
    const ArrayView &dst = out ? out->view : result.view();
    if (len == 0) {
      const CompiledSignature &cast = t.core.cast_signature(type, type);
      (void)run_call(t.core, t.backend, cast.ufunc_name, {cast}, {Operand(fill.view(type)), Operand(Out{dst})},
                     nullptr);
    } else if (has_initial) {
      ArrayView src = a;
      src.shape = result_shape;
      src.strides = ArrayView::c_strides(result_shape, dtype_size(a.dtype));  // all dims 1: strides unused
      (void)run_call(t.core, t.backend, t.name, {sig}, {Operand(initial.view(type)), Operand(src), Operand(Out{dst})},
                     nullptr);
    } else {
      ArrayView src = a;
      src.shape = result_shape;
      src.strides = ArrayView::c_strides(result_shape, dtype_size(a.dtype));
      convert_into(t, src, dst);
    }
    return result;
  }

  // ---- 3. rows of the reduced axes, contiguous in the backend's memory
  Array input_copy;
  const void *input = compute_input(t, permute(a, order), type, input_copy);
  Array computed = allocate(t, type, result_shape, compute_memory(t));
  MethodLaunch launch;
  launch.signature = &sig;
  launch.method = codegen::MethodKernel::Reduce;
  launch.rows = rows;
  launch.len = len;
  launch.in = input;
  launch.out = computed.data();
  t.backend.run_method(launch);
  if (has_initial) {
    (void)run_call(t.core, t.backend, t.name, {sig},
                   {Operand(initial.view(type)), Operand(computed.view()), Operand(Out{computed.view()})}, nullptr);
  }
  const ArrayView computed_view = computed.view();
  return deliver(t, std::move(computed), computed_view, wanted, out);
}

Array run_accumulate(const MethodTarget &t, const Operand &a_operand, const AccumulateOptions &options,
                     const std::optional<Out> &out) {
  const ArrayView &a = array_operand(t, a_operand, "accumulate");
  const CompiledSignature &sig = binary_signature(t, a.dtype, "accumulate");
  const DType type = sig.ret;
  const int ndim = a.ndim();
  if (ndim == 0) {
    throw ShapeError("'" + t.name + "'.accumulate needs an array of at least one dimension (NumPy: cannot " +
                     "accumulate on a scalar)");
  }
  const int axis = normalize_axis(options.axis, ndim);
  check_out(t, out, a.shape, type, "accumulate");
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
  t.backend.run_method(launch);
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

runtime::MethodTarget method_target(UfuncState &state, const runtime::SignatureList &signatures) {
  runtime::Backend &backend = state.core->backend(state.core->target_for(state.decorator_target));
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
  const runtime::SignatureList signatures = method_signatures(*state_, a, a);
  return runtime::run_reduce(method_target(*state_, signatures), a, options, out);
}

Array Ufunc::accumulate(const Operand &a, const AccumulateOptions &options, const std::optional<Out> &out) const {
  check_state(state_);
  const runtime::SignatureList signatures = method_signatures(*state_, a, a);
  return runtime::run_accumulate(method_target(*state_, signatures), a, options, out);
}

Array Ufunc::outer(const Operand &a, const Operand &b, const std::optional<Out> &out) const {
  check_state(state_);
  const runtime::SignatureList signatures = method_signatures(*state_, a, b);
  return runtime::run_outer(method_target(*state_, signatures), a, b, out);
}

}  // namespace ufjit
