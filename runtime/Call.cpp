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

#include <algorithm>
#include <cstring>

#include "support/InternalAssert.h"

#include "runtime/Broadcast.h"
#include "runtime/CallPlan.h"
#include "runtime/DeviceSplit.h"
#include "runtime/DevicePlacement.h"
#include "runtime/Dispatch.h"
#include "runtime/KernelRunner.h"
#include "runtime/SmallVector.h"
#include "runtime/ViewChecks.h"

namespace ufjit::runtime {

namespace {

std::string operand_label(std::size_t index) { return "input " + std::to_string(index + 1); }

/// Operand pointers of one call: inline for the usual few (no allocation).
using OperandList = SmallVector<const Operand *, 8>;

struct SplitOperands {
  OperandList inputs;
  const Operand *out = nullptr;  // elementwise calls: the one out(...)
  OperandList outs;              // every out(...), in order
};

/// Step 1a: inputs and out(...) operands. `max_outs`: 1 for ufuncs.
void split_operands(std::span<const Operand> operands, std::size_t max_outs, SplitOperands &split) {
  for (const Operand &op : operands) {
    check_operand_kind(op.kind, [&] { return "operand " + std::to_string(&op - operands.data() + 1); });
    if (op.kind != Operand::Kind::Out) {
      split.inputs.push_back(&op);
      continue;
    }
    if (split.outs.size() == max_outs) {
      throw DispatchError(max_outs == 1 ? std::string("a call takes at most one out(...) operand")
                                        : "a call takes at most " + std::to_string(max_outs) +
                                              " out(...) operands (one per output)");
    }
    split.outs.push_back(&op);
  }
  split.out = split.outs.empty() ? nullptr : split.outs.front();
}

/// The words for out(...) operand `k` in errors.
std::string out_label(const SplitOperands &split, std::size_t k) {
  return split.outs.size() == 1 ? std::string("out") : "out " + std::to_string(k + 1);
}

/// Step 1b: every view is checked before anything else.
void validate_operands(const SplitOperands &split, const std::string &ufunc_name) {
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    auto label = [&] { return operand_label(i) + " of '" + ufunc_name + "'"; };
    if (split.inputs[i]->kind == Operand::Kind::Array) {
      validate_view(split.inputs[i]->array, label);
    } else {
      check_scalar(split.inputs[i]->scalar, label);
    }
  }
  for (std::size_t k = 0; k < split.outs.size(); ++k) {
    auto label = [&] { return out_label(split, k) + " of '" + ufunc_name + "'"; };
    validate_view(split.outs[k]->array, label);
    check_writable(split.outs[k]->array, label);
  }
}

/// Step 2: the signature the inputs dispatch to.
const CompiledSignature &resolve(const SplitOperands &split, const std::string &ufunc_name,
                                 const std::vector<CompiledSignature> &signatures) {
  // Arrays only (the usual call): dispatch's first phase is the first
  // signature whose parameters equal the dtypes, and nothing later applies
  // (the integer-fit check is for weak scalars); found here without
  // building dispatch inputs. Anything else takes the full rules.
  bool arrays_only = !signatures.empty() && signatures.front().params.size() == split.inputs.size();
  for (const Operand *op : split.inputs) {
    arrays_only = arrays_only && op->kind == Operand::Kind::Array;
  }
  for (std::size_t s = 0; arrays_only && s < signatures.size(); ++s) {
    const std::vector<DType> &params = signatures[s].params;
    bool exact = params.size() == split.inputs.size();  // else resolve_signature words the error
    for (std::size_t i = 0; exact && i < params.size(); ++i) {
      exact = split.inputs[i]->array.dtype == params[i];
    }
    if (exact) {
      return signatures[s];
    }
  }
  SmallVector<DispatchInput, 8> dispatch;
  for (const Operand *op : split.inputs) {
    dispatch.push_back(dispatch_input(*op));
  }
  return signatures.at(
      resolve_signature(ufunc_name, signatures, std::span<const DispatchInput>(dispatch.data(), dispatch.size())));
}

/// Where a new result lives: the device if any array input is there.
Residence result_residence(const SplitOperands &split) {
  for (const Operand *op : split.inputs) {
    if (op->kind == Operand::Kind::Array && op->array.residence == Residence::Device) {
      return Residence::Device;
    }
  }
  return Residence::Host;
}

/// Residence checks: the CPU target touches host memory only; async calls
/// take device operands only (staging would need the host to wait).
void check_residence(const Backend &backend, const SplitOperands &split, StreamImpl *stream) {
  for (std::size_t i = 0; i < split.inputs.size() + split.outs.size(); ++i) {
    const bool is_out = i >= split.inputs.size();
    const Operand *op = is_out ? split.outs[i - split.inputs.size()] : split.inputs[i];
    if (op->kind == Operand::Kind::Scalar) {
      continue;
    }
    auto label = [&] { return !is_out ? operand_label(i) : out_label(split, i - split.inputs.size()); };
    check_usable_memory(backend, op->array, label);
    if (stream != nullptr && op->array.residence == Residence::Host) {
      throw InputError("an async call takes device arrays only: " + label() + " (" + op->array.describe() +
                       ") is on the host; copy it with Runtime::to_device first");
    }
  }
  if (stream != nullptr && backend.kind() != TargetKind::Cuda) {
    throw InputError("an async call needs the CUDA target");
  }
}

/// Where a call runs (DevicePlacement.h), and what it may use there.
struct Placement {
  Backend *backend = nullptr;
  /// Non-empty: some inputs were on a device the call's cannot read; the
  /// call runs again on these operands, which read `copies` instead.
  std::vector<Operand> staged;
  std::vector<Array> copies;
  Residence residence = Residence::Host;  // of a new result
};

/// Step 3 of an elementwise or gufunc call: its device, then the residence
/// checks (when no input had to be copied).
Placement place_call(RuntimeCore &core, Backend &requested, std::span<const Operand> operands,
                     const SplitOperands &split, const std::string &ufunc_name, StreamImpl *stream) {
  Placement placed;
  placed.backend = &place_ufunc_call(core, requested, operands, ufunc_name, stream, placed.staged, placed.copies);
  if (placed.staged.empty()) {
    check_residence(*placed.backend, split, stream);
    placed.residence = result_residence(split);
  }
  return placed;
}

/// The shape the array inputs broadcast to (NumPy's rules). Inputs of one
/// shape, the usual call, need no broadcasting: the result is then a
/// reference to the first one's shape (no copy); else `storage` holds it.
const Dims &broadcast_inputs(const SplitOperands &split, Dims &storage) {
  const Dims *first = nullptr;
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
    storage.clear();
    return storage;
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
  storage = broadcast_shapes(shapes);
  return storage;
}

/// The shape of the call: the inputs' broadcast shape, or `out`'s shape when
/// one is given, to which the inputs then broadcast (NumPy: `f(row, 1.0,
/// out=matrix)` works; `out` itself is never broadcast). A reference to an
/// operand's shape or to `storage`.
const Dims &call_shape(const SplitOperands &split, const std::string &ufunc_name, Dims &storage) {
  const Dims &shape = broadcast_inputs(split, storage);
  if (split.out == nullptr) {
    return shape;
  }
  const Dims &target = split.out->array.shape;
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
bool must_stage(const ArrayView &in, const ArrayView &out, const Dims &shape) {
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

/// Step 4b: an async call cannot wait for a temporary cast of a device
/// operand (the generated cast ufunc runs synchronously).
void check_async_casts(const SplitOperands &split, const CompiledSignature &sig, const std::string &ufunc_name,
                       StreamImpl *stream) {
  if (stream == nullptr) {
    return;
  }
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand *op = split.inputs[i];
    if (op->kind == Operand::Kind::Array && op->array.residence == Residence::Device &&
        op->array.dtype != sig.params[i]) {
      throw DispatchError("an async call of '" + ufunc_name + "' would need a temporary cast of a device operand to " +
                          sig.signature + "'s parameter type; convert it first or call synchronously");
    }
  }
}

/// Step 5 of an elementwise call: scalars (and one-element host arrays) as
/// kernel parameters, converted copies for casts and for inputs that overlap
/// `out`, then views broadcast to `shape`. `full_shape_inputs` collects the
/// inputs that vote for a new output's memory order.
void place_inputs(RuntimeCore &core, Backend &backend, const SplitOperands &split, const Dims &shape,
                  int64_t size, StreamImpl *stream, PreparedCall &call, std::vector<Array> &temporaries,
                  std::vector<ArrayView> &full_shape_inputs) {
  const CompiledSignature &sig = *call.signature;
  call.inputs.resize(split.inputs.size());
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand &op = *split.inputs[i];
    PreparedOperand &p = call.inputs[i];  // may hold a pooled call's old values: set every field
    p.dtype = sig.params[i];
    p.is_scalar = false;
    const bool single_host_element =
        op.kind == Operand::Kind::Array && op.array.residence == Residence::Host && op.array.size() == 1;
    if (op.kind == Operand::Kind::Scalar || single_host_element) {
      const Scalar value = op.kind == Operand::Kind::Scalar ? op.scalar : read_single_element(op.array);
      p.is_scalar = true;
      p.scalar_bytes = convert_scalar(value, p.dtype);
      continue;
    }
    const ArrayView *source = &op.array;
    if (source->dtype != p.dtype && size > 0) {
      // A converted copy: also the end of any overlap with `out`.
      temporaries.push_back(convert(core, backend, *source, p.dtype, nullptr));
      source = &temporaries.back().view();
    } else if (size > 0 && split.out != nullptr && must_stage(*source, split.out->array, shape)) {
      temporaries.push_back(convert(core, backend, *source, source->dtype, stream));
      source = &temporaries.back().view();
    }
    p.array = *source;  // into the pooled view's vectors: no allocation
    p.array.dtype = p.dtype;
    if (p.array.shape != shape) {
      p.array = broadcast_to(p.array, shape);
    } else if (split.out == nullptr && shape.size() > 1) {
      full_shape_inputs.push_back(p.array);
    }
  }
}

}  // namespace

