// Hostile and careless input at the call boundary (issue 8), on the CPU
// target: malformed views, allocation sizes, typed access to arrays,
// overlap between inputs and `out`, `out` shapes, and one error type per
// misuse of a handle.
#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

#include <ufjit/ufjit.h>

namespace {

using ufjit::Array;
using ufjit::ArrayView;
using ufjit::DType;
using Shape = std::vector<int64_t>;

class CallViews : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    rt_ = std::make_unique<ufjit::Runtime>(ufjit::RuntimeOptions{.target = ufjit::TargetKind::Cpu});
    combine_ = rt_->vectorize("def combine(a, b):\n    return a * 100 + b\n", {"float64(float64, float64)"});
  }
  static void TearDownTestSuite() {
    combine_ = ufjit::Ufunc();
    rt_.reset();
  }
  static std::unique_ptr<ufjit::Runtime> rt_;
  static ufjit::Ufunc combine_;
};
std::unique_ptr<ufjit::Runtime> CallViews::rt_;
ufjit::Ufunc CallViews::combine_;

std::vector<double> iota(std::size_t n) {
  std::vector<double> v(n);
  std::iota(v.begin(), v.end(), 0.0);
  return v;
}

// ------------------------------------------------------------------ views

TEST_F(CallViews, StrideZeroViewOfTwoToTheSixtyOneElementsIsAShapeErrorNotAnOverrun) {
  alignas(64) double buffer[8] = {};
  ArrayView huge{buffer, DType::Float64, {int64_t{1} << 61}, {0}};
  EXPECT_THROW(combine_(huge, 1.0), ufjit::ShapeError);  // 2^64 output bytes
}

TEST_F(CallViews, ViewWhoseByteExtentOverflowsIsAShapeError) {
  alignas(64) double buffer[8] = {};
  ArrayView wraps{buffer, DType::Float64, {int64_t{1} << 40}, {int64_t{1} << 40}};
  EXPECT_THROW(combine_(wraps, 1.0), ufjit::ShapeError);
  std::vector<double> out(4, -1.0);
  ArrayView wraps_out{out.data(), DType::Float64, {4}, {int64_t{1} << 62}};
  EXPECT_THROW(combine_(1.0, 1.0, ufjit::out(wraps_out)), ufjit::ShapeError);
  EXPECT_EQ(out, std::vector<double>(4, -1.0));
}

TEST_F(CallViews, NegativeStridesThatReachBelowAddressZeroAreAShapeError) {
  ArrayView below{reinterpret_cast<void *>(uintptr_t{4096}), DType::Float64, {1 << 20}, {-8}};
  EXPECT_THROW(combine_(below, 1.0), ufjit::ShapeError);
}

TEST_F(CallViews, NegativeDimensionIsAShapeError) {
  alignas(64) double buffer[8] = {};
  ArrayView negative{buffer, DType::Float64, {-5}, {8}};
  EXPECT_THROW(combine_(negative, 1.0), ufjit::ShapeError);
  EXPECT_THROW((void)negative.size(), ufjit::ShapeError);
}

TEST_F(CallViews, StridesThatDoNotMatchTheDimensionsAreAShapeError) {
  alignas(64) double buffer[8] = {};
  ArrayView bad{buffer, DType::Float64, {2, 2}, {8}};
  EXPECT_THROW(combine_(bad, 1.0), ufjit::ShapeError);
}

TEST_F(CallViews, NullDataWithElementsIsAnInputErrorAndWithoutElementsIsFine) {
  ArrayView null_data{nullptr, DType::Float64, {3}, {8}};
  EXPECT_THROW(combine_(null_data, 1.0), ufjit::InputError);
  ArrayView empty{nullptr, DType::Float64, {0}, {8}};
  EXPECT_EQ(combine_(empty, 1.0).size(), 0);
}

TEST_F(CallViews, MisalignedDataOrStridesAreAnInputError) {
  alignas(64) unsigned char bytes[128] = {};
  ArrayView misaligned_data{bytes + 1, DType::Float64, {4}, {8}};
  EXPECT_THROW(combine_(misaligned_data, 1.0), ufjit::InputError);
  ArrayView misaligned_stride{bytes, DType::Float64, {4}, {12}};
  EXPECT_THROW(combine_(misaligned_stride, 1.0), ufjit::InputError);
  ArrayView misaligned_out{bytes + 4, DType::Float64, {4}, {8}};
  EXPECT_THROW(combine_(1.0, 1.0, ufjit::out(misaligned_out)), ufjit::InputError);
  // A size-1 dim's stride is never used: any value is fine.
  ArrayView odd_unit_stride{bytes, DType::Float64, {1, 4}, {3, 8}};
  EXPECT_EQ(combine_(odd_unit_stride, 1.0).size(), 4);
}

