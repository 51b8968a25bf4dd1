// How `ufjit run` prints a result without --out: as NumPy's repr does.
//
//   array([[1, 2, 3],
//          [4, 5, 6]], dtype=int32)
//   array([1. , 2.5, nan])
//   array([1.e-05, 1.e+20])
//   array([], shape=(0, 3), dtype=float32)
//   array([ 0,  1,  2, ..., 97, 98, 99])       (more than 1000 elements)
//   5                                           (a 0-d result: its value)
//
// NumPy 2's defaults (np.set_printoptions()): precision 8, unique shortest
// digits per dtype (float32 0.1 is 0.1), elements padded to a common width,
// scientific notation when a nonzero magnitude is >= 1e8 or < 1e-4 or they
// span more than 1e3, lines wrapped at 75 columns, arrays of more than 1000
// elements summarized with 3 items at each edge, `dtype=` for all but
// float64, int64, bool and complex128, `shape=` for empty arrays of more
// than one dimension. A 0-d result prints as the Python literal of its
// value (`5`, `0.1`, `(1+2j)`, `True`), as print() shows a NumPy scalar.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "ufjit/array.h"

namespace ufjit::tool {

/// Writes the repr of a host array as described above.
void print_numpy_repr(std::ostream &out, const ArrayView &array);

/// The Python literal of one element: `5`, `0.1`, `nan`, `(1+2j)`, `True`.
std::string python_literal(DType t, const uint8_t *p);

/// A finite value as its shortest round-trip digits in its own dtype
/// (float16, float32 or float64): value = d.ddd x 10^exp.
struct Decimal {
  bool negative = false;
  std::string digits;
  int exp = 0;
};
Decimal shortest_decimal(DType t, double v);

/// The value of float16 bits.
double half_value(uint16_t bits);

}  // namespace ufjit::tool
