// Small helpers shared by the example programs.
#pragma once

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

}  // namespace example
