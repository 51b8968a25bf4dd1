// Signature resolution and scalar conversion (see Dispatch.h).
#include "runtime/Dispatch.h"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>

#include "runtime/Half.h"

namespace ufjit::runtime {

namespace {

/// The default dtype of a weak scalar (NumPy's for Python scalars).
DType weak_default(const Scalar &s) { return s.dtype; }

/// NEP 50 acceptance of a weak scalar by a parameter dtype.
bool weak_accepts(const Scalar &s, DType param, bool safe_phase) {
  switch (dtype_kind(s.dtype)) {
    case 'b':
      return safe_phase || param == DType::Bool;
    case 'i':
    case 'u':
      return is_integer(param) || is_float(param) || is_complex(param);
    case 'f':
      return is_float(param) || is_complex(param);
    default:
      return is_complex(param);
  }
}

bool accepts(const DispatchInput &in, DType param, bool safe_phase, bool weak_as_default) {
  if (in.weak && !weak_as_default) {
    return weak_accepts(in.scalar, param, safe_phase);
  }
  const DType t = in.weak ? weak_default(in.scalar) : in.dtype;
  return safe_phase ? can_cast_safe(t, param) : t == param;
}

bool signature_matches(const CompiledSignature &sig, std::span<const DispatchInput> inputs, bool safe_phase,
                       bool weak_as_default) {
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!accepts(inputs[i], sig.params[i], safe_phase, weak_as_default)) {
      return false;
    }
  }
  return true;
}

/// Whether a weak integer value fits the integer dtype `t`.
bool int_fits(const Scalar &s, DType t) {
  const bool is_u64 = s.dtype == DType::UInt64;
  const int64_t i = s.value.i;
  const uint64_t u = s.value.u;
  const bool negative = !is_u64 && i < 0;
  if (is_unsigned_int(t)) {
    if (negative) {
      return false;
    }
    const uint64_t v = is_u64 ? u : static_cast<uint64_t>(i);
    const unsigned bits = static_cast<unsigned>(dtype_size(t) * 8);
    return bits == 64 || v < (uint64_t{1} << bits);
  }
  const unsigned bits = static_cast<unsigned>(dtype_size(t) * 8);
  const int64_t max = bits == 64 ? std::numeric_limits<int64_t>::max() : (int64_t{1} << (bits - 1)) - 1;
  const int64_t min = bits == 64 ? std::numeric_limits<int64_t>::min() : -(int64_t{1} << (bits - 1));
  if (is_u64) {
    return u <= static_cast<uint64_t>(max);
  }
  return i >= min && i <= max;
}

std::string scalar_text(const Scalar &s) {
  switch (dtype_kind(s.dtype)) {
    case 'b': return s.value.b ? "True" : "False";
    case 'i': return std::to_string(s.value.i);
    case 'u': return std::to_string(s.value.u);
    default: return std::to_string(s.value.f);
  }
}

/// The T stored at `p`, which need not be aligned for T.
template <typename T>
T load(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

}  // namespace

DispatchInput dispatch_input(const Operand &operand) {
  DispatchInput in;
  if (operand.kind == Operand::Kind::Array) {
    in.is_array = true;
    in.dtype = operand.array.dtype;
    return in;
  }
  in.scalar = operand.scalar;
  in.dtype = operand.scalar.dtype;
  in.weak = operand.scalar.weak;
  return in;
}

std::string describe_input(const DispatchInput &in) {
  if (!in.weak) {
    return std::string(dtype_name(in.dtype));
  }
  switch (dtype_kind(in.scalar.dtype)) {
    case 'b': return "bool";
    case 'i':
    case 'u': return "int";
    case 'f': return "float";
    default: return "complex";
  }
}

std::size_t resolve_signature(const std::string &ufunc_name, const std::vector<CompiledSignature> &signatures,
                              std::span<const DispatchInput> inputs) {
  bool all_weak = !inputs.empty();
  for (const DispatchInput &in : inputs) {
    all_weak = all_weak && in.weak;
  }
  // Words for errors only: a good call builds no strings.
  auto input_list = [&inputs] {
    std::string list;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      list += (i ? ", " : "") + describe_input(inputs[i]);
    }
    return list;
  };
  // Arity first: no signature of another arity can match.
  if (!signatures.empty() && signatures.front().params.size() != inputs.size()) {
    throw DispatchError("'" + ufunc_name + "' takes " + std::to_string(signatures.front().params.size()) +
                        " inputs, but the call passed " + std::to_string(inputs.size()) + " (" + input_list() + ")");
  }
  // The phases in order: (safe_phase, weak_as_default).
  struct Phase {
    bool safe;
    bool weak_as_default;
  };
  static constexpr Phase kAllWeak[] = {{false, true}, {true, true}, {false, false}, {true, false}};
  static constexpr Phase kTyped[] = {{false, false}, {true, false}};
  const std::span<const Phase> phases = all_weak ? std::span<const Phase>(kAllWeak) : std::span<const Phase>(kTyped);
  std::size_t chosen = signatures.size();
  for (const Phase &phase : phases) {
    for (std::size_t s = 0; s < signatures.size() && chosen == signatures.size(); ++s) {
      if (signature_matches(signatures[s], inputs, phase.safe, phase.weak_as_default)) {
        chosen = s;
      }
    }
    if (chosen != signatures.size()) {
      break;
    }
  }
  if (chosen == signatures.size()) {
    std::string tried;
    for (std::size_t s = 0; s < signatures.size(); ++s) {
      tried += (s ? ", " : "") + signatures[s].signature;
    }
    throw DispatchError("no signature of '" + ufunc_name + "' matches inputs (" + input_list() + "); tried: " + tried +
                        ". Add a signature for these types, or convert the inputs (e.g. with astype)");
  }
  // NumPy 2: a Python int that does not fit the chosen integer type is an error.
  const CompiledSignature &sig = signatures[chosen];
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const DispatchInput &in = inputs[i];
    if (in.weak && (dtype_kind(in.scalar.dtype) == 'i' || dtype_kind(in.scalar.dtype) == 'u') &&
        is_integer(sig.params[i]) && !int_fits(in.scalar, sig.params[i])) {
      throw DispatchError("integer scalar " + scalar_text(in.scalar) + " (input " + std::to_string(i + 1) + " of '" +
                          ufunc_name + "') is out of bounds for " + std::string(dtype_name(sig.params[i])) +
                          ", the parameter type of " + sig.signature);
    }
  }
  return chosen;
}

