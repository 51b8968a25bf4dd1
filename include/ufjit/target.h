// Execution targets, and the one parser of their names (the API, the tool,
// UFJIT_TARGET, decorators' `target=` and codegen all use it).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ufjit/export.h"

namespace ufjit {

enum class TargetKind : uint8_t { Cpu, Cuda };

/// "cpu" or "cuda".
UFJIT_API const char *target_name(TargetKind target);

/// "cpu" and "parallel" (Numba's multi-threaded CPU target) -> Cpu; "cuda"
/// and "gpu" -> Cuda; anything else (the empty string too) -> nullopt.
UFJIT_API std::optional<TargetKind> parse_target_name(std::string_view text);

}  // namespace ufjit
