// The preparation steps of the ufunc methods (runtime/MethodsPrepare.h).
#include "runtime/MethodsPrepare.h"

#include <algorithm>

#include "runtime/Broadcast.h"
#include "runtime/Call.h"
#include "runtime/Dispatch.h"
#include "runtime/KernelRunner.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime::methods {

ArrayView HostValue::view(DType dtype) const {
  ArrayView v;
  v.data = const_cast<uint8_t *>(bytes.data());
  v.dtype = dtype;
  return v;
}

const ArrayView &array_operand(const MethodTarget &t, const Operand &a, const char *method) {
  check_operand_kind(a.kind, [&] { return "the operand of '" + t.name + "'." + method; });
  if (a.kind != Operand::Kind::Array) {
    throw InputError("'" + t.name + "'." + method + " takes an array, not a scalar or out(...)");
  }
  validate_view(a.array, [&] { return "the array of '" + t.name + "'." + method; });
  check_usable_memory(t.backend, a.array, [&] { return "the array of '" + t.name + "'." + method; });
  return a.array;
}

namespace {

void check_binary(const MethodTarget &t, const char *method) {
  if (t.signatures.empty() || t.signatures.front().params.size() != 2) {
    throw DispatchError(std::string(method) + " only supported for binary functions; '" + t.name + "' takes " +
                        std::to_string(t.signatures.empty() ? 0 : t.signatures.front().params.size()) + " inputs");
  }
}

std::string signature_list(const MethodTarget &t) {
  std::string list;
  for (const CompiledSignature &sig : t.signatures) {
    list += (list.empty() ? "" : ", ") + sig.signature;
  }
  return list;
}

}  // namespace

const CompiledSignature &method_signature(const MethodTarget &t, DType a, const std::optional<DType> &dtype,
                                          const std::optional<Out> &out, const char *method) {
  if (dtype) {
    check_dtype(*dtype, [&] { return "dtype= of '" + t.name + "'." + method; });
  }
  check_binary(t, method);
  if (dtype) {
    for (const CompiledSignature &sig : t.signatures) {
      if (sig.ret == *dtype && sig.params[0] == *dtype && sig.params[1] == *dtype) {
        return sig;
      }
    }
    throw DispatchError("No loop matching the specified signature and casting was found for ufunc '" + t.name +
                        "'." + method + " with dtype=" + std::string(dtype_name(*dtype)) + " (NumPy: the loop " +
                        std::string(dtype_name(*dtype)) + "(" + std::string(dtype_name(*dtype)) + ", " +
                        std::string(dtype_name(*dtype)) + ")); its signatures: " + signature_list(t) +
                        "; add that signature or pick one of these dtypes");
  }
  DispatchInput first;
  first.is_array = true;
  first.dtype = a;
  DispatchInput second = first;
  std::size_t chosen = 0;
  bool found = false;
  if (out) {
    // NumPy resolves a reduction's loop on (out, a), so that out= float64
    // sums integers in float64. Where no signature takes (out, a) (an int64
    // ufunc and a float64 out; a dynamic ufunc compiled for (a, a)), the
    // one for (a, a), its result cast into out.
    first.dtype = out->view.dtype;
    try {
      chosen = resolve_signature(t.name, t.signatures, {first, second});
      found = true;
    } catch (const DispatchError &) {
      first.dtype = a;
    }
  }
  if (!found) {
    chosen = resolve_signature(t.name, t.signatures, {first, second});
  }
  const CompiledSignature &sig = t.signatures.at(chosen);
  if (sig.params[0] != sig.ret || sig.params[1] != sig.ret) {
    throw DispatchError("'" + t.name + "'." + method + " needs a signature whose inputs and result share a type; " +
                        "dispatch on (" + std::string(dtype_name(first.dtype)) + ", " +
                        std::string(dtype_name(a)) + ") chose " + sig.signature);
  }
  return sig;
}

int normalize_axis(int axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    throw ShapeError("axis " + std::to_string(axis) + " is out of bounds for array of dimension " +
                     std::to_string(ndim));
  }
  return axis < 0 ? axis + ndim : axis;
}

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

void convert_into(const MethodTarget &t, const ArrayView &src, const ArrayView &dst) {
  if (src.residence == Residence::Host && dst.residence == Residence::Host && src.dtype == dst.dtype) {
    copy_host_strided(src, dst);
    return;
  }
  const CompiledSignature &cast = t.core.cast_signature(src.dtype, dst.dtype);
  (void)run_call(t.core, t.backend, cast.ufunc_name, {cast}, {Operand(src), Operand(Out{dst})}, nullptr);
}

void fill(const MethodTarget &t, const HostValue &value, DType value_dtype, const ArrayView &dst) {
  const CompiledSignature &cast = t.core.cast_signature(value_dtype, dst.dtype);
  (void)run_call(t.core, t.backend, cast.ufunc_name, {cast}, {Operand(value.view(value_dtype)), Operand(Out{dst})},
                 nullptr);
}

const void *compute_input(const MethodTarget &t, const ArrayView &v, DType dtype, Array &keep) {
  if (v.residence == compute_memory(t) && v.dtype == dtype && v.is_c_contiguous()) {
    return v.data;
  }
  keep = allocate(t, dtype, v.shape, compute_memory(t));
  convert_into(t, v, keep.view());
  return keep.data();
}

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

