// The names of LANGUAGE.md section 6: Python builtins and the math/cmath
// functions and constants, for name resolution and "did you mean" hints.
#pragma once

#include <string>
#include <vector>

namespace ufjit::ir::typer {

/// Python builtins usable in a body (range only in `for`).
inline constexpr const char *kBuiltinNames[] = {"abs", "min",  "max",     "round", "pow", "divmod",
                                                "int", "float", "bool", "complex", "range", "len"};

bool is_builtin_name(const std::string &name);
/// Every function and constant name of `module` ("math" or "cmath").
std::vector<std::string> math_module_names(const std::string &module);

}  // namespace ufjit::ir::typer
