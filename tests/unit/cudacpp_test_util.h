// Shared helpers of the CUDA C++ interop unit tests (no GPU needed).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "interop/cudacpp/Nvrtc.h"

namespace ufjit::cudacpp::testing {

inline bool contains(const std::string &text, const std::string &what) {
  return text.find(what) != std::string::npos;
}

}  // namespace ufjit::cudacpp::testing

/// Skips the test with NVRTC's reason when it cannot be loaded.
#define SKIP_WITHOUT_NVRTC()                              \
  do {                                                    \
    std::string why;                                      \
    if (!::ufjit::cudacpp::nvrtc_available(&why)) {       \
      GTEST_SKIP() << "NVRTC cannot be loaded: " << why;  \
    }                                                     \
  } while (0)
