// Names that collect_program checks imports and decorators against: the
// math and cmath functions of LANGUAGE.md section 6 and the decorators of
// section 1.
#pragma once

#include <string>
#include <vector>

namespace ufjit::frontend {

/// What `from math import NAME` may import: functions and constants.
const std::vector<std::string> &math_module_names();
/// What `from cmath import NAME` may import.
const std::vector<std::string> &cmath_module_names();

}  // namespace ufjit::frontend