TEST_F(CallViews, MovedFromArrayAsAnOperandIsAnInputError) {
  Array a = Array::host(DType::Float64, {3});
  Array b = std::move(a);
  EXPECT_THROW(combine_(a, 1.0), ufjit::InputError);  // NOLINT(bugprone-use-after-move): on purpose
}

TEST(ArrayChecks, HostArrayOfNegativeOrHugeShapeIsAShapeError) {
  EXPECT_THROW(Array::host(DType::Float64, {-5}), ufjit::ShapeError);
  EXPECT_THROW(Array::host(DType::Float64, {int64_t{1} << 61}), ufjit::ShapeError);
  EXPECT_THROW(Array::host(DType::Float64, {int64_t{1} << 32, int64_t{1} << 32}), ufjit::ShapeError);
}

TEST(ArrayChecks, HostArrayThatCannotBeAllocatedIsAnInputError) {
  EXPECT_THROW(Array::host(DType::UInt8, {int64_t{1} << 62}), ufjit::InputError);
}

TEST(ArrayChecks, TypedAccessChecksDtypeResidenceAndEmptiness) {
  Array a = Array::host(DType::Float64, {3});
  EXPECT_THROW(a.to_vector<float>(), ufjit::InputError);
  EXPECT_THROW(a.to_vector<std::complex<double>>(), ufjit::InputError);
  EXPECT_THROW(a.host_data<int64_t>(), ufjit::InputError);
  EXPECT_EQ(a.to_vector<double>(), std::vector<double>(3, 0.0));
  Array empty;
  EXPECT_THROW(empty.to_vector<double>(), ufjit::InputError);
  EXPECT_THROW(empty.host_data<double>(), ufjit::InputError);
  ArrayView on_device{reinterpret_cast<void *>(uintptr_t{1} << 40), DType::Float64, {3}, {8},
                      ufjit::Residence::Device};
  Array device(on_device, std::make_shared<Array::Holder>());
  EXPECT_THROW(device.to_vector<double>(), ufjit::InputError);
  EXPECT_THROW(device.host_data<double>(), ufjit::InputError);
}

TEST(ArrayChecks, ToVectorGathersAStridedArrayInCOrder) {
  Array base = Array::host(DType::Int32, {2, 3});
  for (int i = 0; i < 6; ++i) {
    base.host_data<int32_t>()[i] = i;
  }
  ArrayView transposed{base.data(), DType::Int32, {3, 2}, {4, 12}};
  const Array t(transposed, base.holder());
  EXPECT_EQ(t.to_vector<int32_t>(), (std::vector<int32_t>{0, 3, 1, 4, 2, 5}));
  Array flags = Array::host(DType::Bool, {2});
  flags.host_data<bool>()[1] = true;
  EXPECT_EQ(flags.to_vector<bool>(), (std::vector<bool>{false, true}));
}

TEST_F(CallViews, FortranOrderedResultConvertsToAVectorInCOrder) {
  std::vector<double> storage = iota(6);
  ArrayView f{storage.data(), DType::Float64, {2, 3}, {8, 16}};  // (2,3) Fortran
  Array r = combine_(f, f);
  ASSERT_TRUE(r.view().is_f_contiguous());
  EXPECT_EQ(r.to_vector<double>(), (std::vector<double>{0, 202, 404, 101, 303, 505}));
}

TEST_F(CallViews, RuntimeCopiesCheckTheirViewsAndSizes) {
  ArrayView null_data{nullptr, DType::Float64, {3}, {8}};
  EXPECT_THROW(rt_->to_host(null_data), ufjit::InputError);
  alignas(64) double buffer[8] = {};
  ArrayView negative{buffer, DType::Float64, {-1}, {8}};
  EXPECT_THROW(rt_->to_host(negative), ufjit::ShapeError);
  EXPECT_THROW(rt_->to_device(negative), ufjit::ShapeError);
  EXPECT_THROW(rt_->device_empty(DType::Float64, {-5}), ufjit::ShapeError);
  EXPECT_THROW(rt_->device_empty(DType::Float64, {int64_t{1} << 61}), ufjit::ShapeError);
}

// ---------------------------------------------------------------- overlap

TEST_F(CallViews, OutShiftedOverItsInputReadsEveryInputBeforeWriting) {
  for (const int64_t n : {int64_t{10}, int64_t{200000}}) {  // inline and thread-pool sizes
    std::vector<double> a = iota(static_cast<std::size_t>(n));
    ArrayView head{a.data(), DType::Float64, {n - 1}, {8}};
    ArrayView tail{a.data() + 1, DType::Float64, {n - 1}, {8}};
    combine_(head, 0.0, ufjit::out(tail));  // a[1:] = a[:-1] * 100
    ASSERT_EQ(a[0], 0.0);
    for (int64_t i = 1; i < n; ++i) {
      ASSERT_EQ(a[static_cast<std::size_t>(i)], static_cast<double>(i - 1) * 100) << "n=" << n << " i=" << i;
    }
  }
}

