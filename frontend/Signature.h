// Signature strings: `float32(float32, float32)`, `void(float32[:], f8[:, :])`.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/Diagnostics.h"
#include "ufjit/dtype.h"

namespace ufjit::frontend {

/// One type in a signature: void, a scalar dtype, or an array of `ndim` dims.
struct SigType {
  bool is_void = false;
  DType dtype = DType::Float64;
  int ndim = 0;  // 0 for a scalar
  SourceLocation loc;
  /// Canonical spelling: "void", "float32", "float64[:, :]".
  std::string str() const;
  bool operator==(const SigType &o) const {
    return is_void == o.is_void && (is_void || (dtype == o.dtype && ndim == o.ndim));
  }
};

struct Signature {
  SigType ret;
  std::vector<SigType> args;
  SourceLocation loc;
  /// Canonical text, aliases resolved: "float32(float32, float32)". Round-trips
  /// through parse_signature.
  std::string str() const;
  bool operator==(const Signature &o) const { return ret == o.ret && args == o.args; }
};

/// Parses `text`; `start` is the location of its first character, so that an
/// error like "unknown type 'flaot32'" points into the string. Aliases of
/// LANGUAGE.md section 2 are accepted (`f4`, `np.float32`, `double`, ...).
/// Returns nothing after reporting an error.
std::optional<Signature> parse_signature(std::string_view text, SourceLocation start,
                                         DiagnosticEngine &diags);

/// The canonical text of a signature a caller typed ("f4(f4)" ->
/// "float32(float32)"); throws CompileError located in the string.
std::string canonical_signature(const std::string &text);

/// Reports each signature whose argument types repeat an earlier one's: an
/// exact duplicate, or the same inputs with another return type (a call could
/// not choose; both would also compile to one entry name). The error points
/// at the later signature and a note at the earlier. Returns false if any.
bool check_distinct_signatures(const std::vector<Signature> &signatures, DiagnosticEngine &diags);

}  // namespace ufjit::frontend