Array allocate_call_output(Backend &backend, DType dtype, const Dims &shape,
                           const std::vector<ArrayView> &full_shape_inputs, Residence residence, StreamImpl *stream) {
  if (shape.size() <= 1) {
    return backend.make_output(dtype, shape, residence, stream);  // one memory order only
  }
  const std::vector<int> order = output_memory_order(shape, full_shape_inputs);
  Dims memory_shape;
  for (int d : order) {
    memory_shape.push_back(shape[static_cast<std::size_t>(d)]);
  }
  Array allocated = backend.make_output(dtype, memory_shape, residence, stream);
  const ArrayView out_view = unpermute(allocated.view(), order);
  return Array(out_view, allocated.holder());
}

Array run_call(RuntimeCore &core, Backend &requested, const std::string &ufunc_name,
               const std::vector<CompiledSignature> &signatures, std::span<const Operand> operands,
               StreamImpl *stream, LastCallPlan *plan) {
  // ---- 1. operands and their views
  SplitOperands split;
  split_operands(operands, 1, split);
  validate_operands(split, ufunc_name);

  // ---- 2. resolve the signature
  const CompiledSignature &sig = resolve(split, ufunc_name, signatures);

  // ---- 3. residence: the device the call runs on, then what it may use
  const Placement placed = place_call(core, requested, operands, split, ufunc_name, stream);
  Backend &backend = *placed.backend;
  if (!placed.staged.empty()) {
    return run_call(core, backend, ufunc_name, signatures, std::span<const Operand>(placed.staged), stream);
  }
  const Residence residence = placed.residence;

  // ---- 4. broadcasting and `out` checks
  Dims shape_storage;  // used only when the shape is no operand's
  const Dims &shape = call_shape(split, ufunc_name, shape_storage);
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
  check_async_casts(split, sig, ufunc_name, stream);
  // Every user-visible check is done: from here on we allocate and launch.

  // ---- 5. place arguments: scalars as parameters, casts, broadcast views
  std::vector<Array> temporaries;  // converted operands; live until the call returns
  PooledCall pooled(core.call_pool());
  PreparedCall &call = *pooled;
  call.signature = &sig;
  std::vector<ArrayView> full_shape_inputs;  // vote for a new output's memory order
  place_inputs(core, backend, split, shape, size, stream, call, temporaries, full_shape_inputs);

  // ---- 6. allocate the output, in the inputs' memory order (NumPy's K)
  Array result;
  if (split.out == nullptr) {
    result = allocate_call_output(backend, sig.ret, shape, full_shape_inputs, residence, stream);
  }
  if (size == 0) {
    return result;
  }
  call.output = split.out != nullptr ? split.out->array : result.view();

  // ---- 7. collapse dims, then size and launch (the backend)
  SmallVector<ArrayView *, 9> views;
  views.push_back(&call.output);
  for (PreparedOperand &p : call.inputs) {
    if (!p.is_scalar) {
      views.push_back(&p.array);
    }
  }
  if (shape.size() == 1 && shape[0] != 1) {
    call.shape = shape;  // 1-D: nothing to collapse; copied into the pooled vector
  } else {
    call.shape = collapse_dims(shape, std::span<ArrayView *const>(views.data(), views.size()), codegen::kMaxDims);
  }
  call.size = size;
  if (run_across_devices(core, backend, call, stream)) {
    return result;  // no plan: a plan's calls run on one device
  }
  if (plan != nullptr) {
    plan->record(operands, call,
                 {&requested, &backend, stream != nullptr, &shape, &full_shape_inputs, residence});
  }
  backend.runner().execute(call, stream);
  return result;
}

