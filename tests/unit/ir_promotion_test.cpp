// ufjit::promote and ufjit::can_cast_safe against NumPy. The tables below
// were produced by NumPy 1.24.2 itself (np.result_type(a, b) and
// np.can_cast(a, b, "safe") over every pair of dtypes, in DType order); for
// two dtypes NumPy 2's rules are the same.
#include <gtest/gtest.h>

#include <string>

#include "ufjit/dtype.h"

namespace ufjit {
namespace {

constexpr int kN = 14;

// kResultType[a][b] == np.result_type(a, b).name
const char *const kResultType[kN][kN] = {
    {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int8", "int8", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"int16", "int16", "int16", "int32", "int64", "int16", "int32", "int64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"int32", "int32", "int32", "int32", "int64", "int32", "int32", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"int64", "int64", "int64", "int64", "int64", "int64", "int64", "int64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint8", "int16", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32", "float64", "complex64", "complex128"},
    {"uint16", "int32", "int32", "int32", "int64", "uint16", "uint16", "uint32", "uint64", "float32", "float32", "float64", "complex64", "complex128"},
    {"uint32", "int64", "int64", "int64", "int64", "uint32", "uint32", "uint32", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"uint64", "float64", "float64", "float64", "float64", "uint64", "uint64", "uint64", "uint64", "float64", "float64", "float64", "complex128", "complex128"},
    {"float16", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "float64", "float16", "float32", "float64", "complex64", "complex128"},
    {"float32", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "float64", "float32", "float32", "float64", "complex64", "complex128"},
    {"float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "float64", "complex128", "complex128"},
    {"complex64", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex128", "complex64", "complex64", "complex128", "complex64", "complex128"},
    {"complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128", "complex128"},
};

// kCanCast[a][b] == '1' iff np.can_cast(a, b, "safe")
const char *const kCanCast[kN] = {
    "11111111111111",
    "01111000011111",
    "00111000001111",
    "00011000000101",
    "00001000000101",
    "00111111111111",
    "00011011101111",
    "00001001100101",
    "00000000100101",
    "00000000011111",
    "00000000001111",
    "00000000000101",
    "00000000000011",
    "00000000000001",
};

DType dt(int i) { return static_cast<DType>(i); }

TEST(Promotion, MatchesNumPyResultTypeForEveryPair) {
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      EXPECT_EQ(std::string(dtype_name(promote(dt(a), dt(b)))), kResultType[a][b])
          << "promote(" << dtype_name(dt(a)) << ", " << dtype_name(dt(b)) << ")";
    }
  }
}

TEST(Promotion, MatchesNumPyCanCastSafeForEveryPair) {
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      EXPECT_EQ(can_cast_safe(dt(a), dt(b)), kCanCast[a][b] == '1')
          << "can_cast_safe(" << dtype_name(dt(a)) << ", " << dtype_name(dt(b)) << ")";
    }
  }
}

TEST(Promotion, NamedCasesFromTheLanguageSpec) {
  EXPECT_EQ(promote(DType::Int32, DType::Int64), DType::Int64);
  EXPECT_EQ(promote(DType::Int64, DType::UInt64), DType::Float64);
  EXPECT_EQ(promote(DType::Int32, DType::Float32), DType::Float64);
  EXPECT_EQ(promote(DType::Int16, DType::Float16), DType::Float32);
  EXPECT_EQ(promote(DType::UInt8, DType::Int8), DType::Int16);
  EXPECT_EQ(promote(DType::Float32, DType::Complex64), DType::Complex64);
  EXPECT_EQ(promote(DType::Float64, DType::Complex64), DType::Complex128);
  EXPECT_EQ(promote(DType::Bool, DType::Float16), DType::Float16);
}

TEST(Promotion, IsSymmetricAndBothOperandsCastSafelyToTheResult) {
  for (int a = 0; a < kN; ++a) {
    for (int b = 0; b < kN; ++b) {
      DType r = promote(dt(a), dt(b));
      EXPECT_EQ(r, promote(dt(b), dt(a)));
      EXPECT_TRUE(can_cast_safe(dt(a), r) && can_cast_safe(dt(b), r))
          << dtype_name(dt(a)) << ", " << dtype_name(dt(b)) << " -> " << dtype_name(r);
    }
  }
}

}  // namespace
}  // namespace ufjit