std::array<uint8_t, 16> convert_scalar(const Scalar &value, DType to) {
  // Widen the source to one of: integer bits (signed or not), double, complex.
  const char kind = dtype_kind(value.dtype);
  std::complex<double> c;
  uint64_t bits = 0;
  bool is_int_source = false;
  bool is_unsigned_source = false;
  if (kind == 'b') {
    bits = value.value.b ? 1 : 0;
    is_int_source = true;
    c = static_cast<double>(bits);
  } else if (kind == 'i') {
    bits = static_cast<uint64_t>(value.value.i);
    is_int_source = true;
    c = static_cast<double>(value.value.i);
  } else if (kind == 'u') {
    bits = value.value.u;
    is_int_source = true;
    is_unsigned_source = true;
    c = static_cast<double>(value.value.u);
  } else {
    c = {value.value.f, kind == 'c' ? value.imag : 0.0};
    const double d = c.real();
    // Float -> int truncates toward zero; never reached through dispatch.
    if (std::isfinite(d) && d > -9.2e18 && d < 1.8e19) {
      bits = d < 0 ? static_cast<uint64_t>(static_cast<int64_t>(d)) : static_cast<uint64_t>(d);
    }
  }
  std::array<uint8_t, 16> out{};
  auto put = [&out](const auto &v, std::size_t offset) { std::memcpy(out.data() + offset, &v, sizeof v); };
  auto to_float = [&]() -> float {
    if (is_int_source) {
      return is_unsigned_source ? static_cast<float>(bits) : static_cast<float>(static_cast<int64_t>(bits));
    }
    return static_cast<float>(c.real());
  };
  switch (to) {
    case DType::Bool: {
      const uint8_t b = is_int_source ? (bits != 0) : (c != std::complex<double>(0.0, 0.0));
      put(b, 0);
      break;
    }
    case DType::Int8: case DType::UInt8: put(static_cast<uint8_t>(bits), 0); break;
    case DType::Int16: case DType::UInt16: put(static_cast<uint16_t>(bits), 0); break;
    case DType::Int32: case DType::UInt32: put(static_cast<uint32_t>(bits), 0); break;
    case DType::Int64: case DType::UInt64: put(bits, 0); break;
    case DType::Float16: put(double_to_half_bits(c.real()), 0); break;
    case DType::Float32: put(to_float(), 0); break;
    case DType::Float64: put(c.real(), 0); break;
    case DType::Complex64: {
      put(to_float(), 0);
      put(static_cast<float>(c.imag()), 4);
      break;
    }
    case DType::Complex128: {
      put(c.real(), 0);
      put(c.imag(), 8);
      break;
    }
  }
  return out;
}

Scalar scalar_from_bytes(const void *bytes, DType dtype) {
  Scalar s;
  s.weak = false;
  s.dtype = dtype;
  const auto *p = static_cast<const uint8_t *>(bytes);
  switch (dtype) {
    case DType::Bool: s.value.b = *p != 0; break;
    case DType::Int8: s.value.i = load<int8_t>(p); break;
    case DType::Int16: s.value.i = load<int16_t>(p); break;
    case DType::Int32: s.value.i = load<int32_t>(p); break;
    case DType::Int64: s.value.i = load<int64_t>(p); break;
    case DType::UInt8: s.value.u = load<uint8_t>(p); break;
    case DType::UInt16: s.value.u = load<uint16_t>(p); break;
    case DType::UInt32: s.value.u = load<uint32_t>(p); break;
    case DType::UInt64: s.value.u = load<uint64_t>(p); break;
    case DType::Float16: s.value.f = half_bits_to_float(load<uint16_t>(p)); break;
    case DType::Float32: s.value.f = load<float>(p); break;
    case DType::Float64: s.value.f = load<double>(p); break;
    case DType::Complex64:
      s.value.f = load<float>(p);
      s.imag = load<float>(p + sizeof(float));
      break;
    case DType::Complex128:
      s.value.f = load<double>(p);
      s.imag = load<double>(p + sizeof(double));
      break;
  }
  return s;
}

}  // namespace ufjit::runtime
