// The names of LANGUAGE.md section 6: Python builtins and the math/cmath
// functions and constants, for name resolution and "did you mean" hints.
#pragma once

#include <string>
#include <vector>

#include "ir/Type.h"

namespace ufjit::ir::typer {

/// Python builtins usable in a body (range only in `for`).
inline constexpr const char *kBuiltinNames[] = {"abs", "min",  "max",     "round", "pow", "divmod",
                                                "int", "float", "bool", "complex", "range", "len"};

bool is_builtin_name(const std::string &name);
/// Every function and constant name of `module` ("math" or "cmath").
std::vector<std::string> math_module_names(const std::string &module);
/// Every np.* function and constant a body may use (NumpyCalls.cpp).
std::vector<std::string> numpy_names();
/// The np.* functions typed in NumpyFunctions.cpp (built from several operations).
std::vector<std::string> numpy_function_names();
/// sum, prod, min, max, amin, amax, mean, argmin, argmax, all, any: the
/// whole-array reductions of ArrayReductions.cpp (methods and np.* functions).
bool is_array_reduction(const std::string &name);
/// The float type NumPy's float loops give for an operand of dtype `d`:
/// bool/int8/uint8 -> float16, int16/uint16 -> float32, wider -> float64.
DType numpy_float_type(DType d);
/// The cuda.* (fp16: cuda.fp16.*) functions a body may call (CudaCalls.cpp).
std::vector<std::string> cuda_names(bool fp16);

}  // namespace ufjit::ir::typer
