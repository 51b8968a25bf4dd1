// Signature resolution and scalar conversion (runtime/Dispatch.h).
#include <gtest/gtest.h>

#include <cstring>

#include "runtime/Dispatch.h"
#include "runtime/Half.h"

namespace ufjit::runtime {
namespace {

CompiledSignature sig(DType ret, std::vector<DType> params) {
  CompiledSignature s;
  s.ret = ret;
  s.params = params;
  s.signature = std::string(dtype_name(ret)) + "(";
  for (std::size_t i = 0; i < params.size(); ++i) {
    s.signature += (i ? ", " : "") + std::string(dtype_name(params[i]));
  }
  s.signature += ")";
  return s;
}

DispatchInput arr(DType t) { return dispatch_input(Operand(ArrayView{nullptr, t, {3}, {int64_t(dtype_size(t))}})); }
template <typename T>
DispatchInput weak(T v) {
  return dispatch_input(Operand(v));
}
template <typename T>
DispatchInput strong(T v) {
  return dispatch_input(Operand(typed(v)));
}

const std::vector<CompiledSignature> kF32F64 = {sig(DType::Float32, {DType::Float32, DType::Float32}),
                                                sig(DType::Float64, {DType::Float64, DType::Float64})};

TEST(Dispatch, ExactMatchWinsOverEarlierSafeCast) {
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Float64), arr(DType::Float64)}), 1u);
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Float32), arr(DType::Float32)}), 0u);
}

TEST(Dispatch, SafeCastPicksFirstReachableSignature) {
  // int16 -> float32 is safe; int32 -> float32 is not (needs float64).
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Int16), arr(DType::Float32)}), 0u);
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Int32), arr(DType::Float32)}), 1u);
}

TEST(Dispatch, WeakFloatMatchesFloat32Parameter) {
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Float32), weak(0.5)}), 0u);
}

TEST(Dispatch, StrongDoubleScalarNeedsFloat64) {
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Float32), strong(0.5)}), 1u);
}

TEST(Dispatch, WeakIntMatchesIntegerAndFloatParameters) {
  const std::vector<CompiledSignature> sigs = {sig(DType::Int8, {DType::Int8, DType::Int8})};
  EXPECT_EQ(resolve_signature("g", sigs, {arr(DType::Int8), weak(100)}), 0u);
  EXPECT_EQ(resolve_signature("f", kF32F64, {arr(DType::Float32), weak(3)}), 0u);
}

