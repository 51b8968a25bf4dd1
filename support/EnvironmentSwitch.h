// Features on by default that the environment can switch off with
// NAME=0 (UFJIT_TIERING, UFJIT_WARMUP, UFJIT_PREFETCH, UFJIT_LIBDEVICE_SLICES):
// one reading of such a switch for every layer.
#pragma once

#include <cstdlib>
#include <string_view>

namespace ufjit::support {

/// False only when the environment sets `name` to "0".
inline bool switched_on(const char *name) {
  const char *env = std::getenv(name);
  return env == nullptr || std::string_view(env) != "0";
}

}  // namespace ufjit::support
