// Helpers shared by the call-path suites of tests/api.
#pragma once

#include <cstdint>
#include <vector>

namespace ufjit::testing {

/// Calls `fn(index)` for every multi-index of `shape`, C order.
template <typename Fn>
void for_each_index(const std::vector<int64_t> &shape, Fn fn) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int64_t> index(shape.size(), 0);
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = k;
    for (std::size_t d = shape.size(); d-- > 0;) {
      index[d] = rest % shape[d];
      rest /= shape[d];
    }
    fn(index);
  }
}

}  // namespace ufjit::testing
