// Generalized ufuncs (@guvectorize): the layout "(m,n),(n,p)->(m,p)" as the
// runtime uses it (built from the frontend's parsed one: one parser,
// frontend/Signature.h) and the schedule of one call, a pure function of the operands' shapes
// (numba-cuda's GUFuncEngine.schedule), kept beside Broadcast.h.
//
// Each operand's last len(core dims) dims are its core; the dims before them
// (outer, loop dims) broadcast with NumPy's rules, as for ufuncs. A core dim
// name has one size across every operand that names it (no broadcasting of
// core dims, as NumPy); a mismatch is a ShapeError naming the dim and both
// operands.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "frontend/Signature.h"
#include "ufjit/dims.h"

namespace ufjit::runtime {

struct GufuncLayout {
  std::string text;                               // canonical: "(m,n),(n,p)->(m,p)"
  std::vector<std::vector<std::string>> inputs;   // core dim names per input
  std::vector<std::vector<std::string>> outputs;  // core dim names per output
  /// Per input: whether the body may write it (`writable_args=`). Such an
  /// input is never read through a copy (casts are refused; overlap with an
  /// output is not staged), and a host input of a GPU call is copied back.
  std::vector<bool> writable;
  std::size_t operands() const { return inputs.size() + outputs.size(); }
  /// Core dims of operand k (inputs, then outputs).
  const std::vector<std::string> &core(std::size_t k) const {
    return k < inputs.size() ? inputs[k] : outputs[k - inputs.size()];
  }
};

/// The runtime's layout of the frontend's parsed `core`; `writable_args`
/// are parameter indices (frontend::UfuncOptions::writable_args).
GufuncLayout make_gufunc_layout(const frontend::GufuncLayout &core,
                                const std::vector<int> &writable_args = {});

/// The shapes of one gufunc call.
struct GufuncSchedule {
  std::vector<int64_t> loop_shape;  // the broadcast outer dims
  int64_t loop_size = 1;            // product of loop_shape
  std::map<std::string, int64_t> dims;            // every core dim's size
  std::vector<std::vector<int64_t>> input_core;   // per input
  std::vector<std::vector<int64_t>> output_core;  // per output
  /// loop_shape + output_core[k]: the shape of output k.
  std::vector<std::vector<int64_t>> output_shapes;
};

/// Schedules a call with inputs of `input_shapes` (a scalar is `{}`) and,
/// when given (all or none), outputs of `out_shapes`. Outputs never
/// broadcast: their outer dims must be the loop shape. A core dim only an
/// output names takes its size from that output, and must come from an
/// `out` otherwise. Throws ShapeError (messages name `ufunc_name`).
GufuncSchedule schedule(const GufuncLayout &layout, const std::vector<std::vector<int64_t>> &input_shapes,
                        const std::vector<std::vector<int64_t>> &out_shapes, const std::string &ufunc_name);

/// The loop dims a gufunc kernel walks: size-1 loop dims dropped and adjacent
/// ones merged where every operand walks them contiguously (the outer dim's
/// stride is the inner's times the inner's size), in the loop's order, so
/// the iteration order is the call's.
struct MergedLoop {
  Dims shape;                          // the merged loop shape
  std::vector<std::size_t> innermost;  // per merged dim: the loop dim whose strides it takes
};

/// MergedLoop of `loop_shape` for operands whose loop strides (bytes, 0 on
/// broadcast dims; loop_shape.size() values each) are `loop_strides`.
MergedLoop merge_loop_dims(const Dims &loop_shape, const std::vector<Dims> &loop_strides);

}  // namespace ufjit::runtime
