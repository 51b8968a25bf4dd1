// Target names (ufjit/target.h).
#include "ufjit/target.h"

#include "support/EnumNames.h"

namespace ufjit {

const char *target_name(TargetKind target) {
  static constexpr support::EnumName<TargetKind> kNames[] = {{TargetKind::Cpu, "cpu"},
                                                             {TargetKind::Cuda, "cuda"}};
  return support::enum_name(target, kNames, "<not a target>");
}

std::optional<TargetKind> parse_target_name(std::string_view text) {
  if (text == "cpu" || text == "parallel") {
    return TargetKind::Cpu;
  }
  if (text == "cuda" || text == "gpu") {
    return TargetKind::Cuda;
  }
  return std::nullopt;
}

}  // namespace ufjit