TEST_F(CallViews, OutIsTheReversedInputInPlace) {
  std::vector<double> a = iota(7);
  ArrayView reversed{a.data() + 6, DType::Float64, {7}, {-8}};
  combine_(reversed, 0.5, ufjit::out(ufjit::view(a)));  // a = a[::-1] * 100 + 0.5
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(a[static_cast<std::size_t>(i)], (6 - i) * 100 + 0.5) << i;
  }
}

TEST_F(CallViews, InputThatIsExactlyTheOutputWorksInPlace) {
  std::vector<double> a = iota(5);
  combine_(ufjit::view(a), ufjit::view(a), ufjit::out(a));
  EXPECT_EQ(a, (std::vector<double>{0, 101, 202, 303, 404}));
}

TEST_F(CallViews, BroadcastInputOverlappingTheOutputIsReadBeforeWriting) {
  std::vector<double> m = {1, 2, 3, 4};
  ArrayView first_row{m.data(), DType::Float64, {1, 2}, {16, 8}};  // m[0:1, :], broadcast over m
  combine_(ufjit::view(m.data(), {2, 2}), first_row, ufjit::out(ufjit::view(m.data(), {2, 2})));
  EXPECT_EQ(m, (std::vector<double>{101, 202, 301, 402}));  // every row adds the OLD first row
}

TEST_F(CallViews, TransposedInputOverTheSameMatrixIsReadBeforeWriting) {
  std::vector<double> m = iota(9);
  ArrayView transposed{m.data(), DType::Float64, {3, 3}, {8, 24}};
  combine_(transposed, 0.0, ufjit::out(ufjit::view(m.data(), {3, 3})));  // m = m.T * 100
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(m[static_cast<std::size_t>(i * 3 + j)], (j * 3 + i) * 100.0) << i << "," << j;
    }
  }
}

// ------------------------------------------------------------- out shapes

TEST_F(CallViews, InputsBroadcastToTheShapeOfOut) {
  std::vector<double> row = {1, 2, 3};
  std::vector<double> matrix(6, -1.0);
  combine_(ufjit::view(row), 1.0, ufjit::out(ufjit::view(matrix.data(), {2, 3})));
  EXPECT_EQ(matrix, (std::vector<double>{101, 201, 301, 101, 201, 301}));
  std::vector<double> filled(4, -1.0);
  combine_(2.0, 0.5, ufjit::out(ufjit::view(filled.data(), {2, 2})));
  EXPECT_EQ(filled, std::vector<double>(4, 200.5));
}

TEST_F(CallViews, OutIsNeverBroadcastAndAMismatchNamesBothShapes) {
  std::vector<double> matrix(6, 1.0);
  std::vector<double> row(3, -1.0);
  try {
    combine_(ufjit::view(matrix.data(), {2, 3}), 1.0, ufjit::out(row));
    FAIL() << "a (3,) out accepted a (2,3) result";
  } catch (const ufjit::ShapeError &e) {
    EXPECT_STREQ(e.what(),
                 "out(...) of 'combine' has shape (3,) but the inputs broadcast to (2,3), which does not broadcast "
                 "to it");
  }
  EXPECT_EQ(row, std::vector<double>(3, -1.0));
  std::vector<double> column(2, -1.0);
  EXPECT_THROW(combine_(ufjit::view(row), 1.0, ufjit::out(ufjit::view(column.data(), {2, 1}))), ufjit::ShapeError);
  EXPECT_EQ(column, std::vector<double>(2, -1.0));
}

// ---------------------------------------------------- misuse of handles

TEST_F(CallViews, EveryMisuseOfAHandleIsAnInputError) {
  ufjit::Ufunc empty;
  EXPECT_THROW(empty.name(), ufjit::InputError);
  EXPECT_THROW(empty(1.0), ufjit::InputError);
  EXPECT_THROW(empty.signatures(), ufjit::InputError);
  ufjit::Ufunc moved = combine_;
  ufjit::Ufunc taker = std::move(moved);
  EXPECT_THROW(moved(1.0, 2.0), ufjit::InputError);  // NOLINT(bugprone-use-after-move): on purpose
  ufjit::Stream no_stream;
  EXPECT_THROW(combine_.async(no_stream, 1.0, 2.0), ufjit::InputError);
  ufjit::Event event;
  EXPECT_THROW(event.record(no_stream), ufjit::InputError);
  ufjit::UfuncSet set = rt_->load("@vectorize(['float64(float64)'])\ndef twice(x):\n    return 2 * x\n");
  EXPECT_THROW(set["thrice"], ufjit::InputError);
  ArrayView on_device{reinterpret_cast<void *>(uintptr_t{1} << 40), DType::Float64, {3}, {8},
                      ufjit::Residence::Device};
  EXPECT_THROW(combine_(on_device, 1.0), ufjit::InputError);
}

}  // namespace
