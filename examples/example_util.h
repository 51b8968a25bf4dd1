// Small helpers shared by the example programs.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include <ufjit/ufjit.h>

namespace example {

/// Where the .ufn files are: $UFJIT_EXAMPLES_DIR at run time, else the
/// source directory the examples were built from.
inline std::string ufn_path(const std::string &file) {
  const char *env = std::getenv("UFJIT_EXAMPLES_DIR");
  return std::string(env != nullptr ? env : UFJIT_EXAMPLES_DIR) + "/" + file;
}

inline const char *target_name(ufjit::TargetKind t) { return t == ufjit::TargetKind::Cuda ? "cuda" : "cpu"; }

/// A host copy of a result, wherever it lives.
inline ufjit::Array on_host(ufjit::Runtime &rt, ufjit::Array a) {
  return a.residence() == ufjit::Residence::Host ? std::move(a) : rt.to_host(a);
}

/// The exit status of a GPU example that failed with `e`: 77 (CTest's
/// SKIP_RETURN_CODE) when the machine lacks what it needs (no CUDA device, a
/// CUDA library that "is not available", or a message holding `also_skip`),
/// else 1. The message is printed after the example's name either way.
inline int gpu_example_error(const char *example, const ufjit::Error &e, const char *also_skip = nullptr) {
  const std::string what = e.what();
  const bool skip = dynamic_cast<const ufjit::NoDeviceError *>(&e) != nullptr ||
                    what.find("is not available") != std::string::npos ||
                    (also_skip != nullptr && what.find(also_skip) != std::string::npos);
  if (skip) {
    std::printf("%s: skipped: %s\n", example, e.what());
    return 77;
  }
  std::fprintf(stderr, "%s: %s\n", example, e.what());
  return 1;
}

}  // namespace example
