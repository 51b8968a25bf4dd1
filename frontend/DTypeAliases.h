// Every spelling dtype_from_name accepts, for "did you mean" hints in
// signature and conversion errors.
#pragma once

#include <string>
#include <vector>

namespace ufjit::frontend {

/// Canonical names first (in DType order), then the aliases of LANGUAGE.md
/// section 2, so that a hint prefers `float32` over `f4`.
std::vector<std::string> dtype_spellings();

}  // namespace ufjit::frontend