// ------------------------------------------------------------------ gufuncs

namespace {

/// `view` (outer dims, then `core` layout dims) as the kernel reads it: outer
/// dims broadcast to `loop_shape` (stride 0 where they grow), then
/// `param_ndim - core` size-1 dims, then the core dims.
ArrayView gufunc_view(const ArrayView &view, std::size_t core, const Dims &loop_shape,
                      int param_ndim) {
  const std::size_t outer = view.shape.size() - core;
  ArrayView outer_view = view;
  outer_view.shape.resize(outer);
  outer_view.strides.resize(outer);
  ArrayView placed = outer_view.shape == loop_shape ? outer_view : broadcast_to(outer_view, loop_shape);
  const std::size_t pad = static_cast<std::size_t>(param_ndim) - core;
  placed.shape.insert(placed.shape.end(), pad, 1);
  placed.strides.insert(placed.strides.end(), pad, 0);
  placed.shape.insert(placed.shape.end(), view.shape.begin() + static_cast<std::ptrdiff_t>(outer), view.shape.end());
  placed.strides.insert(placed.strides.end(), view.strides.begin() + static_cast<std::ptrdiff_t>(outer),
                        view.strides.end());
  return placed;
}

/// The first `loop_ndim` strides of `view`: its loop strides as the kernel reads them.
Dims loop_strides_of(const ArrayView &view, std::size_t loop_ndim) {
  return Dims(view.strides.begin(), view.strides.begin() + static_cast<std::ptrdiff_t>(loop_ndim));
}

/// Rewrites `call` to walk `merged` (merge_loop_dims of its own loop shape
/// and operands): fewer, longer loop dims, the same elements in the same order.
void apply_merged_loop(PreparedGufunc &call, const MergedLoop &merged) {
  const std::size_t loop_ndim = call.loop_shape.size();
  for (ArrayView &op : call.operands) {
    Dims shape = merged.shape;
    Dims strides;
    for (std::size_t d : merged.innermost) {
      strides.push_back(op.strides[d]);
    }
    shape.insert(shape.end(), op.shape.begin() + static_cast<std::ptrdiff_t>(loop_ndim), op.shape.end());
    strides.insert(strides.end(), op.strides.begin() + static_cast<std::ptrdiff_t>(loop_ndim),
                   op.strides.end());
    op.shape = std::move(shape);
    op.strides = std::move(strides);
  }
  call.loop_shape = merged.shape;
}

/// Whether the kernel reads input `view` through a converted copy: another
/// dtype than the parameter's, or (unless the body writes it) an overlap
/// with an output.
bool reads_through_copy(const ArrayView &view, DType param, bool writable,
                        const std::vector<ArrayView> &outs) {
  if (view.dtype != param) {
    return true;
  }
  for (const ArrayView &out : outs) {
    if (!writable && out.residence == view.residence && may_overlap(view, out)) {
      return true;
    }
  }
  return false;
}

/// Step 4c: the kernel takes at most codegen::kMaxDims loop dims, counted
/// after size-1 dims are dropped and contiguous ones merged (as the launch
/// does, below). Before anything is allocated, the operands' strides are
/// known but those of converted copies: with one, no merge is counted.
void check_loop_dims(const SplitOperands &split, const CompiledSignature &sig, const GufuncLayout &layout,
                     const GufuncSchedule &plan, const std::string &ufunc_name) {
  const Dims loop_shape(plan.loop_shape);
  const std::size_t loop_ndim = loop_shape.size();
  std::vector<ArrayView> given_outs;
  for (const Operand *op : split.outs) {
    given_outs.push_back(op->array);
  }
  std::vector<Dims> strides;
  bool copied = false;
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand &op = *split.inputs[i];
    if (op.kind == Operand::Kind::Scalar) {
      strides.emplace_back(loop_ndim, 0);
      continue;
    }
    copied = copied || reads_through_copy(op.array, sig.params[i], layout.writable[i], given_outs);
    const ArrayView placed = gufunc_view(op.array, layout.inputs[i].size(), loop_shape, sig.arg_ndims[i]);
    strides.push_back(loop_strides_of(placed, loop_ndim));
  }
  for (std::size_t k = 0; k < layout.outputs.size(); ++k) {
    const ArrayView out = split.outs.empty()
                              ? c_contiguous_host_view(sig.out_dtypes[k], Dims(plan.output_shapes[k]))
                              : given_outs[k];
    strides.push_back(loop_strides_of(out, loop_ndim));
  }
  std::size_t dims = merge_loop_dims(loop_shape, strides).shape.size();
  if (copied) {
    dims = static_cast<std::size_t>(
        std::count_if(loop_shape.begin(), loop_shape.end(), [](int64_t d) { return d != 1; }));
  }
  if (dims > static_cast<std::size_t>(codegen::kMaxDims)) {
    throw ShapeError("'" + ufunc_name + "': the call has " + std::to_string(dims) +
                     " loop dimensions after dropping size-1 ones and merging contiguous ones" +
                     (copied ? " (an input read through a converted copy merges none)" : "") +
                     " (loop shape " + format_shape(plan.loop_shape) + "); at most " + std::to_string(codegen::kMaxDims) +
                     " are supported: reshape the operands' outer dimensions");
  }
}

