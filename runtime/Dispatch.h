// Signature resolution for a call, and conversion of scalar operands to the
// chosen parameter types (DESIGN.md "Dispatch").
//
// 1. Exact: the first signature whose input dtypes equal the operands'. Array
//    operands, 0-d arrays and strong scalars (`typed<T>`) count by dtype;
//    weak scalars (plain C++ numbers, CLI numbers) match as Python scalars do
//    under NEP 50: a weak bool only bool, a weak int any integer, float or
//    complex parameter, a weak float any float or complex, a weak complex any
//    complex.
// 2. Safe: failing that, the first signature to which every operand casts
//    safely (np.can_cast(..., 'safe')); weak scalars as in 1, except that a
//    weak bool goes anywhere (bool casts safely to every type).
// When every operand is a weak scalar, they first act as their default
// dtypes (bool, int64, float64, complex128) as NumPy does, then as weak.
// After choosing, a weak int that does not fit the integer parameter is a
// DispatchError (NumPy 2's OverflowError: `int8_array + 1000`).
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "runtime/Backend.h"
#include "ufjit/runtime.h"

namespace ufjit::runtime {

/// What dispatch sees of one input operand.
struct DispatchInput {
  bool is_array = false;  // arrays of any ndim (0-d included)
  DType dtype = DType::Float64;
  bool weak = false;      // weak scalars only
  Scalar scalar;          // scalars only
};

DispatchInput dispatch_input(const Operand &operand);

/// "int32", or for weak scalars their Python kind: "int", "float".
std::string describe_input(const DispatchInput &in);

/// Index into `signatures` of the signature to run. Throws DispatchError
/// listing the input dtypes and every signature tried, or naming the
/// operand and the value that does not fit.
std::size_t resolve_signature(const std::string &ufunc_name, const std::vector<CompiledSignature> &signatures,
                              std::span<const DispatchInput> inputs);
/// The same for a braced list of inputs.
inline std::size_t resolve_signature(const std::string &ufunc_name, const std::vector<CompiledSignature> &signatures,
                                     const std::vector<DispatchInput> &inputs) {
  return resolve_signature(ufunc_name, signatures, std::span<const DispatchInput>(inputs));
}

/// A scalar's value converted to `to` in its storage form (PreparedOperand::
/// scalar_bytes). Assumes dispatch accepted the pair.
std::array<uint8_t, 16> convert_scalar(const Scalar &value, DType to);

/// A scalar's value read back from storage bytes of `dtype` (for 0-d host
/// arrays turned into scalar parameters: strong, of that dtype).
Scalar scalar_from_bytes(const void *bytes, DType dtype);

}  // namespace ufjit::runtime
