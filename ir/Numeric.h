// Exact numeric helpers shared by the typer's constant folding, the IR's
// constants and the printer: rounding a double to a narrower float type, and
// the shortest decimal text that reads back as the same double.
#pragma once

#include <string>

#include "ufjit/dtype.h"

namespace ufjit::ir {

/// `v` rounded to nearest-even in float16 (with float16's range: overflow
/// gives +-inf, tiny values become subnormal or zero).
double round_to_float16(double v);
/// `v` rounded to the float type `t` (float16, float32 or float64).
double round_to_float(DType t, double v);
/// Shortest round-trip decimal, Python `repr` style: "0.5", "1.0", "1e+300",
/// "inf", "-inf", "nan", "-0.0".
std::string format_double(double v);
/// Shortest decimal that reads back (rounded to `t`) as `v`, which must
/// already be a value of float type `t`: 0.1 rounded to float32 prints "0.1".
std::string format_float(DType t, double v);

}  // namespace ufjit::ir