/// A 0-d array holding a scalar operand converted to `dtype`, in `residence`.
Array scalar_array(Backend &backend, const Scalar &value, DType dtype, Residence residence) {
  Array host = allocate_host(dtype, {});
  const std::array<uint8_t, 16> bytes = convert_scalar(value, dtype);
  std::memcpy(host.data(), bytes.data(), dtype_size(dtype));
  if (residence == Residence::Device) {
    return backend.to_device(host.view());
  }
  return host;
}

/// `v` with its dims `core_axes` (normalized) moved last, in that order.
ArrayView move_axes_last(const ArrayView &v, const std::vector<int> &core_axes) {
  ArrayView moved = v;
  moved.shape.clear();
  moved.strides.clear();
  for (int d = 0; d < v.ndim(); ++d) {
    if (std::find(core_axes.begin(), core_axes.end(), d) == core_axes.end()) {
      moved.shape.push_back(v.shape[static_cast<std::size_t>(d)]);
      moved.strides.push_back(v.strides[static_cast<std::size_t>(d)]);
    }
  }
  for (int d : core_axes) {
    moved.shape.push_back(v.shape[static_cast<std::size_t>(d)]);
    moved.strides.push_back(v.strides[static_cast<std::size_t>(d)]);
  }
  return moved;
}

