// Target names (ufjit/target.h).
#include "ufjit/target.h"

namespace ufjit {

const char *target_name(TargetKind target) {
  switch (target) {
    case TargetKind::Cpu:
      return "cpu";
    case TargetKind::Cuda:
      return "cuda";
  }
  return "<not a target>";
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