void check_out(const MethodTarget &t, const std::optional<Out> &out, const std::vector<int64_t> &shape,
               const char *method) {
  if (!out) {
    return;
  }
  validate_view(out->view, [&] { return "out of '" + t.name + "'." + method; });
  check_usable_memory(t.backend, out->view, [&] { return "out of '" + t.name + "'." + method; });
  check_writable(out->view, [&] { return "out of '" + t.name + "'." + method; });
  if (out->view.ndim() != static_cast<int>(shape.size())) {
    // NumPy's words for reduce; accumulate's out has the input's dims.
    throw ShapeError("output parameter for " + std::string(method) + " operation " + t.name +
                     " has the wrong number of dimensions: Found " + std::to_string(out->view.ndim()) +
                     " but expected " + std::to_string(shape.size()) + " (out(...) of '" + t.name + "'." + method +
                     " must have the result's shape " + format_shape(shape) + ")");
  }
  if (out->view.shape != shape) {
    throw ShapeError("out(...) of '" + t.name + "'." + method + " has shape " + format_shape(out->view.shape) +
                     " but the result has shape " + format_shape(shape));
  }
}

std::optional<HostValue> identity_value(const MethodTarget &t, DType type) {
  if (t.identity != Identity::Zero && t.identity != Identity::One) {
    return std::nullopt;
  }
  Scalar one_or_zero;
  one_or_zero.dtype = DType::Int64;
  one_or_zero.value.i = t.identity == Identity::One ? 1 : 0;
  HostValue value;
  value.bytes = convert_scalar(one_or_zero, type);
  return value;
}

ArrayView where_mask(const MethodTarget &t, const ArrayView &where, const std::vector<int64_t> &shape) {
  validate_view(where, [&] { return "where= of '" + t.name + "'.reduce"; });
  if (where.dtype != DType::Bool) {
    throw DispatchError("where= of '" + t.name + "'.reduce must be a bool array: cannot cast array data from dtype('" +
                        std::string(dtype_name(where.dtype)) + "') to dtype('bool') according to the rule 'safe' " +
                        "(NumPy's words); compare it, e.g. mask != 0");
  }
  check_usable_memory(t.backend, where, [&] { return "where= of '" + t.name + "'.reduce"; });
  if (!broadcasts_to(where.shape, shape)) {
    throw ShapeError("where= of '" + t.name + "'.reduce has shape " + format_shape(where.shape) +
                     ", which does not broadcast to the input's shape " + format_shape(shape) +
                     " (NumPy: operands could not be broadcast together)");
  }
  return broadcast_to(where, shape);
}

namespace {

/// The view of shape `shape` (kept dims, then `reduced` reduced dims) over
/// the elements 1.. of each row of a C-contiguous [rows, width] `buffer`.
ArrayView row_tails(const ArrayView &buffer, const std::vector<int64_t> &shape, int reduced, int64_t width) {
  ArrayView v = buffer;
  const auto esize = static_cast<int64_t>(dtype_size(buffer.dtype));
  v.shape = shape;
  v.strides.assign(shape.size(), 0);
  int64_t stride = esize;
  const auto ndim = static_cast<int>(shape.size());
  for (int d = ndim - 1; d >= ndim - reduced; --d) {
    v.strides[static_cast<std::size_t>(d)] = stride;
    stride *= shape[static_cast<std::size_t>(d)];
  }
  stride = width * esize;
  for (int d = ndim - reduced - 1; d >= 0; --d) {
    v.strides[static_cast<std::size_t>(d)] = stride;
    stride *= shape[static_cast<std::size_t>(d)];
  }
  v.data = static_cast<uint8_t *>(buffer.data) + esize;
  return v;
}

/// Column 0 of a C-contiguous [rows, width] `buffer`.
ArrayView first_column(const ArrayView &buffer, int64_t rows, int64_t width) {
  ArrayView v = buffer;
  v.shape = {rows};
  v.strides = {width * static_cast<int64_t>(dtype_size(buffer.dtype))};
  return v;
}

}  // namespace

void run_masked_reduce(const MethodTarget &t, const CompiledSignature &sig, const ArrayView &a,
                       const ArrayView &mask, int reduced, const HostValue &start, Array &computed) {
  const auto ndim = static_cast<int>(a.shape.size());
  int64_t rows = 1;
  int64_t len = 1;
  for (int d = 0; d < ndim; ++d) {
    (d < ndim - reduced ? rows : len) *= a.shape[static_cast<std::size_t>(d)];
  }
  const int64_t width = len + 1;
  Array values = allocate(t, sig.ret, {rows, width}, compute_memory(t));
  Array takes = allocate(t, DType::Bool, {rows, width}, compute_memory(t));
  fill(t, start, sig.ret, first_column(values.view(), rows, width));
  HostValue yes;
  yes.bytes[0] = 1;
  fill(t, yes, DType::Bool, first_column(takes.view(), rows, width));
  convert_into(t, a, row_tails(values.view(), a.shape, reduced, width));
  convert_into(t, mask, row_tails(takes.view(), a.shape, reduced, width));
  MethodLaunch launch;
  launch.signature = &sig;
  launch.method = codegen::MethodKernel::Reduce;
  launch.rows = rows;
  launch.len = width;
  launch.in = values.data();
  launch.out = computed.data();
  launch.where = takes.data();
  t.backend.runner().run_method(launch);
}

std::string identity_name(Identity identity) {
  return identity == Identity::Reorderable ? "'reorderable'" : "None";
}

}  // namespace ufjit::runtime::methods
