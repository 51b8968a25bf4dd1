// ufjit public API: element types.
//
// The one list of dtypes, shared by the language frontend, the IR, code
// generation and the runtime. Names follow NumPy (`float32`, `complex64`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ufjit/export.h"

namespace ufjit {

// X(enumerator, canonical name, byte size, kind letter as in NumPy's dtype.kind)
#define UFJIT_FOR_EACH_DTYPE(X)        \
  X(Bool, "bool", 1, 'b')              \
  X(Int8, "int8", 1, 'i')              \
  X(Int16, "int16", 2, 'i')            \
  X(Int32, "int32", 4, 'i')            \
  X(Int64, "int64", 8, 'i')            \
  X(UInt8, "uint8", 1, 'u')            \
  X(UInt16, "uint16", 2, 'u')          \
  X(UInt32, "uint32", 4, 'u')          \
  X(UInt64, "uint64", 8, 'u')          \
  X(Float16, "float16", 2, 'f')        \
  X(Float32, "float32", 4, 'f')        \
  X(Float64, "float64", 8, 'f')        \
  X(Complex64, "complex64", 8, 'c')    \
  X(Complex128, "complex128", 16, 'c')

/// A scalar element type. The order is NumPy's "type number" order within each
/// kind, which the promotion table relies on.
enum class DType : uint8_t {
#define UFJIT_DTYPE_ENUM(name, str, size, kind) name,
  UFJIT_FOR_EACH_DTYPE(UFJIT_DTYPE_ENUM)
#undef UFJIT_DTYPE_ENUM
};

inline constexpr int kNumDTypes = 14;

/// Canonical NumPy name: "float32".
UFJIT_API std::string_view dtype_name(DType t);
/// Size of one element in bytes (inline: every view check and launch asks).
constexpr std::size_t dtype_size(DType t) {
  switch (t) {
#define UFJIT_DTYPE_SIZE(name, str, size, kind) \
  case DType::name:                             \
    return size;
    UFJIT_FOR_EACH_DTYPE(UFJIT_DTYPE_SIZE)
#undef UFJIT_DTYPE_SIZE
  }
  return 0;  // not a DType
}
/// NumPy kind letter: 'b', 'i', 'u', 'f', 'c'.
constexpr char dtype_kind(DType t) {
  switch (t) {
#define UFJIT_DTYPE_KIND(name, str, size, kind) \
  case DType::name:                             \
    return kind;
    UFJIT_FOR_EACH_DTYPE(UFJIT_DTYPE_KIND)
#undef UFJIT_DTYPE_KIND
  }
  return '?';  // not a DType
}
/// Parses a canonical name or any alias of LANGUAGE.md section 2
/// (`f4`, `single`, `double`, `intp`, ...). Returns nothing for unknown names.
UFJIT_API std::optional<DType> dtype_from_name(std::string_view name);

constexpr bool is_bool(DType t) { return t == DType::Bool; }
constexpr bool is_signed_int(DType t) { return dtype_kind(t) == 'i'; }
constexpr bool is_unsigned_int(DType t) { return dtype_kind(t) == 'u'; }
constexpr bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_float(DType t) { return dtype_kind(t) == 'f'; }
constexpr bool is_complex(DType t) { return dtype_kind(t) == 'c'; }

/// NumPy's `np.result_type(a, b)` for two strongly typed operands.
UFJIT_API DType promote(DType a, DType b);
/// NumPy's `np.can_cast(from, to, casting='safe')`.
UFJIT_API bool can_cast_safe(DType from, DType to);

}  // namespace ufjit
