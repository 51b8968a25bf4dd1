// The CPU backend end to end without the frontend: generated cast ufuncs
// (IR built by RuntimeCore) run through the generic call algorithm.
#include <gtest/gtest.h>

#include <numeric>

#include "runtime/Call.h"

namespace ufjit::runtime {
namespace {

class CpuBackendTest : public ::testing::Test {
 protected:
  CpuBackendTest() : core_(RuntimeOptions{.target = TargetKind::Cpu, .device = 0, .cpu_threads = 3}) {}
  Array cast(DType from, DType to, const std::vector<Operand> &operands) {
    const CompiledSignature &sig = core_.cast_signature(from, to);
    return run_call(core_, core_.backend(TargetKind::Cpu), sig.ufunc_name, {sig}, operands, nullptr);
  }
  RuntimeCore core_;
};

TEST_F(CpuBackendTest, ContiguousInt32ToFloat64) {
  std::vector<int32_t> x = {-3, 0, 7, 2147483647};
  Array r = cast(DType::Int32, DType::Float64, {Operand(view(x))});
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{-3, 0, 7, 2147483647.0}));
}

TEST_F(CpuBackendTest, StridedInputAndOutShapeCheck) {
  std::vector<int16_t> x = {1, 2, 3, 4, 5, 6};
  ArrayView every_other{x.data(), DType::Int16, {3}, {4}};
  Array r = cast(DType::Int16, DType::Float32, {Operand(every_other)});
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{1, 3, 5}));
  ArrayView column{x.data(), DType::Int16, {2, 1}, {2, 2}};
  std::vector<float> out(6, -1);
  ArrayView out_view{out.data(), DType::Float32, {2, 3}, {12, 4}};
  // The inputs broadcast to `out`'s shape (NumPy): (2,1) fills (2,3).
  cast(DType::Int16, DType::Float32, {Operand(column), Operand(Out{out_view})});
  EXPECT_EQ(out, (std::vector<float>{1, 1, 1, 2, 2, 2}));
  // `out` itself is never broadcast: (2,1) inputs do not fit a (3,) out.
  std::vector<float> small(3, -1);
  EXPECT_THROW(cast(DType::Int16, DType::Float32, {Operand(column), Operand(Out{view(small)})}), ShapeError);
  EXPECT_EQ(small, std::vector<float>(3, -1));
}

TEST_F(CpuBackendTest, LargeCallUsesThePoolAndMatches) {
  std::vector<int32_t> x(300001);
  std::iota(x.begin(), x.end(), -150000);
  Array r = cast(DType::Int32, DType::Float64, {Operand(view(x))});
  const double *p = r.host_data<double>();
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(p[i], static_cast<double>(x[i])) << i;
  }
}

TEST_F(CpuBackendTest, ScalarOperandGivesZeroDim) {
  Array r = cast(DType::Int64, DType::Float64, {Operand(typed<int64_t>(5))});
  EXPECT_EQ(r.view().ndim(), 0);
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{5.0}));
}

TEST_F(CpuBackendTest, KernelsAreCompiledOncePerVariant) {
  std::vector<int32_t> x(10, 1);
  const uint64_t before = core_.cache().stats().misses;
  cast(DType::Int32, DType::Int64, {Operand(view(x))});
  cast(DType::Int32, DType::Int64, {Operand(view(x))});
  KernelCacheStats s = core_.cache().stats();
  EXPECT_EQ(s.misses - before, 1u);
  EXPECT_GE(s.hits, 1u);
}

TEST_F(CpuBackendTest, ComplexAndHalfCasts) {
  std::vector<float> x = {1.5f, -2.0f, 65504.0f, 70000.0f};
  Array c = cast(DType::Float32, DType::Complex128, {Operand(view(x))});
  auto cv = c.to_vector<std::complex<double>>();
  EXPECT_EQ(cv[0], std::complex<double>(1.5, 0));
  Array h = cast(DType::Float32, DType::Float16, {Operand(view(x))});
  const auto *bits = static_cast<const uint16_t *>(h.data());
  EXPECT_EQ(bits[0], 0x3e00);  // 1.5
  EXPECT_EQ(bits[1], 0xc000);  // -2
  EXPECT_EQ(bits[2], 0x7bff);  // 65504
  EXPECT_EQ(bits[3], 0x7c00);  // overflow -> inf
}

}  // namespace
}  // namespace ufjit::runtime
