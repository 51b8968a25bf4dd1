// The generic ufunc call, the same for every target (STYLE.md 15):
//
//   resolve signature -> broadcast (stride-0 views, never copies) -> place
//   arguments -> allocate output -> size the launch -> launch
//
// Every check (views, dispatch, residence, broadcasting, `out`, sizes)
// happens before anything is allocated, written or launched; the backend's
// execute() sizes and launches. Inputs that overlap `out` are read through a
// copy made before the launch (NumPy's rule: all inputs are read before the
// output is written). The residence rule is written at the top of
// runtime/Backend.h.
#include "runtime/Call.h"

#include "runtime/Broadcast.h"
#include "runtime/Dispatch.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime {

namespace {

std::string operand_label(std::size_t index) { return "input " + std::to_string(index + 1); }

struct SplitOperands {
  std::vector<const Operand *> inputs;
  const Operand *out = nullptr;
};

SplitOperands split_operands(const std::vector<Operand> &operands) {
  SplitOperands split;
  for (const Operand &op : operands) {
    if (op.kind != Operand::Kind::Out) {
      split.inputs.push_back(&op);
      continue;
    }
    if (split.out != nullptr) {
      throw DispatchError("a call takes at most one out(...) operand");
    }
    split.out = &op;
  }
  return split;
}

/// Residence checks: the CPU target touches host memory only; async calls
/// take device operands only (staging would need the host to wait).
void check_residence(const Backend &backend, const SplitOperands &split, StreamImpl *stream) {
  for (std::size_t i = 0; i <= split.inputs.size(); ++i) {
    const bool is_out = i == split.inputs.size();
    const Operand *op = is_out ? split.out : split.inputs[i];
    if (op == nullptr || op->kind == Operand::Kind::Scalar) {
      continue;
    }
    const std::string label = is_out ? std::string("out") : operand_label(i);
    if (backend.kind() == TargetKind::Cpu && op->array.residence == Residence::Device) {
      throw InputError("the CPU target cannot use device memory: " + label + " (" + op->array.describe() +
                        ") is on the device; copy it with Runtime::to_host or call on the CUDA target");
    }
    if (stream != nullptr && op->array.residence == Residence::Host) {
      throw InputError("an async call takes device arrays only: " + label + " (" + op->array.describe() +
                       ") is on the host; copy it with Runtime::to_device first");
    }
  }
  if (stream != nullptr && backend.kind() != TargetKind::Cuda) {
    throw InputError("an async call needs the CUDA target");
  }
}

/// The shape the array inputs broadcast to (NumPy's rules). Inputs of one
/// shape, the usual call, need no broadcasting and no copies of their shapes.
std::vector<int64_t> broadcast_inputs(const SplitOperands &split) {
  const std::vector<int64_t> *first = nullptr;
  bool same = true;
  for (const Operand *op : split.inputs) {
    if (op->kind != Operand::Kind::Array) {
      continue;
    }
    if (first == nullptr) {
      first = &op->array.shape;
    } else {
      same = same && op->array.shape == *first;
    }
  }
  if (first == nullptr) {
    return {};
  }
  if (same) {
    return *first;  // validate_view has checked its size
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const Operand *op : split.inputs) {
    if (op->kind == Operand::Kind::Array) {
      shapes.push_back(op->array.shape);
    }
  }
  return broadcast_shapes(shapes);
}

/// The shape of the call: the inputs' broadcast shape, or `out`'s shape when
/// one is given, to which the inputs then broadcast (NumPy: `f(row, 1.0,
/// out=matrix)` works; `out` itself is never broadcast).
std::vector<int64_t> call_shape(const SplitOperands &split, const std::string &ufunc_name) {
  std::vector<int64_t> shape = broadcast_inputs(split);
  if (split.out == nullptr) {
    return shape;
  }
  const std::vector<int64_t> &target = split.out->array.shape;
  if (!broadcasts_to(shape, target)) {
    throw ShapeError("out(...) of '" + ufunc_name + "' has shape " + format_shape(target) +
                     " but the inputs broadcast to " + format_shape(shape) + ", which does not broadcast to it");
  }
  return target;
}

/// Whether input `in` must be read through a copy because `out` may write
/// bytes it reads before it has read them (NumPy: the result is as if every
/// input were read before any output is written). An input that is exactly
/// the output, element for element, is read and written by the same thread
/// in the same step and needs no copy.
bool must_stage(const ArrayView &in, const ArrayView &out, const std::vector<int64_t> &shape) {
  if (in.residence != out.residence || !may_overlap(in, out)) {
    return false;
  }
  return !same_elements(in.shape == shape ? in : broadcast_to(in, shape), out);
}

/// A new packed copy of `view` with elements converted to `to` (the same
/// dtype: a plain copy), in the view's memory: host copies in C order,
/// device copies by the generated cast ufunc (in the view's memory order)
/// on `stream` (null: synchronously).
Array convert(RuntimeCore &core, Backend &backend, const ArrayView &view, DType to, StreamImpl *stream) {
  if (view.residence == Residence::Host) {
    return convert_host(view, to);
  }
  const CompiledSignature &cast = core.cast_signature(view.dtype, to);
  return run_call(core, backend, cast.ufunc_name, {cast}, {Operand(view)}, stream);
}

/// The value of a one-element host array, as a strong scalar.
Scalar read_single_element(const ArrayView &v) { return scalar_from_bytes(v.data, v.dtype); }

}  // namespace

