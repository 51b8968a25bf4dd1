// Data of the GPU method suites: small integers, some negative, whose
// partial sums stay small (exact in float32 and int8 alike).
#pragma once

#include <cstdint>
#include <vector>

namespace ufjit::gpu_testing {

/// i -> (i * 7) % 13 - 6.
template <typename T>
std::vector<T> method_data(int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>((i * 7) % 13 - 6);
  return v;
}

}  // namespace ufjit::gpu_testing