/// The inverse for a new output (core dims last): core dim j goes to axis
/// core_axes[j], the loop dims fill the other axes in order.
ArrayView place_core_axes(const ArrayView &v, const std::vector<int> &core_axes) {
  ArrayView placed = v;
  const std::size_t loop = v.shape.size() - core_axes.size();
  std::size_t next_loop = 0;
  for (std::size_t d = 0; d < v.shape.size(); ++d) {
    const auto it = std::find(core_axes.begin(), core_axes.end(), static_cast<int>(d));
    const std::size_t from = it != core_axes.end() ? loop + static_cast<std::size_t>(it - core_axes.begin()) : next_loop++;
    placed.shape[d] = v.shape[from];
    placed.strides[d] = v.strides[from];
  }
  return placed;
}

/// NumPy's axes=/axis=: each operand's core axes, normalized and checked.
std::vector<std::vector<int>> resolve_core_axes(const GufuncLayout &layout, const CoreAxes &axes,
                                                const std::vector<int> &ndims, const std::string &ufunc_name) {
  const std::size_t n = layout.operands();
  std::vector<std::vector<int>> entries = axes.axes;
  if (axes.axis) {
    if (!axes.axes.empty()) {
      throw InputError("'" + ufunc_name + "': give axes= or axis=, not both");
    }
    std::string shared;
    for (std::size_t k = 0; k < n; ++k) {
      const std::vector<std::string> &c = layout.core(k);
      if (c.size() > 1 || (c.size() == 1 && !shared.empty() && c[0] != shared)) {
        throw InputError("'" + ufunc_name + "': axis= needs operands with at most one core dimension, all the same "
                         "(layout '" + layout.text + "'); use axes=");
      }
      if (c.size() == 1) {
        shared = c[0];
      }
      entries.push_back(c.empty() ? std::vector<int>{} : std::vector<int>{*axes.axis});
    }
  }
  while (entries.size() < n && layout.core(entries.size()).empty() && entries.size() >= layout.inputs.size()) {
    entries.emplace_back();  // outputs without core dims may be left out
  }
  if (entries.size() != n) {
    throw InputError("'" + ufunc_name + "': axes= has " + std::to_string(axes.axes.size()) + " entries; layout '" +
                     layout.text + "' has " + std::to_string(n) + " operands");
  }
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t core = layout.core(k).size();
    std::vector<int> &e = entries[k];
    if (e.size() != core) {
      throw InputError("'" + ufunc_name + "': axes= entry " + std::to_string(k + 1) + " names " +
                       std::to_string(e.size()) + " axes; the operand has " + std::to_string(core) +
                       " core dimensions in layout '" + layout.text + "'");
    }
    for (int &a : e) {
      const int nd = ndims[k];
      if (a < -nd || a >= nd) {
        throw InputError("'" + ufunc_name + "': axis " + std::to_string(a) + " is out of bounds for operand " +
                         std::to_string(k + 1) + " of " + std::to_string(nd) + " dimensions");
      }
      a = a < 0 ? a + nd : a;
    }
    for (std::size_t i = 0; i < e.size(); ++i) {
      if (std::find(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(i), e[i]) != e.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw InputError("'" + ufunc_name + "': axes= entry " + std::to_string(k + 1) + " repeats axis " +
                         std::to_string(e[i]));
      }
    }
  }
  return entries;
}

