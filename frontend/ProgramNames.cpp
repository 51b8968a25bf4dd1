#include "frontend/ProgramNames.h"

namespace ufjit::frontend {

const std::vector<std::string> &math_module_names() {
  static const std::vector<std::string> kNames = {
      "acos",  "acosh",     "asin",     "asinh", "atan",   "atan2",     "atanh", "cbrt",
      "ceil",  "copysign",  "cos",      "cosh",  "degrees", "erf",      "erfc",  "exp",
      "exp2",  "expm1",     "fabs",     "floor", "fma",    "fmod",      "frexp", "gamma",
      "hypot", "isfinite",  "isinf",    "isnan", "ldexp",  "lgamma",    "log",   "log10",
      "log1p", "log2",      "modf",     "nextafter", "pow", "radians",  "remainder", "sin",
      "sinh",  "sqrt",      "tan",      "tanh",  "trunc",  "pi",        "e",     "tau",
      "inf",   "nan",
  };
  return kNames;
}

const std::vector<std::string> &cmath_module_names() {
  static const std::vector<std::string> kNames = {
      "exp",   "log",   "log10", "sqrt",  "sin",   "cos",   "tan",      "asin",
      "acos",  "atan",  "sinh",  "cosh",  "tanh",  "asinh", "acosh",    "atanh",
      "phase", "polar", "rect",  "isnan", "isinf", "isfinite", "pi",    "e",
      "inf",   "nan",   "infj",  "nanj",
  };
  return kNames;
}

}  // namespace ufjit::frontend
