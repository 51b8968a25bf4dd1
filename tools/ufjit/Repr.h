// How `ufjit run` prints a result without --out: NumPy's repr layout.
//
//   array([[1, 2, 3],
//          [4, 5, 6]], dtype=int32)
//   array([], shape=(0, 3), dtype=float32)
//   5                                    (a 0-d result: its value)
//
// The structure is NumPy's: nested brackets, one row per line with blank
// lines between blocks, `dtype=` for all but float64, int64, bool and
// complex128, and `shape=` for empty arrays of more than one dimension.
// Elements are Python literals, each the shortest text that reads back to
// the same value in its own dtype (float32 0.1 prints as 0.1): `1.0`,
// `nan`, `(1+2j)`, `True`, where NumPy pads to a common width (`1. `). The
// whole output evaluates back with `from numpy import array, float32, ...`.
// Nothing is elided: every element is printed, with no line wrapping.
#pragma once

#include <ostream>

#include "ufjit/array.h"

namespace ufjit::tool {

/// Writes the repr of a host array as described above, element by element
/// (a large result is never built as one string).
void print_numpy_repr(std::ostream &out, const ArrayView &array);

}  // namespace ufjit::tool