TEST(Dispatch, WeakIntOutOfRangeIsAnOverflowStyleError) {
  const std::vector<CompiledSignature> sigs = {sig(DType::Int8, {DType::Int8, DType::Int8})};
  try {
    resolve_signature("g", sigs, {arr(DType::Int8), weak(1000)});
    FAIL() << "expected DispatchError";
  } catch (const DispatchError &e) {
    EXPECT_NE(std::string(e.what()).find("1000"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("int8"), std::string::npos) << e.what();
  }
  const std::vector<CompiledSignature> u = {sig(DType::UInt8, {DType::UInt8, DType::UInt8})};
  EXPECT_THROW(resolve_signature("g", u, {arr(DType::UInt8), weak(-1)}), DispatchError);
  EXPECT_EQ(resolve_signature("g", u, {arr(DType::UInt8), weak(255)}), 0u);
}

TEST(Dispatch, WeakFloatDoesNotMatchIntegerParameter) {
  const std::vector<CompiledSignature> sigs = {sig(DType::Int32, {DType::Int32, DType::Int32})};
  EXPECT_THROW(resolve_signature("g", sigs, {arr(DType::Int32), weak(1.5)}), DispatchError);
}

TEST(Dispatch, WeakBoolMatchesBoolExactlyAndCastsAnywhere) {
  const std::vector<CompiledSignature> sigs = {sig(DType::Int32, {DType::Int32, DType::Int32}),
                                               sig(DType::Bool, {DType::Bool, DType::Bool})};
  EXPECT_EQ(resolve_signature("g", sigs, {arr(DType::Bool), weak(true)}), 1u);
  EXPECT_EQ(resolve_signature("g", sigs, {arr(DType::Int32), weak(true)}), 0u);
}

TEST(Dispatch, AllWeakScalarsActAsDefaultDtypes) {
  // Python floats alone are float64, as NumPy treats them.
  EXPECT_EQ(resolve_signature("f", kF32F64, {weak(1.0), weak(2.0)}), 1u);
  // ...but still reach a float32-only ufunc when nothing else fits.
  const std::vector<CompiledSignature> only32 = {kF32F64[0]};
  EXPECT_EQ(resolve_signature("f", only32, {weak(1.0), weak(2.0)}), 0u);
}

TEST(Dispatch, FailureListsInputsAndEverySignatureTried) {
  const std::vector<CompiledSignature> sigs = {sig(DType::Float32, {DType::Float32, DType::Float32})};
  try {
    resolve_signature("f", sigs, {arr(DType::Int32), arr(DType::Float32)});
    FAIL() << "expected DispatchError";
  } catch (const DispatchError &e) {
    EXPECT_STREQ(e.what(), "no signature of 'f' matches inputs (int32, float32); tried: float32(float32, float32). "
                           "Add a signature for these types, or convert the inputs (e.g. with astype)");
  }
  try {
    resolve_signature("f", kF32F64, {arr(DType::Complex64), weak(1)});
    FAIL() << "expected DispatchError";
  } catch (const DispatchError &e) {
    EXPECT_STREQ(e.what(),
                 "no signature of 'f' matches inputs (complex64, int); tried: float32(float32, float32), "
                 "float64(float64, float64). Add a signature for these types, or convert the inputs (e.g. with "
                 "astype)");
  }
}

TEST(Dispatch, WrongArityIsAnError) {
  EXPECT_THROW(resolve_signature("f", kF32F64, {arr(DType::Float32)}), DispatchError);
}

TEST(ConvertScalar, DoubleToFloat32Rounds) {
  auto bytes = convert_scalar(Operand(0.1).scalar, DType::Float32);
  float f;
  std::memcpy(&f, bytes.data(), 4);
  EXPECT_EQ(f, 0.1f);
}

TEST(ConvertScalar, IntToInt8KeepsLowBitsAndSign) {
  auto bytes = convert_scalar(Operand(-5).scalar, DType::Int8);
  EXPECT_EQ(static_cast<int8_t>(bytes[0]), -5);
}

TEST(ConvertScalar, ComplexSplitsIntoParts) {
  auto bytes = convert_scalar(Operand(std::complex<double>(1.5, -2.0)).scalar, DType::Complex64);
  float parts[2];
  std::memcpy(parts, bytes.data(), 8);
  EXPECT_EQ(parts[0], 1.5f);
  EXPECT_EQ(parts[1], -2.0f);
}

TEST(ConvertScalar, Float16UsesIeeeHalfBits) {
  auto bytes = convert_scalar(Operand(1.0).scalar, DType::Float16);
  uint16_t h;
  std::memcpy(&h, bytes.data(), 2);
  EXPECT_EQ(h, 0x3c00);
}

TEST(Half, RoundTripsAndRoundsToNearestEven) {
  EXPECT_EQ(double_to_half_bits(65504.0), 0x7bff);
  EXPECT_EQ(double_to_half_bits(65520.0), 0x7c00);  // tie rounds to even: inf
  EXPECT_EQ(double_to_half_bits(65519.99), 0x7bff);
  EXPECT_EQ(double_to_half_bits(0x1p-24), 0x0001);  // smallest subnormal
  EXPECT_EQ(double_to_half_bits(0x1p-25), 0x0000);  // tie to even: zero
  EXPECT_EQ(double_to_half_bits(-0.0), 0x8000);
  EXPECT_EQ(double_to_half_bits(1.0 + 0x1p-11), 0x3c00);  // tie between 1 and 1+2^-10: even
  EXPECT_EQ(double_to_half_bits(1.0 + 3 * 0x1p-11), 0x3c02);
  for (uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<uint16_t>(h);
    const float f = half_bits_to_float(bits);
    if (std::isnan(f)) {
      continue;
    }
    ASSERT_EQ(float_to_half_bits(f), bits) << "half 0x" << std::hex << h;
  }
}

}  // namespace
}  // namespace ufjit::runtime
