// Signature strings: `float32(float32, float32)`, `void(float32[:], f8[:, :])`.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frontend/Record.h"
#include "support/Diagnostics.h"
#include "ufjit/dtype.h"

namespace ufjit::frontend {

/// The most arguments (inputs and outputs) a ufunc takes: NumPy 2's
/// NPY_MAXARGS. Kernel variants mark scalar inputs in a 64-bit mask.
inline constexpr std::size_t kMaxUfuncArgs = 64;
/// The most dimensions of an array type in a signature: a kernel passes an
/// array's shape and strides as codegen::kMaxDims values each.
inline constexpr int kMaxArrayDims = 8;

/// One type in a signature: void, a scalar dtype, or an array of `ndim` dims.
/// A record (frontend/Record.h) or an array of records is passed as its
/// bytes: `dtype` uint8 and `ndim` one more than the record array's.
struct SigType {
  bool is_void = false;
  DType dtype = DType::Float64;
  int ndim = 0;  // 0 for a scalar
  RecordRef record;  // the record type, or null
  SourceLocation loc;
  /// Canonical spelling: "void", "float32", "float64[:, :]", "record(...)[:]".
  std::string str() const;
  bool operator==(const SigType &o) const {
    return is_void == o.is_void && (is_void || (dtype == o.dtype && ndim == o.ndim && same_record(record, o.record)));
  }
};

struct Signature {
  SigType ret;
  std::vector<SigType> args;
  SourceLocation loc;
  /// False for Numba's forms without one, `(f8[:], f8[:])` and
  /// `f8[:], f8[:]`: the return type is void.
  bool has_return_type = true;
  /// Canonical text, aliases resolved: "float32(float32, float32)". Round-trips
  /// through parse_signature.
  std::string str() const;
  bool operator==(const Signature &o) const { return ret == o.ret && args == o.args; }
};

/// Parses `text`: `ret(arg, ...)`, `(arg, ...)` or `arg, arg, ...` (no
/// return type: void, as Numba reads a tuple of types). `start` is the location of its first character, so that an
/// error like "unknown type 'flaot32'" points into the string. Aliases of
/// LANGUAGE.md section 2 are accepted (`f4`, `np.float32`, `double`, ...).
/// Returns nothing after reporting an error.
std::optional<Signature> parse_signature(std::string_view text, SourceLocation start,
                                         DiagnosticEngine &diags);

/// A generalized ufunc's layout, `(m,n),(n,p)->(m,p)`: the core dimension
/// names of each input and each output (`()` is a 0-d core: a scalar).
struct GufuncLayout {
  struct Operand {
    std::vector<std::string> dims;
    SourceLocation loc;  // of its '(' ... ')'
  };
  std::vector<Operand> inputs;
  std::vector<Operand> outputs;
  /// Canonical text, no spaces: "(m,n),(n,p)->(m,p)".
  std::string str() const;
  std::size_t operand_count() const { return inputs.size() + outputs.size(); }
  /// Operand `i` counting inputs, then outputs.
  const Operand &operand(std::size_t i) const {
    return i < inputs.size() ? inputs[i] : outputs[i - inputs.size()];
  }
};

/// Parses a layout; `start` is the location of its first character (errors
/// point into the string). Whitespace is allowed anywhere between names and
/// punctuation. At least one output. Returns nothing after reporting an error.
std::optional<GufuncLayout> parse_gufunc_layout(std::string_view text, SourceLocation start,
                                                DiagnosticEngine &diags);

/// Checks a @guvectorize signature against the layout: one type per operand;
/// an operand of k core dimensions has k array dimensions; a `()` operand is
/// a scalar or a 1-d array (Numba's `out[0] = v` form) for an input, and a
/// 1-d array for an output. Errors point at the argument type. Returns false
/// if any.
bool check_gufunc_signature_layout(const Signature &sig, const GufuncLayout &layout, DiagnosticEngine &diags);
/// The canonical text of a signature a caller typed ("f4(f4)" ->
/// "float32(float32)"); throws CompileError located in the string.
std::string canonical_signature(const std::string &text);

/// Reports each signature whose argument types repeat an earlier one's: an
/// exact duplicate, or the same inputs with another return type (a call could
/// not choose; both would also compile to one entry name). The error points
/// at the later signature and a note at the earlier. Returns false if any.
bool check_distinct_signatures(const std::vector<Signature> &signatures, DiagnosticEngine &diags);

}  // namespace ufjit::frontend
