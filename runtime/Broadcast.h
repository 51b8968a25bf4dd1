// NumPy broadcasting and dimension collapsing for elementwise calls.
//
// Broadcasting produces stride-0 views, never copies. Collapsing reorders the
// dimensions by the output's memory order, drops size-1 dims and merges
// adjacent dims that are contiguous for EVERY operand, so that a call on
// C- or Fortran-ordered arrays of one shape becomes 1-D (the contiguous
// kernel) and anything else fits the strided kernel's kMaxDims.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "ufjit/array.h"

namespace ufjit::runtime {

/// NumPy's spelling of a shape: "(3,4)", "(5,)", "()".
std::string format_shape(const Dims &shape);

/// The broadcast shape of several shapes (NumPy rules: align on the right,
/// sizes equal or 1). Throws ShapeError naming every shape: "operands could
/// not be broadcast together with shapes (3,4) (5,)".
std::vector<int64_t> broadcast_shapes(const std::vector<std::vector<int64_t>> &shapes);

/// Whether `from` broadcasts to `to` without changing `to` (NumPy's rule
/// for inputs given an `out`): no more dims, and each dim equal or 1.
bool broadcasts_to(const Dims &from, const Dims &to);

/// `v` as a view of `shape` (which must be a broadcast of v's shape): leading
/// new dims and size-1 dims that grow get stride 0.
ArrayView broadcast_to(const ArrayView &v, const Dims &shape);

/// The dimension order (outermost first) in which the output of a call should
/// be laid out in memory: the order shared by every input that has the full
/// broadcast shape (NumPy's K order), so Fortran inputs give a Fortran
/// output; C order when they disagree or there are none.
std::vector<int> output_memory_order(const Dims &shape, const std::vector<ArrayView> &inputs);

/// Permutes `array` (C-contiguous, of shape shape[order[0]], shape[order[1]],
/// ...) back to `shape`'s dimension order, keeping its memory layout.
ArrayView unpermute(const ArrayView &array, const std::vector<int> &order);

/// Collapses the views (all of shape `shape`) in place and returns the new
/// shape (no size-1 dims; empty when every dim is 1). Dims are ordered by
/// the FIRST view's |strides| (put the output first). Throws ShapeError when
/// more than `max_dims` remain.
Dims collapse_dims(const Dims &shape, std::span<ArrayView *const> views,
                                   int max_dims);
/// The same for a braced list of views.
inline Dims collapse_dims(const Dims &shape, const std::vector<ArrayView *> &views,
                                          int max_dims) {
  return collapse_dims(shape, std::span<ArrayView *const>(views), max_dims);
}

/// Product of `shape`; throws ShapeError on overflow or a negative dim.
int64_t checked_size(const Dims &shape);

}  // namespace ufjit::runtime