Array run_call(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
               const std::vector<CompiledSignature> &signatures, const std::vector<Operand> &operands,
               StreamImpl *stream) {
  // ---- 1. operands and their views
  const SplitOperands split = split_operands(operands);
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    if (split.inputs[i]->kind == Operand::Kind::Array) {
      validate_view(split.inputs[i]->array, [&] { return operand_label(i) + " of '" + ufunc_name + "'"; });
    }
  }
  if (split.out != nullptr) {
    validate_view(split.out->array, [&] { return "out of '" + ufunc_name + "'"; });
  }

  // ---- 2. resolve the signature
  std::vector<DispatchInput> dispatch;
  dispatch.reserve(split.inputs.size());
  for (const Operand *op : split.inputs) {
    dispatch.push_back(dispatch_input(*op));
  }
  const CompiledSignature &sig = signatures.at(resolve_signature(ufunc_name, signatures, dispatch));

  // ---- 3. residence
  check_residence(backend, split, stream);
  bool any_device = false;
  for (const Operand *op : split.inputs) {
    any_device = any_device || (op->kind == Operand::Kind::Array && op->array.residence == Residence::Device);
  }
  const Residence result_residence = any_device ? Residence::Device : Residence::Host;

  // ---- 4. broadcasting and `out` checks
  const std::vector<int64_t> shape = call_shape(split, ufunc_name);
  if (split.out != nullptr) {
    const ArrayView &o = split.out->array;
    if (o.dtype != sig.ret) {
      throw DispatchError("out(...) of '" + ufunc_name + "' has dtype " + std::string(dtype_name(o.dtype)) +
                          " but the chosen signature " + sig.signature + " returns " +
                          std::string(dtype_name(sig.ret)));
    }
  }
  const int64_t size = checked_size(shape);
  if (split.out == nullptr) {
    (void)checked_bytes(sig.ret, shape);  // the new output's size fits
  }
  const bool has_device_cast = [&] {
    for (std::size_t i = 0; i < split.inputs.size(); ++i) {
      const Operand *op = split.inputs[i];
      if (op->kind == Operand::Kind::Array && op->array.residence == Residence::Device &&
          op->array.dtype != sig.params[i]) {
        return true;
      }
    }
    return false;
  }();
  if (stream != nullptr && has_device_cast) {
    throw DispatchError("an async call of '" + ufunc_name + "' would need a temporary cast of a device operand to " +
                        sig.signature + "'s parameter type; convert it first or call synchronously");
  }
  // Every user-visible check is done: from here on we allocate and launch.

  // ---- 5. place arguments: scalars as parameters, casts, broadcast views
  std::vector<Array> temporaries;  // converted operands; live until the call returns
  PreparedCall call;
  call.signature = &sig;
  call.inputs.resize(split.inputs.size());
  std::vector<ArrayView> full_shape_inputs;  // vote for a new output's memory order
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand &op = *split.inputs[i];
    PreparedOperand &p = call.inputs[i];
    p.dtype = sig.params[i];
    const bool single_host_element =
        op.kind == Operand::Kind::Array && op.array.residence == Residence::Host && op.array.size() == 1;
    if (op.kind == Operand::Kind::Scalar || single_host_element) {
      const Scalar value = op.kind == Operand::Kind::Scalar ? op.scalar : read_single_element(op.array);
      p.is_scalar = true;
      p.scalar_bytes = convert_scalar(value, p.dtype);
      continue;
    }
    ArrayView view = op.array;
    if (view.dtype != p.dtype && size > 0) {
      // A converted copy: also the end of any overlap with `out`.
      temporaries.push_back(convert(core, backend, view, p.dtype, nullptr));
      view = temporaries.back().view();
    } else if (size > 0 && split.out != nullptr && must_stage(view, split.out->array, shape)) {
      temporaries.push_back(convert(core, backend, view, view.dtype, stream));
      view = temporaries.back().view();
    }
    view.dtype = p.dtype;
    if (split.out == nullptr && shape.size() > 1 && view.shape == shape) {
      full_shape_inputs.push_back(view);
    }
    p.array = view.shape == shape ? std::move(view) : broadcast_to(view, shape);
  }

  // ---- 6. allocate the output, in the inputs' memory order (NumPy's K)
  Array result;
  ArrayView out_view;
  if (split.out != nullptr) {
    out_view = split.out->array;
  } else {
    const std::vector<int> order = output_memory_order(shape, full_shape_inputs);
    std::vector<int64_t> memory_shape;
    for (int d : order) {
      memory_shape.push_back(shape[static_cast<std::size_t>(d)]);
    }
    Array allocated = backend.make_output(sig.ret, memory_shape, result_residence, stream);
    out_view = unpermute(allocated.view(), order);
    result = Array(out_view, allocated.holder());
  }
  if (size == 0) {
    return result;
  }

  // ---- 7. collapse dims, then size and launch (the backend)
  call.output = out_view;
  std::vector<ArrayView *> views = {&call.output};
  for (PreparedOperand &p : call.inputs) {
    if (!p.is_scalar) {
      views.push_back(&p.array);
    }
  }
  call.shape = collapse_dims(shape, views, codegen::kMaxDims);
  call.size = size;
  call.broadcast_shape = shape;
  backend.execute(call, stream);
  return result;
}

}  // namespace ufjit::runtime
