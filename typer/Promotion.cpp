// NumPy's type promotion (np.result_type) and safe casting (np.can_cast with
// casting='safe') for two strongly typed scalars, derived from NumPy's
// kind/size rules rather than copied as a 14x14 table:
// - bool promotes to anything; same kind: the larger;
// - signed + unsigned: the smallest signed type larger than the unsigned one
//   (uint64 has none: float64);
// - integer + float: the larger of the float and the smallest float that
//   holds the integer exactly enough (8 bit: float16, 16 bit: float32, wider:
//   float64);
// - complex: the same, with the complex type whose parts are that float.
#include "support/InternalAssert.h"
#include "ufjit/dtype.h"
#include "ufjit/errors.h"

namespace ufjit {

namespace {

/// The smallest signed integer type of at least `bytes` bytes, if any.
std::optional<DType> signed_of_size(std::size_t bytes) {
  if (bytes <= 1) return DType::Int8;
  if (bytes <= 2) return DType::Int16;
  if (bytes <= 4) return DType::Int32;
  if (bytes <= 8) return DType::Int64;
  return std::nullopt;
}

/// The smallest float type that NumPy considers able to hold integers of `bytes` bytes.
DType float_for_int_size(std::size_t bytes) {
  if (bytes <= 1) return DType::Float16;
  if (bytes <= 2) return DType::Float32;
  return DType::Float64;
}

DType float_of_size(std::size_t bytes) {
  if (bytes <= 2) return DType::Float16;
  if (bytes <= 4) return DType::Float32;
  return DType::Float64;
}

/// The float type a value of `t` needs (ints: float_for_int_size; floats:
/// themselves; complex: their part type).
DType float_part(DType t) {
  if (is_integer(t)) return float_for_int_size(dtype_size(t));
  if (is_complex(t)) return float_of_size(dtype_size(t) / 2);
  return t;
}

DType larger(DType a, DType b) { return dtype_size(a) >= dtype_size(b) ? a : b; }

}  // namespace

namespace {

/// The public functions take any value of the enum's type: one outside the
/// enumerators is the caller's error, not a table lookup out of range.
void check_dtypes(DType a, DType b, const char *function) {
  for (DType t : {a, b}) {
    if (static_cast<unsigned>(t) >= static_cast<unsigned>(kNumDTypes)) {
      throw InputError(std::string(function) + ": dtype value " + std::to_string(static_cast<unsigned>(t)) +
                       " is not a ufjit::DType (0 to " + std::to_string(kNumDTypes - 1) + ")");
    }
  }
}

}  // namespace

DType promote(DType a, DType b) {
  check_dtypes(a, b, "promote");
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  char ka = dtype_kind(a);
  char kb = dtype_kind(b);
  if (ka == kb) return larger(a, b);
  if (is_integer(a) && is_integer(b)) {
    DType u = is_unsigned_int(a) ? a : b;
    DType s = is_unsigned_int(a) ? b : a;
    if (dtype_size(s) > dtype_size(u)) return s;
    std::optional<DType> wider = signed_of_size(2 * dtype_size(u));
    return wider ? *wider : DType::Float64;
  }
  // At least one float or complex: the result's float part holds both.
  DType fa = float_part(a);
  DType fb = float_part(b);
  DType f = larger(fa, fb);
  if (is_complex(a) || is_complex(b)) return dtype_size(f) <= 4 ? DType::Complex64 : DType::Complex128;
  return f;
}

bool can_cast_safe(DType from, DType to) {
  check_dtypes(from, to, "can_cast_safe");
  if (from == to) return true;
  if (is_bool(from)) return true;
  if (is_bool(to)) return false;
  std::size_t fs = dtype_size(from);
  std::size_t ts = dtype_size(to);
  switch (dtype_kind(to)) {
    case 'i':
      if (is_signed_int(from)) return ts >= fs;
      if (is_unsigned_int(from)) return ts > fs;
      return false;
    case 'u':
      return is_unsigned_int(from) && ts >= fs;
    case 'f':
      if (is_integer(from)) return dtype_size(float_for_int_size(fs)) <= ts;
      if (is_float(from)) return ts >= fs;
      return false;
    case 'c':
      if (is_complex(from)) return ts >= fs;
      return dtype_size(float_part(from)) <= ts / 2;
    default:
      break;
  }
  internal_error << "can_cast_safe: unexpected kind of " << dtype_name(to);
  return false;
}

}  // namespace ufjit