/// A call with axes=/axis=: the operands' core axes moved last (views), the
/// call run as usual, new outputs' core dims put at their axes.
std::vector<Array> run_with_core_axes(RuntimeCore &core, Backend &backend, const std::string &ufunc_name,
                                      const std::vector<CompiledSignature> &signatures,
                                      std::span<const Operand> operands, StreamImpl *stream, const CoreAxes &axes) {
  const GufuncLayout &layout = *signatures.front().layout;
  SplitOperands split;
  split_operands(operands, layout.outputs.size(), split);
  validate_operands(split, ufunc_name);
  // Operand dims; a new output has the loop dims (the most outer dims of any
  // operand) and its core dims.
  std::vector<int> ndims;
  int loop_ndim = 0;
  for (std::size_t k = 0; k < split.inputs.size() + split.outs.size(); ++k) {
    const Operand *op = k < split.inputs.size() ? split.inputs[k] : split.outs[k - split.inputs.size()];
    ndims.push_back(op->kind == Operand::Kind::Scalar ? 0 : op->array.ndim());
    if (k < layout.operands()) {
      loop_ndim = std::max(loop_ndim, ndims.back() - static_cast<int>(layout.core(k).size()));
    }
  }
  for (std::size_t k = ndims.size(); k < layout.operands(); ++k) {
    ndims.push_back(loop_ndim + static_cast<int>(layout.core(k).size()));
  }
  if (split.inputs.size() != layout.inputs.size()) {
    throw DispatchError("'" + ufunc_name + "' (layout '" + layout.text + "') takes " +
                        std::to_string(layout.inputs.size()) + " inputs, got " + std::to_string(split.inputs.size()));
  }
  const std::vector<std::vector<int>> entries = resolve_core_axes(layout, axes, ndims, ufunc_name);
  std::vector<Operand> moved(operands.begin(), operands.end());
  std::size_t input = 0;
  std::size_t output = layout.inputs.size();
  for (Operand &op : moved) {
    const std::size_t k = op.kind == Operand::Kind::Out ? output++ : input++;
    if (op.kind != Operand::Kind::Scalar) {
      op.array = move_axes_last(op.array, entries[k]);
    }
  }
  std::vector<Array> results = run_gufunc_call(core, backend, ufunc_name, signatures, moved, stream, nullptr);
  for (std::size_t k = 0; k < results.size(); ++k) {
    const ArrayView placed = place_core_axes(results[k].view(), entries[layout.inputs.size() + k]);
    results[k] = Array(placed, results[k].holder());
  }
  return results;
}

