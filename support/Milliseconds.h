// Elapsed time as the UFJIT_DEBUG logs print it: milliseconds of the steady
// clock, as a double.
#pragma once

#include <chrono>

namespace ufjit::support {

/// Milliseconds from `from` to `to` (steady clock).
inline double milliseconds_between(std::chrono::steady_clock::time_point from,
                                   std::chrono::steady_clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

/// Milliseconds from `from` to now.
inline double milliseconds_since(std::chrono::steady_clock::time_point from) {
  return milliseconds_between(from, std::chrono::steady_clock::now());
}

}  // namespace ufjit::support