/// Step 4 of a gufunc call: what the chosen signature requires of the
/// operands (out dtypes, core dims, output sizes, writable_args inputs of its
/// own dtypes in writable memory).
void check_gufunc_signature(const SplitOperands &split, const CompiledSignature &sig, const GufuncLayout &layout,
                            const GufuncSchedule &plan, const std::string &ufunc_name) {
  for (std::size_t k = 0; k < split.outs.size(); ++k) {
    if (split.outs[k]->array.dtype != sig.out_dtypes[k]) {
      throw DispatchError("out(...) " + std::to_string(k + 1) + " of '" + ufunc_name + "' has dtype " +
                          std::string(dtype_name(split.outs[k]->array.dtype)) + " but the chosen signature " +
                          sig.signature + " writes " + std::string(dtype_name(sig.out_dtypes[k])));
    }
  }
  for (std::size_t k = 0; k < layout.operands(); ++k) {
    if (static_cast<std::size_t>(sig.arg_ndims[k]) < layout.core(k).size()) {
      throw DispatchError("'" + ufunc_name + "': argument " + std::to_string(k + 1) + " of signature " + sig.signature +
                          " has " + std::to_string(sig.arg_ndims[k]) + " dims but layout '" + layout.text +
                          "' gives it " + std::to_string(layout.core(k).size()) + " core dims");
    }
  }
  for (std::size_t k = 0; split.outs.empty() && k < layout.outputs.size(); ++k) {
    (void)checked_bytes(sig.out_dtypes[k], plan.output_shapes[k]);
  }
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand &op = *split.inputs[i];
    if (layout.writable[i] && op.kind == Operand::Kind::Array) {
      check_writable(op.array, [&] { return "input " + std::to_string(i + 1) + " of '" + ufunc_name + "', in writable_args,"; });
    }
    if (layout.writable[i] && op.kind == Operand::Kind::Array && op.array.dtype != sig.params[i]) {
      throw DispatchError("input " + std::to_string(i + 1) + " of '" + ufunc_name +
                          "' is in writable_args but has dtype " + std::string(dtype_name(op.array.dtype)) +
                          " and the chosen signature " + sig.signature + " takes " +
                          std::string(dtype_name(sig.params[i])) +
                          ": the body would write a converted copy; pass an array of that dtype");
    }
  }
}

/// Step 6 of a gufunc call: every operand as the kernel reads it (scalars as
/// 0-d arrays, casts, copies of inputs that overlap an output, but not of
/// writable_args inputs, whose caller's array the body writes; broadcast
/// outer dims), the temporaries kept in `temporaries`.
PreparedGufunc place_gufunc_operands(RuntimeCore &core, Backend &backend, const SplitOperands &split,
                                     const CompiledSignature &sig, const GufuncSchedule &plan,
                                     const std::vector<ArrayView> &out_views, Residence residence,
                                     StreamImpl *stream, std::vector<Array> &temporaries) {
  const GufuncLayout &layout = *sig.layout;
  PreparedGufunc call;
  call.signature = &sig;
  call.loop_shape = plan.loop_shape;
  call.loop_size = plan.loop_size;
  for (std::size_t i = 0; i < split.inputs.size(); ++i) {
    const Operand &op = *split.inputs[i];
    const DType dtype = sig.params[i];
    ArrayView view;
    if (op.kind == Operand::Kind::Scalar) {
      temporaries.push_back(scalar_array(backend, op.scalar, dtype, residence));
      view = temporaries.back().view();
    } else {
      view = op.array;
      if (reads_through_copy(view, dtype, layout.writable[i], out_views)) {
        temporaries.push_back(convert(core, backend, view, dtype, view.dtype == dtype ? stream : nullptr));
        view = temporaries.back().view();
      }
    }
    call.operands.push_back(gufunc_view(view, layout.inputs[i].size(), plan.loop_shape, sig.arg_ndims[i]));
    call.written.push_back(layout.writable[i] && op.kind == Operand::Kind::Array);
  }
  for (std::size_t k = 0; k < out_views.size(); ++k) {
    call.operands.push_back(gufunc_view(out_views[k], layout.outputs[k].size(), plan.loop_shape,
                                        sig.arg_ndims[split.inputs.size() + k]));
    call.written.push_back(true);
  }

  return call;
}

}  // namespace

std::vector<Array> run_gufunc_call(RuntimeCore &core, Backend &requested, const std::string &ufunc_name,
                                   const std::vector<CompiledSignature> &signatures,
                                   std::span<const Operand> operands, StreamImpl *stream,
                                   const CoreAxes *axes) {
  internal_assert(!signatures.empty() && signatures.front().generalized()) << "run_gufunc_call of a ufunc";
  const GufuncLayout &layout = *signatures.front().layout;
  const std::size_t n_out = layout.outputs.size();
  if (axes != nullptr && (!axes->axes.empty() || axes->axis)) {
    return run_with_core_axes(core, requested, ufunc_name, signatures, operands, stream, *axes);
  }

  // ---- 1. operands and their views
  SplitOperands split;
  split_operands(operands, n_out, split);
  validate_operands(split, ufunc_name);
  if (!split.outs.empty() && split.outs.size() != n_out) {
    throw DispatchError("'" + ufunc_name + "' has " + std::to_string(n_out) +
                        " outputs (layout '" + layout.text + "'); give all of them with out(...) or none, not " +
                        std::to_string(split.outs.size()));
  }

  // ---- 2. resolve the signature on the input dtypes
  const CompiledSignature &sig = resolve(split, ufunc_name, signatures);

  // ---- 3. residence: the device the call runs on, then what it may use
  const Placement placed = place_call(core, requested, operands, split, ufunc_name, stream);
  Backend &backend = *placed.backend;
  if (!placed.staged.empty()) {
    return run_gufunc_call(core, backend, ufunc_name, signatures, std::span<const Operand>(placed.staged), stream);
  }
  const Residence residence = placed.residence;

  // ---- 4. schedule: loop dims, core dims, output shapes; `out` dtypes
  std::vector<std::vector<int64_t>> input_shapes;
  for (const Operand *op : split.inputs) {
    input_shapes.push_back(op->kind == Operand::Kind::Array ? op->array.shape.to_vector() : std::vector<int64_t>{});
  }
  std::vector<std::vector<int64_t>> out_shapes;
  for (const Operand *op : split.outs) {
    out_shapes.push_back(op->array.shape);
  }
  const GufuncSchedule plan = schedule(layout, input_shapes, out_shapes, ufunc_name);
  check_gufunc_signature(split, sig, layout, plan, ufunc_name);
  check_async_casts(split, sig, ufunc_name, stream);
  check_loop_dims(split, sig, layout, plan, ufunc_name);
  // Every user-visible check is done: from here on we allocate and launch.

  // ---- 5. allocate outputs
  std::vector<Array> results;
  std::vector<ArrayView> out_views;
  for (std::size_t k = 0; k < n_out; ++k) {
    if (!split.outs.empty()) {
      out_views.push_back(split.outs[k]->array);
      continue;
    }
    results.push_back(backend.make_output(sig.out_dtypes[k], plan.output_shapes[k], residence, stream));
    out_views.push_back(results.back().view());
  }
  if (plan.loop_size == 0) {
    return results;
  }

  // ---- 6. place the operands
  std::vector<Array> temporaries;
  PreparedGufunc call = place_gufunc_operands(core, backend, split, sig, plan, out_views, residence, stream, temporaries);
  std::vector<Dims> loop_strides;
  for (const ArrayView &op : call.operands) {
    loop_strides.push_back(loop_strides_of(op, call.loop_shape.size()));
  }
  const MergedLoop merged = merge_loop_dims(call.loop_shape, loop_strides);
  internal_assert(merged.shape.size() <= static_cast<std::size_t>(codegen::kMaxDims))
      << "a gufunc call of " << merged.shape.size() << " merged loop dims passed the check before allocation";
  apply_merged_loop(call, merged);

  // ---- 7. launch: across the device set (DeviceSplit.h), else on the call's device
  if (!run_across_devices(core, backend, call, stream)) {
    backend.runner().execute_gufunc(call, stream);
  }
  return results;
}

}  // namespace ufjit::runtime

